//! `lf work wave add`: register a wave, a named stream of work in a
//! repository.

use super::{open, required, shell, shown, user_path};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct WorkWaveAdd;

impl SimplePluginCommand for WorkWaveAdd {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf work wave add"
    }

    fn description(&self) -> &str {
        "Register a wave (a named stream of work in a repository) and return it."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "name",
                SyntaxShape::String,
                "The wave's name, shown in work_path.",
            )
            .required_named(
                "repo",
                SyntaxShape::Directory,
                "The repository the wave works in.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "(lf work wave add research --repo .).name",
            description: "Register a wave in the current repository",
            result: Some(Value::test_string("research")),
        }]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let head = call.head;
        let name: Spanned<String> = call.req(0).map_err(shell)?;
        let repo: Spanned<String> = required(call, "repo")?;
        let wave = open(engine, head)?.add_wave(&name.item, &user_path(engine, &repo));
        shown(engine, call, &[(Arg::Name, name.span)], wave)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&WorkWaveAdd);
    }
}
