use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Bring back every session whose agent was lost: after a reboot, or when
/// the tmux server went away.
///
/// A session is lost when its agent was running and did not end by itself
/// (lf-session-list shows state "lost" and why in "lost": reboot, terminal,
/// killed). Each lost session is resumed in its own durable tmux session,
/// detached, with its exact native conversation (claude --resume <id>,
/// codex resume <thread>); a `command` session, or an agent that never
/// named its conversation, is relaunched with the same argv. Sessions that
/// were completed, whose agent exited or was stopped, or that run, are
/// left as they are. One JSON line per open session says what happened:
/// result "resumed", "relaunched", "skipped" (with "skipped" and "reason"
/// saying why) or "failed" (with the diagnostic in "reason"); exit 1 when
/// any failed. Running it again does nothing; concurrent restores and opens
/// launch each session once. Nothing runs it on its own.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-restore --dry-run | jq -c 'select(.result != \"skipped\")'
  lf-session-restore | jq -r 'select(.result == \"failed\") | \"\\(.id[0:8]) \\(.reason)\"'
  lf-session-list --state lost | jq -r '.[] | \"\\(.id[0:8]) \\(.lost) \\(.title)\"'"
)]
pub struct Cli {
    /// Print what would be done, and do nothing.
    #[arg(long)]
    dry_run: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-restore";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        lf.restore(self.dry_run, |line| {
            out.json(&line)?;
            // A line as soon as its Session's fate is known.
            out.finish()
        })
    }
}
