//! `lf session bind`: bind a session to a Task, permanently.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Record, Signature, Spanned, SyntaxShape, Type, Value,
};

pub struct SessionBind;

impl SimplePluginCommand for SessionBind {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session bind"
    }

    fn description(&self) -> &str {
        "Bind a session to a Task, permanently, and return its record."
    }

    fn extra_description(&self) -> &str {
        "The session then shows the Task as its work (and its wave in work_path). Binding is \
permanent: binding the same Task again changes nothing, a different Task is refused. \
--preview returns what would be bound ({session_id, task_id, identifier, title}) and binds \
nothing."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run.",
            )
            .required("task", SyntaxShape::String, "The Task id or identifier.")
            .switch("preview", "Show what would be bound; bind nothing.", None)
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        let preview = Record::from_iter([
            ("session_id".to_owned(), Value::test_string(EXPLORE)),
            ("task_id".to_owned(), Value::test_string(TASK)),
            ("identifier".to_owned(), Value::test_string("LOO-291")),
            ("title".to_owned(), Value::test_string(PARSER_TITLE)),
        ]);
        vec![
            Example {
                example: "lf session bind a1b2c3d4e5f60718293a4b5c6d7e8f90 LOO-291 --preview",
                description: "See what binding would do",
                result: Some(Value::test_record(preview)),
            },
            Example {
                example: "(lf session bind a1b2c3d4e5f60718293a4b5c6d7e8f90 LOO-291).work_path",
                description: "Bind the session to the Task",
                result: Some(Value::test_string("product / LOO-291")),
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
        let task: Spanned<String> = call.req(1).map_err(shell)?;
        let args = [(Arg::Id, id.span), (Arg::Task, task.span)];
        let lf = open(engine, call.head)?;
        let preview = lf.preview_binding(&id.item, &task.item);
        if call.has_flag("preview").map_err(shell)? {
            return shown(engine, call, &args, preview);
        }
        let preview = preview.map_err(|error| super::fail(engine, call, &args, error))?;
        eprintln!(
            "Binding {} to {} ({}). Permanent.",
            preview.session_id, preview.identifier, preview.title
        );
        shown(engine, call, &args, lf.bind(&id.item, &task.item))
    }

    super::completes!(
        At::Positional(0) => Completes::Sessions,
        At::Positional(1) => Completes::Tasks,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionBind);
    }
}
