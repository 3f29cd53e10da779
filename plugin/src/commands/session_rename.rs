//! `lf session rename`: give a session a title.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use lf::wire::TitleSource;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionRename;

impl SimplePluginCommand for SessionRename {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session rename"
    }

    fn description(&self) -> &str {
        "Rename a session and return its record."
    }

    fn extra_description(&self) -> &str {
        "A title is trimmed and must be 1-200 characters without control, text-direction or invisible characters. A \
--generated title is a suggestion: it never replaces a title a person chose (the rename \
succeeds, keeps the title and says so on stderr)."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run.",
            )
            .required("title", SyntaxShape::String, "The new title.")
            .switch(
                "generated",
                "The title is generated (by an agent), not chosen by a person.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf session rename a1b2c3d4e5f60718293a4b5c6d7e8f90 'Map the codebase').title",
                description: "Rename a session",
                result: Some(Value::test_string("Map the codebase")),
            },
            Example {
                example: "(lf session rename a1b2c3d4e5f60718293a4b5c6d7e8f90 'Codebase tour' --generated).title",
                description: "A generated title never replaces one a person chose",
                result: Some(Value::test_string("Map the codebase")),
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
        let title: Spanned<String> = call.req(1).map_err(shell)?;
        let args = [(Arg::Id, id.span), (Arg::Title, title.span)];
        let source = if call.has_flag("generated").map_err(shell)? {
            TitleSource::Generated
        } else {
            TitleSource::Human
        };
        let renamed = open(engine, call.head)?.rename(&id.item, &title.item, source);
        let renamed = renamed.map(|(record, changed)| {
            if !changed {
                eprintln!(
                    "lf session rename: kept the title a person chose; a generated title never replaces it"
                );
            }
            record
        });
        shown(engine, call, &args, renamed)
    }

    super::completes!(At::Positional(0) => Completes::Sessions);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionRename);
    }
}
