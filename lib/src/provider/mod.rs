//! Providers: the agent CLIs lf launches. This module and its children are
//! the only place that knows a provider's flags, how lf's hooks are
//! injected into one launch (never by editing the user's own agent config),
//! and what the provider's hook payloads mean.

use crate::error::domain::{Arg, Domain, ErrorKind};
use crate::error::untrusted::quote;
mod claude;
mod codex;
mod gemini;
mod opencode;

use crate::Result;
use crate::caller::Caller;
use std::path::{Path, PathBuf};

crate::names::named! {
    "provider", Some(crate::Arg::Provider);
    pub enum Provider {
        /// Claude Code.
        Claude,
        /// OpenAI Codex CLI.
        Codex,
        /// Google's Gemini CLI.
        Gemini,
        /// OpenCode (opencode-ai).
        Opencode,
        /// Any interactive command, given as an argv.
        Command,
    }
}

/// Every rule that differs between agent CLIs, implemented once in each
/// provider's own file. Adding a provider is that file, its `mod` line,
/// its [`Provider`] variant and its arm in [`Provider::agent`]: nothing
/// else in lf names a provider.
pub(crate) trait Agent: Sync {
    /// The program launched.
    fn program(&self) -> &'static str;

    /// What to install (its package) when the program is missing: one
    /// phrase, ending "or choose another --provider".
    fn install(&self) -> &'static str;

    /// The environment variables through which the CLI finds the person's
    /// own configuration (besides `HOME`): where it is, or what it says.
    /// The one list of them: the caller reads these (`Caller`), a launch
    /// hands the caller's values to the agent (a tmux server started
    /// earlier does not have them), and the adapter reads them only
    /// through [`Provider::person_env`], to add lf's layer on top of the
    /// person's, never in its place.
    fn config_env(&self) -> &'static [&'static str] {
        &[]
    }

    /// The argv that launches (or resumes) this agent for one Run; may
    /// write per-launch files into [`Launch::run_dir`].
    fn argv(&self, launch: &Launch<'_>) -> Result<Vec<String>>;

    /// Read one of this agent's hook payloads (its hook JSON on stdin, or
    /// the payload an lf-hook call was given as its last argument).
    fn parse_hook(&self, payload: &[u8]) -> std::result::Result<Hook, String>;

    /// The native id lf presets for a new conversation, when the agent
    /// lets it choose one.
    fn chosen_native_id(&self) -> Option<String> {
        None
    }

    /// Whether a launch is resumable only once the agent has confirmed its
    /// native id (else a live client is enough).
    fn confirms_native_id_at_start(&self) -> bool {
        false
    }

    /// Whether an opener of a new conversation (`lf-session-new`) waits for
    /// the agent to confirm the id, when it confirms one at start (else
    /// the opener returns once the agent runs, and lf-serve still waits
    /// for the confirmation, a dialog at start or a failed start).
    fn opener_waits_for_new_id(&self) -> bool {
        true
    }

    /// How long a resume must keep running before lf takes it as resumed,
    /// for an agent that confirms nothing at start.
    fn resume_settle(&self) -> Option<std::time::Duration> {
        None
    }

    /// Whether lf-serve passes the agent's stderr through itself, keeping
    /// its end for a failed launch's diagnostic (the CLI's own message).
    fn captures_stderr(&self) -> bool {
        false
    }

    /// How long the agent, not confirmed yet, is given before lf assumes a
    /// start-up dialog waits for the person; `None` for lf's default
    /// (`session::serve::START_GRACE`). An agent that never shows one and
    /// starts slowly takes longer, so its failed resume is not first
    /// taken for a dialog (and the open for a success).
    fn start_grace(&self) -> Option<std::time::Duration> {
        None
    }

    /// Whether the agent, started in `cwd`, will first show a dialog only
    /// a person can answer, read from its own state; `None` when it cannot
    /// tell.
    fn start_needs_person(
        &self,
        _cwd: &Path,
        _env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<bool> {
        Some(false)
    }

    /// Whether a line of the agent's transcript records that a turn ended
    /// and no hook said so (Esc, a refused permission, a failed request).
    fn transcript_turn_ended(&self, _line: &str) -> bool {
        false
    }

    /// Files whose usage belongs to the conversation of `transcript`
    /// beside it (Claude's subagents' transcripts), found now.
    fn usage_companions(&self, _transcript: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Read one line of the agent's transcript into a usage tally
    /// (`crate::usage`): tokens by kind and model, turns, the agent's work.
    /// `carry` is what the reader remembers between lines and between
    /// reads. An agent whose records lf does not read counts nothing.
    fn read_usage(
        &self,
        _line: &str,
        _carry: &mut crate::usage::Carry,
        _tally: &mut crate::usage::Tally,
    ) {
    }

    /// Where the usage of conversation `native_id` is recorded, for an
    /// agent that keeps it somewhere other than a transcript its hooks
    /// name (OpenCode's database): a source read by
    /// [`Agent::read_usage_records`]. `env` is the agent's environment (a
    /// hook runs in it).
    fn usage_records(
        &self,
        _native_id: &str,
        _env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        None
    }

    /// Whether the agent's usage is in records [`Agent::usage_records`]
    /// names rather than in a transcript: lf-serve reads them as the
    /// agent's hooks come, and as [`Agent::usage_records_file`] changes.
    fn keeps_usage_records(&self) -> bool {
        false
    }

    /// The file a usage records `source` is kept in (OpenCode's database),
    /// whose folder lf-serve follows as it follows a transcript's.
    fn usage_records_file(&self, _source: &str) -> Option<PathBuf> {
        None
    }

    /// Read the usage records `source` (from [`Agent::usage_records`]) from
    /// where the last read stopped (`read_to`, the provider's own offset)
    /// into a tally; `Some(Ok(Some(offset)))` is how far this read got,
    /// `Some(Ok(None))` nothing new, `Some(Err(why))` a source that cannot
    /// be read. `None` (every agent but OpenCode): `source` is a transcript
    /// file, read line by line with [`Agent::read_usage`].
    fn read_usage_records(
        &self,
        _source: &str,
        _read_to: u64,
        _carry: &mut crate::usage::Carry,
        _tally: &mut crate::usage::Tally,
    ) -> Option<std::result::Result<Option<u64>, String>> {
        None
    }

    /// Whether a screen (plain lines) shows the agent's permission prompt.
    fn shows_permission_prompt(&self, _lines: &[String]) -> bool {
        false
    }

    /// The keys (tmux key names) that give `answer` to the prompt on
    /// `lines`, or `None` when it offers no such choice.
    fn answer_keys(&self, _answer: Answer, _lines: &[String]) -> Option<&'static [&'static str]> {
        None
    }
}

impl Provider {
    /// The agent CLI this provider runs; `None` for `command`.
    fn agent(self) -> Option<&'static dyn Agent> {
        match self {
            Provider::Claude => Some(&claude::Claude),
            Provider::Codex => Some(&codex::Codex),
            Provider::Gemini => Some(&gemini::Gemini),
            Provider::Opencode => Some(&opencode::OpenCode),
            Provider::Command => None,
        }
    }

    /// An agent CLI, with a conversation of its own (not `command`): what
    /// a review or a primary Session needs.
    pub fn is_agent(self) -> bool {
        self.agent().is_some()
    }

    /// See [`Agent::config_env`].
    pub fn config_env(self) -> &'static [&'static str] {
        self.agent().map_or(&[], |agent| agent.config_env())
    }

    /// Every provider's [`Agent::config_env`], each name once.
    pub fn all_config_env() -> impl Iterator<Item = &'static str> {
        let mut seen = Vec::new();
        Self::ALL
            .iter()
            .flat_map(|provider| provider.config_env().iter().copied())
            .filter(move |name| {
                let new = !seen.contains(name);
                seen.push(name);
                new
            })
    }

    /// The person's environment as this provider's adapter reads it: the
    /// caller's `HOME` and the variables of [`Agent::config_env`]. Any
    /// other is a mistake, caught in debug builds: a variable the list
    /// lacks is one the caller never has, and lf would quietly replace
    /// the person's setting instead of adding to it.
    pub(crate) fn person_env(self, caller: &Caller) -> impl Fn(&str) -> Option<String> + '_ {
        move |name| {
            debug_assert!(
                name == "HOME" || self.config_env().contains(&name),
                "the {} provider reads ${name}, which its Agent::config_env does not declare",
                self.as_str()
            );
            caller.var(name).map(str::to_owned)
        }
    }

    /// The names of the agent providers, in `NAMES` order.
    pub fn agent_names() -> impl Iterator<Item = &'static str> {
        Self::ALL
            .iter()
            .filter(|provider| provider.is_agent())
            .map(|provider| provider.as_str())
    }

    /// See [`Agent::chosen_native_id`].
    pub fn chosen_native_id(self) -> Option<String> {
        self.agent()?.chosen_native_id()
    }

    /// See [`Agent::confirms_native_id_at_start`].
    pub fn confirms_native_id_at_start(self) -> bool {
        self.agent()
            .is_some_and(|agent| agent.confirms_native_id_at_start())
    }

    /// See [`Agent::opener_waits_for_new_id`].
    pub fn opener_waits_for_new_id(self) -> bool {
        self.agent()
            .is_some_and(|agent| agent.opener_waits_for_new_id())
    }

    /// See [`Agent::resume_settle`].
    pub fn resume_settle(self) -> Option<std::time::Duration> {
        self.agent()?.resume_settle()
    }

    /// See [`Agent::start_grace`].
    pub fn start_grace(self) -> Option<std::time::Duration> {
        self.agent()?.start_grace()
    }

    /// See [`Agent::captures_stderr`].
    pub fn captures_stderr(self) -> bool {
        self.agent().is_some_and(|agent| agent.captures_stderr())
    }

    /// See [`Agent::parse_hook`].
    pub fn parse_hook(self, payload: &[u8]) -> std::result::Result<Hook, String> {
        match self.agent() {
            Some(agent) => agent.parse_hook(payload),
            None => Err("the command provider has no hooks".to_owned()),
        }
    }

    /// See [`Agent::start_needs_person`]; a command shows none lf knows of.
    pub fn start_needs_person(
        self,
        cwd: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<bool> {
        self.agent()
            .map_or(Some(false), |agent| agent.start_needs_person(cwd, env))
    }

    /// See [`Agent::transcript_turn_ended`].
    pub fn transcript_turn_ended(self, line: &str) -> bool {
        self.agent()
            .is_some_and(|agent| agent.transcript_turn_ended(line))
    }

    /// See [`Agent::usage_companions`].
    pub fn usage_companions(self, transcript: &Path) -> Vec<PathBuf> {
        self.agent()
            .map(|agent| agent.usage_companions(transcript))
            .unwrap_or_default()
    }

    /// See [`Agent::read_usage`].
    pub fn read_usage(
        self,
        line: &str,
        carry: &mut crate::usage::Carry,
        tally: &mut crate::usage::Tally,
    ) {
        if let Some(agent) = self.agent() {
            agent.read_usage(line, carry, tally);
        }
    }

    /// See [`Agent::usage_records`].
    pub fn usage_records(
        self,
        native_id: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        self.agent()
            .and_then(|agent| agent.usage_records(native_id, env))
    }

    /// See [`Agent::keeps_usage_records`].
    pub fn keeps_usage_records(self) -> bool {
        self.agent()
            .is_some_and(|agent| agent.keeps_usage_records())
    }

    /// See [`Agent::usage_records_file`].
    pub fn usage_records_file(self, source: &str) -> Option<PathBuf> {
        self.agent()
            .and_then(|agent| agent.usage_records_file(source))
    }

    /// See [`Agent::read_usage_records`].
    pub fn read_usage_records(
        self,
        source: &str,
        read_to: u64,
        carry: &mut crate::usage::Carry,
        tally: &mut crate::usage::Tally,
    ) -> Option<std::result::Result<Option<u64>, String>> {
        self.agent()
            .and_then(|agent| agent.read_usage_records(source, read_to, carry, tally))
    }

    /// The program this provider launches, for a launch's argv.
    pub fn program_name(self, argv: &[String]) -> Option<&str> {
        match self.agent() {
            Some(agent) => Some(agent.program()),
            None => argv.first().map(String::as_str),
        }
    }

    /// Refuse, before anything is recorded, a launch whose program is not
    /// installed: one sentence saying what to install or which provider to
    /// pick.
    pub fn require_installed(self, argv: &[String], caller: &Caller) -> Result<()> {
        let Some(program) = self.program_name(argv) else {
            return Ok(());
        };
        let found = if program.contains('/') {
            Path::new(program).is_file()
        } else {
            caller.program(program).is_some()
        };
        if found {
            return Ok(());
        }
        let (arg, install) = match self.agent() {
            Some(agent) => (Arg::Provider, agent.install()),
            None => (
                Arg::Argv,
                "install it or give the command's full path after --",
            ),
        };
        Err(ProviderError::NotOnPath {
            arg,
            program: program.to_owned(),
            install,
        }
        .into())
    }

    /// The argv that launches (or resumes) this provider for one Run.
    pub fn argv(self, launch: &Launch<'_>) -> Result<Vec<String>> {
        match self.agent() {
            Some(agent) => agent.argv(launch),
            None if launch.command.is_empty() => Err(ProviderError::NoArgv.into()),
            None => Ok(launch.command.to_vec()),
        }
    }

    /// See [`Agent::shows_permission_prompt`].
    pub fn shows_permission_prompt(self, lines: &[String]) -> bool {
        self.agent()
            .is_some_and(|agent| agent.shows_permission_prompt(lines))
    }

    /// The permission dialog on a screen, if one is up: its lines from
    /// where it starts (see [`crate::request::Dialog`]).
    pub fn dialog(self, lines: &[String]) -> Option<crate::request::Dialog> {
        if !self.shows_permission_prompt(lines) {
            return None;
        }
        let first_option = lines.iter().rposition(|line| {
            options(std::slice::from_ref(line)).any(|(number, _)| number == "1")
                || line.contains("Allow once")
        })?;
        Some(crate::request::Dialog::at(lines, first_option))
    }

    /// The rule an "allow always" would create, in the dialog's own words
    /// (its option's label), when the dialog offers one.
    pub fn always_rule(self, dialog: &crate::request::Dialog) -> Option<String> {
        self.answer_keys(Answer::AllowAlways, &dialog.lines)?;
        options(&dialog.lines)
            .map(|(_, label)| label)
            .chain(dialog.lines.iter().map(String::as_str))
            .find(|label| {
                ["Yes, and", "Allow for", "Allow always", "Allow tool"]
                    .iter()
                    .any(|start| label.trim_start().starts_with(start))
            })
            .map(|label| label.trim().to_owned())
    }

    /// See [`Agent::answer_keys`].
    pub fn answer_keys(self, answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
        self.agent()?.answer_keys(answer, lines)
    }
}

/// How a person answers a permission prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Yes, this once.
    Allow,
    /// Yes, and do not ask again for the like of it.
    AllowAlways,
    /// No.
    Deny,
}

impl Answer {
    /// The words a person answers with, as every surface takes them.
    pub const WORDS: &'static [&'static str] = &["allow", "deny"];

    /// A person's word (`allow` or `deny`) and `--always`.
    pub fn parse(word: &str, always: bool) -> Result<Answer> {
        match word {
            "allow" => Answer::new(true, always),
            "deny" => Answer::new(false, always),
            _ => Err(crate::input::InputError::UnknownName {
                arg: Some(Arg::Answer),
                what: "answer",
                text: word.to_owned(),
                choices: Answer::WORDS,
            }
            .into()),
        }
    }

    /// `allow` or `deny`, and `--always` (which only an allow may have).
    pub fn new(allow: bool, always: bool) -> Result<Answer> {
        match (allow, always) {
            (true, false) => Ok(Answer::Allow),
            (true, true) => Ok(Answer::AllowAlways),
            (false, false) => Ok(Answer::Deny),
            (false, true) => Err(crate::session::SessionError::AlwaysOnlyAllows.into()),
        }
    }

    /// What the change stream says was done.
    pub fn answered(self) -> crate::wire::Answered {
        match self {
            Answer::Allow => crate::wire::Answered::Allowed,
            Answer::AllowAlways => crate::wire::Answered::AllowedAlways,
            Answer::Deny => crate::wire::Answered::Denied,
        }
    }
}

/// The numbered options of a dialog on screen: `(number, label)`, the
/// selection mark (`❯`, `›`) taken off.
pub(crate) fn options(lines: &[String]) -> impl Iterator<Item = (&str, &str)> {
    lines.iter().filter_map(|line| {
        let text = line
            .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '❯' | '›' | '>' | '│'))
            .trim_end_matches(|c: char| c.is_whitespace() || c == '│');
        let (number, label) = text.split_once(". ")?;
        (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
            .then_some((number, label))
    })
}

/// Whether a launch starts a conversation or resumes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode<'a> {
    New {
        /// The native id lf chose, for providers that accept one.
        chosen_native_id: Option<&'a str>,
        prompt: Option<&'a str>,
    },
    Resume {
        native_id: &'a str,
    },
}

/// Everything an adapter needs to build one launch.
#[derive(Clone)]
pub struct Launch<'a> {
    pub mode: Mode<'a>,
    pub model: Option<&'a str>,
    /// The `command` provider's argv.
    pub command: &'a [String],
    /// The `lf-hook` binary the provider calls.
    pub hook_program: &'a Path,
    /// The Run's own directory, for per-launch files such as settings.
    pub run_dir: &'a Path,
    /// A primary Session: no caller waits on its readiness.
    pub primary: bool,
    /// The launch's environment (the person's own settings are found
    /// through it, and only read).
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// One hook call: what happened, the conversation it speaks for, and where
/// the provider keeps its transcript (both name it in every payload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    pub event: HookEvent,
    pub transcript: Option<PathBuf>,
    /// The payload's native conversation id, when it has one.
    pub native_id: Option<String>,
}

/// Why a provider (re)started a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSource {
    Startup,
    Resume,
    /// `/clear`: a new native conversation in the same agent.
    Clear,
    /// `/compact`.
    Compact,
    /// A conversation the agent started fresh: Codex's first thread of a
    /// launch, and its `/new` (Codex says `startup` for both).
    New,
}

/// What a provider's hook says happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookEvent {
    /// The provider started (or resumed) its conversation with this id.
    SessionStarted {
        native_id: String,
        source: SessionSource,
    },
    /// The person submitted a prompt: a turn began.
    TurnStarted { native_id: Option<String> },
    /// The agent finished its turn.
    TurnCompleted { native_id: Option<String> },
    /// The agent is blocked on a permission prompt: a new request when the
    /// hook says what it is for, else (a reminder) the one already up.
    PermissionPrompt(Option<crate::request::Asked>),
    /// A tool ran (so the permission it needed was answered): the one its
    /// hook names, when it names one.
    ToolFinished(Option<crate::request::Asked>),
    /// The provider's conversation ended.
    SessionEnded,
    /// An event lf does not act on.
    Ignored,
    /// An event lf does not know the meaning of (a newer CLI's): noted in
    /// the hook log, so it is seen, and otherwise not acted on.
    Unknown(String),
}

/// A text field of a hook payload, for `#[serde(default, deserialize_with =
/// "text")]`: one that is null or not text counts as absent, as one that
/// is absent does, so a newer CLI that changes a field lf reads still has
/// its calls read. (Fields lf does not read are ignored.)
fn text<'de, D: serde::Deserializer<'de>>(
    field: D,
) -> std::result::Result<Option<String>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Field {
        Text(String),
        Other(serde::de::IgnoredAny),
    }
    Ok(match serde::Deserialize::deserialize(field)? {
        Field::Text(text) => Some(text),
        Field::Other(_) => None,
    })
}

/// A provider's hook JSON: its event `E` (the provider's enum, with an
/// `Other` for any event lf does not act on), and the fields lf reads.
/// The event is a field of its own, read from text only, not a
/// `#[serde(tag)]` over flattened fields: serde reads such a tag from
/// buffered content, where a number is taken as a variant's index, so
/// `"hook_event_name": 3` would count as an event (and a bare enum field
/// would take `{"Stop": null}` as Stop).
#[derive(serde::Deserialize)]
#[serde(bound = "E: serde::de::DeserializeOwned")]
struct Payload<E> {
    #[serde(deserialize_with = "event")]
    hook_event_name: E,
    #[serde(default, deserialize_with = "text")]
    session_id: Option<String>,
    #[serde(default, deserialize_with = "text")]
    transcript_path: Option<String>,
    /// SessionStart's.
    #[serde(default, deserialize_with = "text")]
    source: Option<String>,
    /// Claude's Notification's.
    #[serde(default, deserialize_with = "text")]
    notification_type: Option<String>,
    /// Claude's SessionEnd's.
    #[serde(default, deserialize_with = "text")]
    reason: Option<String>,
    /// The tool a permission request or a tool's end is for (Claude's,
    /// Codex's and Gemini's PermissionRequest, PostToolUse, AfterTool).
    #[serde(default, deserialize_with = "text")]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<serde_json::Value>,
    /// Gemini's Notification's: what its dialog asks.
    #[serde(default)]
    details: Option<serde_json::Value>,
}

impl<E> Payload<E> {
    /// What the payload's tool call is for, when it names a tool.
    fn asked(&self) -> Option<crate::request::Asked> {
        let tool = self.tool_name.as_deref()?;
        crate::request::Asked::from_tool_input(tool, self.tool_input.as_ref())
    }
}

/// A provider's event enum from its name, which must be text.
fn event<'de, D, E>(field: D) -> std::result::Result<E, D::Error>
where
    D: serde::Deserializer<'de>,
    E: serde::de::DeserializeOwned,
{
    use serde::de::IntoDeserializer;
    let name: String = serde::Deserialize::deserialize(field)?;
    E::deserialize(name.into_deserializer())
}

/// Read a hook payload of a provider's shape `T`; what is wrong with one
/// that is not is said for the hook log.
fn read_payload<'a, T: serde::Deserialize<'a>>(
    payload: &'a [u8],
) -> std::result::Result<T, String> {
    serde_json::from_slice(payload).map_err(|error| match error.classify() {
        serde_json::error::Category::Data => {
            format!("payload is not a hook call lf reads: {error}")
        }
        _ => format!("payload is not JSON: {error}"),
    })
}

/// The native id a payload names: a UUID (Claude's session, Codex's
/// thread), lowercased; `what` names it in the refusal.
fn payload_native_id(
    id: Option<String>,
    what: &str,
) -> std::result::Result<Option<String>, String> {
    match id {
        Some(id) if is_uuid(&id) => Ok(Some(id.to_ascii_lowercase())),
        Some(id) => Err(format!(
            "session_id {} is not {what}",
            crate::error::untrusted::quote(&id)
        )),
        None => Ok(None),
    }
}

/// The instructions appended to an agent's system prompt.
pub fn instructions(primary: bool) -> &'static str {
    if primary {
        "This is the one ongoing primary conversation of its repository or wave, run by lf. \
         No caller is waiting on it and it is not a review: do not run lf-session-ready. \
         Reconcile the current state of the work, then work with the person."
    } else {
        "This conversation runs inside an lf session. When your work is ready for the person to \
         review, run `lf-session-ready \"<summary>\"` once, where the summary says what changed, \
         where, and what the reviewer should check. It does not end the conversation."
    }
}

/// A random (version 4) UUID, as Claude's `--session-id` takes it.
pub fn uuid_v4() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

/// Whether text is a UUID in its canonical lowercase or uppercase form.
pub fn is_uuid(text: &str) -> bool {
    // 36 characters: the hyphenated form, not the others the crate reads.
    text.len() == 36 && uuid::Uuid::try_parse(text).is_ok()
}

/// A native id from a payload: a short token, never a path or a flag.
pub(crate) fn native_token(text: &str) -> std::result::Result<String, String> {
    let ok = !text.is_empty()
        && text.len() <= 128
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !text.contains("..");
    if ok {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "native id {} is malformed",
            crate::error::untrusted::quote(text)
        ))
    }
}

/// Quote a path for POSIX `sh` (Claude runs hook commands with a shell;
/// lf-install-shell writes the line that loads bash-completion): as it is
/// when it needs no quotes. A path holds no NUL, the one thing `shlex`
/// cannot quote.
pub fn shell_quote(text: &str) -> String {
    shlex::try_quote(text)
        .map(|quoted| quoted.into_owned())
        .unwrap_or_default()
}

/// JSONC — JSON with comments and trailing commas, as Gemini CLI reads
/// its settings files and OpenCode its config — read as a value by
/// jsonc-parser; what else JSON forbids stays refused.
pub(crate) fn jsonc(text: &str) -> std::result::Result<serde_json::Value, String> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    jsonc_parser::parse_to_serde_value(text, &options).map_err(|error| error.to_string())
}

/// The agent CLIs: a program that is not installed, a Run without what its provider needs.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum ProviderError {
    /// The program of a launch is not installed; `install` says how (the
    /// provider's package), `arg` which argument chose it.
    #[error("{} is not on PATH: {install}", quote(.program))]
    NotOnPath {
        arg: Arg,
        program: String,
        install: &'static str,
    },
    #[error("this command session has no argv to run")]
    NoArgv,
    #[error("a Claude or Gemini Run has no chosen session id")]
    NoChosenId,
    #[error(
        "neither GEMINI_CLI_HOME nor HOME is an absolute path, and Gemini CLI keeps your settings under it: set HOME"
    )]
    NoGeminiHome,
    /// The person's own inline config (`OPENCODE_CONFIG_CONTENT`) is not
    /// one lf can add its layer to: launching without it would drop
    /// their rules.
    #[error(
        "cannot add lf's plugin to your {variable}: {why}; make it a JSON object (lf adds to your configuration, never replaces it)"
    )]
    OwnConfig { variable: &'static str, why: String },
}

impl Domain for ProviderError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Operational
    }

    fn arg(&self) -> Option<Arg> {
        use ProviderError::*;
        Some(match self {
            NotOnPath { arg, .. } => *arg,
            _ => return None,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    /// The person's JSONC reads as their CLI reads it: comments and
    /// trailing commas; nothing looser.
    #[test]
    fn jsonc_takes_comments_and_trailing_commas_only() {
        let text =
            "{\n  // mine\n  \"permission\": {\"bash\": \"deny\",}, /* x */ \"a\": \"//not\",\n}";
        assert_eq!(
            jsonc(text).unwrap(),
            serde_json::json!({"permission": {"bash": "deny"}, "a": "//not"})
        );
        assert!(jsonc("{'a': 1}").is_err());
        assert!(jsonc("{\"a\": 1 \"b\": 2}").is_err());
    }

    #[test]
    fn an_answer_is_one_of_its_words_and_only_an_allow_may_be_always() {
        assert_eq!(Answer::parse("allow", false).unwrap(), Answer::Allow);
        assert_eq!(Answer::parse("allow", true).unwrap(), Answer::AllowAlways);
        assert_eq!(Answer::parse("deny", false).unwrap(), Answer::Deny);
        assert_eq!(
            Answer::parse("deny", true).unwrap_err().name(),
            "always_only_allows"
        );
        let maybe = Answer::parse("maybe", false).unwrap_err();
        assert_eq!(maybe.name(), "unknown_name");
        assert_eq!(maybe.arg(), Some(crate::error::Arg::Answer));
    }

    use super::*;

    /// A payload is read as before its typed shape: fields lf does not
    /// read are ignored, one of the wrong type counts as absent, an event
    /// lf does not listen to is ignored; only what is not a payload at all
    /// is refused (and logged by lf-hook, which still succeeds).
    #[test]
    fn hook_payloads_tolerate_what_a_newer_cli_may_send() {
        const ID: &str = "4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a";
        for provider in [Provider::Claude, Provider::Codex] {
            let parse = |json: &str| provider.parse_hook(json.as_bytes());
            let stop = parse(&format!(
                r#"{{"hook_event_name":"Stop","session_id":"{ID}","transcript_path":7,"new":{{"a":[1]}}}}"#
            ))
            .unwrap();
            assert_eq!(stop.native_id.as_deref(), Some(ID), "{provider:?}");
            assert_eq!(stop.transcript, None, "{provider:?}");
            assert!(
                matches!(stop.event, HookEvent::TurnCompleted { .. }),
                "{provider:?}"
            );
            let anonymous = parse(r#"{"hook_event_name":"UserPromptSubmit","session_id":null}"#);
            assert_eq!(
                anonymous.map(|hook| hook.event),
                Ok(HookEvent::TurnStarted { native_id: None }),
                "{provider:?}"
            );
            let newer = parse(r#"{"hook_event_name":"SomethingNew","extra":true}"#);
            assert_eq!(
                newer.map(|hook| hook.event),
                Ok(HookEvent::Ignored),
                "{provider:?}"
            );
            for refused in [
                "",
                "[1]",
                "5",
                r#"{"session_id":"x"}"#,
                r#"{"hook_event_name":3}"#,
                r#"{"hook_event_name":{"Stop":null}}"#,
            ] {
                assert!(parse(refused).is_err(), "{provider:?} {refused}");
            }
        }
        let notify = |json: &str| Provider::Codex.parse_hook(json.as_bytes());
        assert_eq!(
            notify(r#"{"type":"approval-requested","thread-id":"t-1"}"#).map(|hook| hook.event),
            Ok(HookEvent::Ignored)
        );
        for refused in [
            r#"{"type":null}"#,
            r#"{"type":{"agent-turn-complete":null},"thread-id":"t-1"}"#,
            r#"{"type":"agent-turn-complete","thread-id":5}"#,
        ] {
            assert!(notify(refused).is_err(), "{refused}");
        }
    }

    /// Every variable an adapter reads for the person's own configuration
    /// is one a Caller knows (from the person's shell, or the plugin's
    /// engine) and one a launch hands to the agent's tmux session: issue
    /// 34 found `OPENCODE_CONFIG_CONTENT` and `GEMINI_CLI_HOME` read by the
    /// adapters and unknown to the Caller, so lf replaced them.
    #[test]
    fn each_providers_config_variables_reach_it_through_the_caller() {
        for &provider in Provider::ALL {
            for &name in provider.config_env() {
                let caller =
                    Caller::new(None, |asked| (asked == name).then(|| "theirs".to_owned()));
                assert_eq!(
                    provider.person_env(&caller)(name).as_deref(),
                    Some("theirs"),
                    "{name}"
                );
                assert_eq!(caller.agent_config(), [(name, "theirs".to_owned())]);
            }
        }
        let names: Vec<&str> = Provider::all_config_env().collect();
        assert!(names.contains(&"OPENCODE_CONFIG_CONTENT") && names.contains(&"GEMINI_CLI_HOME"));
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "each once");
    }

    #[test]
    fn providers_parse_by_name() {
        for &provider in Provider::ALL {
            assert_eq!(Provider::parse(provider.as_str()).unwrap(), provider);
        }
        assert!(Provider::parse("gpt").is_err());
    }

    #[test]
    fn uuids_are_version_4_and_recognised() {
        let id = uuid_v4();
        assert!(is_uuid(&id), "{id}");
        assert_eq!(&id[14..15], "4");
        assert!(!is_uuid("not-a-uuid"));
        assert_ne!(uuid_v4(), uuid_v4());
    }

    #[test]
    fn shell_quoting_means_the_same_text_to_sh() {
        for text in [
            "/a b/it's",
            "/opt/lf bin/lf-hook",
            "$HOME `x` \\ \"q\"",
            "plain",
        ] {
            let said = std::process::Command::new("sh")
                .args(["-c", &format!("printf %s {}", shell_quote(text))])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(said.stdout).unwrap(), text);
        }
        assert!(is_uuid("4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a"));
        assert!(
            !is_uuid("4b6f1a527c1e4c1b9a2f1f0e3d2c1b0a"),
            "the simple form"
        );
        assert!(!is_uuid("{4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b}"));
    }

    #[test]
    fn native_tokens_are_never_paths_or_flags() {
        assert!(native_token("019a-thread_1.2").is_ok());
        for bad in ["", "../x", "a/b", "-rf", "a b", &"x".repeat(129)] {
            assert!(native_token(bad).is_err(), "{bad}");
        }
    }
}
