use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Run one Run's agent in this terminal (the launcher inside a durable tmux session).
///
/// lf-session-open and lf-session-new start it in a tmux session; a person
/// rarely runs it by hand. It takes the session's launch lock, refuses a Run
/// that is no longer current, starts the provider (new or resume) with
/// LF_HOME, LF_SESSION_ID and LF_RUN_ID in its environment, records the
/// client, and releases the lock once the agent confirmed its conversation
/// or waits for the person at a start-up dialog (never killing it for
/// that). While the agent runs it follows its transcript for what fires no
/// hook (a refused permission, Esc), and it records how the agent ended,
/// also when its terminal hangs up. An agent that exits before confirming
/// gets a diagnostic naming the executable, its sha256, cwd, Home and
/// database. It prints nothing on success.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-serve run-01jf8zq3m5x7c9v2b4n6p8r0st"
)]
pub struct Cli {
    /// The Run to launch.
    #[arg(value_name = "RUN")]
    run: String,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-serve";

    fn run(self, _out: &mut Output) -> lf::Result<()> {
        open_lf()?.serve(&self.run).map(|_| ())
    }
}
