//! `lf active`: the live-process snapshot of `lf-session-active` as one
//! typed record — which agent processes run right now, each with the one
//! Session exact evidence attributes it to, and the gaps.

use super::{open, shell, shown};
use crate::LfPlugin;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, SyntaxShape, Type, Value};

pub struct Active;

impl SimplePluginCommand for Active {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf active"
    }

    fn description(&self) -> &str {
        "Show the agent processes running now, each with the one session it belongs to."
    }

    fn extra_description(&self) -> &str {
        "The snapshot of lf-session-active as a record {discovery, home, observed_at, task, \
sessions, gaps}: observed_at is a datetime, task is null or the Task id of --task, sessions is \
a table (newest first) of {id, title, work, processes} where work is a record or null and \
processes is a table of {pid, ppid, provider, command, started_at, state} (pids are ints, \
command a list of strings, started_at a datetime, state running or waiting), and gaps is a \
list of strings. A process belongs to a session only by exact evidence (a client receipt, or \
running beneath a recorded lf-serve launcher); whatever lf cannot attribute to exactly one \
session, and every stale receipt, is a gap in words. Observing is passive: the database is \
only read. When /proc or the database cannot be read, discovery is `unavailable`, sessions is \
empty and gaps say why.

Compose it:
  lf active | get sessions | select id title
  lf active | get sessions | flatten processes | where state == running | select id pid command
  lf active --task LOO-291 | get gaps

The examples below describe a demo Home where no agent process runs."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["process", "running", "live", "pid", "snapshot"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .named(
                "task",
                SyntaxShape::String,
                "Only sessions bound to this Task (id or identifier).",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![
            Example {
                example: "(lf active).sessions",
                description: "The sessions with live processes: none run in the demo",
                result: Some(Value::test_list(Vec::new())),
            },
            Example {
                example: "lf active | [$in.discovery ($in.observed_at | describe) $in.gaps]",
                description: "/proc was read, when is a datetime, and nothing is unresolved",
                result: Some(Value::test_list(vec![
                    Value::test_string("ready"),
                    Value::test_string("datetime"),
                    Value::test_list(Vec::new()),
                ])),
            },
            Example {
                example: "(lf active --task LOO-291).task",
                description: "Only the sessions of a Task, named by its identifier",
                result: Some(Value::test_string(TASK)),
            },
        ]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let task = call.get_flag::<String>("task").map_err(shell)?;
        // Observing is passive: the snapshot only reads the Home.
        let snapshot = open(engine, call.head)?.active(task.as_deref());
        shown(engine, call, &[], snapshot)
    }

    super::completes!(At::Flag("task") => Completes::Tasks);
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::Span;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Active);
    }

    #[test]
    fn an_unknown_task_is_the_library_error() {
        let mut demo = crate::demo::plugin_test();
        let error = match demo.test.eval("lf active --task NOPE-1") {
            Ok(data) => data
                .into_value(Span::test_data())
                .expect_err("an unknown Task fails"),
            Err(error) => error,
        };
        let message = format!("{error:?}");
        assert!(
            message.contains("Task \\\"NOPE-1\\\" is not registered"),
            "{message}"
        );
    }
}
