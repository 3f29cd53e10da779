//! `lf count`: how many sessions need the person, per kind of attention,
//! as `lf-session-count --json` prints it.

use super::{open, shown};
use crate::LfPlugin;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value};

pub struct Count;

impl SimplePluginCommand for Count {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf count"
    }

    fn description(&self) -> &str {
        "Count the sessions that need you, per kind of attention."
    }

    fn extra_description(&self) -> &str {
        "A record {review, approve, reply, total} of the open sessions that need you, \
as lf-session-count --json prints it. It reads the database read-only."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["attention", "waiting", "status"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf count).total",
                description: "How many sessions need you: two reviews, an approval and a reply",
                result: Some(Value::test_int(4)),
            },
            Example {
                example: "(lf count).approve",
                description: "How many agents are blocked on a permission prompt",
                result: Some(Value::test_int(1)),
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
        shown(
            engine,
            call,
            &[],
            open(engine, call.head)?.attention_counts(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Count);
    }
}
