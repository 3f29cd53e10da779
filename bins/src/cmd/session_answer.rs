use crate::{Output, Tool, open_lf};
use clap::Parser;
use clap::builder::PossibleValuesParser;
use lf::provider::Answer;

/// Answer the request a session's agent waits on: allow or deny; print its record.
///
/// Only the request you saw: `--request RID` (its `attention_request.id`
/// in lf-session-list) is answered only while that exact request is up
/// and its own dialog is on the agent's screen; without it, the one
/// request up. Agents queue their dialogs (parallel tool calls): the
/// answer reaches one dialog, never the next. A request already answered
/// (here or at its terminal), another request up, an agent that is
/// working, a completed session or one with no live agent in a tmux pane
/// is refused (exit 4) and no key is pressed. The keys are the agent's own for its
/// dialog (Claude Code: 1, 2, Esc; Codex: y, p or a, Esc; Gemini CLI: 1, 2,
/// Esc; OpenCode: Enter, Right Enter Enter, Esc). --always allows
/// the like of it from now on, where the dialog offers that. The answer is
/// an `answered` event of lf-session-watch, naming who gave it. An agent
/// (inside a session lf launched) cannot answer for the person.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-answer 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c allow
  lf-session-answer 3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c deny
  lf-session-answer 3f2a9c0e allow --always
  rid=$(lf-session-list --attention | jq -r '.[0].attention_request.id')
  lf-session-answer 3f2a9c0e allow --request \"$rid\""
)]
pub struct Cli {
    /// The session id (or its first 6 or more characters), or the id of its current Run.
    #[arg(value_name = "ID")]
    id: String,
    /// Allow what the prompt asks, or deny it.
    #[arg(value_name = "ANSWER", value_parser = PossibleValuesParser::new(Answer::WORDS))]
    answer: String,
    /// With allow: do not ask again for the like of it (where the dialog offers that).
    #[arg(long)]
    always: bool,
    /// Answer only this request (`req-…`, its `attention_request.id`): refused if another is up.
    #[arg(long, value_name = "RID")]
    request: Option<String>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-answer";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let answer = Answer::parse(&self.answer, self.always)?;
        let seen = lf::session::act::Seen {
            request: self.request.as_deref(),
            dialog: None,
        };
        out.json(&open_lf()?.answer_prompt(&self.id, answer, seen)?)
    }
}
