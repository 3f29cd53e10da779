use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Show what a session changed, for review: JSON, or the patch.
///
/// For a session with a worktree (lf-session-new --worktree): its branch,
/// the base it tracks, commits ahead of and behind the base, every file
/// changed since the branch left the base — committed or not — with lines
/// added and removed, the untracked files, and whether anything is
/// uncommitted. For a session without one: its directory's repository
/// against HEAD. --patch prints the unified diff of the same files.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-diff 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c | jq '.files[] | \"\\(.insertions)+ \\(.deletions)- \\(.path)\"'
  lf-session-diff 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c --patch | less -R
  lf-session-diff \"$LF_SESSION_ID\" | jq '{ahead, behind, uncommitted}'"
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// Print the unified diff instead of JSON.
    #[arg(long)]
    patch: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-diff";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        if self.patch {
            let patch = lf.diff_patch(&self.id)?;
            return out.bytes(&patch);
        }
        out.json(&lf.diff(&self.id)?)
    }
}
