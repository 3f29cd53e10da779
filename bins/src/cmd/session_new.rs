use crate::{Output, Tool, open_lf};
use clap::Parser;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use lf::provider::Provider;
use std::path::PathBuf;

/// Create a conversation with an agent and print its SessionRecord.
///
/// Records the session and prepares its first Run. Launching it in a
/// durable tmux session is not built yet, so --no-launch is required for
/// now: the session is recorded and can be launched later.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-new --no-launch 'Fix the flaky parser test'
  lf-session-new --no-launch --provider codex --model gpt-5.1-codex --cwd ~/src/app
  lf-session-new --no-launch --task LOO-291 --title 'Review the migration'
  lf-session-new --no-launch --provider command -- htop"
)]
pub struct Cli {
    /// The agent CLI to run.
    #[arg(long, default_value = "claude",
          value_parser = PossibleValuesParser::new(Provider::ALL.map(Provider::as_str)).try_map(|s: String| Provider::parse(&s).map_err(|e| e.message)))]
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
    #[arg(long, value_name = "TASK")]
    task: Option<String>,
    /// Only record the session; do not launch it.
    #[arg(long)]
    no_launch: bool,
    /// The first message to the agent.
    #[arg(value_name = "PROMPT")]
    prompt: Option<String>,
    /// The command to run, for --provider command.
    #[arg(last = true, value_name = "ARGV")]
    argv: Vec<String>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-new";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        if !self.no_launch {
            return Err(lf::Error::usage(
                "launching sessions is not available yet: pass --no-launch to record the session without starting it",
            ));
        }
        let record = open_lf()?.create(lf::NewConversation {
            provider: self.provider,
            model: self.model,
            title: self.title,
            cwd: self.cwd,
            task: self.task,
            prompt: self.prompt,
            argv: self.argv,
        })?;
        out.json(&record)
    }
}
