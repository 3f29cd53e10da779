use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Bind a session to a Task, permanently, and print its SessionRecord.
///
/// The session then shows the Task as its work (and its wave in
/// work_path). Binding is permanent: binding the same Task again changes
/// nothing, a different Task is refused. --preview prints what would be
/// bound ({session_id, task_id, identifier, title}) and binds nothing.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-bind 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c LOO-291 --preview
  lf-session-bind 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c LOO-291"
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// The Task id or identifier.
    #[arg(value_name = "TASK")]
    task: String,
    /// Show what would be bound; bind nothing.
    #[arg(long)]
    preview: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-bind";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        let preview = lf.preview_binding(&self.id, &self.task)?;
        if self.preview {
            return out.json(&preview);
        }
        eprintln!(
            "Binding {} to {} ({}). Permanent.",
            preview.session_id, preview.identifier, preview.title
        );
        out.json(&lf.bind(&self.id, &self.task)?)
    }
}
