//! `lf handoff attach`: record that a person takes over a handoff, as
//! `lf-handoff attach` does without --exec. A plugin has no terminal to
//! hand over, so running the attach command is left to the binary.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct HandoffAttach;

impl SimplePluginCommand for HandoffAttach {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf handoff attach"
    }

    fn description(&self) -> &str {
        "Record that a person attaches to a handoff; return the handoff."
    }

    fn extra_description(&self) -> &str {
        "Attaching is idempotent: the first attach time never changes. A handoff that already \
has an outcome has nothing to attach to. A handoff stored by an older lf with a variable an \
agent may no longer give (anything but a credential, such as PATH or LD_PRELOAD) is refused, \
and nothing is recorded.

A plugin has no terminal of its own, so this does not run the attach command (attach_argv). \
To put yourself in the handed-off terminal, run in a terminal: lf-handoff attach <id> --exec"
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The handoff id (handoff- and 26 base32 characters).",
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf handoff attach handoff-01kdw0000000000000000000h1).status",
                description: "A person takes over the waiting handoff",
                result: Some(Value::test_string("attached")),
            },
            Example {
                example: "(lf handoff attach handoff-01kdw0000000000000000000h1).attached_at | describe",
                description: "Attaching again changes nothing; the attach time is a datetime",
                result: Some(Value::test_string("datetime")),
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
        let id: Spanned<String> = call.req(0).map_err(shell)?;
        // The attach argv and its environment stay here: they are for a
        // terminal, and the environment's values may be secret.
        let attach = open(engine, call.head)?.attach_handoff(&id.item);
        shown(
            engine,
            call,
            &[(Arg::Id, id.span)],
            attach.map(|attach| attach.record),
        )
    }

    super::completes!(At::Positional(0) => Completes::ActiveHandoffs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&HandoffAttach);
    }
}
