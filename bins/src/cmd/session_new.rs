use crate::{Output, Tool, open_lf};
use clap::Parser;
use lf::provider::Provider;
use std::path::PathBuf;

/// Create a conversation with an agent and print its SessionRecord.
///
/// Records the session, prepares its first Run and launches it in a durable
/// tmux session (lf-<12 id characters>), then prints the record. --attach
/// goes there; --no-launch only records it (lf-session-open launches it
/// later).
///
/// --worktree [NAME] creates a branch NAME (default lf-<8 id characters)
/// from --base (default: the repository's current branch), which it tracks
/// as its upstream, checks it out in a new worktree beside the repository
/// (<repo>.worktrees/NAME, or $LF_WORKTREES/<repo>/NAME), registers that
/// worktree as the session's Task and runs the agent there. An existing
/// branch, folder or Task of that name is refused, never reused.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-new --no-launch 'Fix the flaky parser test'
  lf-session-new --no-launch --provider codex --model gpt-5.1-codex --cwd ~/src/app
  lf-session-new --no-launch --task LOO-291 --title 'Review the migration'
  lf-session-new --no-launch --provider command -- htop
  lf-session-new -- '-p is broken: fix it'                  (a prompt that starts with -)
  lf-session-new --worktree 'Add the retry policy'
  lf-session-new --worktree=fix/parser --base origin/main --provider codex --cwd ~/src/app"
)]
pub struct Cli {
    /// The agent CLI to run.
    #[arg(long, default_value = "claude",
          value_parser = super::provider(false))]
    provider: Provider,
    /// The model, passed to the provider's --model.
    #[arg(long)]
    model: Option<String>,
    /// The title (1–200 characters); by default one is generated from the prompt.
    #[arg(long)]
    title: Option<String>,
    /// The working directory (default: the Task's worktree, else the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Bind the session to this Task (id or identifier).
    #[arg(long, value_name = "TASK", conflicts_with = "worktree")]
    task: Option<String>,
    /// Work in a new git worktree on a new branch: --worktree, or --worktree=NAME (default lf-<8 id characters).
    #[arg(long, value_name = "NAME", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    worktree: Option<String>,
    /// The branch the worktree's branch starts from and is compared with (default: the current branch).
    #[arg(long, value_name = "BRANCH", requires = "worktree")]
    base: Option<String>,
    /// Only record the session; do not launch it.
    #[arg(long, conflicts_with = "attach")]
    no_launch: bool,
    /// Go to the session once it runs.
    #[arg(long)]
    attach: bool,
    /// The first message to the agent (one that starts with -: after --, alone).
    #[arg(value_name = "PROMPT")]
    prompt: Option<String>,
    /// The command to run, for --provider command (for an agent: its PROMPT).
    #[arg(last = true, value_name = "ARGV")]
    argv: Vec<String>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-new";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        // A session that could never start is not recorded.
        let record = lf.create(lf::NewConversation {
            provider: self.provider,
            model: self.model,
            title: self.title,
            cwd: self.cwd,
            task: self.task,
            prompt: self.prompt,
            argv: self.argv,
            launch: !self.no_launch,
            worktree: self
                .worktree
                .map(|name| lf::session::worktree::WorktreeRequest {
                    name: (!name.is_empty()).then_some(name),
                    base: self.base,
                }),
        })?;
        if self.no_launch {
            return out.json(&record);
        }
        let destination = lf
            .resolve(&record.id)
            .and_then(|session| lf.open_session(&session, lf::session::OpenOptions::default()))
            .map_err(|error| {
                error.during(format!(
                    "Session {} was recorded but did not start",
                    record.id
                ))
            })?;
        out.json(&lf.get(&record.id)?)?;
        match destination {
            lf::session::Destination::Tmux(name) if self.attach => {
                out.finish()?;
                lf.go_to(&name)
            }
            _ => Ok(()),
        }
    }
}
