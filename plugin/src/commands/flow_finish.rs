//! `lf flow finish`: a flow invocation finished, as `lf-flow finish`
//! records it.

use super::flow_advance::invocation_flag;
use super::{open, shown};
use crate::LfPlugin;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, SyntaxShape, Type, Value};

pub struct FlowFinish;

impl SimplePluginCommand for FlowFinish {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf flow finish"
    }

    fn description(&self) -> &str {
        "Mark a flow invocation finished; return the invocation."
    }

    fn extra_description(&self) -> &str {
        "All the invocation's reviews become past: none needs attention any more. Returns the \
invocation as a record {invocation_id, flow, task_id, finished, pending_session_id}. \
Finishing twice changes nothing. A new invocation of the same Task also finishes the older \
ones."
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
        vec![
            Example {
                example: "(lf flow finish --invocation inv-7).finished",
                description: "The flow is done with inv-7",
                result: Some(Value::test_bool(true)),
            },
            Example {
                example: "(lf sessions --kind flow).flow_membership.occurrence",
                description: "Its reviews are past",
                result: Some(Value::test_list(vec![Value::test_string("past")])),
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
        let invocation = invocation_flag(call)?;
        let finished = open(engine, call.head)?.finish_flow(&invocation.item);
        shown(engine, call, &[], finished)
    }

    super::completes!(At::Flag("invocation") => Completes::Invocations);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&FlowFinish);
    }
}
