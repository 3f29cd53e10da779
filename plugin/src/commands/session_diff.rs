//! `lf session diff`: what a session changed, for review, as
//! `lf-session-diff` prints it: a record whose `files` is a table.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionDiff;

impl SimplePluginCommand for SessionDiff {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session diff"
    }

    fn description(&self) -> &str {
        "What a session changed: its branch against its base, file by file."
    }

    fn extra_description(&self) -> &str {
        "A record {id, directory, worktree, branch, base, ahead, behind, uncommitted, files, \
untracked, insertions, deletions}, as lf-session-diff prints it; `files` is a table of \
{path, from, insertions, deletions, binary}. For a session with a worktree \
(lf session new --worktree), every file changed since its branch left its base, committed \
or not; otherwise its directory's repository against HEAD. --patch returns the unified \
diff as a string instead."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run.",
            )
            .switch("patch", "Return the unified diff as a string.", None)
            .input_output_types(vec![
                (Type::Nothing, Type::record()),
                (Type::Nothing, Type::String),
            ])
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "lf session diff a1b2c3d4e5f60718293a4b5c6d7e8f90 | get files | sort-by insertions --reverse",
                description: "The files a session changed, the most added first",
                result: None,
            },
            Example {
                example: "lf session diff a1b2c3d4e5f60718293a4b5c6d7e8f90 --patch | less -R",
                description: "Read the patch in a pager",
                result: None,
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
        let args = [(Arg::Id, id.span)];
        let lf = open(engine, call.head)?;
        if call.has_flag("patch").map_err(shell)? {
            let patch = lf
                .diff_patch(&id.item)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
            return shown(engine, call, &args, patch);
        }
        shown(engine, call, &args, lf.diff(&id.item))
    }

    super::completes!(At::Positional(0) => Completes::Sessions);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionDiff);
    }
}
