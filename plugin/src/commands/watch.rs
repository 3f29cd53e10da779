//! `lf watch`: the change stream as a Nushell stream of typed records, as
//! `lf-session-watch` prints it.

use super::{fail, open, shell};
use crate::LfPlugin;
use crate::value::to_value;
use lf::changes::{Next, WatchOptions};
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, ListStream, PipelineData, Signature, SyntaxShape, Type, Value,
};
use std::time::Duration;

/// How long the stream waits before it looks whether the person pressed
/// Ctrl-C, or the shell went away.
const INTERRUPT_EVERY: Duration = Duration::from_millis(500);

pub struct Watch;

impl PluginCommand for Watch {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf watch"
    }

    fn description(&self) -> &str {
        "Stream every change to your sessions as it happens."
    }

    fn extra_description(&self) -> &str {
        "One record per event, as lf-session-watch prints it: seq (the event's number, in commit \
order), at (a datetime), session_id, kind (created, completed, state, attention, title, \
ready_summary or answered), from and to (the value before and after, a string or null), by (who \
answered the agent from afar, for an answered event: to is sent, allowed, allowed_always or \
denied; null otherwise), and record (the session after the change). Without --since it starts with the next change and follows until \
Ctrl-C; --since SEQ resumes exactly after an event, and --no-follow ends once caught up.

Compose it:
  lf watch --attention | where to == approve | each { |e| ^notify-send $'($e.record.title) asks for approval' }
  lf watch --since 0 --no-follow | group-by kind | transpose kind events"
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["events", "follow", "notify", "attention", "stream"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .named(
                "since",
                SyntaxShape::Int,
                "Start after the event with this seq (0: with the oldest the Home keeps).",
                None,
            )
            .switch(
                "attention",
                "Only attention events: into or out of review, approve or reply.",
                None,
            )
            .switch(
                "no-follow",
                "End once caught up instead of waiting for more.",
                None,
            )
            .input_output_type(Type::Nothing, Type::list(Type::record()))
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf watch --since 0 --no-follow).0.kind",
                description: "The first event the demo Home keeps: a session was created",
                result: Some(Value::test_string("created")),
            },
            Example {
                example: "(lf watch --since 0 --no-follow --attention).to",
                description: "The demo's changes of attention, in order (null: no longer owed)",
                result: Some(Value::test_list(vec![
                    Value::test_string("review"),
                    Value::test_string("reply"),
                    Value::test_string("approve"),
                    Value::test_string("review"),
                    Value::test_nothing(),
                    Value::test_string("review"),
                ])),
            },
            Example {
                example: "(lf watch --since 0 --no-follow).0.at | describe",
                description: "Times are datetimes",
                result: Some(Value::test_string("datetime")),
            },
            Example {
                example: "lf watch --attention | each { |event| print $'($event.record.title): ($event.to)' }",
                description: "Print each change of attention as it happens, until Ctrl-C",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: PipelineData,
    ) -> Result<PipelineData, LabeledError> {
        let head = call.head;
        let since = super::natural_flag(engine, call, "since", "the seq of an event")?;
        let options = WatchOptions {
            since,
            attention: call.has_flag("attention").map_err(shell)?,
            follow: !call.has_flag("no-follow").map_err(shell)?,
        };
        let fail = |error| fail(engine, call, &[], error);
        let mut watch = open(engine, head)?.watch(options).map_err(fail)?;
        if let Some(gap) = watch.gap() {
            eprintln!("lf watch: {gap}");
        }
        let signals = engine.signals().clone();
        let interrupted = signals.clone();
        let engine = engine.clone();
        let mut failed = false;
        let events = std::iter::from_fn(move || {
            loop {
                if failed || interrupted.interrupted() {
                    return None;
                }
                let value = match watch.next_within(INTERRUPT_EVERY) {
                    Ok(Next::Event(event)) => to_value(&event, head),
                    // Nushell tells a plugin of a dropped stream only when
                    // it writes the next item; while nothing happens, ask
                    // the engine whether it is still there at all, so a
                    // follower does not outlive the shell that started it.
                    Ok(Next::Idle) if engine.get_current_dir().is_ok() => continue,
                    Ok(Next::Idle) => return None,
                    Ok(Next::End) => return None,
                    // The error is the stream's last item.
                    Err(error) => {
                        failed = true;
                        Err(super::error_at(error, head))
                    }
                };
                return Some(value.unwrap_or_else(|error| Value::error(error.into(), head)));
            }
        });
        Ok(PipelineData::list_stream(
            ListStream::new(events, head, signals),
            None,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Watch);
    }
}
