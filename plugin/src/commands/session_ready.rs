//! `lf session ready`: run by the agent inside its session (say, from a
//! Nushell the agent started) to mark the session ready for review.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionReady;

/// A variable the agent's launcher exports, from the engine's environment.
impl SimplePluginCommand for SessionReady {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session ready"
    }

    fn description(&self) -> &str {
        "Mark this agent's session ready for review (run by the agent)."
    }

    fn extra_description(&self) -> &str {
        "Run inside a session lf launched: $env.LF_SESSION_ID and $env.LF_RUN_ID say which \
session and Run it speaks for. Only the session's current Run may mark it ready. Returns \
the updated record, whose attention becomes \"review\"."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "summary",
                SyntaxShape::String,
                "What is ready and what the reviewer should look at.",
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf session ready 'Mapped the modules; see docs/map.md').attention",
                description: "Say the work is ready; the session now needs review",
                result: Some(Value::test_string("review")),
            },
            Example {
                example: "(lf session ready 'Mapped the modules and the tests').ready_summary",
                description: "Saying it again replaces the summary",
                result: Some(Value::test_string("Mapped the modules and the tests")),
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
        let summary: Spanned<String> = call.req(0).map_err(shell)?;
        let args = [(Arg::Summary, summary.span)];
        let ready = open(engine, call.head)?.ready(&summary.item);
        shown(engine, call, &args, ready)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionReady);
    }
}
