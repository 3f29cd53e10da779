use crate::{Output, Tool, open_lf};
use clap::Parser;
use std::time::Duration;

/// Stop a session's agent and close the session; print its final record.
///
/// Live clients get SIGTERM, then SIGKILL after the grace period. The
/// printed record is closed and keeps its ready summary (for a flow review,
/// the feedback). A flow review can only be completed once it is ready.
/// When several processes complete one session at once, exactly one
/// succeeds; the others exit 4.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-complete 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c | jq -r .ready_summary
  lf-session-list --state ready | jq -r '.[].id' | xargs -n1 lf-session-complete"
)]
pub struct Cli {
    /// The session id, or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// Seconds between SIGTERM and SIGKILL for the session's live clients.
    #[arg(long, value_name = "SECONDS", default_value = "5",
          value_parser = super::seconds(lf::Arg::Grace, 3600))]
    grace: Duration,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-complete";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let record = open_lf()?.complete(&self.id, self.grace)?;
        out.json(&record)
    }
}
