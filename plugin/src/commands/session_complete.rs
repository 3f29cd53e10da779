//! `lf session complete`: stop sessions' agents and close them. Takes one
//! id as its argument, or any number through the pipeline, so a filtered
//! table closes what it shows: `lf sessions | where state == ready | lf
//! session complete`.

use super::{error_at, open, piped_ids, shell};
use crate::LfPlugin;
use crate::value::to_value;
use lf::Arg;
use lf::session::worktree::{Completing, WorktreeRemoval};
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionComplete;

impl SimplePluginCommand for SessionComplete {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session complete"
    }

    fn description(&self) -> &str {
        "Stop sessions' agents and close them; return their final records."
    }

    fn extra_description(&self) -> &str {
        "Give one id as the argument (a record is returned), or pipe ids in: strings, records \
with an `id` column, or a list or table of them (a table is returned). Live clients get \
SIGTERM, then SIGKILL after --grace seconds. The returned records are closed and keep their \
ready summaries. A flow review can only be completed once it is ready. Every id is checked \
before any session is closed; if closing one fails, the ones before it stay closed. When \
several processes complete one session at once, exactly one succeeds."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .optional(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run (or pipe ids in).",
            )
            .named(
                "grace",
                SyntaxShape::Number,
                "Seconds between SIGTERM and SIGKILL for the sessions' live clients (default 5).",
                None,
            )
            .switch(
                "remove-worktree",
                "Also remove the session's worktree (lf session new --worktree), and its branch once merged into its base; refused while work would be lost.",
                None,
            )
            .switch(
                "force",
                "With --remove-worktree: remove it even if uncommitted or unmerged work would be lost.",
                None,
            )
            .input_output_types(vec![
                (Type::Nothing, Type::record()),
                (Type::String, Type::record()),
                (Type::record(), Type::record()),
                (Type::List(Box::new(Type::String)), Type::table()),
                (Type::table(), Type::table()),
                (Type::List(Box::new(Type::Any)), Type::table()),
            ])
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![
            Example {
                example: "(lf session complete 8b1e4d7a2c9f6e3b0a5d8c1f4e7b2a9d).state",
                description: "Close a session",
                result: Some(Value::test_string("closed")),
            },
            Example {
                example: "(lf sessions --state ready | lf session complete).ready_summary",
                description: "Close every session that is ready; their summaries stay",
                result: Some(Value::test_list(vec![Value::test_string(PARSER_SUMMARY)])),
            },
            Example {
                example: "('c5d2e9f6a3b0c7d4e1f8a5b2c9d6e3f0' | lf session complete).title",
                description: "Ids can be piped in as strings",
                result: Some(Value::test_string(DATABASE_TITLE)),
            },
        ]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        input: &Value,
    ) -> Result<Value, LabeledError> {
        let head = call.head;
        let how = completing(engine, call)?;
        let (ids, single) = given_ids(call, input)?;
        let selectors: Vec<&str> = ids.iter().map(|id| id.item.as_str()).collect();
        let tell = &mut |stopping: &lf::liveness::AgentStopping| {
            eprintln!("lf session complete: {stopping}");
        };
        let removed = &mut |removal: &WorktreeRemoval| {
            eprintln!("lf session complete: {removal}");
        };
        let completed = open(engine, head)?.complete_many(&selectors, &how, tell, removed);
        let mut records = completed
            .map_err(|(index, error)| failed(engine, call, &ids[index], how, error))?
            .iter()
            .map(|record| to_value(record, head))
            .collect::<Result<Vec<_>, _>>()?;
        if single && let Some(record) = records.pop() {
            return Ok(record);
        }
        Ok(Value::list(records, head))
    }

    super::completes!(At::Positional(0) => Completes::Sessions);
}

/// How the call asks to complete: --grace within the library's bound
/// (its default when not given), and the library's rules of its flags.
fn completing(engine: &EngineInterface, call: &EvaluatedCall) -> Result<Completing, LabeledError> {
    super::check_flags(engine, call, &lf::input::COMPLETING)?;
    let grace = match call.get_flag::<f64>("grace").map_err(shell)? {
        Some(grace) => lf::input::seconds(Arg::Grace, grace)
            .map_err(|error| super::fail(engine, call, &[], error))?,
        None => lf::input::DEFAULT_GRACE,
    };
    Ok(Completing {
        grace,
        remove_worktree: call.has_flag("remove-worktree").map_err(shell)?,
        force: call.has_flag("force").map_err(shell)?,
    })
}

/// The ids to complete: the argument, or the pipeline's (not both); and
/// whether one record is returned rather than a table.
fn given_ids(
    call: &EvaluatedCall,
    input: &Value,
) -> Result<(Vec<Spanned<String>>, bool), LabeledError> {
    let argument: Option<Spanned<String>> = call.opt(0).map_err(shell)?;
    let mut ids = Vec::new();
    piped_ids(input, &mut ids)?;
    let single = match (argument, ids.is_empty()) {
        (Some(id), true) => {
            ids.push(id);
            true
        }
        (Some(id), false) => {
            return Err(LabeledError::new(
                "give the session ids as the argument or through the pipeline, not both",
            )
            .with_label("an id here", id.span)
            .with_label("and ids piped in", input.span()));
        }
        (None, true) if !matches!(input, Value::List { .. }) => {
            return Err(LabeledError::new(
                    "which session? give its id, or pipe ids in: lf sessions | where state == ready | lf session complete",
                )
                .with_label("needs a session id", call.head));
        }
        (None, _) => !matches!(input, Value::List { .. }),
    };
    Ok((ids, single))
}

/// A failure of one id, under it. Removing a worktree may fail over
/// another argument (`--force`), which `fail` finds.
fn failed(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    id: &Spanned<String>,
    how: Completing,
    error: lf::Error,
) -> LabeledError {
    if how.remove_worktree {
        super::fail(engine, call, &[(Arg::Id, id.span)], error)
    } else {
        error_at(error, id.span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionComplete);
    }

    #[test]
    fn a_typo_closes_none_of_the_list() {
        let mut demo = crate::demo::plugin_test();
        let source = format!(
            "['{}' 'abcdef0123'] | lf session complete",
            crate::demo::PARSER
        );
        let error = match demo.test.eval(&source) {
            Ok(data) => data
                .into_value(nu_protocol::Span::test_data())
                .expect_err("a typo fails"),
            Err(error) => error,
        };
        let message = format!("{error:?}");
        assert!(message.contains("lf::not_found"), "{message}");
        let lf = lf::Lf::at(demo.home.clone(), lf::Caller::default());
        let parser = lf.get(crate::demo::PARSER).unwrap();
        assert!(parser.completed_at.is_none(), "closed before the typo");
    }
}
