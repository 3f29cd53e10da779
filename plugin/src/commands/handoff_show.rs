//! `lf handoff show`: one interactive handoff, as `lf-handoff show` prints
//! it.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct HandoffShow;

impl SimplePluginCommand for HandoffShow {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf handoff show"
    }

    fn description(&self) -> &str {
        "Return one handoff's record."
    }

    fn extra_description(&self) -> &str {
        "The columns of lf-handoff show: times are datetimes (attached_at and finished_at are \
null until then), outcome is null or a record {kind, summary} ({kind, reason} when it \
failed). What lf-handoff attach --exec would run from this shell is attach_program (the \
first word of attach_argv found on your PATH, null if it is not there) with attach_argv, in \
cwd, with the variables of environment_names. Their values may be secret: only their names \
are shown, and an agent may give only credentials (names ending in _TOKEN, _KEY, _KEY_ID, \
_SECRET or _PASSWORD), none of which changes which program runs or what it loads."
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
        use crate::demo::*;
        vec![
            Example {
                example: "(lf handoff show handoff-01kdw0000000000000000000h1).reason",
                description: "Why a person is needed",
                result: Some(Value::test_string(HANDOFF_LOGIN_REASON)),
            },
            Example {
                example: "(lf handoff show handoff-01kdw0000000000000000000h1).environment_names",
                description: "The attach command's variables, by name only: values may be secret",
                result: Some(Value::test_list(vec![Value::test_string("GH_TOKEN")])),
            },
            Example {
                example: "(lf handoff show handoff-01kdw0000000000000000000h0).outcome.summary",
                description: "What the person said when handing the work back",
                result: Some(Value::test_string(HANDOFF_DEPLOY_SUMMARY)),
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
        let handoff = open(engine, call.head)?.handoff(&id.item);
        shown(engine, call, &[(Arg::Id, id.span)], handoff)
    }

    super::completes!(At::Positional(0) => Completes::Handoffs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&HandoffShow);
    }
}
