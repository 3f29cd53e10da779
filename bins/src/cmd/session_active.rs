use crate::{Output, Tool};
use clap::Parser;

/// Show the agent processes running now, each with the one session it belongs to.
///
/// Prints one JSON object (see schema/active.schema.json): discovery, home,
/// observed_at, task, sessions (id, title, work and live processes: pid,
/// ppid, provider, command, started_at, state running or waiting) and gaps.
/// A process belongs to a session only by exact evidence: a client receipt
/// (boot id, pid and start time), or running beneath the recorded lf-serve
/// launcher of one of its Runs. Whatever lf cannot attribute to exactly one
/// session, and every stale receipt, is a gap in words, never a guess.
/// Observing is passive: the database is only read and nothing is started
/// or stopped. When /proc or the database cannot be read, discovery is
/// "unavailable" and gaps say why (exit 0); an unknown --task exits 3.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-active | jq -r '.sessions[] | \"\\(.id[0:8]) \\(.processes | length) \\(.title)\"'
  lf-session-active --task LOO-291
  lf-session-active | jq -r '.sessions[].processes[] | select(.state == \"running\") | .pid'
  lf-session-active | jq -r '.gaps[]'"
)]
pub struct Cli {
    /// Only sessions bound to this Task (id or identifier).
    #[arg(long, value_name = "TASK")]
    task: Option<String>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-active";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        out.json(&crate::open_lf()?.active(self.task.as_deref())?)
    }
}
