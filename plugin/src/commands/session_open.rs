//! `lf session open`: get the person to a Session. A plugin has no terminal
//! of its own, so it can only switch a tmux client; outside tmux it makes
//! sure the Session runs and says how to attach.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use lf::session::{Destination, OpenOptions};
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionOpen;

impl SimplePluginCommand for SessionOpen {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session open"
    }

    fn description(&self) -> &str {
        "Go to a session (inside tmux), or make sure it runs and return its record."
    }

    fn extra_description(&self) -> &str {
        "If the session's agent runs in its durable tmux session, that is where it is. \
Otherwise its native history is resumed in a new durable tmux session, or its prepared Run \
is launched, or a new attempt starts under the same session. Concurrent opens launch it \
once. A session live in another terminal is refused unless --replace stops that client \
(\"Move here\": unsent text there is lost).

Inside tmux ($env.TMUX is set) your tmux client then switches to the session. Outside tmux \
a plugin has no terminal to attach, so it returns the record; attach with \
`lf-session-open <id>`, or with `tmux attach -t =lf-<first 12 characters of the id>`."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run.",
            )
            .switch(
                "replace",
                "Stop the session's client in another terminal and resume here.",
                None,
            )
            .switch(
                "try",
                "Fail at once if another process is opening the session now.",
                None,
            )
            .switch(
                "print",
                "Return the session's record and do nothing else.",
                None,
            )
            .named(
                "host",
                SyntaxShape::String,
                "The session is on this host (lf-host list); without it, a session that is not here is looked for on every host of the list.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![
            Example {
                example: "(lf session open --print 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c).title",
                description: "Look at a session without opening it",
                result: Some(Value::test_string(PARSER_TITLE)),
            },
            Example {
                example: "(lf session open --print $env.LF_RUN_ID).title",
                description: "The id of a session's current Run names the session too",
                result: Some(Value::test_string(EXPLORE_TITLE)),
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
        let id: Spanned<String> = call.req(0).map_err(shell)?;
        let args = [(Arg::Id, id.span)];
        let fail = |error| super::fail(engine, call, &args, error);
        let lf = open(engine, head)?;
        let host = call.get_flag::<String>("host").map_err(shell)?;
        // Resolved once: the Session it names from here on.
        let resolved = match lf.locate(&id.item, host.as_deref(), None).map_err(fail)? {
            lf::remote::Located::Here(resolved) => resolved,
            lf::remote::Located::Remote(remote) => {
                if !call.has_flag("print").map_err(shell)? {
                    let flags: Vec<&str> = [("replace", "--replace"), ("try", "--try")]
                        .into_iter()
                        .filter(|(name, _)| call.has_flag(name).unwrap_or(false))
                        .map(|(_, flag)| flag)
                        .collect();
                    if lf.caller().in_tmux() {
                        // A window of the engine's tmux session runs the ssh.
                        let argv = lf.remote_open_argv(&remote, &flags);
                        lf.go_remote(&remote, &argv).map_err(fail)?;
                    } else {
                        eprintln!(
                            "lf session open: {} is on host {}; go there with: lf-session-open {} --host {}",
                            remote.record.id,
                            remote.entry.host,
                            remote.record.id,
                            remote.entry.host
                        );
                    }
                }
                return shown(engine, call, &args, Ok(remote.record));
            }
        };
        if call.has_flag("print").map_err(shell)? {
            return shown(engine, call, &args, lf.show(*resolved));
        }
        let session = resolved.id();
        let options = OpenOptions {
            replace: call.has_flag("replace").map_err(shell)?,
            try_lock: call.has_flag("try").map_err(shell)?,
            here: false,
        };
        match lf.open_session(&resolved, options).map_err(fail)? {
            // Inside tmux the engine's client goes there.
            Destination::Tmux(name) if lf.caller().in_tmux() => lf.go_to(&name).map_err(fail)?,
            Destination::Tmux(name) => eprintln!(
                "lf session open: {session} runs in the tmux session {name}; attach with: lf-session-open {session}  (or: tmux attach -t ={name})"
            ),
            // Only `here` asks to run the launcher in this terminal.
            Destination::Exec(_) => {
                return Err(
                    LabeledError::new("a plugin cannot run an agent in its terminal")
                        .with_label("open it with lf-session-open --here", head),
                );
            }
        }
        shown(engine, call, &args, lf.record_of(session))
    }

    super::completes!(At::Positional(0) => Completes::Sessions);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionOpen);
    }
}
