use crate::{Output, Tool, open_lf};
use clap::Parser;
use lf::wire::TitleSource;

/// Rename a session and print its SessionRecord.
///
/// A title is trimmed and must be 1–200 characters without control
/// characters. A --generated title is a suggestion: it never replaces a
/// title a person chose.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-rename 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c 'Parser rewrite'
  lf-session-rename \"$LF_RUN_ID\" 'Summarised title' --generated"
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// The new title.
    #[arg(value_name = "TITLE")]
    title: String,
    /// The title is generated (by an agent), not chosen by a person.
    #[arg(long)]
    generated: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-rename";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let source = if self.generated {
            TitleSource::Generated
        } else {
            TitleSource::Human
        };
        let (record, changed) = open_lf()?.rename(&self.id, &self.title, source)?;
        if !changed {
            eprintln!(
                "{}: kept the title a person chose; a generated title never replaces it",
                Self::NAME
            );
        }
        out.json(&record)
    }
}
