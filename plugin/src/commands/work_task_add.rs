//! `lf work task add`: register a Task, one identified piece of work,
//! usually with a worktree.

use super::{open, required, shell, shown, user_path};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct WorkTaskAdd;

impl SimplePluginCommand for WorkTaskAdd {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf work task add"
    }

    fn description(&self) -> &str {
        "Register a Task and return it."
    }

    fn extra_description(&self) -> &str {
        "A session whose working directory lies inside a Task's worktree is associated with \
that Task (the innermost worktree wins)."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "identifier",
                SyntaxShape::String,
                "The Task's identifier, such as LOO-291.",
            )
            .required_named("title", SyntaxShape::String, "The Task's title.", None)
            .named(
                "worktree",
                SyntaxShape::Directory,
                "The Task's checkout; sessions working inside it are associated with it.",
                None,
            )
            .named(
                "wave",
                SyntaxShape::String,
                "The wave the Task belongs to (id or name).",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![Example {
            example: "(lf work task add LOO-300 --title 'Speed up listing' --wave product).work_path",
            description: "Register a Task of a wave",
            result: Some(Value::test_string("product / LOO-300")),
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
        let identifier: Spanned<String> = call.req(0).map_err(shell)?;
        let title: String = required(call, "title")?;
        let worktree = call
            .get_flag::<Spanned<String>>("worktree")
            .map_err(shell)?
            .map(|dir| user_path(engine, &dir));
        let wave: Option<String> = call.get_flag("wave").map_err(shell)?;
        let task = open(engine, head)?.add_task(lf::work::NewTask {
            identifier: &identifier.item,
            title: &title,
            worktree: worktree.as_deref(),
            wave: wave.as_deref(),
        });
        shown(engine, call, &[(Arg::Identifier, identifier.span)], task)
    }

    super::completes!(At::Flag("wave") => Completes::Waves);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&WorkTaskAdd);
    }
}
