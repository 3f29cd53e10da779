//! `lf work wave list`: the registered waves.

use super::{open, shown};
use crate::LfPlugin;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

pub struct WorkWaveList;

impl SimplePluginCommand for WorkWaveList {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf work wave list"
    }

    fn description(&self) -> &str {
        "List the registered waves."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .input_output_type(Type::Nothing, Type::table())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "(lf work wave list).name",
            description: "The names of the waves",
            result: Some(Value::test_list(vec![Value::test_string("product")])),
        }]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        shown(engine, call, &[], open(engine, call.head)?.waves())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&WorkWaveList);
    }
}
