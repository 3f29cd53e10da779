use crate::{Output, Tool, open_lf};
use clap::Parser;
use std::time::Duration;

/// Stop a session's agent and close the session; print its final record.
///
/// Live clients get SIGTERM, then SIGKILL after the grace period; an agent
/// that ignores SIGTERM (an interactive shell) is named on stderr while it
/// is waited for, and again when it is killed. The
/// printed record is closed and keeps its ready summary (for a flow review,
/// the feedback). A flow review can only be completed once it is ready.
/// When several processes complete one session at once, exactly one
/// succeeds; the others exit 4.
///
/// --remove-worktree also removes the session's worktree (the Task worktree
/// lf-session-new --worktree made), and its branch once merged into its
/// base. Uncommitted changes, untracked files or commits not merged into
/// the base are refused (exit 4, naming them, nothing changed) unless
/// --force discards them; what was removed is said on stderr. Without the
/// flag the worktree stays as it was.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-complete 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c | jq -r .ready_summary
  lf-session-list --state ready | jq -r '.[].id' | xargs -n1 lf-session-complete
  lf-session-complete 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c --remove-worktree"
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// Seconds between SIGTERM and SIGKILL for the session's live clients.
    #[arg(long, value_name = "SECONDS",
          default_value = lf::input::DEFAULT_GRACE.as_secs().to_string(),
          value_parser = super::seconds(lf::Arg::Grace))]
    grace: Duration,
    /// Also remove the session's worktree, and its branch once merged into its base.
    #[arg(long)]
    remove_worktree: bool,
    /// With --remove-worktree: remove it even if uncommitted or unmerged work would be lost.
    #[arg(long, requires = "remove_worktree")]
    force: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-complete";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        let tell = &mut |stopping: &lf::liveness::AgentStopping| {
            eprintln!("{}: {stopping}", Self::NAME);
        };
        if !self.remove_worktree {
            return out.json(&lf.complete(&self.id, self.grace, tell)?);
        }
        let (record, removal) =
            lf.complete_removing_worktree(&self.id, self.grace, self.force, tell)?;
        out.json(&record)?;
        eprintln!("{}: {removal}", Self::NAME);
        Ok(())
    }
}
