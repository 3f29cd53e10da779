use crate::{Output, Tool, open_lf};
use clap::Parser;

/// Count the sessions that need you, per kind of attention.
///
/// For a tmux status line: prints a short form such as "2 approve 1 reply"
/// (kinds with none are left out; nothing at all when nothing waits), or
/// the counts in your own --format, or as JSON. It reads the database
/// read-only and is the cheapest lf command, so a status-right that runs
/// it every few seconds costs nothing noticeable.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-count                         # 2 approve 1 reply
  lf-session-count --format '#[fg=red]{approve}#[default]/{reply}/{review}'
  lf-session-count --json | jq .total
  set -g status-right '#(lf-session-count) %H:%M'   # in ~/.tmux.conf"
)]
pub struct Cli {
    /// Print this text with {approve}, {reply}, {review} and {total}
    /// replaced by their counts.
    #[arg(long, value_name = "TEXT", conflicts_with = "json")]
    format: Option<String>,
    /// Print {"review": N, "approve": N, "reply": N, "total": N}.
    #[arg(long)]
    json: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-count";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let counts = open_lf()?.attention_counts()?;
        if self.json {
            return out.json(&counts);
        }
        let line = match &self.format {
            Some(format) => format
                .replace("{approve}", &counts.approve.to_string())
                .replace("{reply}", &counts.reply.to_string())
                .replace("{review}", &counts.review.to_string())
                .replace("{total}", &counts.total.to_string()),
            None => [
                (counts.approve, "approve"),
                (counts.reply, "reply"),
                (counts.review, "review"),
            ]
            .iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, kind)| format!("{count} {kind}"))
            .collect::<Vec<_>>()
            .join(" "),
        };
        // Nothing at all when nothing waits: a status line shows nothing,
        // not a blank, and `[ -z "$(lf-session-count)" ]` reads as "none".
        if line.is_empty() {
            return Ok(());
        }
        out.raw(&line)?;
        out.raw("\n")
    }
}
