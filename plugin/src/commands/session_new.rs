//! `lf session new`: record a conversation and, unless told not to, launch
//! it in its durable tmux session, as `lf-session-new` does.

use super::{open, shell, shown, user_path};
use crate::LfPlugin;
use lf::Arg;
use lf::provider::Provider;
use lf::session::OpenOptions;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Signature, Span, Spanned, SyntaxShape, Type, Value,
};

pub struct SessionNew;

impl SimplePluginCommand for SessionNew {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session new"
    }

    fn description(&self) -> &str {
        "Create a conversation with an agent, launch it in tmux, and return its record."
    }

    fn extra_description(&self) -> &str {
        "Records the session, prepares its first Run and launches it in a durable tmux \
session (lf-<12 id characters>), then returns the session's record. --no-launch only \
records it (lf session open launches it later). The working directory is --cwd, else the \
Task's worktree, else your current directory. For --provider command, give the command as \
a list: --argv [htop -d 5]. --worktree NAME creates the branch NAME from --base (default: \
the repository's current branch) in a new worktree beside the repository, registers it \
as the session's Task and runs the agent there, as `lf-session-new --worktree=NAME` does.

Go to a launched session with `lf session open <id>` inside tmux, or with \
`lf-session-open <id>` in a terminal."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .optional(
                "prompt",
                SyntaxShape::String,
                "The first message to the agent.",
            )
            .named(
                "provider",
                SyntaxShape::String,
                "The agent CLI to run: claude (the default), codex, gemini, opencode or command.",
                None,
            )
            .named(
                "model",
                SyntaxShape::String,
                "The model, passed to the provider's --model.",
                None,
            )
            .named(
                "title",
                SyntaxShape::String,
                "The title (1-200 characters); by default one is made from the prompt.",
                None,
            )
            .named(
                "cwd",
                SyntaxShape::Directory,
                "The working directory (default: the Task's worktree, else the current directory).",
                None,
            )
            .named(
                "task",
                SyntaxShape::String,
                "Bind the session to this Task (id or identifier).",
                None,
            )
            .named(
                "worktree",
                SyntaxShape::String,
                "Work in a new git worktree on a new branch of this name, registered as the session's Task.",
                None,
            )
            .named(
                "base",
                SyntaxShape::String,
                "The branch the worktree's branch starts from (default: the current branch).",
                None,
            )
            .named(
                "argv",
                SyntaxShape::List(Box::new(SyntaxShape::String)),
                "The command to run, for --provider command.",
                None,
            )
            .switch(
                "no-launch",
                "Only record the session; do not launch it.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf session new --no-launch 'Summarise the open issues').title",
                description: "Record a Claude conversation; its title comes from the prompt",
                result: Some(Value::test_string("Summarise the open issues")),
            },
            Example {
                example: "(lf session new --no-launch --task LOO-291 --title 'Review the migration').work_path",
                description: "Record a conversation about a Task, in the Task's worktree",
                result: Some(Value::test_string("product / LOO-291")),
            },
            Example {
                example: "(lf session new --no-launch --provider codex --model gpt-5.1-codex 'Speed up the build').detail",
                description: "Choose the agent and its model",
                result: Some(Value::test_string("codex:gpt-5.1-codex")),
            },
            Example {
                example: "(lf session new --no-launch --provider command --argv [htop]).title",
                description: "Any interactive command can be a session",
                result: Some(Value::test_string("htop in app")),
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
        let head = call.head;
        let flag = |name: &str| call.get_flag::<Spanned<String>>(name).map_err(shell);
        let prompt = call.opt::<Spanned<String>>(0).map_err(shell)?;
        let args: Vec<(Arg, Span)> = prompt
            .iter()
            .map(|prompt| (Arg::Prompt, prompt.span))
            .collect();
        let provider = match flag("provider")? {
            Some(provider) => Provider::parse(&provider.item),
            None => Ok(Provider::Claude),
        };
        let argv = call
            .get_flag::<Spanned<Vec<String>>>("argv")
            .map_err(shell)?
            .map(|argv| argv.item)
            .unwrap_or_default();
        let base = flag("base")?.map(|base| base.item);
        let fail = |provider: Option<Provider>, error: lf::Error| {
            let command = provider == Some(Provider::Command) && error.arg() == Some(Arg::Argv);
            let labeled = super::fail(engine, call, &args, error);
            if command {
                labeled.with_help("in Nushell, give the command as a list: --argv [htop -d 5]")
            } else {
                labeled
            }
        };
        let provider = provider.map_err(|error| fail(None, error))?;
        let lf = open(engine, head)?;
        let launch = !call.has_flag("no-launch").map_err(shell)?;
        let record = lf
            .create(lf::NewConversation {
                provider,
                model: flag("model")?.map(|model| model.item),
                title: flag("title")?.map(|title| title.item),
                cwd: flag("cwd")?.map(|dir| user_path(engine, &dir)),
                task: flag("task")?.map(|task| task.item),
                prompt: prompt.as_ref().map(|prompt| prompt.item.clone()),
                argv,
                launch,
                worktree: flag("worktree")?.map(|name| lf::session::worktree::WorktreeRequest {
                    name: Some(name.item),
                    base: base.clone(),
                }),
            })
            .map_err(|error| fail(Some(provider), error))?;
        if launch {
            lf.resolve(&record.id)
                .and_then(|session| lf.open_session(&session, OpenOptions::default()))
                .map_err(|error| {
                    let error = error.during(format!(
                        "Session {} was recorded but did not start",
                        record.id
                    ));
                    fail(Some(provider), error)
                })?;
        }
        shown(engine, call, &args, lf.get(&record.id))
    }

    super::completes!(
        At::Flag("provider") => Completes::Words(Provider::NAMES),
        At::Flag("task") => Completes::Tasks,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionNew);
    }
}
