//! `lf work task list`: the registered Tasks.

use super::{open, shown};
use crate::LfPlugin;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

pub struct WorkTaskList;

impl SimplePluginCommand for WorkTaskList {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf work task list"
    }

    fn description(&self) -> &str {
        "List the registered Tasks."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .input_output_type(Type::Nothing, Type::table())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "(lf work task list).work_path",
            description: "Where each Task sits",
            result: Some(Value::test_list(vec![Value::test_string(
                "product / LOO-291",
            )])),
        }]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        shown(engine, call, &[], open(engine, call.head)?.tasks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&WorkTaskList);
    }
}
