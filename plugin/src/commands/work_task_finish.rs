//! `lf work task finish`: mark a Task finished.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct WorkTaskFinish;

impl SimplePluginCommand for WorkTaskFinish {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf work task finish"
    }

    fn description(&self) -> &str {
        "Mark a Task finished and return it; its flow reviews then need no attention."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required("task", SyntaxShape::String, "The Task id or identifier.")
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "(lf work task finish LOO-291).finished",
            description: "Finish a Task",
            result: Some(Value::test_bool(true)),
        }]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let task: Spanned<String> = call.req(0).map_err(shell)?;
        let finished = open(engine, call.head)?.finish_task(&task.item);
        shown(engine, call, &[(Arg::Task, task.span)], finished)
    }

    super::completes!(At::Positional(0) => Completes::Tasks);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&WorkTaskFinish);
    }
}
