use crate::{Output, Tool, open_lf};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Register and list the work sessions belong to: waves and Tasks.
///
/// A wave is a named stream of work in a repository; a Task is one piece
/// of it, with an identifier (such as LOO-291) and usually a worktree. A
/// session whose working directory lies inside a Task's worktree is
/// associated with that Task (the innermost worktree wins).
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-work wave add product --repo ~/src/app
  lf-work task add LOO-291 --title 'Rewrite the parser' --worktree ~/src/app-loo-291 --wave product
  lf-work task list | jq -r '.[] | \"\\(.identifier) \\(.work_path)\"'
  lf-work task finish LOO-291"
)]
pub struct Cli {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Waves: named streams of work in a repository.
    #[command(subcommand)]
    Wave(WaveCommand),
    /// Tasks: identified pieces of work, usually with a worktree.
    #[command(subcommand)]
    Task(TaskCommand),
}

#[derive(Debug, Subcommand)]
enum WaveCommand {
    /// Register a wave and print it.
    Add {
        /// The wave's name, shown in work_path.
        name: String,
        /// The repository the wave works in.
        #[arg(long, value_name = "DIR")]
        repo: PathBuf,
    },
    /// Print all waves as a JSON array.
    List,
}

#[derive(Debug, Subcommand)]
enum TaskCommand {
    /// Register a Task and print it.
    Add {
        /// The Task's identifier, such as LOO-291.
        identifier: String,
        /// The Task's title.
        #[arg(long)]
        title: String,
        /// The Task's checkout; sessions working inside it are associated with it.
        #[arg(long, value_name = "DIR")]
        worktree: Option<PathBuf>,
        /// The wave the Task belongs to (id or name).
        #[arg(long, value_name = "WAVE")]
        wave: Option<String>,
    },
    /// Print all Tasks as a JSON array.
    List,
    /// Mark a Task finished; its flow reviews then need no attention.
    Finish {
        /// The Task id or identifier.
        task: String,
    },
}

impl Tool for Cli {
    const NAME: &'static str = "lf-work";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        match self.what {
            What::Wave(WaveCommand::Add { name, repo }) => out.json(&lf.add_wave(&name, &repo)?),
            What::Wave(WaveCommand::List) => out.json(&lf.waves()?),
            What::Task(TaskCommand::Add {
                identifier,
                title,
                worktree,
                wave,
            }) => out.json(&lf.add_task(lf::work::NewTask {
                identifier: &identifier,
                title: &title,
                worktree: worktree.as_deref(),
                wave: wave.as_deref(),
            })?),
            What::Task(TaskCommand::List) => out.json(&lf.tasks()?),
            What::Task(TaskCommand::Finish { task }) => out.json(&lf.finish_task(&task)?),
        }
    }
}
