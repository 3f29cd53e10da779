//! Gemini CLI: a new conversation's id is the one its first `SessionStart`
//! names (lf passes no `--session-id`: with it, 0.61.0 draws its prompt
//! about half a second later), a resume names it (`--resume`), and lf's
//! hooks arrive through the
//! person's own user settings, seen through a folder of this launch:
//! `GEMINI_CLI_HOME` names the home folder whose `.gemini` the CLI reads,
//! and lf makes one in the Run's folder whose entries are links to the
//! person's own `~/.gemini` (their history, chats, keys, policies,
//! extensions…), except `settings.json`: a copy of theirs with lf's hooks
//! appended to each event's and lf's policy file added to `policyPaths`.
//! Nothing under `~/.gemini` is edited (the few folders the CLI would make
//! there itself are made first, so what it writes lands in them). The
//! CLI's system settings layer (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`) cannot
//! carry them: 0.61.0 skips a system settings file unless root owns it and
//! every folder above it. docs/agents/gemini.md has what the real CLI was
//! seen to do.
//!
//! Refusing a permission fires no hook; the CLI's transcript (its path
//! comes in every payload) records it at once ("Request cancelled."),
//! where `lf-serve` reads it with [`transcript_interrupt`]. What a
//! Session used is read from the same chat files and its subagents' beside
//! them ([`read_usage`], [`usage_companions`]; docs/agents/gemini.md,
//! "Usage").

use super::{Answer, HookEvent, Launch, Mode, SessionSource, instructions, is_uuid, shell_quote};
use crate::Result;
use crate::provider::ProviderError;
use crate::usage::{Carry, Tally, Tokens};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The hook events lf listens to. `AfterAgent` ends every turn that runs
/// to its end, is interrupted with Esc, or fails on its model request;
/// `Notification` (`ToolPermission`) comes as the permission dialog
/// appears and `AfterTool` once an allowed tool ran. The per-request
/// events (`BeforeModel`, `AfterModel`, `BeforeToolSelection`) are left
/// out on purpose: each carries the whole model request.
const EVENTS: [&str; 6] = [
    "SessionStart",
    "BeforeAgent",
    "AfterAgent",
    "Notification",
    "AfterTool",
    "SessionEnd",
];

/// Milliseconds the CLI gives one lf-hook call (it waits for each). More
/// than the store's busy timeout; far less than its default of a minute.
const HOOK_TIMEOUT_MS: u64 = 20_000;

/// The folders of `~/.gemini` the CLI writes into as it runs (chats and
/// logs, prompt history, "always allow" policies): made in the person's
/// own folder first, so the launch's links lead there.
const WRITTEN: [&str; 3] = ["tmp", "history", "policies"];

pub(super) struct Gemini;

impl super::Agent for Gemini {
    fn program(&self) -> &'static str {
        "gemini"
    }

    fn install(&self) -> &'static str {
        "install Gemini CLI (npm install -g @google/gemini-cli) or choose another --provider"
    }

    fn config_env(&self) -> &'static [&'static str] {
        // The person's `.gemini` (its settings, policies, keys: the launch's
        // own folder links to it), the trust they gave folders, the
        // system layers over and under their settings, and their sign-in.
        &[
            "GEMINI_CLI_HOME",
            "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
            "GEMINI_DEFAULT_AUTH_TYPE",
        ]
    }

    fn argv(&self, launch: &Launch<'_>) -> Result<Vec<String>> {
        argv(launch)
    }

    fn parse_hook(&self, payload: &[u8]) -> std::result::Result<super::Hook, String> {
        parse_hook(payload)
    }

    /// `SessionStart` names the conversation once the start-up dialogs
    /// are answered: a new one's id is adopted from it, a resume's
    /// confirmed. (lf does not choose the id: Gemini CLI 0.61.0 given
    /// `--session-id` draws its prompt about half a second later.)
    fn confirms_native_id_at_start(&self) -> bool {
        true
    }

    /// Gemini CLI draws its prompt 0.4–0.7 s before it fires `SessionStart`
    /// (0.61.0): the person is let in as the agent runs, not half a second
    /// later. lf-serve still waits for that hook (a dialog at start is
    /// predicted from Gemini's files and recorded with the launch, a failed
    /// start is recorded), and a resume still waits, as only Gemini can say
    /// it found the conversation.
    fn opener_waits_for_new_id(&self) -> bool {
        false
    }

    /// Gemini CLI starts as two node processes (about 3 s idle, more
    /// under load) before its `SessionStart` or a failed resume's exit:
    /// lf's default grace of 5 s took a slow start for a dialog, and a
    /// resume that then failed for an open that succeeded. Its start-up
    /// dialogs (trust, authentication) are predicted from its own files
    /// at once, so a longer grace only delays an unforeseen one.
    fn start_grace(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(15))
    }

    /// Gemini CLI says why a resume failed only on its stderr ("Error
    /// resuming session: …", status 42).
    fn captures_stderr(&self) -> bool {
        true
    }

    fn start_needs_person(&self, cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
        start_needs_person(cwd, env)
    }

    fn transcript_turn_ended(&self, line: &str) -> bool {
        transcript_interrupt(line)
    }

    fn read_usage(&self, line: &str, carry: &mut Carry, tally: &mut Tally) {
        read_usage(line, carry, tally);
    }

    fn usage_companions(&self, transcript: &Path) -> Vec<PathBuf> {
        usage_companions(transcript)
    }

    fn shows_permission_prompt(&self, lines: &[String]) -> bool {
        shows_permission_prompt(lines)
    }

    fn answer_keys(&self, answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
        answer_keys(answer, lines)
    }
}

fn argv(launch: &Launch<'_>) -> Result<Vec<String>> {
    let own = gemini_dir(launch.env).ok_or(ProviderError::NoGeminiHome)?;
    let home = launch.run_dir.join("gemini-home");
    let dir = home.join(".gemini");
    let policy = launch.run_dir.join("gemini-policy.toml");
    let context = launch.run_dir.join("gemini-context.json");
    let ready = ready_command(launch.hook_program);
    crate::home::write_private(&policy, policy_toml(&ready).as_bytes())?;
    crate::home::write_private(
        &context,
        context_json(launch, &ready).to_string().as_bytes(),
    )?;
    let settings = settings_json(
        own_settings(&own)?,
        launch.hook_program,
        &context,
        &policy,
        &own.join("policies"),
    );
    link_own(&own, &dir)?;
    crate::home::write_private(&dir.join("settings.json"), settings.to_string().as_bytes())?;
    // `env` puts the variables in and execs the CLI in place: the process
    // lf-serve started is the agent. Trust the person gives a folder goes
    // to their own file.
    let mut argv = vec![
        "env".to_owned(),
        format!("GEMINI_CLI_HOME={}", home.display()),
    ];
    if (launch.env)("GEMINI_CLI_TRUSTED_FOLDERS_PATH").is_none_or(|path| path.is_empty()) {
        argv.push(format!(
            "GEMINI_CLI_TRUSTED_FOLDERS_PATH={}",
            own.join("trustedFolders.json").display()
        ));
    }
    argv.push("gemini".to_owned());
    match launch.mode {
        Mode::Resume { native_id } => argv.extend(["--resume".to_owned(), native_id.to_owned()]),
        // A Run an earlier lf prepared with an id of its choosing (it
        // expects that id at SessionStart) is started with it.
        Mode::New {
            chosen_native_id: Some(id),
            ..
        } => argv.extend(["--session-id".to_owned(), id.to_owned()]),
        Mode::New { .. } => {}
    }
    if let Some(model) = launch.model {
        argv.push(format!("--model={model}"));
    }
    if let Mode::New {
        prompt: Some(prompt),
        ..
    } = launch.mode
    {
        // One argument with `=`: a prompt that starts with `-` is the
        // prompt, not a flag.
        argv.push(format!("--prompt-interactive={prompt}"));
    }
    Ok(argv)
}

/// Make the launch's `.gemini` folder: a link to each entry of the
/// person's own (the folders the CLI writes made there first), except
/// `settings.json`, which is lf's to write.
fn link_own(own: &Path, dir: &Path) -> Result<()> {
    let io = |what: &str, path: &Path| {
        let what = format!("{what} {} for a Gemini CLI launch", path.display());
        move |source| crate::Error::Io { what, source }
    };
    for name in WRITTEN {
        let path = own.join(name);
        std::fs::create_dir_all(&path).map_err(io("cannot make the folder", &path))?;
    }
    crate::home::create_private_dir(dir)?;
    let entries = std::fs::read_dir(own).map_err(io("cannot read", own))?;
    for entry in entries {
        let entry = entry.map_err(io("cannot read", own))?;
        let name = entry.file_name();
        if name == "settings.json" {
            continue;
        }
        let link = dir.join(&name);
        // A launch of the same Run again: its links are made anew.
        if link.symlink_metadata().is_ok() {
            std::fs::remove_file(&link).map_err(io("cannot replace", &link))?;
        }
        std::os::unix::fs::symlink(entry.path(), &link).map_err(io("cannot link", &link))?;
    }
    Ok(())
}

/// `lf-session-ready` as the agent is told to run it: its absolute path
/// (the CLI's shell need not have lf on PATH), quoted for the shell when
/// it must be. lf's policy allows exactly this prefix.
fn ready_command(hook_program: &Path) -> String {
    shell_quote(
        &hook_program
            .with_file_name("lf-session-ready")
            .display()
            .to_string(),
    )
}

/// The policy rule that lets the agent run `lf-session-ready` with no
/// dialog (TOML; a JSON string is a valid TOML basic string).
fn policy_toml(ready: &str) -> String {
    format!(
        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = {}\ndecision = \"allow\"\npriority = 100\n",
        Value::from(ready)
    )
}

/// What `SessionStart` prints for the CLI: lf's instructions, which it
/// adds to the conversation as its first turn.
fn context_json(launch: &Launch<'_>, ready: &str) -> Value {
    let mut text = instructions(launch.primary).to_owned();
    if !launch.primary {
        text.push_str(&format!(
            " Run it as `{ready} \"<summary>\"` (your shell's PATH may not have it); it needs no \
             permission."
        ));
    }
    json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
}

/// The person's own `.gemini` folder (`GEMINI_CLI_HOME` stands for the
/// home folder when set).
fn gemini_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let home = env("GEMINI_CLI_HOME")
        .filter(|home| !home.is_empty())
        .or_else(|| env("HOME").filter(|home| !home.is_empty()))?;
    let home = PathBuf::from(home);
    home.is_absolute().then(|| home.join(".gemini"))
}

/// The person's own user settings (`settings.json` of their `.gemini`):
/// empty when there are none. Ones that cannot be read are refused,
/// naming the file, rather than dropped from the launch.
fn own_settings(own: &Path) -> Result<Value> {
    let path = own.join("settings.json");
    let what = || {
        format!(
            "cannot carry your Gemini CLI settings {} into this launch; make it valid JSON",
            path.display()
        )
    };
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(json!({})),
        Err(source) => {
            return Err(crate::Error::Io {
                what: what(),
                source,
            });
        }
    };
    let text = String::from_utf8_lossy(&text);
    let why = match super::jsonc(&text) {
        Ok(settings @ Value::Object(_)) => return Ok(settings),
        Ok(_) => "it is not a JSON object".to_owned(),
        Err(error) => error,
    };
    Err(crate::Error::During {
        what: what(),
        inner: Box::new(crate::Error::Json(serde::de::Error::custom(why))),
    })
}

/// The launch's user settings: `base` (the person's own) with lf's hooks
/// appended to each event's, and lf's policy file added to `policyPaths`
/// beside the person's own policy folder (the CLI loads that folder only
/// when no `policyPaths` are set).
fn settings_json(
    mut base: Value,
    hook_program: &Path,
    context: &Path,
    policy: &Path,
    own_policies: &Path,
) -> Value {
    let command = format!(
        "{} gemini",
        shell_quote(&hook_program.display().to_string())
    );
    let hook = |command: String| json!({"type": "command", "command": command, "timeout": HOOK_TIMEOUT_MS});
    if !base["hooks"].is_object() {
        base["hooks"] = json!({});
    }
    for event in EVENTS {
        let mut hooks = vec![hook(command.clone())];
        if event == "SessionStart" {
            hooks.push(hook(format!(
                "cat {}",
                shell_quote(&context.display().to_string())
            )));
        }
        let group = json!({ "hooks": hooks });
        match &mut base["hooks"][event] {
            Value::Array(groups) => groups.push(group),
            other => *other = json!([group]),
        }
    }
    let mut paths: Vec<Value> = base["policyPaths"].as_array().cloned().unwrap_or_default();
    if paths.is_empty() {
        paths.push(json!(own_policies.display().to_string()));
    }
    paths.push(json!(policy.display().to_string()));
    base["policyPaths"] = Value::Array(paths);
    base
}

/// Whether the CLI will show a dialog at start that only a person can
/// answer, read from its own files (only read): the authentication
/// dialog when no auth type is chosen, and the folder-trust dialog for a
/// folder no rule of `trustedFolders.json` covers. `None` when a file
/// cannot tell.
fn start_needs_person(cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
    let dir = gemini_dir(env)?;
    let read = |path: &Path| -> Option<Value> {
        match std::fs::read(path) {
            Ok(text) => super::jsonc(&String::from_utf8_lossy(&text)).ok(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(json!({})),
            Err(_) => None,
        }
    };
    let user = read(&dir.join("settings.json"))?;
    // The system settings (root's: the file the variable names, else the
    // fixed place) override the person's.
    let system = env("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
        .filter(|path| !path.is_empty())
        .map_or_else(
            || PathBuf::from("/etc/gemini-cli/settings.json"),
            PathBuf::from,
        );
    let system = read(&system)?;
    let setting = |get: &dyn Fn(&Value) -> &Value| -> Value {
        let system = get(&system);
        if system.is_null() {
            get(&user).clone()
        } else {
            system.clone()
        }
    };
    let auth = setting(&|settings| &settings["security"]["auth"]["selectedType"]);
    if !auth.is_string() && env("GEMINI_DEFAULT_AUTH_TYPE").is_none_or(|kind| kind.is_empty()) {
        return Some(true);
    }
    if setting(&|settings| &settings["security"]["folderTrust"]["enabled"]) == json!(false) {
        return Some(false);
    }
    let folders = env("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .filter(|path| !path.is_empty())
        .map_or_else(|| dir.join("trustedFolders.json"), PathBuf::from);
    let rules = read(&folders)?;
    let covered = rules.as_object()?.iter().any(|(path, level)| {
        let path = Path::new(path);
        let root = match level.as_str() {
            Some("TRUST_PARENT") => path.parent(),
            Some("TRUST_FOLDER" | "DO_NOT_TRUST") => Some(path),
            _ => None,
        };
        root.is_some_and(|root| cwd.starts_with(root))
    });
    Some(!covered)
}

/// Whether one transcript line records that a turn ended with no hook:
/// the CLI's `info` record "Request cancelled." (a refused permission;
/// Esc during a turn also fires `AfterAgent`).
fn transcript_interrupt(line: &str) -> bool {
    const MARK: &str = "Request cancelled.";
    if !line.contains(MARK) {
        return false;
    }
    let Ok(entry) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    entry["type"] == "info" && entry["content"] == MARK
}

/// One record of Gemini's chat file, as far as usage reads it. `$set` and
/// `$rewindTo` updates have no `type` (a `$set` of `messages` repeats the
/// whole conversation: never read for usage).
#[derive(serde::Deserialize)]
struct ChatLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
    tokens: Option<ChatTokens>,
    /// The first line's (no `type`): `main`, or `subagent`.
    #[serde(rename = "kind", borrow)]
    conversation: Option<std::borrow::Cow<'a, str>>,
}

/// A `gemini` record's `tokens`, the request's `usageMetadata` renamed:
/// `input` (`promptTokenCount`) includes `cached`, and leaves out `tool`
/// (`toolUsePromptTokenCount`); `output` (`candidatesTokenCount`) leaves
/// out `thoughts`; `total` is all of them.
#[derive(serde::Deserialize)]
struct ChatTokens {
    #[serde(default)]
    input: i64,
    #[serde(default)]
    output: i64,
    #[serde(default)]
    cached: i64,
    #[serde(default)]
    thoughts: i64,
    #[serde(default)]
    tool: i64,
}

impl ChatTokens {
    /// By lf's kinds: input the cache did not serve (the tool-use prompt
    /// included), output with the thoughts, cache reads; Gemini reports
    /// no cache writes.
    fn tokens(&self) -> Tokens {
        let fields = [
            self.input,
            self.output,
            self.cached,
            self.thoughts,
            self.tool,
        ];
        Tokens::derived(&fields, || {
            Some(Tokens {
                input: self
                    .input
                    .checked_sub(self.cached)?
                    .checked_add(self.tool)?,
                output: self.output.checked_add(self.thoughts)?,
                cache_creation: 0,
                cache_read: self.cached,
            })
        })
    }
}

/// A subagent's chat files (Gemini CLI 0.61.0 writes them in
/// `chats/<the conversation's whole id>/<the subagent's id>.jsonl`, beside
/// the conversation's file, whose first line holds that id), found now.
fn usage_companions(transcript: &Path) -> Vec<PathBuf> {
    let (Some(chats), Some(id)) = (transcript.parent(), header_session_id(transcript)) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(chats.join(id)) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    found.sort();
    found
}

/// The `sessionId` a chat file's first line names, when it is a UUID.
fn header_session_id(transcript: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    #[derive(serde::Deserialize)]
    struct Header {
        #[serde(rename = "sessionId")]
        session_id: String,
    }
    let file = std::fs::File::open(transcript).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file.take(64 * 1024))
        .read_line(&mut line)
        .ok()?;
    let header: Header = serde_json::from_str(line.trim_end()).ok()?;
    is_uuid(&header.session_id).then_some(header.session_id)
}

/// What a `user` record of Gemini's chat file is.
#[derive(Debug, PartialEq, Eq)]
enum UserLine {
    /// The person's prompt.
    Prompt,
    /// A tool's result going back to the model.
    Work,
    /// Context the CLI adds itself (a hook's `<hook_context>`, the
    /// `<session_context>`), or a command of its own: what Gemini CLI
    /// itself does not take for the person's words (`isIgnoredUserContent`,
    /// 0.61.0).
    Context,
}

/// A `user` record's `content`: text, or the parts sent to the model.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(#[serde(borrow)] std::borrow::Cow<'a, str>),
    Parts(#[serde(borrow)] Vec<UserPart<'a>>),
}

#[derive(serde::Deserialize)]
struct UserPart<'a> {
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "functionResponse")]
    function_response: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct UserRecord<'a> {
    #[serde(borrow)]
    content: Option<UserContent<'a>>,
}

fn user_line(line: &str) -> UserLine {
    let content = serde_json::from_str::<UserRecord<'_>>(line)
        .ok()
        .and_then(|record| record.content);
    let text = match content {
        Some(UserContent::Text(text)) => text.into_owned(),
        Some(UserContent::Parts(parts)) => {
            if parts.iter().any(|part| part.function_response.is_some()) {
                return UserLine::Work;
            }
            parts
                .iter()
                .filter_map(|part| part.text.as_deref())
                .collect::<String>()
        }
        None => String::new(),
    };
    let text = text.trim();
    let own = text.is_empty()
        || ["/", "?", "<session_context>", "<hook_context>"]
            .iter()
            .any(|mark| text.starts_with(mark));
    if own {
        UserLine::Context
    } else {
        UserLine::Prompt
    }
}

/// Read one line of Gemini's chat file into `tally`
/// (docs/agents/gemini.md, "Usage"): a `gemini` record's `tokens` (one
/// model request; the CLI writes a message again as it updates it, under
/// the same `id`: counted once, the later replacing), a person's prompt
/// (a `user` record that is not a tool's result) starting a turn, the
/// agent's work in between, and "Request cancelled." ending one.
fn read_usage(line: &str, carry: &mut Carry, tally: &mut Tally) {
    // `$set` updates (the longest lines) are skipped unparsed.
    if line.starts_with("{\"$") {
        return;
    }
    let Ok(entry) = serde_json::from_str::<ChatLine<'_>>(line) else {
        return;
    };
    if entry.kind.is_none() {
        // The first line (again after a resume): a subagent's file is its
        // parent's turn's work.
        if let Some(conversation) = entry.conversation {
            carry.subagent = conversation == "subagent";
        }
        return;
    }
    let Some(at) = crate::usage::at(entry.timestamp.as_deref()) else {
        return;
    };
    if carry.subagent {
        if let (Some("gemini"), Some(id), Some(tokens)) =
            (entry.kind.as_deref(), entry.id, entry.tokens)
        {
            let model = entry.model.as_deref().unwrap_or("unknown");
            tally.message(carry, &id, at, model, tokens.tokens());
        }
        return;
    }
    match entry.kind.as_deref() {
        Some("gemini") => {
            tally.worked(carry, at);
            if let (Some(id), Some(tokens)) = (entry.id, entry.tokens) {
                let model = entry.model.as_deref().unwrap_or("unknown");
                tally.message(carry, &id, at, model, tokens.tokens());
            }
        }
        Some("user") => match user_line(line) {
            UserLine::Prompt => tally.turn_started(carry, at),
            UserLine::Work => tally.worked(carry, at),
            UserLine::Context => {}
        },
        Some("info") if transcript_interrupt(line) => tally.turn_ended(carry, at),
        Some("info" | "error") => tally.worked(carry, at),
        _ => {}
    }
}

/// Gemini's permission dialog: "1. Allow once" first and a last option
/// "No, suggest changes (esc)" (0.61.0).
fn shows_permission_prompt(lines: &[String]) -> bool {
    let lines = unmarked(lines);
    let mut options = super::options(&lines);
    options.any(|(number, label)| number == "1" && label.starts_with("Allow once"))
        && super::options(&lines).any(|(_, label)| label.starts_with("No, suggest changes"))
}

/// The dialog's lines with its selection mark (`●`) taken off, as
/// `super::options` reads them.
fn unmarked(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            let line = line.trim_start_matches(|c: char| c.is_whitespace() || c == '│');
            line.strip_prefix('●').unwrap_or(line).to_owned()
        })
        .collect()
}

/// A digit picks its option at once: "1. Allow once"; "Allow for this
/// session" (a tool of an MCP server: "Allow tool for this session") is
/// the CLI's "always" (it lasts the session); Esc refuses ("No, suggest
/// changes (esc)").
fn answer_keys(answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
    const DIGITS: [&[&str]; 9] = [
        &["1"],
        &["2"],
        &["3"],
        &["4"],
        &["5"],
        &["6"],
        &["7"],
        &["8"],
        &["9"],
    ];
    match answer {
        Answer::Allow => Some(&["1"]),
        Answer::AllowAlways => super::options(&unmarked(lines))
            .find(|(_, label)| {
                label.starts_with("Allow for this session")
                    || label.starts_with("Allow tool for this session")
            })
            .and_then(|(number, _)| number.parse::<usize>().ok())
            .and_then(|number| DIGITS.get(number.checked_sub(1)?).copied()),
        Answer::Deny => Some(&["Escape"]),
    }
}

/// Gemini's hook events (`hook_event_name`): those of [`EVENTS`], and any
/// other, which lf does not act on.
#[derive(serde::Deserialize)]
enum Event {
    SessionStart,
    BeforeAgent,
    AfterAgent,
    Notification,
    AfterTool,
    SessionEnd,
    #[serde(other)]
    Other,
}

/// Gemini's hook JSON (on stdin) to what it means.
fn parse_hook(payload: &[u8]) -> std::result::Result<super::Hook, String> {
    let read: super::Payload<Event> = super::read_payload(payload)?;
    let asked = read.asked();
    let shown = read.details.as_ref().and_then(|details| {
        let tool = read.tool_name.as_deref().or(details["type"].as_str())?;
        crate::request::Asked::from_tool_input(tool, Some(details))
    });
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
                Some("resume") => SessionSource::Resume,
                _ => SessionSource::Startup,
            },
        },
        Event::BeforeAgent => HookEvent::TurnStarted {
            native_id: native_id.clone(),
        },
        Event::AfterAgent => HookEvent::TurnCompleted {
            native_id: native_id.clone(),
        },
        Event::Notification => match notification_type.as_deref() {
            Some("ToolPermission") => HookEvent::PermissionPrompt(shown),
            Some(kind) => HookEvent::Unknown(format!(
                "Notification type {}",
                crate::error::untrusted::quote(kind)
            )),
            None => HookEvent::Unknown("Notification without a type".to_owned()),
        },
        Event::AfterTool => HookEvent::ToolFinished(asked),
        // `/clear` ends this conversation and starts another in the same
        // agent (a `clear` SessionStart follows): the Run goes on.
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

/// A transcript path from a payload: absolute, no `..`, a
/// `session-<start time>-<first 8 of the id>.jsonl` file of the payload's
/// own conversation.
fn transcript_path_of(path: &str, native_id: Option<&str>) -> Option<PathBuf> {
    let path = PathBuf::from(path);
    if !path.is_absolute() || path.components().any(|part| part.as_os_str() == "..") {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_prefix("session-")?.strip_suffix(".jsonl")?;
    let prefix = stem.get(stem.len().checked_sub(8)?..)?;
    let id = native_id.filter(|id| is_uuid(id))?;
    prefix.eq_ignore_ascii_case(&id[..8]).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a";

    fn launch<'a>(
        mode: Mode<'a>,
        run_dir: &'a Path,
        env: &'a dyn Fn(&str) -> Option<String>,
    ) -> Launch<'a> {
        Launch {
            mode,
            model: Some("gemini-2.5-pro"),
            command: &[],
            hook_program: Path::new("/opt/lf bin/lf-hook"),
            run_dir,
            primary: false,
            env,
        }
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn a_launch_sees_the_persons_own_gemini_folder_with_lfs_hooks_in_its_settings() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("p/.gemini");
        std::fs::create_dir_all(own.join("extensions")).unwrap();
        std::fs::write(own.join("oauth_creds.json"), "{}").unwrap();
        std::fs::write(
            own.join("settings.json"),
            r#"{
                // the person's own
                "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "audit"}]}]},
                /* kept */ "general": {"x": "a//b"}
            }"#,
        )
        .unwrap();
        let home = dir.path().join("p").display().to_string();
        let env = |key: &str| (key == "HOME").then(|| home.clone());
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        let argv = argv(&launch(
            Mode::New {
                chosen_native_id: None,
                prompt: Some("-m is a prompt"),
            },
            &run,
            &env,
        ))
        .unwrap();
        let overlay = run.join("gemini-home");
        let preset = super::argv(&launch(
            Mode::New {
                chosen_native_id: Some(ID),
                prompt: None,
            },
            &run,
            &env,
        ))
        .unwrap();
        assert_eq!(
            preset[3..6],
            ["gemini", "--session-id", ID],
            "a Run an earlier lf prepared keeps its id"
        );
        assert_eq!(
            argv,
            [
                "env".to_owned(),
                format!("GEMINI_CLI_HOME={}", overlay.display()),
                format!(
                    "GEMINI_CLI_TRUSTED_FOLDERS_PATH={}",
                    own.join("trustedFolders.json").display()
                ),
                "gemini".to_owned(),
                "--model=gemini-2.5-pro".to_owned(),
                "--prompt-interactive=-m is a prompt".to_owned(),
            ]
        );
        let seen = overlay.join(".gemini");
        for name in [
            "extensions",
            "oauth_creds.json",
            "tmp",
            "history",
            "policies",
        ] {
            assert_eq!(
                std::fs::read_link(seen.join(name)).unwrap(),
                own.join(name),
                "{name}"
            );
            assert!(own.join(name).exists(), "{name}");
        }
        let settings = seen.join("settings.json");
        let layer: Value = serde_json::from_str(&read(&settings)).unwrap();
        assert_eq!(
            layer["general"]["x"], "a//b",
            "the person's settings carried"
        );
        assert!(
            read(&own.join("settings.json")).contains("// the person's own"),
            "untouched"
        );
        let after = layer["hooks"]["AfterAgent"].as_array().unwrap();
        assert_eq!(after[0]["hooks"][0]["command"], "audit", "kept, first");
        for event in EVENTS {
            let groups = layer["hooks"][event].as_array().unwrap();
            let ours = &groups.last().unwrap()["hooks"];
            assert_eq!(
                ours[0]["command"], "'/opt/lf bin/lf-hook' gemini",
                "{event}"
            );
            assert_eq!(ours[0]["timeout"], HOOK_TIMEOUT_MS);
        }
        let context = run.join("gemini-context.json");
        assert_eq!(
            layer["hooks"]["SessionStart"][0]["hooks"][1]["command"],
            format!("cat {}", shell_quote(&context.display().to_string()))
        );
        let told: Value = serde_json::from_str(&read(&context)).unwrap();
        let text = told["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(text.contains("run `lf-session-ready"), "{text}");
        assert!(
            text.contains("`'/opt/lf bin/lf-session-ready' \""),
            "{text}"
        );
        let policy = run.join("gemini-policy.toml");
        assert_eq!(
            layer["policyPaths"],
            json!([
                own.join("policies").display().to_string(),
                policy.display().to_string()
            ])
        );
        assert!(
            read(&policy).contains(r#"commandPrefix = "'/opt/lf bin/lf-session-ready'""#),
            "{}",
            read(&policy)
        );
        use std::os::unix::fs::PermissionsExt;
        for file in [&settings, &policy, &context] {
            let mode = std::fs::metadata(file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", file.display());
        }
        // The same Run launched again (a resume): its folder made anew.
        let resume = super::argv(&Launch {
            primary: true,
            model: None,
            ..launch(Mode::Resume { native_id: ID }, &run, &env)
        })
        .unwrap();
        assert_eq!(resume[3..], ["gemini", "--resume", ID]);
        let told = read(&context);
        assert!(told.contains("do not run lf-session-ready"), "{told}");
        assert!(!told.contains("lf bin/lf-session-ready"), "{told}");
    }

    #[test]
    fn settings_that_cannot_be_read_refuse_the_launch() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(own_settings(dir.path()).unwrap(), json!({}));
        for text in ["{not json", "[1]"] {
            std::fs::write(dir.path().join("settings.json"), text).unwrap();
            let error = own_settings(dir.path()).unwrap_err().to_string();
            assert!(
                error.contains(&dir.path().join("settings.json").display().to_string()),
                "{error}"
            );
        }
    }

    #[test]
    fn start_dialogs_are_predicted_from_geminis_own_files() {
        let home = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini");
        let home_path = home.path().display().to_string();
        let env = |key: &str| (key == "HOME").then(|| home_path.clone());
        let cwd = Path::new("/w/repo/sub");
        assert_eq!(start_needs_person(cwd, &env), Some(true), "first run");
        std::fs::create_dir(&gemini).unwrap();
        let settings = |text: &str| std::fs::write(gemini.join("settings.json"), text).unwrap();
        settings(r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#);
        assert_eq!(start_needs_person(cwd, &env), Some(true), "not trusted");
        let trust = |text: &str| std::fs::write(gemini.join("trustedFolders.json"), text).unwrap();
        for (rules, asks) in [
            (r#"{"/w/repo": "TRUST_FOLDER"}"#, false),
            (r#"{"/w/repo/sub/x": "TRUST_PARENT"}"#, false),
            (r#"{"/w/repo/sub": "DO_NOT_TRUST"}"#, false),
            (r#"{"/w/other": "TRUST_FOLDER"}"#, true),
            (r#"{"/w/repo": "SOMETHING"}"#, true),
        ] {
            trust(rules);
            assert_eq!(start_needs_person(cwd, &env), Some(asks), "{rules}");
        }
        trust("{not json");
        assert_eq!(start_needs_person(cwd, &env), None);
        settings(
            r#"{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}}"#,
        );
        assert_eq!(start_needs_person(cwd, &env), Some(false));
        settings(r#"{"security": {"folderTrust": {"enabled": false}}}"#);
        assert_eq!(start_needs_person(cwd, &env), Some(true), "auth asked");
    }

    /// Issue 34, item 14: the person's `GEMINI_CLI_HOME` and
    /// `GEMINI_CLI_TRUSTED_FOLDERS_PATH`, set in the shell lf is run
    /// from, reach the launch through its Caller (they were missing from
    /// its variables, and lf used `~/.gemini` and its trust file instead).
    #[test]
    fn i34_the_persons_gemini_home_and_trust_file_reach_the_launch_from_their_shell() {
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir.path().join("elsewhere");
        let own = theirs.join(".gemini");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(
            own.join("settings.json"),
            r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}, "tools": {"exclude": ["run_shell_command"]}}"#,
        )
        .unwrap();
        let trust = dir.path().join("trust.json");
        std::fs::write(&trust, r#"{"/w/repo": "TRUST_FOLDER"}"#).unwrap();
        let home = dir.path().join("home").display().to_string();
        let (theirs_text, trust_text) = (theirs.display().to_string(), trust.display().to_string());
        let caller = crate::Caller::new(None, |name| match name {
            "HOME" => Some(home.clone()),
            "GEMINI_CLI_HOME" => Some(theirs_text.clone()),
            "GEMINI_CLI_TRUSTED_FOLDERS_PATH" => Some(trust_text.clone()),
            _ => None,
        });
        let env = crate::provider::Provider::Gemini.person_env(&caller);
        assert_eq!(
            start_needs_person(Path::new("/w/repo"), &env),
            Some(false),
            "their trust file trusts the folder"
        );
        assert_eq!(start_needs_person(Path::new("/w/other"), &env), Some(true));
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        let new = Mode::New {
            chosen_native_id: None,
            prompt: None,
        };
        let argv = argv(&launch(new, &run, &env)).unwrap();
        assert_eq!(
            argv[..3],
            [
                "env".to_owned(),
                format!("GEMINI_CLI_HOME={}", run.join("gemini-home").display()),
                "gemini".to_owned(),
            ],
            "their trust file is left for the CLI to read"
        );
        let layer: Value =
            serde_json::from_str(&read(&run.join("gemini-home/.gemini/settings.json"))).unwrap();
        assert_eq!(layer["tools"]["exclude"], json!(["run_shell_command"]));
        assert_eq!(
            layer["policyPaths"][0],
            own.join("policies").display().to_string()
        );
    }

    #[test]
    fn hook_payloads_map_to_events_of_their_conversation() {
        let transcript =
            "/h/.gemini/tmp/repo/chats/session-2026-12-02T14-06-4b6f1a52.jsonl".to_owned();
        let parse = |event: &str, extra: &str| {
            parse_hook(
                format!(
                    r#"{{"session_id":"{ID}","transcript_path":"{transcript}","cwd":"/w","hook_event_name":"{event}","timestamp":"t"{extra}}}"#
                )
                .as_bytes(),
            )
            .unwrap()
        };
        let start = parse("SessionStart", r#","source":"startup""#);
        assert_eq!(
            start.event,
            HookEvent::SessionStarted {
                native_id: ID.to_owned(),
                source: SessionSource::Startup
            }
        );
        assert_eq!(start.transcript, Some(PathBuf::from(&transcript)));
        assert_eq!(
            parse("SessionStart", r#","source":"resume""#).event,
            HookEvent::SessionStarted {
                native_id: ID.to_owned(),
                source: SessionSource::Resume
            }
        );
        assert_eq!(
            parse("BeforeAgent", r#","prompt":"hi""#).event,
            HookEvent::TurnStarted {
                native_id: Some(ID.to_owned())
            }
        );
        assert_eq!(
            parse("AfterAgent", r#","prompt_response":"ok""#).event,
            HookEvent::TurnCompleted {
                native_id: Some(ID.to_owned())
            }
        );
        assert_eq!(
            parse("Notification", r#","notification_type":"ToolPermission""#).event,
            HookEvent::PermissionPrompt(None)
        );
        assert!(matches!(
            parse("Notification", r#","notification_type":"Other""#).event,
            HookEvent::Unknown(_)
        ));
        assert_eq!(parse("AfterTool", "").event, HookEvent::ToolFinished(None));
        assert_eq!(
            parse("SessionEnd", r#","reason":"exit""#).event,
            HookEvent::SessionEnded
        );
        assert_eq!(
            parse("SessionEnd", r#","reason":"clear""#).event,
            HookEvent::Ignored
        );
        assert_eq!(parse("BeforeModel", "").event, HookEvent::Ignored);
        for bad in [
            "",
            "[]",
            r#"{"session_id":"x"}"#,
            r#"{"hook_event_name":"AfterAgent","session_id":"../../x"}"#,
            r#"{"hook_event_name":"SessionStart"}"#,
        ] {
            assert!(parse_hook(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_transcript_path_must_be_the_payloads_own_conversation() {
        let ok = "/h/chats/session-2026-12-02T14-06-4b6f1a52.jsonl";
        assert_eq!(transcript_path_of(ok, Some(ID)), Some(PathBuf::from(ok)));
        for bad in [
            "chats/session-2026-12-02T14-06-4b6f1a52.jsonl",
            "/h/../etc/session-2026-12-02T14-06-4b6f1a52.jsonl",
            "/h/chats/session-2026-12-02T14-06-00000000.jsonl",
            "/h/chats/other-2026-12-02T14-06-4b6f1a52.jsonl",
            "/h/chats/session-2026-12-02T14-06-4b6f1a52.json",
        ] {
            assert_eq!(transcript_path_of(bad, Some(ID)), None, "{bad}");
        }
        assert_eq!(transcript_path_of(ok, None), None);
    }

    #[test]
    fn a_refused_permission_is_read_from_the_transcript() {
        assert!(transcript_interrupt(
            r#"{"id":"8e","timestamp":"t","type":"info","content":"Request cancelled."}"#
        ));
        for line in [
            r#"{"id":"1","type":"user","content":[{"text":"Request cancelled."}]}"#,
            r#"{"id":"2","type":"gemini","content":"Request cancelled."}"#,
            r#"{"$set":{"lastUpdated":"t"}}"#,
            "not json Request cancelled.",
        ] {
            assert!(!transcript_interrupt(line), "{line}");
        }
    }

    /// Lines of a chat file as Gemini CLI 0.61.0 wrote them against the
    /// fake server (shortened): a hook's context, a turn, a tool's turn
    /// (its message written again with its tool calls), a cancelled end, and
    /// the `$set` of the whole conversation, whose messages are never read.
    const CHAT: [&str; 12] = [
        r#"{"sessionId":"4f314d8f-8925-479d-a512-34955cde5f21","projectHash":"12","startTime":"2026-12-02T10:00:00.000Z","lastUpdated":"2026-12-02T10:00:00.000Z","kind":"main"}"#,
        r#"{"$set":{"messages":[{"id":"d0","timestamp":"2026-12-02T10:00:00.000Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI."}]},{"id":"9","timestamp":"2026-12-02T09:00:00.000Z","type":"gemini","content":"Old.","tokens":{"input":9,"output":9,"cached":0,"thoughts":0,"tool":0,"total":18},"model":"gemini-3.8-flash"}]}}"#,
        r#"{"id":"6e2e67b7-fece-4b9d-b628-ab1be241c4e2","timestamp":"2026-12-02T10:00:00.500Z","type":"user","content":[{"text":"<hook_context>This conversation runs inside an lf session.</hook_context>"}]}"#,
        r#"{"id":"1f0b04ff-c656-4578-936a-b69db1b907b4","timestamp":"2026-12-02T10:00:01.000Z","type":"user","content":[{"text":"Usage one"}]}"#,
        r#"{"id":"531d8161-db9b-4f2e-a84a-af20c663a85b","timestamp":"2026-12-02T10:00:03.000Z","type":"gemini","content":"Answer 1.","thoughts":[],"tokens":{"input":3997,"output":38,"cached":3001,"thoughts":3,"tool":5,"total":4043},"model":"gemini-3.8-flash"}"#,
        r#"{"id":"b9489704-e5d6-4ada-80ce-520328444d49","timestamp":"2026-12-02T10:00:13.000Z","type":"user","content":[{"text":"[run: true] Usage two"}]}"#,
        r#"{"id":"1bee42a1-643e-4569-8cb3-e230693b17b2","timestamp":"2026-12-02T10:00:14.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":4001,"output":40,"cached":3003,"thoughts":3,"tool":5,"total":4049},"model":"gemini-3.8-flash"}"#,
        r#"{"id":"1bee42a1-643e-4569-8cb3-e230693b17b2","timestamp":"2026-12-02T10:00:14.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":4001,"output":40,"cached":3003,"thoughts":3,"tool":5,"total":4049},"model":"gemini-3.8-flash","toolCalls":[{"id":"run_shell_command_0","name":"run_shell_command","args":{"command":"true"}}]}"#,
        r#"{"id":"e0fac12f-01ed-45ab-a536-c1b407e23e40","timestamp":"2026-12-02T10:00:16.000Z","type":"user","content":[{"functionResponse":{"id":"run_shell_command_0","name":"run_shell_command","response":{"output":"Output: (empty)"}}}]}"#,
        r#"{"id":"8e0042e8-2aa4-4c95-8a08-7f28228b28a3","timestamp":"2026-12-02T10:00:17.000Z","type":"gemini","content":"Tool finished.","thoughts":[],"tokens":{"input":4003,"output":41,"cached":3004,"thoughts":3,"tool":5,"total":4052},"model":"gemini-3.8-flash"}"#,
        r#"{"id":"d7","timestamp":"2026-12-02T10:00:18.000Z","type":"info","content":"Request cancelled."}"#,
        r#"{"id":"d786596a-71d4-40b0-a844-7788612885ac","timestamp":"2026-12-02T10:00:30.000Z","type":"info","content":""}"#,
    ];

    #[test]
    fn usage_is_read_from_the_chat_file_once_per_message() {
        let mut carry = Carry::default();
        // Two reads, the second starting at the tool call's message
        // written again: the carry keeps it counted once.
        let mut first = Tally::default();
        for line in &CHAT[..7] {
            read_usage(line, &mut carry, &mut first);
        }
        let mut second = Tally::default();
        for line in &CHAT[7..] {
            read_usage(line, &mut carry, &mut second);
        }
        let key = ("2026-12-02".to_owned(), "gemini-3.8-flash".to_owned());
        let mut sums = first.models[&key];
        sums.tokens.add(&second.models[&key].tokens);
        sums.requests += second.models[&key].requests;
        // input 3997 - 3001 cached + 5 of the tool-use prompt, …; output
        // 38 + 3 thoughts, …: the totals are Gemini's own.
        assert_eq!(
            (sums.tokens, sums.requests),
            (
                Tokens {
                    input: 1001 + 1003 + 1004,
                    output: 41 + 43 + 44,
                    cache_creation: 0,
                    cache_read: 3001 + 3003 + 3004,
                },
                3
            )
        );
        assert_eq!(sums.tokens.total(), 4043 + 4049 + 4052);
        assert_eq!(
            first.models.len() + second.models.len(),
            2,
            "{first:?} {second:?}"
        );
        let time = |tally: &Tally| tally.time.get("2026-12-02").copied().unwrap_or_default();
        let (a, b) = (time(&first), time(&second));
        // The hook's context is no turn; the tool's result is work.
        assert_eq!(a.turns + b.turns, 2);
        // 1 s → 3 s, then 13 s → 14 s → 16 s → 17 s → 18 s (cancelled);
        // the `info` after the turn ended is no work.
        assert_eq!(a.working + b.working, 7_000_000);
        assert_eq!(a.waiting + b.waiting, 10_000_000);
    }

    /// A subagent's chat file, as 0.61.0 wrote it (shortened): its
    /// requests count, its prompt is no turn of the person's.
    const SUBAGENT_CHAT: [&str; 4] = [
        r#"{"sessionId":"7becd003-6913-43d7-bf7c-0ccd14d6989f","projectHash":"d4","startTime":"2026-12-02T15:33:18.339Z","lastUpdated":"2026-12-02T15:33:18.339Z","kind":"subagent","directories":["/tmp/repo"]}"#,
        r#"{"id":"56a91cfb-161a-482c-9572-0a447351bd57","timestamp":"2026-12-02T15:33:18.426Z","type":"user","content":[{"text":"Say hi"}]}"#,
        r#"{"id":"8edfcf5b-6a3b-4228-b8c4-45d95585840e","timestamp":"2026-12-02T15:33:18.588Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":4033,"output":56,"cached":3019,"thoughts":3,"tool":5,"total":4097},"model":"gemini-3.8-flash"}"#,
        r#"{"id":"8edfcf5b-6a3b-4228-b8c4-45d95585840e","timestamp":"2026-12-02T15:33:18.588Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":4033,"output":56,"cached":3019,"thoughts":3,"tool":5,"total":4097},"model":"gemini-3.8-flash","toolCalls":[{"id":"7b#0-0","name":"complete_task","args":{"result":{"response":"Fake result."}}}]}"#,
    ];

    #[test]
    fn a_subagents_chat_file_is_found_beside_and_counts_its_requests_alone() {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("chats");
        let parent = "a308b4ad-6d58-4e20-b455-05e2988dc14c";
        let transcript = chats.join("session-2026-12-02T15-31-a308b4ad.jsonl");
        std::fs::create_dir_all(chats.join(parent)).unwrap();
        std::fs::write(
            &transcript,
            format!("{{\"sessionId\":\"{parent}\",\"projectHash\":\"d4\",\"startTime\":\"2026-12-02T15:31:00.000Z\",\"kind\":\"main\"}}\n"),
        )
        .unwrap();
        let subagent = chats
            .join(parent)
            .join("7becd003-6913-43d7-bf7c-0ccd14d6989f.jsonl");
        std::fs::write(&subagent, SUBAGENT_CHAT.join("\n")).unwrap();
        std::fs::write(chats.join(parent).join("notes.txt"), "").unwrap();
        assert_eq!(usage_companions(&transcript), vec![subagent.clone()]);
        // Another conversation's folder is not this one's; a file whose
        // first line names no UUID has none.
        assert_eq!(usage_companions(&subagent), Vec::<PathBuf>::new());
        std::fs::write(&transcript, "{\"sessionId\":\"../x\"}\n").unwrap();
        assert_eq!(usage_companions(&transcript), Vec::<PathBuf>::new());

        let (mut carry, mut tally) = (Carry::default(), Tally::default());
        for line in SUBAGENT_CHAT {
            read_usage(line, &mut carry, &mut tally);
        }
        assert!(carry.subagent);
        let sums = tally.models[&("2026-12-02".to_owned(), "gemini-3.8-flash".to_owned())];
        assert_eq!((sums.tokens.total(), sums.requests), (4097, 1));
        assert!(tally.time.is_empty(), "{tally:?}");
    }

    #[test]
    fn user_records_are_prompts_unless_the_cli_wrote_them() {
        for (line, kind) in [
            (
                r#"{"type":"user","content":[{"text":"Hello"}]}"#,
                UserLine::Prompt,
            ),
            (r#"{"type":"user","content":"Hello"}"#, UserLine::Prompt),
            (
                r#"{"type":"user","content":[{"text":"Hello\n<hook_context>x</hook_context>"}]}"#,
                UserLine::Prompt,
            ),
            (
                r#"{"type":"user","content":[{"text":"  <hook_context>x</hook_context>"}]}"#,
                UserLine::Context,
            ),
            (
                r#"{"type":"user","content":[{"text":"<session_context>x"}]}"#,
                UserLine::Context,
            ),
            (
                r#"{"type":"user","content":[{"text":"/about"}]}"#,
                UserLine::Context,
            ),
            (r#"{"type":"user","content":[]}"#, UserLine::Context),
            (
                r#"{"type":"user","content":[{"functionResponse":{"id":"1","name":"run_shell_command","response":{}}}]}"#,
                UserLine::Work,
            ),
        ] {
            assert_eq!(user_line(line), kind, "{line}");
        }
    }

    /// Two parallel `run_shell_command` calls as Gemini CLI 0.61.0 asks
    /// for them: a `ToolPermission` notification for each at once (here
    /// the second call's first), each naming its command in `details`,
    /// and, once every call of the batch was answered, `AfterTool` for
    /// the one allowed, naming it in `tool_input`.
    #[test]
    fn a_batchs_notifications_and_tool_ends_each_name_their_command() {
        let parse = |event: &str, extra: &str| {
            parse_hook(
                format!(r#"{{"session_id":"{ID}","cwd":"/w","hook_event_name":"{event}","timestamp":"t"{extra}}}"#)
                    .as_bytes(),
            )
            .unwrap()
            .event
        };
        let asked = |command: &str| {
            parse(
                "Notification",
                &format!(
                    r#","notification_type":"ToolPermission","message":"Tool Confirm Shell Command requires execution","details":{{"type":"exec","title":"Confirm Shell Command","command":"{command}","rootCommand":"touch"}}"#
                ),
            )
        };
        for command in ["touch two.txt", "touch one.txt"] {
            assert_eq!(
                asked(command),
                HookEvent::PermissionPrompt(crate::request::Asked::new("exec", command))
            );
        }
        assert_eq!(
            parse(
                "AfterTool",
                r#","tool_name":"run_shell_command","tool_input":{"command":"touch one.txt","description":"d"},"tool_response":{"llmContent":"Output: (empty)"}"#
            ),
            HookEvent::ToolFinished(crate::request::Asked::new(
                "run_shell_command",
                "touch one.txt"
            ))
        );
    }

    /// Gemini CLI 0.61.0 shows a batch's dialogs one at a time, "1 of 2"
    /// then "2 of 2", each with its own command in a box of its own: each
    /// is found, shows its own command only, and is not the other.
    #[test]
    fn each_dialog_of_a_batch_is_found_and_shows_its_own_command() {
        let screen = |command: &str, count: &str| -> Vec<String> {
            [
                " > [run: touch one.txt || touch two.txt] Make two files".to_owned(),
                "╭──────────────────────────────────────────╮".to_owned(),
                format!("│ ? Shell  {command}                  {count} │"),
                "│ ╭──────────────────────────────────────╮ │".to_owned(),
                format!("│ │ {command}                        │ │"),
                "│ ╰──────────────────────────────────────╯ │".to_owned(),
                "│ Allow execution of [Shell]?              │".to_owned(),
                "│                                          │".to_owned(),
                "│ ● 1. Allow once                          │".to_owned(),
                "│   2. Allow for this session              │".to_owned(),
                "│   3. No, suggest changes (esc)           │".to_owned(),
                "╰──────────────────────────────────────────╯".to_owned(),
            ]
            .to_vec()
        };
        let gemini = crate::provider::Provider::Gemini;
        let first = gemini.dialog(&screen("touch one.txt", "1 of 2")).unwrap();
        let second = gemini.dialog(&screen("touch two.txt", "2 of 2")).unwrap();
        assert!(first.lines[0].starts_with('╭'), "{:?}", first.lines);
        assert!(first.shows("touch one.txt") && !first.shows("touch two.txt"));
        assert!(second.shows("touch two.txt") && !second.shows("touch one.txt"));
        assert!(!first.same_as(&second));
        assert_ne!(first.digest(), second.digest());
    }

    /// The permission dialog of Gemini CLI 0.61.0 as the real CLI draws
    /// it, and the keys each answer takes.
    #[test]
    fn the_permission_dialog_is_seen_and_answered_with_its_keys() {
        let screen: Vec<String> = [
            "╭──────────────────────────────╮",
            "│ ? Shell  touch allowed.txt   │",
            "│ Allow execution of [Shell]?  │",
            "│                              │",
            "│ ● 1. Allow once              │",
            "│   2. Allow for this session  │",
            "│   3. No, suggest changes (esc) │",
            "╰──────────────────────────────╯",
        ]
        .map(str::to_owned)
        .to_vec();
        assert!(shows_permission_prompt(&screen));
        assert_eq!(answer_keys(Answer::Allow, &screen), Some(&["1"][..]));
        assert_eq!(answer_keys(Answer::AllowAlways, &screen), Some(&["2"][..]));
        assert_eq!(answer_keys(Answer::Deny, &screen), Some(&["Escape"][..]));
        let composer = [" >   1. Allow once".to_owned()];
        assert!(!shows_permission_prompt(&composer), "a prompt quoting it");
        let without: Vec<String> = screen
            .iter()
            .filter(|line| !line.contains("for this session"))
            .cloned()
            .collect();
        assert_eq!(answer_keys(Answer::AllowAlways, &without), None);
    }
}
