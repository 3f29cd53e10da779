//! Codex CLI: lf's hooks are injected into Codex's own hook engine with
//! `-c` overrides for this launch only, and trusted for this launch only
//! (`-c hooks.state=…` carrying the hash Codex itself would record when a
//! person trusts them), so no dialog asks and the user's `~/.codex` is
//! never written. The instructions about `lf-session-ready` go in the same
//! way (`-c developer_instructions=…`).
//!
//! What the real Codex 0.171 does (docs/decisions/0020-truthful-codex-sessions.md): a thread exists only
//! from its first turn, whose `SessionStart` names it (`session_id`, the id
//! `codex resume` takes); the thread that generates a title fires no
//! lifecycle hook at all, so the conversation's thread is the one the
//! hooks name. A turn that ends without `Stop` (Esc, refusing an approval,
//! a failed model request) is written to the thread's rollout file at once
//! (`transcript_path` in every payload), where `lf-serve` reads it with
//! [`Agent::transcript_turn_ended`](super::Agent::transcript_turn_ended).

use super::{
    Answer, Hook, HookEvent, Launch, Mode, SessionSource, instructions, is_uuid, shell_quote,
};
use crate::usage::{Carry, Tally, Tokens};
use serde_json::Value;
use std::path::PathBuf;

/// The hook events lf listens to, as Codex names them in its config and in
/// the key of a hook's trust.
const EVENTS: [(&str, &str); 5] = [
    ("SessionStart", "session_start"),
    ("UserPromptSubmit", "user_prompt_submit"),
    ("PermissionRequest", "permission_request"),
    ("PostToolUse", "post_tool_use"),
    ("Stop", "stop"),
];

/// Seconds Codex gives one lf-hook call (it waits for each hook before it
/// goes on). More than the store's busy timeout, so a busy database still
/// gets its write; far less than Codex's default of ten minutes.
const HOOK_TIMEOUT: u64 = 20;

/// The config layer `-c` overrides form; a hook's trust is keyed by it.
const SESSION_FLAGS: &str = "/<session-flags>/config.toml";

/// lf's instructions, and where `lf-session-ready` is: Codex runs commands
/// in a login shell, whose PATH is the profile's (on Debian `/etc/profile`
/// resets it), not lf's. It writes lf's database, outside the workspace,
/// which Codex's sandbox does not let it write: asking for that at once
/// saves a failed try, and a `prefix_rule` of the program alone lets the
/// person's "don't ask again" allow it for good (Codex writes that rule).
fn developer_instructions(launch: &Launch<'_>) -> String {
    let mut text = instructions(launch.primary).to_owned();
    if !launch.primary {
        let ready = launch
            .hook_program
            .with_file_name("lf-session-ready")
            .display()
            .to_string();
        text.push_str(&format!(
            " Run it as `{} \"<summary>\"` (your shell's PATH may not have it). It writes lf's \
             state outside the workspace: run it with sandbox_permissions \"require_escalated\" \
             and prefix_rule [{}].",
            shell_quote(&ready),
            Value::from(ready.as_str())
        ));
    }
    text
}

/// Codex runs a hook command with `$SHELL -lc`: the path is quoted.
fn hook_command(hook_program: &std::path::Path) -> String {
    format!("{} codex", shell_quote(&hook_program.display().to_string()))
}

/// The hash Codex records when a person trusts a command hook: sha256 of
/// the canonical JSON (keys sorted, no spaces) of the hook's normalised
/// identity — its event, and one handler with its command, timeout,
/// `async` and type (no matcher, no status message: lf gives none).
fn trusted_hash(label: &str, command: &str, timeout: u64) -> String {
    use sha2::Digest;
    // Written in sorted key order by hand: serde_json's map order depends
    // on a feature another crate of the workspace may turn on.
    let identity = format!(
        r#"{{"event_name":{},"hooks":[{{"async":false,"command":{},"timeout":{timeout},"type":"command"}}]}}"#,
        Value::from(label),
        Value::from(command)
    );
    let digest = sha2::Sha256::digest(identity.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// The questions of Codex's approval prompt: a command, or edits.
const DIALOG_QUESTIONS: [&str; 2] = [
    "Would you like to run the following command?",
    "Would you like to make the following edits?",
];

/// Which of Codex's two payloads a call carries: `notify`'s (an agent
/// launched by an earlier lf), told by a `type` field of any value, or a
/// hook's. Read on its own first (skipping every value), as the two share
/// no field.
#[derive(serde::Deserialize)]
struct Shape {
    #[serde(default, rename = "type")]
    notify: Present,
}

/// Whether a field is there, whatever its value.
#[derive(Default)]
struct Present(bool);

impl<'de> serde::Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(field: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(field).map(|_| Present(true))
    }
}

/// Codex's hook events (`hook_event_name`) lf listens to, and any other,
/// which lf does not act on.
#[derive(serde::Deserialize)]
enum Event {
    SessionStart,
    UserPromptSubmit,
    Stop,
    PermissionRequest,
    PostToolUse,
    #[serde(other)]
    Other,
}

/// `notify`'s JSON (its last argument).
#[derive(serde::Deserialize)]
struct Notify {
    #[serde(rename = "type", deserialize_with = "super::event")]
    kind: NotifyKind,
    #[serde(default, rename = "thread-id", deserialize_with = "super::text")]
    thread: Option<String>,
}

#[derive(serde::Deserialize)]
enum NotifyKind {
    #[serde(rename = "agent-turn-complete")]
    AgentTurnComplete,
    #[serde(other)]
    Other,
}

/// `notify`'s `agent-turn-complete`. Every thread notifies, the title
/// thread too: its id counts only if it is the Run's conversation.
fn parse_notify(notify: Notify) -> Result<Hook, String> {
    let (event, native_id) = match notify.kind {
        NotifyKind::AgentTurnComplete => {
            let thread = (notify.thread).ok_or("agent-turn-complete has no thread-id")?;
            let native_id = Some(super::native_token(&thread)?);
            let event = HookEvent::TurnCompleted {
                native_id: native_id.clone(),
            };
            (event, native_id)
        }
        NotifyKind::Other => (HookEvent::Ignored, None),
    };
    Ok(Hook {
        event,
        transcript: None,
        native_id,
    })
}

/// A rollout path from a payload: absolute, no `..`, a
/// `rollout-…-<thread id>.jsonl` file of the payload's own thread.
fn rollout_path(path: &str, native_id: Option<&str>) -> Option<PathBuf> {
    let path = PathBuf::from(path);
    if !path.is_absolute() || path.components().any(|part| part.as_os_str() == "..") {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_prefix("rollout-")?.strip_suffix(".jsonl")?;
    let thread = stem.get(stem.len().checked_sub(36)?..)?;
    let ours = is_uuid(thread) && native_id.is_some_and(|id| thread.eq_ignore_ascii_case(id));
    ours.then_some(path)
}

/// One line of Codex's rollout, as far as usage reads it.
#[derive(serde::Deserialize)]
struct RolloutLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
    payload: Option<RolloutPayload<'a>>,
}

#[derive(serde::Deserialize)]
struct RolloutPayload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    /// `turn_context`'s.
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
    /// `token_count`'s.
    info: Option<TokenInfo>,
}

#[derive(serde::Deserialize)]
struct TokenInfo {
    total_token_usage: TokenUsage,
    last_token_usage: TokenUsage,
}

/// Codex's token usage: `input_tokens` includes the cached ones, and
/// `output_tokens` the reasoning ones.
#[derive(serde::Deserialize)]
struct TokenUsage {
    #[serde(default)]
    input_tokens: i64,
    #[serde(default)]
    cached_input_tokens: i64,
    #[serde(default)]
    output_tokens: i64,
}

impl TokenUsage {
    fn tokens(&self) -> Tokens {
        let fields = [
            self.input_tokens,
            self.output_tokens,
            self.cached_input_tokens,
        ];
        Tokens::derived(&fields, || {
            Some(Tokens {
                input: self.input_tokens.checked_sub(self.cached_input_tokens)?,
                output: self.output_tokens,
                cache_creation: 0,
                cache_read: self.cached_input_tokens,
            })
        })
    }
}

pub(super) struct Codex;

impl super::Agent for Codex {
    /// Read one line of Codex's rollout into `tally`: a `token_count` event
    /// (its `last_token_usage`, counted once however often Codex repeats the
    /// same cumulative total), the model of `turn_context`, a turn's start
    /// (`task_started`) and end (`task_complete`, `turn_aborted`), and the
    /// agent's work in between. The title thread has no rollout of its own
    /// here (docs/decisions/0030-usage.md).
    fn read_usage(&self, line: &str, carry: &mut Carry, tally: &mut Tally) {
        let Ok(entry) = serde_json::from_str::<RolloutLine<'_>>(line) else {
            return;
        };
        let (Some(at), Some(payload)) =
            (crate::usage::at(entry.timestamp.as_deref()), entry.payload)
        else {
            return;
        };
        match (entry.kind.as_deref(), payload.kind.as_deref()) {
            (Some("turn_context"), _) => {
                if let Some(model) = payload.model {
                    carry.model = Some(model.into_owned());
                }
            }
            (Some("event_msg"), Some("task_started" | "turn_started")) => {
                tally.turn_started(carry, at);
            }
            (Some("event_msg"), Some("task_complete" | "turn_complete" | "turn_aborted")) => {
                tally.turn_ended(carry, at);
            }
            (Some("event_msg"), Some("token_count")) => {
                tally.worked(carry, at);
                if let Some(info) = payload.info {
                    let total = info.total_token_usage.tokens();
                    tally.request(carry, at, total, info.last_token_usage.tokens());
                }
            }
            (Some("session_meta"), _) => {}
            _ => tally.worked(carry, at),
        }
    }

    fn program(&self) -> &'static str {
        "codex"
    }

    fn install(&self) -> &'static str {
        "install the Codex CLI (npm install -g @openai/codex) or choose another --provider"
    }

    fn config_env(&self) -> &'static [&'static str] {
        // Its `config.toml` (approval policy, sandbox, trusted projects),
        // under which lf's `-c` overrides are layered.
        &["CODEX_HOME"]
    }

    /// Codex names its thread only with the first turn, and a resume of a
    /// thread it does not have exits within a fraction of a second (~0.15 s
    /// measured with 0.171).
    fn resume_settle(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(2))
    }

    /// Codex says why a resume failed only on its stderr.
    fn captures_stderr(&self) -> bool {
        true
    }

    fn argv(&self, launch: &Launch<'_>) -> crate::Result<Vec<String>> {
        let mut argv = vec!["codex".to_owned()];
        if let Mode::Resume { native_id } = launch.mode {
            argv.extend(["resume".to_owned(), native_id.to_owned()]);
        }
        let command = hook_command(launch.hook_program);
        let mut trust = Vec::new();
        for (event, label) in EVENTS {
            // TOML inline tables; JSON string escapes are valid TOML.
            argv.extend([
                "-c".to_owned(),
                format!(
                    "hooks.{event}=[{{hooks=[{{type=\"command\",command={},timeout={HOOK_TIMEOUT}}}]}}]",
                    Value::from(command.as_str())
                ),
            ]);
            trust.push(format!(
                "{}={{trusted_hash={}}}",
                Value::from(format!("{SESSION_FLAGS}:{label}:0:0")),
                Value::from(trusted_hash(label, &command, HOOK_TIMEOUT))
            ));
        }
        argv.extend([
            "-c".to_owned(),
            format!("hooks.state={{{}}}", trust.join(",")),
        ]);
        argv.extend([
            "-c".to_owned(),
            format!(
                "developer_instructions={}",
                Value::from(developer_instructions(launch))
            ),
        ]);
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

    /// Codex's approval prompt: its question, and "1. Yes, proceed (y)" as its
    /// first option (0.171).
    fn shows_permission_prompt(&self, lines: &[String]) -> bool {
        lines.iter().any(|line| {
            DIALOG_QUESTIONS
                .iter()
                .any(|question| line.contains(question))
        }) && super::options(lines)
            .any(|(number, label)| number == "1" && label.starts_with("Yes, proceed"))
    }

    /// Codex's prompt takes each option's own key, shown after it (0.171):
    /// "1. Yes, proceed (y)"; "2. Yes, and don't ask again for commands that
    /// start with `…` (p)" (for edits, "… for these files (a)"); and Esc for
    /// "3. No, and tell Codex what to do differently (esc)".
    fn answer_keys(&self, answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
        const ALWAYS: [(&str, &[&str]); 2] = [("(p)", &["p"]), ("(a)", &["a"])];
        match answer {
            Answer::Allow => Some(&["y"]),
            Answer::AllowAlways => super::options(lines)
                .filter(|(_, label)| label.starts_with("Yes, and don't ask again"))
                .find_map(|(_, label)| {
                    ALWAYS
                        .iter()
                        .find(|(shown, _)| label.ends_with(shown))
                        .map(|(_, keys)| *keys)
                }),
            Answer::Deny => Some(&["Escape"]),
        }
    }

    /// A Codex payload to what it means: a hook's JSON (on stdin), or the
    /// `notify` JSON (the last argument) of an agent an earlier lf launched.
    fn parse_hook(&self, payload: &[u8]) -> Result<Hook, String> {
        let Shape { notify } = super::read_payload(payload)?;
        if notify.0 {
            return parse_notify(super::read_payload(payload)?);
        }
        let read: super::Payload<Event> = super::read_payload(payload)?;
        let asked = read.asked();
        let super::Payload::<Event> {
            hook_event_name,
            session_id,
            transcript_path,
            source,
            ..
        } = read;
        let native_id = super::payload_native_id(session_id, "a Codex thread id")?;
        let transcript = transcript_path.and_then(|path| rollout_path(&path, native_id.as_deref()));
        let event = match hook_event_name {
            Event::SessionStart => HookEvent::SessionStarted {
                native_id: native_id.clone().ok_or("SessionStart has no session_id")?,
                source: match source.as_deref() {
                    Some("resume") => SessionSource::Resume,
                    Some("clear") => SessionSource::Clear,
                    Some("compact") => SessionSource::Compact,
                    // A launch's first thread, and `/new`: a thread this agent
                    // started fresh.
                    _ => SessionSource::New,
                },
            },
            Event::UserPromptSubmit => HookEvent::TurnStarted {
                native_id: native_id.clone(),
            },
            Event::Stop => HookEvent::TurnCompleted {
                native_id: native_id.clone(),
            },
            Event::PermissionRequest => HookEvent::PermissionPrompt(asked),
            Event::PostToolUse => HookEvent::ToolFinished(asked),
            Event::Other => HookEvent::Ignored,
        };
        Ok(Hook {
            event,
            transcript,
            native_id,
        })
    }

    /// Whether one rollout line records a turn that ended without a `Stop`
    /// hook: `turn_aborted` (Esc during a turn, or refusing an approval) or a
    /// `task_complete` carrying an error (the model request failed). Either
    /// way the agent waits for the person.
    fn transcript_turn_ended(&self, line: &str) -> bool {
        if !line.contains("turn_aborted") && !line.contains("task_complete") {
            return false;
        }
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        if entry["type"] != "event_msg" {
            return false;
        }
        let payload = &entry["payload"];
        match payload["type"].as_str() {
            Some("turn_aborted") => true,
            Some("task_complete") => !payload["error"].is_null(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Agent;
    use super::*;
    use std::path::Path;

    /// Rollout lines in Codex 0.171's shapes: the turn's model, its start
    /// and end, its usage events (one repeated), and lines of work.
    #[test]
    fn usage_reads_codexs_rollout() {
        let count = |at: &str, total: u64, last: u64| {
            format!(
                r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{total},"cached_input_tokens":10,"output_tokens":5,"reasoning_output_tokens":2,"total_tokens":{total}}},"last_token_usage":{{"input_tokens":{last},"cached_input_tokens":10,"output_tokens":5,"reasoning_output_tokens":2,"total_tokens":{last}}},"model_context_window":272000}},"rate_limits":null}}}}"#
            )
        };
        let lines = [
            r#"{"timestamp":"2026-12-02T10:00:00.000Z","type":"session_meta","payload":{"id":"t","cwd":"/w"}}"#.to_owned(),
            r#"{"timestamp":"2026-12-02T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-codex"}}"#.to_owned(),
            r#"{"timestamp":"2026-12-02T10:00:01.000Z","type":"event_msg","payload":{"type":"task_started","model_context_window":272000}}"#.to_owned(),
            r#"{"timestamp":"2026-12-02T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}"#.to_owned(),
            count("2026-12-02T10:00:03.000Z", 100, 100),
            count("2026-12-02T10:00:03.000Z", 100, 100),
            r#"{"timestamp":"2026-12-02T10:00:03.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}"#.to_owned(),
            count("2026-12-02T10:00:04.000Z", 230, 130),
            r#"{"timestamp":"2026-12-02T10:00:05.000Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Answer"}}"#.to_owned(),
            r#"{"timestamp":"2026-12-02T10:00:09.000Z","type":"response_item","payload":{"type":"message"}}"#.to_owned(),
            r#"{"timestamp":"2026-12-02T10:01:05.000Z","type":"event_msg","payload":{"type":"task_started"}}"#.to_owned(),
        ];
        let (mut carry, mut tally) = (Carry::default(), Tally::default());
        for line in &lines {
            Codex.read_usage(line, &mut carry, &mut tally);
        }
        let sums = tally.models[&("2026-12-02".to_owned(), "gpt-5-codex".to_owned())];
        assert_eq!(
            (sums.tokens, sums.requests),
            (
                Tokens {
                    input: 90 + 120,
                    output: 10,
                    cache_creation: 0,
                    cache_read: 20
                },
                2
            )
        );
        let time = tally.time["2026-12-02"];
        assert_eq!(
            (time.turns, time.working, time.waiting),
            (2, 4_000_000, 60_000_000)
        );
    }

    const THREAD: &str = "01a2315a-05c6-74e0-ad45-23f4feeebf7f";

    fn launch(mode: Mode<'_>) -> Launch<'_> {
        Launch {
            mode,
            model: Some("gpt-5.1-codex"),
            command: &[],
            hook_program: Path::new("/opt/lf bin/lf-hook"),
            run_dir: Path::new("/nonexistent"),
            primary: false,
            env: &|_| None,
        }
    }

    #[test]
    fn hooks_are_injected_and_trusted_for_this_launch_and_resume_names_the_thread() {
        let argv = Codex
            .argv(&launch(Mode::New {
                chosen_native_id: None,
                prompt: Some("go"),
            }))
            .unwrap();
        assert_eq!(argv[0], "codex");
        assert_eq!(
            &argv[argv.len() - 4..],
            ["--model", "gpt-5.1-codex", "--", "go"]
        );
        let overrides: Vec<&str> = argv
            .windows(2)
            .filter(|pair| pair[0] == "-c")
            .map(|pair| pair[1].as_str())
            .collect();
        assert_eq!(
            overrides[0],
            r#"hooks.SessionStart=[{hooks=[{type="command",command="'/opt/lf bin/lf-hook' codex",timeout=20}]}]"#
        );
        assert_eq!(overrides.len(), EVENTS.len() + 2);
        let state = overrides[EVENTS.len()];
        for (_, label) in EVENTS {
            let key =
                format!(r#""/<session-flags>/config.toml:{label}:0:0"={{trusted_hash="sha256:"#);
            assert!(state.contains(&key), "{state}");
        }
        assert!(!overrides.iter().any(|value| value.starts_with("notify")));
        let told = overrides[EVENTS.len() + 1];
        assert!(told.starts_with("developer_instructions="), "{told}");
        assert!(told.contains("run `lf-session-ready"), "{told}");
        assert!(told.contains("'/opt/lf bin/lf-session-ready'"), "{told}");
        assert!(
            told.contains(r#"prefix_rule [\"/opt/lf bin/lf-session-ready\"]"#),
            "{told}"
        );
        let primary = Codex
            .argv(&Launch {
                primary: true,
                ..launch(Mode::Resume { native_id: THREAD })
            })
            .unwrap();
        let told = primary
            .iter()
            .find(|arg| arg.starts_with("developer_instructions="))
            .unwrap();
        assert!(told.contains("do not run lf-session-ready"), "{told}");
        assert!(!told.contains("lf bin/lf-session-ready"), "{told}");
        let resume = Codex
            .argv(&launch(Mode::Resume { native_id: THREAD }))
            .unwrap();
        assert_eq!(resume[..3], ["codex", "resume", THREAD]);
        assert_eq!(
            resume.last().unwrap(),
            "gpt-5.1-codex",
            "a resume sends no prompt"
        );
    }

    #[test]
    fn trust_hashes_are_the_ones_codex_records() {
        // Recorded by the real Codex 0.171.0 into its config.toml when a
        // person chose "Trust all and continue" for these -c hooks.
        assert_eq!(
            trusted_hash("stop", "/tmp/probe/hook.sh stop", 600),
            "sha256:05c32b7db6985b5e35e5a6292666e59864b492a6bdab9f38954dc9bdce8b34ae"
        );
        assert_eq!(
            trusted_hash("permission_request", "/tmp/probe/hook.sh perm", 600),
            "sha256:40e86e82ae6d12701ed14056013a03c6d9cb618db48177a05c14b4eb60a75140"
        );
    }

    #[test]
    fn hook_payloads_map_to_events_of_their_thread() {
        let rollout =
            format!("/h/.codex/sessions/2026/12/01/rollout-2026-12-01T11-25-13-{THREAD}.jsonl");
        let parse = |event: &str, extra: &str| {
            Codex.parse_hook(
                format!(
                    r#"{{"session_id":"{THREAD}","transcript_path":"{rollout}","cwd":"/w","hook_event_name":"{event}","model":"m"{extra}}}"#
                )
                .as_bytes(),
            )
            .unwrap()
        };
        let start = parse("SessionStart", r#","source":"startup""#);
        assert_eq!(
            start.event,
            HookEvent::SessionStarted {
                native_id: THREAD.to_owned(),
                source: SessionSource::New
            }
        );
        assert_eq!(start.transcript, Some(PathBuf::from(&rollout)));
        assert_eq!(start.native_id.as_deref(), Some(THREAD));
        assert_eq!(
            parse("SessionStart", r#","source":"resume""#).event,
            HookEvent::SessionStarted {
                native_id: THREAD.to_owned(),
                source: SessionSource::Resume
            }
        );
        assert_eq!(
            parse("UserPromptSubmit", r#","turn_id":"t","prompt":"hi""#).event,
            HookEvent::TurnStarted {
                native_id: Some(THREAD.to_owned())
            }
        );
        assert_eq!(
            parse("Stop", r#","stop_hook_active":false"#).event,
            HookEvent::TurnCompleted {
                native_id: Some(THREAD.to_owned())
            }
        );
        assert_eq!(
            parse("PermissionRequest", "").event,
            HookEvent::PermissionPrompt(None)
        );
        assert_eq!(
            parse("PostToolUse", "").event,
            HookEvent::ToolFinished(None)
        );
        assert!(matches!(parse("PreToolUse", "").event, HookEvent::Ignored));
        for bad in [
            "",
            "[]",
            r#"{"session_id":"x"}"#,
            r#"{"hook_event_name":"Stop","session_id":"../../x"}"#,
            r#"{"hook_event_name":"SessionStart"}"#,
        ] {
            assert!(Codex.parse_hook(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rollout_path_must_be_the_payloads_own_thread() {
        let ok = format!("/h/sessions/rollout-2026-12-01T11-25-13-{THREAD}.jsonl");
        assert_eq!(rollout_path(&ok, Some(THREAD)), Some(PathBuf::from(&ok)));
        for bad in [
            format!("sessions/rollout-x-{THREAD}.jsonl"),
            format!("/h/../etc/rollout-x-{THREAD}.jsonl"),
            format!("/h/sessions/{THREAD}.jsonl"),
            format!("/h/sessions/rollout-x-{THREAD}.txt"),
            "/h/sessions/rollout-x-01a2315a-05c6-74e0-ad45-000000000000.jsonl".to_owned(),
        ] {
            assert_eq!(rollout_path(&bad, Some(THREAD)), None, "{bad}");
        }
        assert_eq!(rollout_path(&ok, None), None);
    }

    #[test]
    fn notifications_of_an_earlier_launch_still_carry_their_thread() {
        let payload = br#"{"type":"agent-turn-complete","thread-id":"019a7f","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"ok"}"#;
        let hook = Codex.parse_hook(payload).unwrap();
        assert_eq!(
            hook.event,
            HookEvent::TurnCompleted {
                native_id: Some("019a7f".to_owned())
            }
        );
        assert_eq!(hook.native_id.as_deref(), Some("019a7f"));
        assert!(
            Codex
                .parse_hook(br#"{"type":"agent-turn-complete","thread-id":"../../x"}"#)
                .is_err()
        );
        assert!(Codex.parse_hook(b"not json").is_err());
        assert!(matches!(
            Codex
                .parse_hook(br#"{"type":"other"}"#)
                .map(|hook| hook.event),
            Ok(HookEvent::Ignored)
        ));
    }

    #[test]
    fn turns_that_end_without_stop_are_read_from_the_rollout() {
        for line in [
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"x","reason":"interrupted"}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete","turn_id":"x","last_agent_message":null,"error":{"message":"bad request"}}}"#,
        ] {
            assert!(Codex.transcript_turn_ended(line), "{line}");
        }
        for line in [
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete","turn_id":"x","last_agent_message":"ok"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"turn_aborted"}]}}"#,
            "not json turn_aborted",
            r#"{"type":"event_msg","payload":{"type":"task_started"}}"#,
        ] {
            assert!(!Codex.transcript_turn_ended(line), "{line}");
        }
    }

    /// The approval prompt of Codex 0.171 as the real CLI draws it, and
    /// the keys each answer takes.
    #[test]
    fn the_approval_prompt_is_seen_and_answered_with_its_own_keys() {
        let screen: Vec<String> = [
            "  Would you like to run the following command?",
            "  $ touch allowed.txt",
            "› 1. Yes, proceed (y)",
            "  2. Yes, and don't ask again for commands that start with `touch allowed.txt` (p)",
            "  3. No, and tell Codex what to do differently (esc)",
            "  Press enter to confirm or esc to cancel",
        ]
        .map(str::to_owned)
        .to_vec();
        assert!(Codex.shows_permission_prompt(&screen));
        assert_eq!(Codex.answer_keys(Answer::Allow, &screen), Some(&["y"][..]));
        assert_eq!(
            Codex.answer_keys(Answer::AllowAlways, &screen),
            Some(&["p"][..])
        );
        assert_eq!(
            Codex.answer_keys(Answer::Deny, &screen),
            Some(&["Escape"][..])
        );
        let composer = ["› Would you like to run the following command?".to_owned()];
        assert!(
            !Codex.shows_permission_prompt(&composer),
            "a prompt quoting it"
        );
        let without_always: Vec<String> = screen
            .iter()
            .filter(|line| !line.contains("don't ask again"))
            .cloned()
            .collect();
        assert_eq!(
            Codex.answer_keys(Answer::AllowAlways, &without_always),
            None
        );
    }
}
