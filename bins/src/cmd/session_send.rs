use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Type a reply into a session's agent and submit it; print its record.
///
/// Only when the session waits for a reply (its attention is `reply`): a
/// session whose agent is working, waits for something else, is completed
/// or has no live agent in a tmux pane is refused (exit 4) and nothing is
/// typed. TEXT is typed as it is, never read as keys, then Enter; it must be
/// one line of at most 10000 characters without control characters (a
/// newline would submit it early). Two replies at once: one is typed, the
/// other refused. The reply is an `answered` event of lf-session-watch,
/// naming who sent it. An agent (inside a session lf launched) cannot
/// reply for the person.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-send 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c 'Yes, go ahead with the migration'
  lf-session-list --attention | jq -r '.[] | select(.attention == \"reply\") | .id' | head -1 | xargs -I{} lf-session-send {} 'Continue'"
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// The reply, typed as it is (one line).
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    text: String,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-send";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        out.json(&open_lf()?.send_reply(&self.id, &self.text)?)
    }
}
