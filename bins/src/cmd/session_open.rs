use crate::{Output, Tool, open_lf};
use clap::Parser;
use lf::remote::{Located, RemoteSession};
use lf::session::{Destination, OpenOptions};

/// Take this terminal to a session.
///
/// If the session's agent runs in its durable tmux session, go there
/// (switch-client inside tmux, attach-session outside). Otherwise resume the
/// agent's native history in a new durable tmux session, or launch its
/// prepared Run, or start a new attempt under the same session — then go
/// there. A session whose agent is live in another terminal is refused
/// unless --replace stops that client ("Move here": unsent text there is
/// lost). Concurrent opens of one session launch it once.
///
/// ID may be the first 6 or more characters of the id (as lf-session-list
/// | jq '.[].id[0:8]' prints them) when no other id begins with them.
///
/// A session of another machine (--host HOST, or found on a host of
/// lf-host list when it is not here) is opened there by that machine's lf,
/// through ssh with a terminal: inside tmux in a new window, outside tmux
/// in this terminal.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-open 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c
  lf-session-open 3f2a9c0e
  lf-session-open \"$(lf-session-list --attention | jq -r '.[0].id')\"
  lf-session-open 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c --replace
  lf-session-open 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c --detach | jq .state
  lf-session-open 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c --host build-box
  tmux bind-key a display-popup -E 'lf-session-open \"$(lf-session-list --attention | jq -r .[0].id)\"'"
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// Run the agent in this terminal instead of a durable tmux session.
    #[arg(long)]
    here: bool,
    /// Stop the session's client in another terminal and resume here.
    #[arg(long)]
    replace: bool,
    /// Fail at once (exit 4) if another process is opening the session now.
    #[arg(long = "try")]
    try_lock: bool,
    /// Launch or resume if needed, print the record, and stay here.
    #[arg(long, conflicts_with = "here")]
    detach: bool,
    /// Print the session's record and do nothing else.
    #[arg(long, conflicts_with_all = ["here", "replace", "detach"])]
    print: bool,
    /// The session is on this host (as in lf-host list, or any host ssh takes).
    #[arg(long, value_name = "HOST")]
    host: Option<String>,
    /// How long a host may take to say whether it has the session, in seconds (default 5).
    #[arg(long, value_name = "SECONDS",
          value_parser = super::seconds(lf::Arg::HostTimeout))]
    host_timeout: Option<std::time::Duration>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-open";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        // Resolved once: the Session it names from here on.
        let session = match lf.locate(&self.id, self.host.as_deref(), self.host_timeout)? {
            Located::Here(session) => session,
            Located::Remote(session) => return self.remote(&lf, &session, out),
        };
        if self.print {
            return out.json(&lf.show(*session)?);
        }
        let options = OpenOptions {
            replace: self.replace,
            try_lock: self.try_lock,
            here: self.here,
        };
        match lf.open_session(&session, options)? {
            Destination::Tmux(_) if self.detach => out.json(&lf.record_of(session.id())?),
            Destination::Tmux(name) => lf.go_to(&name),
            Destination::Exec(argv) => Err(Destination::exec(&argv)),
        }
    }
}

impl Cli {
    /// Open a Session of another machine, through its own lf.
    fn remote(&self, lf: &lf::Lf, session: &RemoteSession, out: &mut Output) -> lf::Result<()> {
        if self.print {
            return out.json(&session.record);
        }
        let flags: Vec<&str> = [
            (self.here, "--here"),
            (self.replace, "--replace"),
            (self.try_lock, "--try"),
        ]
        .into_iter()
        .filter_map(|(set, flag)| set.then_some(flag))
        .collect();
        if self.detach {
            return out.json(&lf.detach_remote(session, &flags)?);
        }
        let argv = lf.remote_open_argv(session, &flags);
        lf.go_remote(session, &argv)
    }
}
