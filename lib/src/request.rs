//! Requests: what an agent waits on while its attention is `approve` — one
//! permission dialog or question — each with an identity lf gives it when
//! it appears (docs/decisions/0032-exact-answers.md).
//!
//! Agents queue their requests (parallel tool calls): the next dialog is
//! drawn as soon as the one before is answered, often in the same place
//! and sometimes with the same words. So an answer names the request it
//! answers, and reaches that request or nothing: what its hook said it is
//! for (the tool, the command) must be what the dialog on the screen
//! shows, and a page's answer must find the very dialog the page showed.
//! Everything here is read from outside (a hook payload, a screen), so it
//! is checked and bounded before it is kept or shown.

use crate::ids::{RequestId, short_digest};

/// The most of a request's input (a command, a file's path, a question)
/// kept and shown, in characters; a longer one is cut and says so.
pub const INPUT_MAX: usize = 16 * 1024;
/// The most of a tool's name kept.
const TOOL_MAX: usize = 128;
/// The most lines above a dialog's first option read as the dialog when
/// no rule or box marks where it starts.
const DIALOG_ABOVE: usize = 24;
/// How much of an input (without its spaces) a dialog must show: a tall
/// command may be cut by the dialog's box.
const SHOWN_PREFIX: usize = 160;

/// What a hook said a request is for: its tool, and its command or input
/// as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub tool: String,
    pub input: String,
}

impl Asked {
    /// The facts of a hook payload, checked: control characters other
    /// than a newline or a tab are dropped, and both are bounded. `None`
    /// when the tool names nothing.
    pub fn new(tool: &str, input: &str) -> Option<Asked> {
        let tool: String = kept(tool).chars().take(TOOL_MAX).collect();
        let tool = tool.trim().to_owned();
        if tool.is_empty() {
            return None;
        }
        let mut input = kept(input);
        if input.chars().count() > INPUT_MAX {
            input = input.chars().take(INPUT_MAX).collect::<String>() + " […]";
        }
        Some(Asked { tool, input })
    }

    /// A tool's input (a JSON object) as the person reads it: its command,
    /// else its file's path, else its question or prompt, else the whole
    /// object as JSON.
    pub fn from_tool_input(tool: &str, input: Option<&serde_json::Value>) -> Option<Asked> {
        const FIELDS: [&str; 8] = [
            "command",
            "cmd",
            "file_path",
            "path",
            "url",
            "pattern",
            "prompt",
            "plan",
        ];
        let text = match input {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(value) => FIELDS
                .iter()
                .find_map(|field| match &value[*field] {
                    serde_json::Value::String(text) => Some(text.clone()),
                    serde_json::Value::Array(parts) if parts.iter().all(|p| p.is_string()) => Some(
                        parts
                            .iter()
                            .filter_map(|p| p.as_str())
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    _ => None,
                })
                .unwrap_or_else(|| value.to_string()),
        };
        Asked::new(tool, &text)
    }
}

/// Text with every control character but a newline and a tab removed.
fn kept(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

/// A request as the store keeps it while it is up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRow {
    pub id: RequestId,
    pub tool: Option<String>,
    pub input: Option<String>,
    pub since: i64,
}

impl RequestRow {
    /// The request as the wire tells it, of a Session working in `cwd`.
    pub fn on_wire(&self, cwd: &str) -> crate::wire::AttentionRequest {
        crate::wire::AttentionRequest {
            id: self.id.to_string(),
            tool: self.tool.clone(),
            input: self.input.clone(),
            cwd: cwd.to_owned(),
            since: crate::clock::Timestamp(self.since),
        }
    }
}

/// Of the requests a Session waits on, the one a dialog is for: the one
/// whose input it shows, else one whose hook named nothing.
pub fn shown_by<'a>(queued: &'a [RequestRow], dialog: &Dialog) -> Option<&'a RequestRow> {
    queued
        .iter()
        .find(|request| {
            request
                .input
                .as_deref()
                .is_some_and(|input| dialog.shows(input))
        })
        .or_else(|| queued.iter().find(|request| request.input.is_none()))
}

/// A dialog on an agent's screen: its lines, from where it starts to the
/// last line shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialog {
    pub lines: Vec<String>,
}

impl Dialog {
    /// The dialog of a screen whose first option is at `first_option`:
    /// from the rule or box top above it (agents draw their dialogs below
    /// one; Claude's has blank lines inside), else from the line after the
    /// blank one above it (Codex draws none), else from a few lines above, to the last line that shows anything. What the agent
    /// printed before its dialog is not the dialog: a line of it that
    /// changes must not read as the dialog gone.
    pub(crate) fn at(lines: &[String], first_option: usize) -> Dialog {
        let floor = first_option.saturating_sub(DIALOG_ABOVE);
        let above = floor..first_option;
        let start = above
            .clone()
            .rev()
            .find(|&index| is_rule(&lines[index]))
            .or_else(|| {
                above
                    .rev()
                    .find(|&index| lines[index].trim().is_empty())
                    .map(|index| index + 1)
            })
            .unwrap_or(floor);
        let mut end = lines.len();
        while end > first_option && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        Dialog {
            lines: lines[start..end].to_vec(),
        }
    }

    /// What identifies this dialog to a page that showed it: a digest of
    /// its lines (see [`Dialog::same_as`]).
    pub fn digest(&self) -> String {
        short_digest(&self.marked_off().join("\n"))
    }

    /// Whether `other` is this dialog: the same lines, wherever its
    /// selection mark is (a key the agent took only to move it, as
    /// Claude Code does with a key pressed in a dialog's first moments,
    /// leaves the dialog up, to be pressed again).
    pub fn same_as(&self, other: &Dialog) -> bool {
        self.marked_off() == other.marked_off()
    }

    /// Its lines without the selection mark (`❯`, `›`, `●`) or the
    /// spaces that replace it.
    fn marked_off(&self) -> Vec<&str> {
        self.lines
            .iter()
            .map(|line| {
                line.trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '❯' | '›' | '●' | '>')
                })
            })
            .collect()
    }

    /// Whether the dialog shows `input` (a request's command), however it
    /// wraps it: compared without spaces and box lines, and for a long
    /// input its beginning.
    pub fn shows(&self, input: &str) -> bool {
        let wanted: String = compact(input).chars().take(SHOWN_PREFIX).collect();
        wanted.is_empty() || compact(&self.lines.join("")).contains(&wanted)
    }

    /// Whether this dialog is the one `request` names: it shows the
    /// request's input, when its hook named one.
    pub fn is_for(&self, request: &RequestRow) -> bool {
        request
            .input
            .as_deref()
            .is_none_or(|input| self.shows(input))
    }
}

/// Text without whitespace and the box-drawing characters a dialog frames
/// it with.
fn compact(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !('\u{2500}'..='\u{257f}').contains(c))
        .collect()
}

/// A line that is a rule (`────`) or a box's top (`╭───╮`).
fn is_rule(line: &str) -> bool {
    let line = line.trim();
    let drawn = |c: char| matches!(c, '─' | '━' | '═' | '╭' | '╮' | '┌' | '┐' | '╔' | '╗');
    line.starts_with(['╭', '┌', '╔']) || (line.chars().count() >= 8 && line.chars().all(drawn))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|line| (*line).to_owned()).collect()
    }

    /// Claude Code 2.1.332's dialog for one of two parallel Bash calls.
    const CLAUDE: [&str; 16] = [
        "❯ please [two]",
        "● Making file 0",
        "  ⎿  $ touch /tmp/exp/one",
        "────────────────────────────────────────",
        " Bash command",
        " make file 0",
        "╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
        " touch /tmp/exp/one",
        "╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
        "",
        " Do you want to proceed?",
        " ❯ 1. Yes",
        "   2. Yes, and always allow access to /tmp/exp from this project",
        "   4. No",
        " Esc to cancel · Tab to amend",
        "",
    ];

    #[test]
    fn a_dialog_starts_at_the_rule_above_it_and_ends_at_its_last_line() {
        let screen = lines(&CLAUDE);
        let dialog = Dialog::at(&screen, 11);
        assert_eq!(dialog.lines.first().unwrap(), &CLAUDE[3]);
        assert_eq!(dialog.lines.last().unwrap(), &CLAUDE[14]);
        assert!(dialog.shows("touch /tmp/exp/one"), "past its blank line");
        assert!(!dialog.shows("touch /tmp/exp/two"), "the next request's");
        assert!(!dialog.shows("rm -rf ~"));
    }

    #[test]
    fn a_wrapped_command_is_still_shown_and_the_next_dialog_differs() {
        let mut screen = lines(&CLAUDE);
        screen[7] = " git push --force-with-lease origin".into();
        screen.insert(8, " feature/very-long && ./deploy.sh".into());
        let dialog = Dialog::at(&screen, 12);
        assert!(
            dialog.shows("git push --force-with-lease origin feature/very-long && ./deploy.sh")
        );
        let first = Dialog::at(&lines(&CLAUDE), 11);
        let mut next = lines(&CLAUDE);
        next[5] = " make file 1".into();
        let next = Dialog::at(&next, 11);
        assert_ne!(next.digest(), first.digest());
        assert!(!next.same_as(&first));
    }

    /// A key pressed in the dialog's first moments may only move its
    /// selection (Claude Code 2.1.332): it is the same dialog, still up.
    #[test]
    fn a_dialog_whose_selection_moved_is_the_same_dialog() {
        let first = Dialog::at(&lines(&CLAUDE), 11);
        let mut moved = lines(&CLAUDE);
        moved[11] = "   1. Yes".into();
        moved[12] = " ❯ 2. Yes, and always allow access to /tmp/exp from this project".into();
        let moved = Dialog::at(&moved, 11);
        assert!(moved.same_as(&first));
        assert_eq!(moved.digest(), first.digest());
    }

    /// Codex 0.171 draws no rule: its dialog starts after a blank line.
    #[test]
    fn a_dialog_without_a_rule_starts_after_the_blank_line_above_it() {
        let screen = lines(&[
            "• Working (12s • esc to interrupt)",
            "",
            "  Would you like to run the following command?",
            "  $ touch allowed.txt",
            "› 1. Yes, proceed (y)",
            "  3. No, and tell Codex what to do differently (esc)",
        ]);
        let dialog = Dialog::at(&screen, 4);
        assert_eq!(dialog.lines[0], screen[2]);
        let mut later = screen.clone();
        later[0] = "• Working (13s • esc to interrupt)".into();
        assert_eq!(Dialog::at(&later, 4), dialog, "the same dialog");
    }

    #[test]
    fn asked_facts_are_checked_and_bounded() {
        let asked = Asked::new("Bash\u{1b}[31m", "echo\u{7} hi\nthere").unwrap();
        assert_eq!(asked.tool, "Bash[31m");
        assert_eq!(asked.input, "echo hi\nthere");
        assert!(Asked::new(" \u{1b}", "x").is_none());
        let long = "x".repeat(INPUT_MAX + 10);
        assert!(Asked::new("Bash", &long).unwrap().input.ends_with(" […]"));
        let json = serde_json::json!({"command": "ls -la", "description": "list"});
        assert_eq!(
            Asked::from_tool_input("Bash", Some(&json)).unwrap().input,
            "ls -la"
        );
        let other = serde_json::json!({"a": 1});
        assert_eq!(
            Asked::from_tool_input("Odd", Some(&other)).unwrap().input,
            r#"{"a":1}"#
        );
    }
}
