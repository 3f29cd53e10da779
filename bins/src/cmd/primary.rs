use crate::{Output, Tool, open_lf};
use clap::{Parser, Subcommand};
use lf::provider::Provider;

/// The one ongoing conversation of a repository or a wave.
///
/// `ensure` finds the scope's primary session, or creates it, and makes
/// sure its agent runs (launching it once, however many callers race); a
/// failed start keeps the session for the next ensure. `replace` stops and
/// closes a primary session and gives its scope a successor; repeating it
/// returns the same successor. Both print the SessionRecord.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-primary ensure | jq -r .id
  lf-primary ensure --wave product --attach
  lf-primary replace 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c"
)]
pub struct Cli {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Find or create the primary session of this repository (or --wave) and run it.
    Ensure {
        /// The wave (id or name) instead of the current repository.
        #[arg(long, value_name = "WAVE")]
        wave: Option<String>,
        /// The agent for a new primary session.
        #[arg(long, default_value = "claude",
              value_parser = super::provider(true))]
        provider: Provider,
        /// Go to the session afterwards.
        #[arg(long)]
        attach: bool,
    },
    /// Stop and close a primary session; give its scope a successor.
    Replace {
        /// The primary session id (or its first 6 or more characters), or the id of its current Run.
        #[arg(value_name = "ID")]
        id: String,
        /// Go to the successor afterwards.
        #[arg(long)]
        attach: bool,
    },
}

impl Tool for Cli {
    const NAME: &'static str = "lf-primary";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        let (record, attach) = match self.what {
            What::Ensure {
                wave,
                provider,
                attach,
            } => {
                let scope = lf.primary_scope(wave.as_deref(), None)?;
                (lf.ensure_primary(&scope, provider)?, attach)
            }
            What::Replace { id, attach } => (lf.replace_primary(&id)?, attach),
        };
        out.json(&record)?;
        if attach {
            out.finish()?;
            let id = lf::ids::SessionId::parse(&record.id)?;
            lf.go_to(&lf::tmux::session_name(&id))?;
        }
        Ok(())
    }
}
