//! `lf handoff open`: an autonomous agent hands its terminal to a person,
//! as `lf-handoff open` records it. Opening is idempotent on replay: the
//! same parent and body generation find the same handoff.

use super::{flag_u32, open, required, shell, shown, user_path, value_span};
use crate::LfPlugin;
use lf::Arg;
use lf::handoff::OpenArgs;
use lf::provider::Provider;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, Signature, Span, Spanned, SyntaxShape, Type, Value,
};
use std::path::PathBuf;

pub struct HandoffOpen;

const ARGV_HELP: &str =
    "in Nushell, give the attach command as a list: --argv [tmux attach-session -t NAME]";

impl SimplePluginCommand for HandoffOpen {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf handoff open"
    }

    fn description(&self) -> &str {
        "Open a handoff of an agent's terminal to a person (or find the one this request opened); return {created, handoff}."
    }

    fn extra_description(&self) -> &str {
        "The parent is what the work is handed back to: task:TASK (a Task id or identifier) or \
wave:WAVE (a wave id or name). The working directory (--cwd, default: your current \
directory) must be the parent's checkout — the Task's worktree or the wave's repository — so \
the person lands where the agent's provider history lives. A parent has at most one handoff \
without an outcome. Replaying the same open (same parent and --body-generation, same \
request) returns the same handoff with created = false; a changed replay is refused.

--argv is the command that puts a person in the terminal, as a list; --env gives it \
credentials as a record, such as {GH_TOKEN: $env.GH_TOKEN}. Their values may be secret: \
they are stored and given to the attach command, and never shown, only their names. So \
nothing hidden may change what runs: a name must be in capitals and end in _TOKEN, _KEY, \
_KEY_ID, _SECRET or _PASSWORD; PATH, LD_PRELOAD, GIT_*, LF_* and every other name are \
refused, and what is not secret belongs in --argv, where the person sees it."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "parent",
                SyntaxShape::String,
                "task:TASK (id or identifier) or wave:WAVE (id or name).",
            )
            .required_named(
                "provider",
                SyntaxShape::String,
                "The agent CLI whose terminal is handed over: claude, codex, gemini, opencode or command.",
                None,
            )
            .required_named(
                "body-generation",
                SyntaxShape::Int,
                "The generation of the agent process handing off; one handoff per generation.",
                None,
            )
            .required_named(
                "reason",
                SyntaxShape::String,
                "Why a person is needed.",
                None,
            )
            .required_named(
                "argv",
                SyntaxShape::List(Box::new(SyntaxShape::String)),
                "The command that puts a person in the terminal, as a list.",
                None,
            )
            .named(
                "cwd",
                SyntaxShape::Directory,
                "The terminal's working directory: the parent's checkout (default: the current directory).",
                None,
            )
            .named(
                "provider-session-id",
                SyntaxShape::String,
                "The provider's own id of the conversation (Claude's session UUID, Codex's thread id).",
                None,
            )
            .named(
                "env",
                SyntaxShape::Record(Vec::new().into()),
                "Credentials for the attach command (such as GH_TOKEN), as a record of strings; values are never shown.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "(lf handoff open wave:product --provider claude --body-generation 3 --reason 'Approve the staging deploy' --env {DEPLOY_TOKEN: s3cret} --argv [tmux attach-session -t lf-deploy]).created",
                description: "Hand the terminal of the wave's agent to a person, from the wave's repository",
                result: Some(Value::test_bool(true)),
            },
            Example {
                example: "(lf handoff open wave:product --provider claude --body-generation 3 --reason 'Approve the staging deploy' --env {DEPLOY_TOKEN: s3cret} --argv [tmux attach-session -t lf-deploy]).created",
                description: "A replayed open finds the handoff it opened",
                result: Some(Value::test_bool(false)),
            },
            Example {
                example: "(lf handoff show (lf handoffs --active).0.id).environment_names",
                description: "Only the names of its variables are ever shown",
                result: Some(Value::test_list(vec![Value::test_string("DEPLOY_TOKEN")])),
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
        let text = |name: &str| call.get_flag::<Spanned<String>>(name).map_err(shell);
        let parent: Spanned<String> = call.req(0).map_err(shell)?;
        let provider: Spanned<String> = required(call, "provider")?;
        let reason: Spanned<String> = required(call, "reason")?;
        let provider_session_id = text("provider-session-id")?;
        let cwd_flag = text("cwd")?;
        let generation = flag_u32(
            engine,
            "body-generation",
            &required(call, "body-generation")?,
        )?;
        let argv: Spanned<Vec<String>> = required(call, "argv")?;
        let env_flag = call.get_flag::<Value>("env").map_err(shell)?;
        let environment = match &env_flag {
            Some(value) => environment(engine, value)?,
            None => Vec::new(),
        };

        // Without --cwd the handoff is where the user is.
        let cwd = cwd_flag.map_or_else(|| PathBuf::from("."), |dir| user_path(engine, &dir));
        let opened = open(engine, head)?.open_handoff(&OpenArgs {
            parent: &parent.item,
            cwd: &cwd,
            provider: &provider.item,
            provider_session_id: provider_session_id.as_ref().map(|id| id.item.as_str()),
            body_generation: generation,
            reason: &reason.item,
            environment: &environment,
            attach_argv: &argv.item,
        });
        let about_argv = matches!(&opened, Err(error) if error.arg() == Some(Arg::Argv));
        // A refused variable is labelled under --env.
        let mut about = vec![(Arg::Parent, parent.span)];
        if let Some(value) = &env_flag {
            about.push((Arg::Env, value_span(engine, value.span())));
        }
        shown(engine, call, &about, opened).map_err(|error| {
            if about_argv {
                error.with_help(ARGV_HELP)
            } else {
                error
            }
        })
    }

    super::completes!(
        At::Positional(0) => Completes::Parents,
        At::Flag("provider") => Completes::Words(Provider::NAMES),
    );
}

/// The `--env` record as the library's `NAME=VALUE` entries, which the
/// library checks. Only what a record can hold and an entry cannot is
/// refused here: a name with `=` (it would split there) or a value that is
/// not a string. Values may be secret: no error shows one.
fn environment(engine: &EngineInterface, value: &Value) -> Result<Vec<String>, LabeledError> {
    let span = value_span(engine, value.span());
    let refused = |message: String, span| {
        LabeledError::new(message)
            .with_label("not valid here", span)
            .with_code("lf::usage")
    };
    let Value::Record { val, .. } = value else {
        return Err(refused(
            format!(
                "--env takes a record of variables, such as {{GH_TOKEN: $env.GH_TOKEN}}; got {}",
                value.get_type()
            ),
            span,
        ));
    };
    let mut entries = Vec::with_capacity(val.len());
    for (name, value) in val.iter() {
        if name.contains('=') {
            return Err(refused(
                format!(
                    "{} is not a valid variable name: use letters, digits and _, not starting with a digit",
                    lf::error::quote(name)
                ),
                span,
            ));
        }
        let Value::String { val: text, .. } = value else {
            return Err(refused(
                format!(
                    "environment variable {name} needs a string value, not {} (the value is not shown: it may be a secret)",
                    value.get_type()
                ),
                label_span(value.span(), span),
            ));
        };
        entries.push(format!("{name}={text}"));
    }
    Ok(entries)
}

/// A value's own span when it has one, else the flag's.
fn label_span(own: Span, fallback: Span) -> Span {
    if own == Span::unknown() {
        fallback
    } else {
        own
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&HandoffOpen);
    }
}
