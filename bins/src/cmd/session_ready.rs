use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Mark this agent's session ready for review (run by the agent).
///
/// Run inside a session lf launched: it reads $LF_SESSION_ID and $LF_RUN_ID
/// to know which session and Run it speaks for. Only the session's current
/// Run may mark it ready. Prints the updated SessionRecord, whose attention
/// becomes "review".
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-ready 'Parser fixed; tests in tests/parser.rs pass. Please review the API change.'
  lf-session-ready \"$(cat notes/summary.md)\""
)]
pub struct Cli {
    /// What is ready and what the reviewer should look at.
    #[arg(value_name = "SUMMARY")]
    summary: String,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-ready";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let record = open_lf()?.ready(&self.summary)?;
        out.json(&record)
    }
}
