use crate::{Output, Tool, open_lf};
use clap::Parser;
use lf::attention::Next;

/// Go to the next session that needs you.
///
/// Approvals first (an agent is blocked), then replies, then reviews, each
/// the one that has waited longest first. The session you are in is
/// skipped, so pressing it again goes on to the next one and cycles. Inside
/// tmux it switches your client there (launching the agent if it is not
/// running); outside tmux it attaches. When nothing waits it says so and
/// exits 0, so a key binding never shows an error. When hosts are
/// configured (lf-host), their waiting sessions take their turn too.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-next
  lf-session-next --print | jq -r .title
  bind-key N run-shell -b 'lf-session-next'   # in ~/.tmux.conf"
)]
pub struct Cli {
    /// Print the session's record instead of going there.
    #[arg(long)]
    print: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-next";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        match open_lf()?.next_waiting(!self.print)? {
            Next::Nothing => {
                eprintln!("{}: nothing needs you", Self::NAME);
                Ok(())
            }
            Next::OnlyHere => {
                eprintln!("{}: only the session you are in needs you", Self::NAME);
                Ok(())
            }
            Next::Session(record, _) if self.print => out.json(&record),
            Next::Session(..) => Ok(()),
        }
    }
}
