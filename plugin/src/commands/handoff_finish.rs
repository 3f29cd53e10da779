//! `lf handoff finish`: record a handoff's outcome, as `lf-handoff finish`
//! does. The first outcome wins: repeating it returns it, a different one
//! is refused.

use super::{open, shell, shown, value_span};
use crate::LfPlugin;
use lf::Arg;
use lf::wire::HandoffOutcome;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct HandoffFinish;

impl SimplePluginCommand for HandoffFinish {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf handoff finish"
    }

    fn description(&self) -> &str {
        "Record a handoff's outcome and return the handoff; the first outcome wins."
    }

    fn extra_description(&self) -> &str {
        "Give exactly one outcome: --handed-back SUMMARY (the person gives the work back to \
the agent), --completed SUMMARY (the person finished it) or --failed REASON. The first \
outcome recorded stands, also when several processes finish at once: repeating it returns \
the handoff unchanged, a different one is an error. Afterwards the agent's next body \
generation claims the wake with `lf handoff claim-wake`."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The handoff id (handoff- and 26 base32 characters).",
            )
            .named(
                "handed-back",
                SyntaxShape::String,
                "The person gives the work back to the agent, with this summary.",
                None,
            )
            .named(
                "completed",
                SyntaxShape::String,
                "The person finished the work, with this summary.",
                None,
            )
            .named(
                "failed",
                SyntaxShape::String,
                "The handoff failed, for this reason.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf handoff finish handoff-01kdw0000000000000000000h1 --handed-back 'Logged in; carry on').status",
                description: "The person logged in and gives the work back to the agent",
                result: Some(Value::test_string("handed_back")),
            },
            Example {
                example: "(lf handoff finish handoff-01kdw0000000000000000000h1 --handed-back 'Logged in; carry on').outcome.summary",
                description: "Repeating the outcome returns it; a different one would be refused",
                result: Some(Value::test_string("Logged in; carry on")),
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
        let head = call.head;
        let id: Spanned<String> = call.req(0).map_err(shell)?;
        let mut given = Vec::new();
        for flag in HandoffOutcome::FLAGS {
            if let Some(text) = call.get_flag::<Spanned<String>>(flag).map_err(shell)? {
                given.push((flag, text));
            }
        }
        let (flag, text) = match given.len() {
            1 => given.remove(0),
            0 => {
                return Err(LabeledError::new(
                    "give the handoff's outcome: --handed-back SUMMARY, --completed SUMMARY or --failed REASON",
                )
                .with_code("lf::usage")
                .with_label("needs an outcome", head));
            }
            _ => {
                let mut error = LabeledError::new(
                    "give one outcome only: --handed-back, --completed or --failed",
                )
                .with_code("lf::usage");
                for (flag, text) in &given {
                    error = error.with_label(format!("--{flag}"), text.span);
                }
                return Err(error);
            }
        };
        let outcome =
            HandoffOutcome::of_flag(flag, text.item.clone()).expect("one of the outcome flags");
        // The outcome's text (and an outcome refused because another one
        // stands) is about the outcome flag given.
        let outcome_span = value_span(engine, text.span);
        let args = [
            (Arg::Id, id.span),
            (Arg::Outcome, outcome_span),
            (Arg::Summary, outcome_span),
            (Arg::Reason, outcome_span),
        ];
        let finished = open(engine, head)?.finish_handoff(&id.item, outcome);
        let stands = matches!(
            finished,
            Err(lf::Error::Handoff(
                lf::error::HandoffError::OutcomeStands { .. }
            ))
        );
        shown(engine, call, &args, finished).map_err(|error| {
            if stands {
                error.with_help(format!(
                    "see the outcome that stands: lf handoff show {}",
                    id.item
                ))
            } else {
                error
            }
        })
    }

    super::completes!(At::Positional(0) => Completes::ActiveHandoffs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&HandoffFinish);
    }
}
