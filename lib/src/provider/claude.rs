//! Claude Code: a new conversation gets the UUID lf chose
//! (`--session-id`), a resume names it (`--resume`), and lf's hooks arrive
//! through `--settings`, a JSON file written for this launch only, which
//! also pre-allows `lf-session-ready` by its absolute path, beside lf-hook
//! (the agent must not ask the person before saying it is ready, and a
//! program of that name elsewhere on its PATH must not run unasked).
//!
//! Two transitions fire no hook at all — refusing a permission and Esc
//! interrupting a turn — but Claude's transcript (its path comes in every
//! hook payload) records both at once; `lf-serve` reads them with
//! [`Agent::transcript_turn_ended`](super::Agent::transcript_turn_ended).

use super::{Answer, HookEvent, Launch, Mode, SessionSource, instructions, is_uuid, shell_quote};
use crate::Result;
use crate::provider::ProviderError;
use crate::usage::{Carry, Tally, Tokens};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The hook events lf listens to. PermissionRequest fires as the dialog
/// appears (Notification `permission_prompt` only seconds later, or never
/// when answered sooner); PostToolUse(Failure) right after an approved
/// tool ran. A turn ends with `Stop`, or with `StopFailure` when its model
/// request failed (an API error, a rate limit or a lost connection once
/// Claude's retries are spent): either way Claude waits at its prompt.
/// `SubagentStop` is left out on purpose: a subagent ending is not the
/// turn ending. docs/turn-ends.md has every way a turn ends.
const EVENTS: [&str; 9] = [
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "Notification",
    "SessionEnd",
];

/// Claude's notification types (`notification_type`, read from Claude Code
/// 2.1.332's own list) by what they mean for the person: a dialog that
/// waits for them, the end of one, or news that asks nothing. A type that
/// is in none is noted in the hook log, so a new release's new type is
/// seen (the real-CLI tests fail on a hook log that is not empty).
const WAITS_FOR_PERSON: [&str; 4] = [
    "worker_permission_prompt",
    "elicitation_dialog",
    "elicitation_url_dialog",
    // A dialog of Claude's own, e.g. auto mode that cannot check an action.
    "agent_needs_input",
];
const ANSWERED: [&str; 2] = ["elicitation_complete", "elicitation_response"];
const NEWS: [&str; 13] = [
    // The permission dialog `PermissionRequest` announced as it appeared,
    // ~6 s later: news, so that one sent as the person answers does not
    // show `approve` again once the answer has cleared it.
    "permission_prompt",
    // Idle ~60 s after a turn ended: the reply was owed since `Stop`.
    "idle_prompt",
    "auth_success",
    "auth_storage_failure",
    "agent_completed",
    "push_notification",
    "plugin_notification",
    "computer_use_enter",
    "computer_use_exit",
    "quota_auto_resume_fired",
    "quota_auto_resume_stale",
    "quota_auto_resume_disabled",
    "model_refusal_fallback",
];

/// `lf-session-ready` as the agent is told to run it and as lf's rule
/// allows it: the absolute path of the one beside lf-hook, quoted for the
/// shell when it must be (Claude matches a `Bash(PREFIX:*)` rule against
/// the command's text). A bare `lf-session-ready` would be whatever comes
/// first on the agent's PATH.
fn ready_command(hook_program: &Path) -> String {
    shell_quote(
        &hook_program
            .with_file_name("lf-session-ready")
            .display()
            .to_string(),
    )
}

/// lf's instructions, with where `lf-session-ready` is.
fn system_prompt(launch: &Launch<'_>) -> String {
    let mut text = instructions(launch.primary).to_owned();
    if !launch.primary {
        text.push_str(&format!(
            " Run it as `{} \"<summary>\"`; it needs no permission.",
            ready_command(launch.hook_program)
        ));
    }
    text
}

/// The person's own permission mode (`permissions.defaultMode` of their
/// user settings: `$CLAUDE_CONFIG_DIR/settings.json`, else
/// `~/.claude/settings.json`), when it is one and not `auto`. lf's
/// per-launch settings carry it unchanged: Claude Code (2.1.300 and later)
/// asks a person whose mode only their user settings set "Make auto mode
/// your default permission mode?" at start, after `SessionStart` and with
/// no hook of its own, so lf could not tell it waits; with the same mode
/// in the launch's own settings it does not ask, and the mode is theirs.
fn own_permission_mode(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let file = match env("CLAUDE_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("settings.json"),
        _ => PathBuf::from(env("HOME")?)
            .join(".claude")
            .join("settings.json"),
    };
    let settings: Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    let mode = settings["permissions"]["defaultMode"].as_str()?;
    // A mode is a short word; anything else is not carried.
    let word =
        !mode.is_empty() && mode.len() <= 64 && mode.chars().all(|c| c.is_ascii_alphabetic());
    (word && mode != "auto").then(|| mode.to_owned())
}

fn settings_json(hook_program: &std::path::Path, own_mode: Option<&str>) -> Value {
    let command = format!(
        "{} claude",
        shell_quote(&hook_program.display().to_string())
    );
    let hooks: serde_json::Map<String, Value> = EVENTS
        .iter()
        .map(|event| {
            (
                (*event).to_owned(),
                json!([{ "hooks": [{ "type": "command", "command": command }] }]),
            )
        })
        .collect();
    // The one command the agent runs without asking the person.
    let ready = format!("Bash({}:*)", ready_command(hook_program));
    let mut permissions = json!({ "allow": [ready] });
    if let Some(mode) = own_mode {
        permissions["defaultMode"] = json!(mode);
    }
    json!({ "hooks": hooks, "permissions": permissions })
}

/// The question of Claude's permission dialog ("Do you want to proceed?"
/// for a command, "Do you want to make this edit to …?" for a file).
const DIALOG_QUESTION: &str = "Do you want to ";

/// Claude's hook events (`hook_event_name`): those of [`EVENTS`], and any
/// other (a newer Claude Code's, or one lf does not listen to), which lf
/// does not act on.
#[derive(serde::Deserialize)]
enum Event {
    SessionStart,
    UserPromptSubmit,
    Stop,
    StopFailure,
    PermissionRequest,
    PostToolUse,
    PostToolUseFailure,
    Notification,
    SessionEnd,
    #[serde(other)]
    Other,
}

/// A transcript path from a payload: absolute, a `<uuid>.jsonl` file named
/// after the payload's own session, nothing else.
fn transcript_path_of(path: &str, native_id: Option<&str>) -> Option<PathBuf> {
    let path = PathBuf::from(path);
    if !path.is_absolute() || path.components().any(|part| part.as_os_str() == "..") {
        return None;
    }
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let ours = is_uuid(stem) && native_id.is_none_or(|id| stem.eq_ignore_ascii_case(id));
    ours.then_some(path)
}

/// One line of Claude's transcript, as far as usage reads it. Fields lf
/// does not read are skipped unparsed.
#[derive(serde::Deserialize)]
struct UsageLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "requestId", borrow)]
    request_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    sidechain: bool,
    #[serde(rename = "isMeta", default)]
    meta: bool,
    #[serde(rename = "isCompactSummary", default)]
    compact_summary: bool,
    /// Who started a user line (2.1.300 and later): `human` for the
    /// person's prompt.
    #[serde(borrow)]
    origin: Option<Origin<'a>>,
    message: Option<UsageMessage<'a>>,
}

#[derive(serde::Deserialize)]
struct Origin<'a> {
    #[serde(borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct UsageMessage<'a> {
    #[serde(borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
    usage: Option<MessageUsage>,
    #[serde(default)]
    content: Option<Content<'a>>,
}

#[derive(serde::Deserialize, Default)]
struct MessageUsage {
    #[serde(default)]
    input_tokens: i64,
    #[serde(default)]
    output_tokens: i64,
    #[serde(default)]
    cache_creation_input_tokens: i64,
    #[serde(default)]
    cache_read_input_tokens: i64,
}

/// A user message's content: the person's text, or blocks.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Content<'a> {
    #[serde(borrow)]
    Text(std::borrow::Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<std::borrow::Cow<'a, str>>,
}

/// What a user line of Claude's transcript is, for the time it records.
#[derive(Debug, PartialEq, Eq)]
enum UserLine {
    /// A prompt the person wrote: a turn starts.
    Prompt,
    /// A tool's result or an interrupt's mark: the agent's turn goes on
    /// (or ends) then.
    Work,
    /// A slash command's echo and what it printed: Claude's own, no turn.
    Local,
}

fn user_line(content: &Content<'_>) -> UserLine {
    let kind = |text: &str| {
        let text = text.trim_start();
        if text.starts_with("<command-") || text.starts_with("<local-command") {
            UserLine::Local
        } else if text.starts_with("[Request interrupted by user")
            || text.starts_with("<task-notification>")
        {
            UserLine::Work
        } else if text.is_empty() {
            UserLine::Local
        } else {
            UserLine::Prompt
        }
    };
    match content {
        Content::Text(text) => kind(text),
        Content::Blocks(blocks) => {
            if blocks
                .iter()
                .any(|block| block.kind.as_deref() == Some("tool_result"))
            {
                return UserLine::Work;
            }
            blocks
                .iter()
                .filter(|block| block.kind.as_deref() == Some("text"))
                .filter_map(|block| block.text.as_deref())
                .map(kind)
                .min_by_key(|line| match line {
                    UserLine::Prompt => 0,
                    UserLine::Work => 1,
                    UserLine::Local => 2,
                })
                .unwrap_or(UserLine::Local)
        }
    }
}

pub(super) struct Claude;

impl super::Agent for Claude {
    /// Read one line of Claude's transcript into `tally`: an assistant
    /// message's `message.usage` (counted once per message id and request id,
    /// though Claude writes a line per content block, the last line's usage
    /// standing), a prompt of the person (a turn starts), and the agent's
    /// work in between. Claude's own side requests (titles) and `/compact`'s
    /// summary are not in the transcript; a subagent's are in its own file
    /// (docs/decisions/0030-usage.md).
    /// A subagent's transcript: `<conversation>/subagents/agent-*.jsonl`
    /// beside the conversation's `<conversation>.jsonl` (2.1.332).
    fn usage_companions(&self, transcript: &Path) -> Vec<PathBuf> {
        let Some(stem) = transcript
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_suffix(".jsonl"))
            .filter(|stem| is_uuid(stem))
        else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(transcript.with_file_name(stem).join("subagents"))
        else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("agent-") && name.ends_with(".jsonl"))
            })
            .collect();
        found.sort();
        found
    }

    fn read_usage(&self, line: &str, carry: &mut Carry, tally: &mut Tally) {
        // Most lines of a long transcript are neither: skip them unparsed.
        if !line.contains("\"assistant\"") && !line.contains("\"user\"") {
            return;
        }
        let Ok(entry) = serde_json::from_str::<UsageLine<'_>>(line) else {
            return;
        };
        let Some(at) = crate::usage::at(entry.timestamp.as_deref()) else {
            return;
        };
        let Some(message) = entry.message else { return };
        // A subagent's lines (its own file, `isSidechain`): its requests
        // count; its time is within its parent's turn.
        let main = !entry.sidechain;
        match entry.kind.as_deref() {
            Some("assistant") => {
                if main {
                    tally.worked(carry, at);
                }
                // A message Claude made up itself (an API error) is no request.
                let (Some(id), Some(model), Some(usage)) =
                    (message.id, message.model, message.usage)
                else {
                    return;
                };
                if model == "<synthetic>" {
                    return;
                }
                let key = format!("{id}:{}", entry.request_id.unwrap_or_default());
                let tokens = Tokens {
                    input: usage.input_tokens,
                    output: usage.output_tokens,
                    cache_creation: usage.cache_creation_input_tokens,
                    cache_read: usage.cache_read_input_tokens,
                };
                tally.message(carry, &key, at, &model, tokens);
            }
            // `/compact`'s summary and Claude's meta lines are its own.
            Some("user") if !main || entry.meta || entry.compact_summary => {}
            Some("user") => match message.content.as_ref().map(user_line) {
                // A line Claude started itself (a subagent's notice) is
                // the agent's turn going on.
                Some(UserLine::Prompt)
                    if entry
                        .origin
                        .is_some_and(|origin| origin.kind.is_some_and(|kind| kind != "human")) =>
                {
                    tally.worked(carry, at)
                }
                Some(UserLine::Prompt) => tally.turn_started(carry, at),
                Some(UserLine::Work) => tally.worked(carry, at),
                Some(UserLine::Local) | None => {}
            },
            _ => {}
        }
    }

    fn program(&self) -> &'static str {
        "claude"
    }

    fn install(&self) -> &'static str {
        "install Claude Code (npm install -g @anthropic-ai/claude-code) or choose another --provider"
    }

    fn config_env(&self) -> &'static [&'static str] {
        // Its settings and state (`settings.json`, `.claude.json`: the
        // trust a folder has, the default permission mode).
        &["CLAUDE_CONFIG_DIR"]
    }

    /// Claude takes the id lf chose (`--session-id`) and confirms it with
    /// `SessionStart`.
    fn chosen_native_id(&self) -> Option<String> {
        Some(super::uuid_v4())
    }

    fn confirms_native_id_at_start(&self) -> bool {
        true
    }

    fn argv(&self, launch: &Launch<'_>) -> Result<Vec<String>> {
        let settings = launch.run_dir.join("claude-settings.json");
        let own_mode = own_permission_mode(launch.env);
        crate::home::write_private(
            &settings,
            settings_json(launch.hook_program, own_mode.as_deref())
                .to_string()
                .as_bytes(),
        )?;
        let mut argv = vec!["claude".to_owned()];
        match launch.mode {
            Mode::New {
                chosen_native_id, ..
            } => {
                let id = chosen_native_id.ok_or(ProviderError::NoChosenId)?;
                argv.extend(["--session-id".to_owned(), id.to_owned()]);
            }
            Mode::Resume { native_id } => {
                argv.extend(["--resume".to_owned(), native_id.to_owned()])
            }
        }
        argv.extend(["--settings".to_owned(), settings.display().to_string()]);
        argv.extend(["--append-system-prompt".to_owned(), system_prompt(launch)]);
        if let Some(model) = launch.model {
            argv.extend(["--model".to_owned(), model.to_owned()]);
        }
        if let Mode::New {
            prompt: Some(prompt),
            ..
        } = launch.mode
        {
            // After `--`: a prompt that starts with `-` is a prompt, not a flag.
            argv.extend(["--".to_owned(), prompt.to_owned()]);
        }
        Ok(argv)
    }

    /// Whether Claude will show a dialog at start that only a person can
    /// answer (first-run onboarding, or the workspace-trust dialog of a folder
    /// not trusted yet), from Claude's own state file
    /// (`$CLAUDE_CONFIG_DIR/.claude.json`, else `$HOME/.claude.json`), which is
    /// only read. `None` when the file cannot tell.
    fn start_needs_person(&self, cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
        let file = match env("CLAUDE_CONFIG_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir).join(".claude.json"),
            _ => PathBuf::from(env("HOME")?).join(".claude.json"),
        };
        let text = match std::fs::read(&file) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Some(true),
            Err(_) => return None,
        };
        let state: Value = serde_json::from_slice(&text).ok()?;
        if state["hasCompletedOnboarding"] != Value::Bool(true) {
            return Some(true);
        }
        let projects = state["projects"].as_object();
        let trusted = cwd.ancestors().any(|dir| {
            projects
                .and_then(|projects| projects.get(&dir.display().to_string()))
                .is_some_and(|project| project["hasTrustDialogAccepted"] == Value::Bool(true))
        });
        Some(!trusted)
    }

    /// Whether one transcript line records that the person interrupted the
    /// turn: Esc during a turn ("[Request interrupted by user]") or refusing
    /// a permission ("[Request interrupted by user for tool use]").
    fn transcript_turn_ended(&self, line: &str) -> bool {
        const MARK: &str = "[Request interrupted by user";
        if !line.contains(MARK) {
            return false;
        }
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        if entry["type"] != "user" {
            return false;
        }
        match &entry["message"]["content"] {
            Value::String(text) => text.starts_with(MARK),
            Value::Array(blocks) => blocks.iter().any(|block| {
                block["type"] == "text"
                    && block["text"]
                        .as_str()
                        .is_some_and(|text| text.starts_with(MARK))
            }),
            _ => false,
        }
    }

    /// Claude's permission dialog: its question, and "1. Yes" as its first
    /// option (2.1.197 and later).
    fn shows_permission_prompt(&self, lines: &[String]) -> bool {
        lines.iter().any(|line| line.contains(DIALOG_QUESTION))
            && super::options(lines)
                .any(|(number, label)| number == "1" && label.starts_with("Yes"))
    }

    /// Claude's dialog takes an option's number at once: "1. Yes", "2. Yes,
    /// and don't ask again …" (or "allow all edits during this session"); Esc
    /// refuses ("No, and tell Claude what to do differently (esc)").
    fn answer_keys(&self, answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
        match answer {
            Answer::Allow => Some(&["1"]),
            Answer::AllowAlways => super::options(lines)
                .any(|(number, label)| number == "2" && label.starts_with("Yes, "))
                .then_some(&["2"]),
            Answer::Deny => Some(&["Escape"]),
        }
    }

    /// Claude's hook JSON (on stdin) to what it means.
    fn parse_hook(&self, payload: &[u8]) -> std::result::Result<super::Hook, String> {
        let read: super::Payload<Event> = super::read_payload(payload)?;
        let asked = read.asked();
        let super::Payload::<Event> {
            hook_event_name,
            session_id,
            transcript_path,
            source,
            notification_type,
            reason,
            ..
        } = read;
        let native_id = super::payload_native_id(session_id, "a UUID")?;
        // A path that is not a transcript is left out, not a reason to refuse
        // the event.
        let transcript =
            transcript_path.and_then(|path| transcript_path_of(&path, native_id.as_deref()));
        let event = match hook_event_name {
            Event::SessionStart => HookEvent::SessionStarted {
                native_id: native_id.clone().ok_or("SessionStart has no session_id")?,
                source: match source.as_deref() {
                    Some("clear") => SessionSource::Clear,
                    Some("compact") => SessionSource::Compact,
                    Some("resume") => SessionSource::Resume,
                    _ => SessionSource::Startup,
                },
            },
            Event::UserPromptSubmit => HookEvent::TurnStarted {
                native_id: native_id.clone(),
            },
            Event::Stop | Event::StopFailure => HookEvent::TurnCompleted {
                native_id: native_id.clone(),
            },
            Event::PermissionRequest => HookEvent::PermissionPrompt(asked),
            Event::PostToolUse | Event::PostToolUseFailure => HookEvent::ToolFinished(asked),
            Event::Notification => match notification_type.as_deref() {
                Some(kind) if WAITS_FOR_PERSON.contains(&kind) => HookEvent::PermissionPrompt(None),
                Some(kind) if ANSWERED.contains(&kind) => HookEvent::ToolFinished(None),
                Some(kind) if NEWS.contains(&kind) => HookEvent::Ignored,
                Some(kind) => HookEvent::Unknown(format!(
                    "Notification type {}",
                    crate::error::untrusted::quote(kind)
                )),
                None => HookEvent::Unknown("Notification without a type".to_owned()),
            },
            // `/clear` ends this native conversation and starts another in the
            // same agent (a `clear` SessionStart follows): the Run goes on.
            Event::SessionEnd if reason.as_deref() == Some("clear") => HookEvent::Ignored,
            Event::SessionEnd => HookEvent::SessionEnded,
            Event::Other => HookEvent::Ignored,
        };
        Ok(super::Hook {
            event,
            transcript,
            native_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Agent;
    use super::*;
    use std::path::Path;

    /// Lines as Claude Code 2.1.332 writes them (shortened): an assistant
    /// message with its usage, the person's prompt, a tool's result, the
    /// summary `/compact` leaves, a slash command's echo and its caveat,
    /// a message Claude made up (an API error), a subagent's request.
    #[test]
    fn usage_reads_claudes_own_lines() {
        let assistant = |id: &str, at: &str, output: u64| {
            format!(
                r#"{{"parentUuid":"p","isSidechain":false,"message":{{"content":[{{"text":"Answer 1.","type":"text"}}],"id":"{id}","model":"claude-opus-5-5","role":"assistant","stop_reason":"end_turn","type":"message","usage":{{"input_tokens":1000,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":{output},"output_tokens_details":{{"thinking_tokens":0}},"service_tier":"standard","cache_creation":{{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":200}}}}}},"requestId":"req_1","type":"assistant","uuid":"u","timestamp":"{at}"}}"#
            )
        };
        let lines = [
            r#"{"parentUuid":null,"isSidechain":false,"promptId":"x","type":"user","message":{"role":"user","content":"Usage one"},"uuid":"a","timestamp":"2026-12-02T14:17:30.190Z","origin":{"kind":"human"}}"#.to_owned(),
            assistant("msg_1", "2026-12-02T14:17:31.190Z", 1),
            assistant("msg_1", "2026-12-02T14:17:32.190Z", 40),
            r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"ok","is_error":false}]},"timestamp":"2026-12-02T14:17:33.190Z"}"#.to_owned(),
            r#"{"type":"system","subtype":"turn_duration","durationMs":462,"timestamp":"2026-12-02T14:17:33.500Z"}"#.to_owned(),
            r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation"},"timestamp":"2026-12-02T14:18:00Z"}"#.to_owned(),
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>The command below</local-command-caveat>"},"timestamp":"2026-12-02T14:18:00Z"}"#.to_owned(),
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>"},"timestamp":"2026-12-02T14:18:00Z"}"#.to_owned(),
            r#"{"type":"assistant","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error"}],"usage":{"input_tokens":0,"output_tokens":0}},"timestamp":"2026-12-02T14:17:33.190Z"}"#.to_owned(),
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"s","model":"claude-opus-5-5","usage":{"input_tokens":5,"output_tokens":5}},"timestamp":"2026-12-02T14:18:01Z"}"#.to_owned(),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Second prompt"}]},"timestamp":"2026-12-02T14:19:00Z"}"#.to_owned(),
            "not json".to_owned(),
        ];
        let (mut carry, mut tally) = (Carry::default(), Tally::default());
        for line in &lines {
            Claude.read_usage(line, &mut carry, &mut tally);
        }
        let sums = tally.models[&("2026-12-02".to_owned(), "claude-opus-5-5".to_owned())];
        // The subagent's (sidechain) request counts too.
        assert_eq!(
            (sums.tokens, sums.requests),
            (
                Tokens {
                    input: 1005,
                    output: 45,
                    cache_creation: 200,
                    cache_read: 3000
                },
                2
            )
        );
        assert_eq!(tally.models.len(), 1, "{tally:?}");
        let time = tally.time["2026-12-02"];
        assert_eq!(time.turns, 2, "the compact's lines are no prompt");
        // 14:17:30.19 to the tool's result at 14:17:33.19; then waiting
        // until 14:19:00 (the compaction, Claude's own, is neither).
        assert_eq!(time.working, 3_000_000);
        assert_eq!(time.waiting, 86_810_000);
    }

    const ID: &str = "4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a";

    #[test]
    fn a_new_conversation_presets_its_id_and_injects_hooks_for_this_launch() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            mode: Mode::New {
                chosen_native_id: Some(ID),
                prompt: Some("Fix it"),
            },
            model: Some("opus"),
            command: &[],
            hook_program: Path::new("/opt/lf bin/lf-hook"),
            run_dir: dir.path(),
            primary: false,
            env: &|_| None,
        };
        let argv = Claude.argv(&launch).unwrap();
        let settings = dir
            .path()
            .join("claude-settings.json")
            .display()
            .to_string();
        assert_eq!(
            argv,
            [
                "claude",
                "--session-id",
                ID,
                "--settings",
                &settings,
                "--append-system-prompt",
                &format!(
                    "{} Run it as `'/opt/lf bin/lf-session-ready' \"<summary>\"`; it needs no \
                     permission.",
                    instructions(false)
                ),
                "--model",
                "opus",
                "--",
                "Fix it"
            ]
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        for event in EVENTS {
            assert_eq!(
                written["hooks"][event][0]["hooks"][0]["command"],
                "'/opt/lf bin/lf-hook' claude"
            );
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&settings).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn the_persons_own_permission_mode_is_carried_into_the_launch() {
        let home = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        let home_path = home.path().display().to_string();
        let config_path = config.path().display().to_string();
        let in_home = |key: &str| (key == "HOME").then(|| home_path.clone());
        let both = |key: &str| match key {
            "HOME" => Some(home_path.clone()),
            "CLAUDE_CONFIG_DIR" => Some(config_path.clone()),
            _ => None,
        };
        assert_eq!(own_permission_mode(&in_home), None, "no settings file");
        std::fs::create_dir(home.path().join(".claude")).unwrap();
        let write =
            |dir: &Path, text: &str| std::fs::write(dir.join("settings.json"), text).unwrap();
        write(
            &home.path().join(".claude"),
            r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
        );
        assert_eq!(
            own_permission_mode(&in_home).as_deref(),
            Some("acceptEdits")
        );
        assert_eq!(
            own_permission_mode(&both),
            None,
            "CLAUDE_CONFIG_DIR is where it looks"
        );
        for (text, carried) in [
            (
                r#"{"permissions": {"defaultMode": "default"}}"#,
                Some("default"),
            ),
            (r#"{"permissions": {"defaultMode": "auto"}}"#, None),
            (r#"{"permissions": {"defaultMode": "x\u001b]2;y"}}"#, None),
            (r#"{"permissions": {"defaultMode": 3}}"#, None),
            ("not json", None),
        ] {
            write(config.path(), text);
            assert_eq!(own_permission_mode(&both).as_deref(), carried, "{text}");
        }
        let dir = tempfile::tempdir().unwrap();
        write(config.path(), r#"{"permissions": {"defaultMode": "plan"}}"#);
        Claude
            .argv(&Launch {
                mode: Mode::Resume { native_id: ID },
                model: None,
                command: &[],
                hook_program: Path::new("/bin/lf-hook"),
                run_dir: dir.path(),
                primary: false,
                env: &both,
            })
            .unwrap();
        let written: Value = serde_json::from_slice(
            &std::fs::read(dir.path().join("claude-settings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(written["permissions"]["defaultMode"], "plan");
        assert_eq!(
            written["permissions"]["allow"],
            json!(["Bash(/bin/lf-session-ready:*)"])
        );
    }

    #[test]
    fn a_resume_names_the_conversation_and_sends_no_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            mode: Mode::Resume { native_id: ID },
            model: None,
            command: &[],
            hook_program: Path::new("/bin/lf-hook"),
            run_dir: dir.path(),
            primary: true,
            env: &|_| None,
        };
        let argv = Claude.argv(&launch).unwrap();
        assert_eq!(&argv[..3], ["claude", "--resume", ID]);
        assert_eq!(argv.last().unwrap(), instructions(true));
    }

    #[test]
    fn hook_payloads_map_to_events() {
        let parse = |json: &str| Claude.parse_hook(json.as_bytes()).map(|hook| hook.event);
        let start = format!(
            r#"{{"hook_event_name":"SessionStart","session_id":"{ID}","source":"startup"}}"#
        );
        assert_eq!(
            parse(&start),
            Ok(HookEvent::SessionStarted {
                native_id: ID.to_owned(),
                source: SessionSource::Startup,
            })
        );
        let stop = format!(r#"{{"hook_event_name":"Stop","session_id":"{ID}"}}"#);
        assert_eq!(
            parse(&stop),
            Ok(HookEvent::TurnCompleted {
                native_id: Some(ID.to_owned())
            })
        );
        assert_eq!(
            parse(r#"{"hook_event_name":"PermissionRequest","session_id":null}"#),
            Ok(HookEvent::PermissionPrompt(None))
        );
        assert_eq!(
            parse(r#"{"hook_event_name":"Notification","notification_type":"permission_prompt"}"#),
            Ok(HookEvent::Ignored),
            "the late echo of PermissionRequest"
        );
        assert!(matches!(
            parse(r#"{"hook_event_name":"Notification","notification_type":"idle_prompt"}"#),
            Ok(HookEvent::Ignored)
        ));
        // Every dialog that waits for the person is `approve`, its answer
        // ends it, and a type no release of Claude's named is noted.
        let notification = |kind: &str| {
            parse(&format!(
                r#"{{"hook_event_name":"Notification","notification_type":"{kind}"}}"#
            ))
        };
        for kind in WAITS_FOR_PERSON {
            assert_eq!(
                notification(kind),
                Ok(HookEvent::PermissionPrompt(None)),
                "{kind}"
            );
        }
        for kind in ANSWERED {
            assert_eq!(
                notification(kind),
                Ok(HookEvent::ToolFinished(None)),
                "{kind}"
            );
        }
        assert!(matches!(
            notification("brand_new_dialog"),
            Ok(HookEvent::Unknown(_))
        ));
        assert_eq!(
            parse(r#"{"hook_event_name":"StopFailure","error":"rate_limit"}"#),
            Ok(HookEvent::TurnCompleted { native_id: None })
        );
        for bad in [
            "",
            "{",
            "[]",
            r#"{"session_id":"x"}"#,
            r#"{"hook_event_name":"Stop","session_id":"../x"}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_events_without_a_notification_and_clear_map_to_what_they_mean() {
        let parse = |json: String| Claude.parse_hook(json.as_bytes()).unwrap();
        let hook = parse(format!(
            r#"{{"hook_event_name":"PermissionRequest","session_id":"{ID}","transcript_path":"/h/.claude/projects/-w/{ID}.jsonl"}}"#
        ));
        assert_eq!(hook.event, HookEvent::PermissionPrompt(None));
        assert_eq!(
            hook.transcript,
            Some(PathBuf::from(format!("/h/.claude/projects/-w/{ID}.jsonl")))
        );
        let event = |json: String| parse(json).event;
        assert_eq!(
            event(format!(
                r#"{{"hook_event_name":"PostToolUse","session_id":"{ID}"}}"#
            )),
            HookEvent::ToolFinished(None)
        );
        assert_eq!(
            event(format!(
                r#"{{"hook_event_name":"SessionStart","session_id":"{ID}","source":"clear"}}"#
            )),
            HookEvent::SessionStarted {
                native_id: ID.to_owned(),
                source: SessionSource::Clear
            }
        );
        assert!(matches!(
            event(format!(
                r#"{{"hook_event_name":"SessionEnd","session_id":"{ID}","reason":"clear"}}"#
            )),
            HookEvent::Ignored
        ));
        assert_eq!(
            event(format!(
                r#"{{"hook_event_name":"SessionEnd","session_id":"{ID}","reason":"other"}}"#
            )),
            HookEvent::SessionEnded
        );
        // A transcript that is not this session's file is left out.
        for path in [
            "relative.jsonl",
            "/x/../etc/passwd",
            "/x/other.jsonl",
            "/x/4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0b.jsonl",
        ] {
            let hook = parse(format!(
                r#"{{"hook_event_name":"Stop","session_id":"{ID}","transcript_path":"{path}"}}"#
            ));
            assert_eq!(hook.transcript, None, "{path}");
        }
    }

    /// Issue 34, item 7: only the `lf-session-ready` beside lf-hook, by
    /// its absolute path, runs without a dialog; a bare `lf-session-ready`
    /// (whatever comes first on the agent's PATH) is not pre-allowed.
    #[test]
    fn the_settings_pre_allow_lf_session_ready_by_its_absolute_path_only() {
        let settings = settings_json(Path::new("/opt/lf/lf-hook"), None);
        assert_eq!(
            settings["permissions"]["allow"],
            json!(["Bash(/opt/lf/lf-session-ready:*)"])
        );
        let spaced = settings_json(Path::new("/opt/lf bin/lf-hook"), None);
        assert_eq!(
            spaced["permissions"]["allow"],
            json!(["Bash('/opt/lf bin/lf-session-ready':*)"])
        );
        for settings in [&settings, &spaced] {
            let allowed = settings["permissions"]["allow"].to_string();
            assert!(!allowed.contains("Bash(lf-session-ready"), "{allowed}");
        }
        assert!(settings["hooks"]["PermissionRequest"].is_array());
        assert!(settings["hooks"]["PostToolUse"].is_array());
    }

    #[test]
    fn interrupts_and_refusals_are_read_from_transcript_lines() {
        for line in [
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"[Request interrupted by user]"}}"#,
        ] {
            assert!(Claude.transcript_turn_ended(line), "{line}");
        }
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"please say [Request interrupted by user]"}]}}"#,
            "not json [Request interrupted by user]",
            r#"{"type":"user","message":{"content":"hello"}}"#,
        ] {
            assert!(!Claude.transcript_turn_ended(line), "{line}");
        }
    }

    #[test]
    fn the_start_needs_a_person_in_a_folder_not_trusted_yet() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().display().to_string();
        let env = |key: &str| (key == "HOME").then(|| home.clone());
        let cwd = Path::new("/src/app/sub");
        assert_eq!(
            Claude.start_needs_person(cwd, &env),
            Some(true),
            "no state file: first run"
        );
        let write = |state: Value| {
            std::fs::write(dir.path().join(".claude.json"), state.to_string()).unwrap()
        };
        write(
            json!({"hasCompletedOnboarding": true, "projects": {"/src/app": {"hasTrustDialogAccepted": true}}}),
        );
        assert_eq!(Claude.start_needs_person(cwd, &env), Some(false));
        assert_eq!(
            Claude.start_needs_person(Path::new("/src/other"), &env),
            Some(true)
        );
        write(json!({"projects": {"/src/app": {"hasTrustDialogAccepted": true}}}));
        assert_eq!(
            Claude.start_needs_person(cwd, &env),
            Some(true),
            "onboarding not done"
        );
        std::fs::write(dir.path().join(".claude.json"), "{").unwrap();
        assert_eq!(Claude.start_needs_person(cwd, &env), None);
    }

    /// The permission dialog of Claude Code 2.1.332 as the real CLI draws
    /// it, and the keys each answer takes.
    #[test]
    fn the_permission_dialog_is_seen_and_answered_with_its_own_keys() {
        let screen: Vec<String> = [
            " Bash command",
            " touch allowed.txt",
            " Do you want to proceed?",
            " ❯ 1. Yes",
            "   2. Yes, and always allow access to /tmp/repo from this project",
            "   3. Yes, and switch to auto mode · auto mode handles these prompts for you",
            "   4. No",
            " Esc to cancel · Tab to amend",
        ]
        .map(str::to_owned)
        .to_vec();
        assert!(Claude.shows_permission_prompt(&screen));
        assert_eq!(Claude.answer_keys(Answer::Allow, &screen), Some(&["1"][..]));
        assert_eq!(
            Claude.answer_keys(Answer::AllowAlways, &screen),
            Some(&["2"][..])
        );
        assert_eq!(
            Claude.answer_keys(Answer::Deny, &screen),
            Some(&["Escape"][..])
        );
        let answered = ["❯ [run: touch allowed.txt] Make a file".to_owned()];
        assert!(!Claude.shows_permission_prompt(&answered));
        let trust = [
            " Do you want to trust this folder?".to_owned(),
            " ❯ 1. No, exit".to_owned(),
            "   2. Yes, I trust this folder".to_owned(),
        ];
        assert!(
            !Claude.shows_permission_prompt(&trust),
            "not a permission prompt"
        );
    }
}
