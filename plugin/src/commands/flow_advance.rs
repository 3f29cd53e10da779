//! `lf flow advance`: the orchestrator moved a flow invocation past its
//! review position, as `lf-flow advance` records it.

use super::{open, shown};
use crate::LfPlugin;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value, record,
};

pub struct FlowAdvance;

impl SimplePluginCommand for FlowAdvance {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf flow advance"
    }

    fn description(&self) -> &str {
        "Move a flow invocation past its review; return the invocation."
    }

    fn extra_description(&self) -> &str {
        "The invocation's reviews become earlier positions: none of them needs attention any \
more, and pending_session_id is null until the next `lf flow review`. Returns the invocation \
as a record {invocation_id, flow, task_id, finished, pending_session_id}. A finished \
invocation does not move."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required_named(
                "invocation",
                SyntaxShape::String,
                "The flow invocation.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![Example {
            example: "lf flow advance --invocation inv-7",
            description: "The orchestrator moved on: the pending review of inv-7 needs no attention",
            result: Some(Value::test_record(record! {
                "invocation_id" => Value::test_string("inv-7"),
                "flow" => Value::test_string("feature"),
                "task_id" => Value::test_string(TASK),
                "finished" => Value::test_bool(false),
                "pending_session_id" => Value::test_nothing(),
            })),
        }]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let invocation = invocation_flag(call)?;
        let advanced = open(engine, call.head)?.advance_flow(&invocation.item);
        shown(engine, call, &[], advanced)
    }

    super::completes!(At::Flag("invocation") => Completes::Invocations);
}

/// The `--invocation` of `lf flow advance` and `lf flow finish`.
pub(crate) fn invocation_flag(call: &EvaluatedCall) -> Result<Spanned<String>, LabeledError> {
    super::required(call, "invocation")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&FlowAdvance);
    }
}
