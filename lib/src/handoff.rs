//! Interactive handoffs: an autonomous agent meets something only a person
//! can do (a login, a decision), hands its terminal to a person, and gets
//! it back. The rules:
//!
//! - Opening is idempotent on replay: the same parent and body generation
//!   find the same handoff (`created: false`); a parent has at most one
//!   handoff without an outcome, and its working directory must be the
//!   parent's checkout (a Task's worktree, a Wave's repository), so the
//!   person lands where the agent's provider history lives.
//! - Attaching is idempotent: the first attach time and the attach argv
//!   never change, across repeats and restarts.
//! - The first outcome (handed back, completed, failed) wins, also between
//!   processes finishing at once; repeating it returns it, a different one
//!   is refused.
//! - After an outcome, exactly one claim wakes the agent.
//! - The opener is an autonomous agent, the person who attaches is trusted:
//!   nothing the person does not see may change what runs. An opener may
//!   give only credentials as variables ([`refusal`]), checked at open and
//!   again before an attach (a Home may hold rows from before the check),
//!   and the attach program is looked up on the attaching caller's PATH,
//!   never a stored one ([`attach_program`]), and shown before it runs.
//!
//! Environment values may be secret: they are stored, given to the attach
//! argv's process, and never printed, not even in an error.

use crate::caller::Caller;
use crate::clock::{Seconds, Timestamp, now_micros};
use crate::error::domain::{Arg, Domain, ErrorKind, What};
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::quote;
use crate::facade::Lf;
use crate::home::Home;
use crate::ids::HandoffId;
use crate::input;
use crate::input::InputError;
use crate::provider::Provider;
use crate::store::Store;
use crate::store::handoffs::{HandoffRow, Opened};
use crate::wire::{
    HandoffListRow, HandoffOpened, HandoffOutcome, HandoffParentKind, HandoffRecord, HandoffStatus,
};
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const ENVIRONMENT_MAX_ENTRIES: usize = 200;
pub const ENVIRONMENT_NAME_MAX_CHARS: usize = 128;
pub const ENVIRONMENT_VALUE_MAX_BYTES: usize = 32 * 1024;

/// The parent a person hands work back to, as given: `task:T` (a Task id
/// or identifier) or `wave:W` (a Wave id or name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParentSelector {
    pub kind: HandoffParentKind,
    pub selector: String,
}

impl ParentSelector {
    pub fn parse(text: &str) -> Result<Self> {
        let parsed = text.split_once(':').and_then(|(kind, selector)| {
            let kind = HandoffParentKind::parse(kind).ok()?;
            (!selector.trim().is_empty()).then(|| ParentSelector {
                kind,
                selector: selector.to_owned(),
            })
        });
        parsed.ok_or_else(|| HandoffError::BadParent(text.to_owned()).into())
    }
}

/// What `lf-handoff open` is given, before any checking.
#[derive(Debug, Clone)]
pub struct OpenArgs<'a> {
    /// `task:T` or `wave:W`.
    pub parent: &'a str,
    pub cwd: &'a Path,
    pub provider: &'a str,
    pub provider_session_id: Option<&'a str>,
    pub body_generation: u32,
    pub reason: &'a str,
    /// `KEY=VALUE` entries.
    pub environment: &'a [String],
    pub attach_argv: &'a [String],
}

/// A checked open request: everything that can be checked without the
/// store is, so a bad request is refused before the database is touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenRequest {
    pub parent: ParentSelector,
    /// Canonical.
    pub cwd: String,
    pub provider: Provider,
    pub provider_session_id: Option<String>,
    pub body_generation: u32,
    pub reason: String,
    pub environment: BTreeMap<String, String>,
    pub attach_argv: Vec<String>,
}

impl OpenRequest {
    /// Check a request for a caller (whose directory a relative `cwd` is in).
    pub(crate) fn check(lf: &Lf, args: &OpenArgs<'_>) -> Result<Self> {
        Ok(OpenRequest {
            parent: ParentSelector::parse(args.parent)?,
            cwd: lf.dir(args.cwd, Arg::Cwd, "handoff working directory")?,
            provider: Provider::parse(args.provider)?,
            provider_session_id: args
                .provider_session_id
                .map(|id| input::PROVIDER_SESSION_ID.check(id))
                .transpose()?,
            body_generation: args.body_generation,
            reason: input::HANDOFF_REASON.check(args.reason)?,
            environment: environment(args.environment)?,
            attach_argv: attach_argv(args.attach_argv)?,
        })
    }
}

fn is_environment_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
        && name.len() <= ENVIRONMENT_NAME_MAX_CHARS
}

// ----- What an opener may set
// (docs/decisions/0025-handoffs-what-an-opener-may-set.md). The opener is an autonomous agent; the person who
// attaches runs the attach command with these variables, and sees only
// their names. So the rule is an allow list: a handoff's environment
// exists to carry secrets the person should not have to read, and a
// secret is a credential; whatever is not secret belongs in the attach
// argv, where the person sees it.

/// How the name of a variable an opener may set ends: a credential, in
/// capitals, after a prefix (GH_TOKEN, OPENAI_API_KEY, AWS_ACCESS_KEY_ID).
pub const CREDENTIAL_ENDINGS: &[&str] = &["_TOKEN", "_KEY", "_KEY_ID", "_SECRET", "_PASSWORD"];

const LOADER: &str =
    "the dynamic loader reads it and loads code of the opener's choosing into the program";
const INTERPRETER: &str =
    "an interpreter reads it, so it loads or runs code of the opener's choosing";

/// Namespaces refused even for a credential-shaped name, because a
/// program reads every variable of the namespace (git's GIT_CONFIG_KEY_0)
/// or the name is lf's or tmux's own.
const RESERVED_PREFIXES: &[(&str, &str)] = &[
    ("LD_", LOADER),
    ("DYLD_", LOADER),
    ("PYTHON", INTERPRETER),
    ("PERL", INTERPRETER),
    ("RUBY", INTERPRETER),
    ("NODE_", INTERPRETER),
    (
        "NPM_CONFIG_",
        "npm reads its configuration from it, including the shell its scripts run in",
    ),
    ("BASH_", SHELL),
    (
        "GIT_",
        "git reads commands to run and configuration from GIT_ variables",
    ),
    (
        "SSH_",
        "it changes the agent, keys or password prompt ssh uses, and tmux copies an attaching client's SSH_ variables into the session",
    ),
    (
        "TMUX",
        "it changes which tmux server the attach command reaches",
    ),
    (
        "LF_",
        "it redirects lf itself (its Home, tmux server, Session or Run) for every lf command the attach command runs",
    ),
    ("XDG_", CONFIG),
];

const SHELL: &str = "it changes how a shell starts or reads its commands";
const CONFIG: &str =
    "it chooses where programs read their configuration, and configuration can run commands";

/// Names with a reason of their own; every other name that is not a
/// credential is refused for being none.
const NAMED: &[(&str, &str)] = &[
    ("PATH", "it chooses which program runs"),
    ("ENV", SHELL),
    ("SHELLOPTS", SHELL),
    ("BASHOPTS", SHELL),
    ("PROMPT_COMMAND", SHELL),
    ("IFS", SHELL),
    ("CDPATH", SHELL),
    ("ZDOTDIR", SHELL),
    ("HOME", CONFIG),
    ("SHELL", PROGRAM),
    ("EDITOR", PROGRAM),
    ("VISUAL", PROGRAM),
    ("PAGER", PROGRAM),
    ("BROWSER", PROGRAM),
];

const PROGRAM: &str = "it names a program that other programs run";

/// Why an opener may not set this variable, or `None` if it may. The one
/// rule of what a handoff may carry: applied at open, and to stored rows
/// before an attach.
pub fn refusal(name: &str) -> Option<&'static str> {
    if !is_environment_name(name) {
        return Some("it is not a valid variable name");
    }
    if let Some((_, why)) = RESERVED_PREFIXES
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
    {
        return Some(why);
    }
    if let Some((_, why)) = NAMED.iter().find(|(named, _)| *named == name) {
        return Some(why);
    }
    let capitals = name
        .bytes()
        .all(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit() || byte == b'_');
    let credential = CREDENTIAL_ENDINGS
        .iter()
        .any(|ending| name.len() > ending.len() && name.ends_with(ending));
    if capitals && credential {
        None
    } else {
        Some("it is not named as a credential, and only a credential may be hidden from the person")
    }
}

/// `KEY=VALUE` entries as a map. Names are checked and may be shown;
/// values may be secret, so no error ever shows one (nor an entry without
/// `=`, which may be a value given by mistake).
pub fn environment(entries: &[String]) -> Result<BTreeMap<String, String>> {
    if entries.len() > ENVIRONMENT_MAX_ENTRIES {
        return Err(HandoffError::TooManyVariables {
            max: ENVIRONMENT_MAX_ENTRIES,
            count: entries.len(),
        }
        .into());
    }
    let mut map = BTreeMap::new();
    for (index, entry) in entries.iter().enumerate() {
        let number = index + 1;
        let Some((name, value)) = entry.split_once('=') else {
            return Err(HandoffError::NotAVariable { number }.into());
        };
        if !is_environment_name(name) {
            let shown = if name.is_empty() {
                "an empty name".to_owned()
            } else {
                quote(name)
            };
            return Err(HandoffError::BadVariableName {
                number,
                shown,
                max: ENVIRONMENT_NAME_MAX_CHARS,
            }
            .into());
        }
        if let Some(why) = refusal(name) {
            return Err(HandoffError::ForbiddenVariable {
                name: name.to_owned(),
                why,
            }
            .into());
        }
        if value.len() > ENVIRONMENT_VALUE_MAX_BYTES || value.contains('\0') {
            return Err(HandoffError::BadVariableValue {
                name: name.to_owned(),
                max: ENVIRONMENT_VALUE_MAX_BYTES,
            }
            .into());
        }
        if map.insert(name.to_owned(), value.to_owned()).is_some() {
            return Err(HandoffError::VariableTwice(name.to_owned()).into());
        }
    }
    Ok(map)
}

fn attach_argv(argv: &[String]) -> Result<Vec<String>> {
    match argv.first() {
        None => Err(InputError::BadCommand {
            problem: "a handoff needs the command that attaches a person, after --: such as -- tmux attach-session -t NAME",
            example: None,
        }.into()),
        Some(program) if program.is_empty() => Err(InputError::BadCommand {
            problem: "the attach command's program name is empty",
            example: None,
        }.into()),
        Some(_) => {
            input::argv(argv)?;
            Ok(argv.to_vec())
        }
    }
}

/// A checked outcome: the summary or reason trimmed and bounded.
pub fn outcome(outcome: HandoffOutcome) -> Result<HandoffOutcome> {
    Ok(match outcome {
        HandoffOutcome::HandedBack { summary } => HandoffOutcome::HandedBack {
            summary: input::HANDED_BACK_SUMMARY.check(&summary)?,
        },
        HandoffOutcome::Completed { summary } => HandoffOutcome::Completed {
            summary: input::COMPLETION_SUMMARY.check(&summary)?,
        },
        HandoffOutcome::Failed { reason } => HandoffOutcome::Failed {
            reason: input::FAILURE_REASON.check(&reason)?,
        },
    })
}

/// A resolved parent: its id, Wave, checkout, and a name for messages.
struct Parent {
    kind: HandoffParentKind,
    id: String,
    wave_id: Option<String>,
    checkout: Option<String>,
    name: String,
}

fn resolve(store: &Store, parent: &ParentSelector) -> Result<Parent> {
    Ok(match parent.kind {
        HandoffParentKind::Task => {
            let task = crate::work::find_task(store, &parent.selector)
                .map_err(|error| error.about(Arg::Parent))?;
            Parent {
                kind: parent.kind,
                name: format!("Task {}", task.identifier),
                id: task.id,
                wave_id: task.wave_id,
                checkout: task.worktree,
            }
        }
        HandoffParentKind::Wave => {
            let wave = crate::work::find_wave(store, &parent.selector)
                .map_err(|error| error.about(Arg::Parent))?;
            Parent {
                kind: parent.kind,
                name: format!("Wave {}", wave.name),
                wave_id: Some(wave.id.clone()),
                id: wave.id,
                checkout: Some(wave.repo),
            }
        }
    })
}

impl Parent {
    /// The handoff's directory must be the parent's checkout: the person's
    /// terminal must see what the agent saw, and providers keep their
    /// history per directory.
    fn check_cwd(&self, cwd: &str) -> Result<()> {
        let what = match self.kind {
            HandoffParentKind::Task => "worktree",
            HandoffParentKind::Wave => "repository",
        };
        let Some(checkout) = &self.checkout else {
            return Err(HandoffError::ParentWithoutWorktree {
                parent: self.name.clone(),
                cwd: cwd.to_owned(),
            }
            .into());
        };
        if cwd == checkout {
            Ok(())
        } else {
            Err(HandoffError::HandoffElsewhere {
                cwd: cwd.to_owned(),
                what,
                parent: self.name.clone(),
                checkout: checkout.clone(),
            }
            .into())
        }
    }
}

/// What differs between a replayed open and the stored handoff, by field
/// name only (environment values are never shown).
fn differences(row: &HandoffRow, request: &OpenRequest) -> Vec<&'static str> {
    let mut differ = vec![];
    if row.cwd != request.cwd {
        differ.push("working directory");
    }
    if row.provider != request.provider.as_str() {
        differ.push("provider");
    }
    if row.provider_session_id != request.provider_session_id {
        differ.push("provider session id");
    }
    if row.reason != request.reason {
        differ.push("reason");
    }
    if row.environment != request.environment {
        differ.push("environment");
    }
    if row.attach_argv != request.attach_argv {
        differ.push("attach command");
    }
    differ
}

/// Open a handoff, or find the one this request already opened.
pub(crate) fn open(store: &Store, caller: &Caller, request: &OpenRequest) -> Result<HandoffOpened> {
    let parent = resolve(store, &request.parent)?;
    parent.check_cwd(&request.cwd)?;
    let now = now_micros();
    let row = HandoffRow {
        id: HandoffId::new().to_string(),
        parent_kind: parent.kind,
        parent_id: parent.id.clone(),
        wave_id: parent.wave_id.clone(),
        cwd: request.cwd.clone(),
        provider: request.provider.as_str().to_owned(),
        provider_session_id: request.provider_session_id.clone(),
        body_generation: request.body_generation,
        reason: request.reason.clone(),
        environment: request.environment.clone(),
        attach_argv: request.attach_argv.clone(),
        attached_at: None,
        outcome: None,
        finished_at: None,
        wake_claimed_by_generation: None,
        created_at: now,
        updated_at: now,
    };
    let home = store.home();
    match store.open_handoff(&row)? {
        Opened::Created(row) => Ok(HandoffOpened {
            created: true,
            handoff: record(home, caller, row),
        }),
        Opened::Existing(row) => {
            let differ = differences(&row, request);
            if differ.is_empty() {
                Ok(HandoffOpened {
                    created: false,
                    handoff: record(home, caller, row),
                })
            } else {
                Err(HandoffError::ReplayDiffers {
                    id: row.id.clone(),
                    generation: row.body_generation,
                    parent: parent.name,
                    differ: differ.join(", "),
                }
                .into())
            }
        }
        Opened::ParentBusy(row) => Err(HandoffError::ParentBusy {
            parent: parent.name,
            status: status(&row).as_str(),
            id: row.id,
            generation: row.body_generation,
        }
        .into()),
    }
}

fn not_found(id: &HandoffId) -> Error {
    HandoffError::HandoffNotFound(id.to_string()).into()
}

/// One handoff's record, with the program an attach by `caller` runs.
pub(crate) fn show(store: &Store, caller: &Caller, id: &HandoffId) -> Result<HandoffRecord> {
    let row = store.handoff(id.as_str())?.ok_or_else(|| not_found(id))?;
    Ok(record(store.home(), caller, row))
}

/// The program the attach argv runs when `caller` attaches: a bare name is
/// looked up on the caller's own PATH, never on one the handoff carries
/// (an opener cannot give PATH, and a stored row that does is refused); a
/// name with a slash is taken from the handoff's working directory, where
/// the command runs. `None` if no executable file is there.
pub fn attach_program(caller: &Caller, cwd: &str, program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = Path::new(cwd).join(program);
        crate::caller::is_executable(&path).then_some(path)
    } else {
        caller.program(program)
    }
}

/// What a person's terminal runs to take over a handoff. Not printable:
/// the environment values may be secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Attach {
    /// Its `attach_program` is what runs, found for the attaching caller.
    pub record: HandoffRecord,
    pub argv: Vec<String>,
    pub environment: BTreeMap<String, String>,
}

impl std::fmt::Debug for Attach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attach")
            .field("record", &self.record)
            .field("argv", &self.argv)
            .field("environment", &self.environment.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Attach {
    /// The attach argv as a command: the program found for the attaching
    /// caller (the record's `attach_program`, shown before it runs), given
    /// the argv as stored (no shell), run in the handoff's working
    /// directory with the stored environment added to this process's.
    pub fn command(&self) -> Result<std::process::Command> {
        use std::os::unix::process::CommandExt;
        let typed = self.argv.first().map_or("", String::as_str);
        let Some(program) = &self.record.attach_program else {
            return Err(HandoffError::AttachProgramMissing {
                id: self.record.id.clone(),
                program: typed.to_owned(),
                looked: if typed.starts_with('/') {
                    "at that path"
                } else if typed.contains('/') {
                    "in the handoff's working directory"
                } else {
                    "on your PATH"
                },
            }
            .into());
        };
        let mut command = std::process::Command::new(program);
        command
            // The program sees the name it was given, as from a shell.
            .arg0(typed)
            .args(self.argv.iter().skip(1))
            .envs(&self.environment)
            .current_dir(&self.record.cwd);
        Ok(command)
    }

    /// Replace this process with the attach command; returns only if that
    /// fails, with an error naming the handoff and what to do.
    pub fn exec(&self) -> Error {
        use std::os::unix::process::CommandExt;
        let id = &self.record.id;
        if !Path::new(&self.record.cwd).is_dir() {
            return HandoffError::HandoffCwdGone {
                id: id.clone(),
                cwd: self.record.cwd.clone(),
            }
            .into();
        }
        let mut command = match self.command() {
            Ok(command) => command,
            Err(error) => return error,
        };
        let error = command.exec();
        HandoffError::AttachCommand {
            id: id.clone(),
            program: command.get_program().to_string_lossy().into_owned(),
            source: error,
        }
        .into()
    }
}

/// Refuse a stored handoff whose variables an opener may no longer give
/// (a Home may hold rows from before openers were checked).
fn check_stored(row: &HandoffRow) -> Result<()> {
    let refused: Vec<(&String, &'static str)> = row
        .environment
        .keys()
        .filter_map(|name| Some((name, refusal(name)?)))
        .collect();
    let Some(&(_, why)) = refused.first() else {
        return Ok(());
    };
    Err(HandoffError::ForbiddenStoredVariables {
        id: row.id.clone(),
        names: refused.iter().map(|(name, _)| quote_name(name)).collect(),
        why,
    }
    .into())
}

/// A stored name for a message: as it is if it is a valid name, quoted if
/// not (a row written by hand may hold anything).
fn quote_name(name: &str) -> String {
    if is_environment_name(name) {
        name.to_owned()
    } else {
        quote(name)
    }
}

/// Record that a person attaches (the first time only) and return what
/// their terminal runs. A handoff with an outcome has nothing to attach
/// to, and one with a variable an opener may not give is refused before
/// anything is recorded or run.
pub(crate) fn attach(store: &Store, caller: &Caller, id: &HandoffId) -> Result<Attach> {
    let ended = |row: &HandoffRow| {
        row.outcome
            .as_ref()
            .map(|outcome| HandoffError::HandoffEnded {
                id: id.to_string(),
                status: outcome.status().as_str(),
            })
    };
    let stored = store.handoff(id.as_str())?.ok_or_else(|| not_found(id))?;
    if let Some(error) = ended(&stored) {
        return Err(error.into());
    }
    // The environment never changes after open, so this check holds for
    // the row the attach returns.
    check_stored(&stored)?;
    let row = store
        .attach_handoff(id.as_str(), now_micros())?
        .ok_or_else(|| not_found(id))?;
    if let Some(error) = ended(&row) {
        return Err(error.into());
    }
    Ok(Attach {
        argv: row.attach_argv.clone(),
        environment: row.environment.clone(),
        record: record(store.home(), caller, row),
    })
}

/// Record an outcome. The first one wins: repeating it returns it, a
/// different one is refused (also when another process won a moment ago).
pub(crate) fn finish(
    store: &Store,
    caller: &Caller,
    id: &HandoffId,
    requested: &HandoffOutcome,
) -> Result<HandoffRecord> {
    let requested = outcome(requested.clone())?;
    let row = store
        .finish_handoff(id.as_str(), &requested, now_micros())?
        .ok_or_else(|| not_found(id))?;
    match &row.outcome {
        Some(stored) if *stored == requested => Ok(record(store.home(), caller, row)),
        Some(stored) => Err(HandoffError::OutcomeStands {
            id: id.to_string(),
            stored: describe(stored),
            requested: describe(&requested),
        }
        .into()),
        None => Err(HandoffError::OutcomeLost(id.to_string()).into()),
    }
}

fn describe(outcome: &HandoffOutcome) -> String {
    format!("{} ({})", outcome.status().as_str(), quote(outcome.text()))
}

/// Claim the wake after an outcome: `true` for the first claim, `false`
/// for every later one. Before an outcome there is nothing to wake for.
pub(crate) fn claim_wake(store: &Store, id: &HandoffId, generation: u32) -> Result<bool> {
    let (claimed, row) = store.claim_handoff_wake(id.as_str(), generation, now_micros())?;
    let row = row.ok_or_else(|| not_found(id))?;
    if row.outcome.is_none() {
        return Err(HandoffError::NoOutcomeYet {
            id: id.to_string(),
            status: status(&row).as_str(),
        }
        .into());
    }
    Ok(claimed)
}

/// Handoffs newest first, as list rows; only those without an outcome if
/// `active`.
pub(crate) fn list(store: &Store, active: bool) -> Result<Vec<HandoffListRow>> {
    let now = now_micros();
    Ok(store
        .handoffs(active)?
        .into_iter()
        .map(|row| list_row(store.home(), &row, now))
        .collect())
}

fn status(row: &HandoffRow) -> HandoffStatus {
    match (&row.outcome, row.attached_at) {
        (Some(outcome), _) => outcome.status(),
        (None, Some(_)) => HandoffStatus::Attached,
        (None, None) => HandoffStatus::Waiting,
    }
}

fn home_text(home: &Home) -> String {
    home.root().display().to_string()
}

/// A row as the wire shows it.
pub(crate) fn record(home: &Home, caller: &Caller, row: HandoffRow) -> HandoffRecord {
    HandoffRecord {
        attach_program: row
            .attach_argv
            .first()
            .and_then(|program| attach_program(caller, &row.cwd, program))
            .map(|path| path.display().to_string()),
        status: status(&row),
        home: home_text(home),
        environment_names: row.environment.into_keys().collect(),
        attached_at: row.attached_at.map(Timestamp),
        finished_at: row.finished_at.map(Timestamp),
        created_at: Timestamp(row.created_at),
        updated_at: Timestamp(row.updated_at),
        id: row.id,
        parent_kind: row.parent_kind,
        parent_id: row.parent_id,
        wave_id: row.wave_id,
        cwd: row.cwd,
        provider: row.provider,
        provider_session_id: row.provider_session_id,
        body_generation: row.body_generation,
        reason: row.reason,
        attach_argv: row.attach_argv,
        outcome: row.outcome,
        wake_claimed_by_generation: row.wake_claimed_by_generation,
    }
}

/// A row of `lf-handoff list`, aged at `now` (microseconds).
pub(crate) fn list_row(home: &Home, row: &HandoffRow, now: i64) -> HandoffListRow {
    HandoffListRow {
        id: row.id.clone(),
        parent_kind: row.parent_kind,
        parent_id: row.parent_id.clone(),
        wave_id: row.wave_id.clone(),
        status: status(row),
        home: home_text(home),
        provider: row.provider.clone(),
        age_secs: Seconds::between(row.created_at, now),
    }
}

/// Interactive handoffs, as every surface reaches them. Input is checked
/// before the database is opened, so a bad request creates or changes
/// nothing.
impl Lf {
    /// Open a handoff, or find the one this request already opened.
    pub fn open_handoff(&self, args: &OpenArgs<'_>) -> Result<HandoffOpened> {
        let request = OpenRequest::check(self, args)?;
        open(self.store()?, &self.caller, &request)
    }

    pub fn handoff(&self, id: &str) -> Result<HandoffRecord> {
        let id = HandoffId::parse(id)?;
        show(self.store()?, &self.caller, &id)
    }

    /// Handoffs newest first; only those without an outcome if `active`.
    pub fn handoffs(&self, active: bool) -> Result<Vec<HandoffListRow>> {
        list(self.store()?, active)
    }

    /// Handoffs newest first as list rows, each with its whole record.
    pub fn handoffs_with_records(
        &self,
        active: bool,
    ) -> Result<Vec<(HandoffListRow, HandoffRecord)>> {
        let store = self.store()?;
        let now = now_micros();
        Ok(store
            .handoffs(active)?
            .into_iter()
            .map(|row| {
                let listed = list_row(self.home(), &row, now);
                (listed, record(self.home(), &self.caller, row))
            })
            .collect())
    }

    pub fn attach_handoff(&self, id: &str) -> Result<Attach> {
        let id = HandoffId::parse(id)?;
        attach(self.store()?, &self.caller, &id)
    }

    pub fn finish_handoff(&self, id: &str, outcome: HandoffOutcome) -> Result<HandoffRecord> {
        let id = HandoffId::parse(id)?;
        let outcome = self::outcome(outcome)?;
        finish(self.store()?, &self.caller, &id, &outcome)
    }

    pub fn claim_handoff_wake(&self, id: &str, generation: u32) -> Result<bool> {
        let id = HandoffId::parse(id)?;
        claim_wake(self.store()?, &id, generation)
    }
}

/// Variable names for a message: "variable A" or "variables A, B".
fn variables(names: &[String]) -> String {
    let plural = if names.len() == 1 { "" } else { "s" };
    format!("environment variable{plural} {}", names.join(", "))
}

/// Handoffs: opening one (its parent, directory and variables), attaching to it and its outcome.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum HandoffError {
    #[error(
        "{} is not a handoff parent: use task:TASK (a Task id or identifier) or wave:WAVE (a Wave id or name)",
        quote(.0)
    )]
    BadParent(String),
    #[error("a handoff takes at most {max} environment entries; this one has {count}")]
    TooManyVariables { max: usize, count: usize },
    #[error(
        "environment entry {number} is not KEY=VALUE (its text is not shown: it may be a secret); pass each variable as --env NAME=VALUE"
    )]
    NotAVariable { number: usize },
    #[error(
        "environment entry {number} has {shown}, not a valid variable name: use letters, digits and _, not starting with a digit, at most {max} characters"
    )]
    BadVariableName {
        number: usize,
        shown: String,
        max: usize,
    },
    #[error(
        "the value of environment variable {name} is not usable (at most {max} bytes, no NUL); it is not shown: it may be a secret"
    )]
    BadVariableValue { name: String, max: usize },
    #[error("environment variable {0} is given twice; give each variable once")]
    VariableTwice(String),
    /// An opener gave a variable that could change what the attach command
    /// runs (docs/decisions/0025-handoffs-what-an-opener-may-set.md).
    #[error(
        "environment variable {name} cannot be given to a handoff: {why}. The person who attaches sees only the variables' names, so an opener may give only credentials, named in capitals ending in _TOKEN, _KEY, _KEY_ID, _SECRET or _PASSWORD (such as GH_TOKEN or OPENAI_API_KEY); put anything else in the attach command, where the person sees it"
    )]
    ForbiddenVariable { name: String, why: &'static str },
    #[error(
        "the handoff's working directory {cwd} is not the {what} of {parent} ({checkout}); open the handoff with --cwd {checkout}"
    )]
    HandoffElsewhere {
        cwd: String,
        what: What,
        parent: String,
        checkout: String,
    },
    #[error("handoff {0} was not found")]
    HandoffNotFound(String),
    #[error("{parent} has no worktree, so lf cannot check that {cwd} is its checkout")]
    ParentWithoutWorktree { parent: String, cwd: String },
    #[error(
        "handoff {id} was already opened for body generation {generation} of {parent} with a different {differ}; a replayed open must repeat the same request"
    )]
    ReplayDiffers {
        id: String,
        generation: u32,
        parent: String,
        differ: String,
    },
    #[error(
        "{parent} already has handoff {id} (body generation {generation}, {status}) without an outcome"
    )]
    ParentBusy {
        parent: String,
        id: String,
        generation: u32,
        status: &'static str,
    },
    #[error("handoff {id} already ended as {status}; there is nothing to attach to")]
    HandoffEnded { id: String, status: &'static str },
    #[error(
        "handoff {id} already ended as {stored}; the first outcome stands, so {requested} was not recorded"
    )]
    OutcomeStands {
        id: String,
        stored: String,
        requested: String,
    },
    #[error("handoff {id} has no outcome yet (it is {status})")]
    NoOutcomeYet { id: String, status: &'static str },
    /// A handoff stored before openers were checked carries variables an
    /// opener may no longer give; `names` is not empty, `why` is about the
    /// first.
    #[error(
        "handoff {id} carries {}, which an opener can no longer give ({}: {why}); nothing was run",
        variables(.names),
        .names.first().map_or("", String::as_str)
    )]
    ForbiddenStoredVariables {
        id: String,
        names: Vec<String>,
        why: &'static str,
    },
    #[error("handoff {0} has no outcome after recording one; try again")]
    OutcomeLost(String),
    #[error("the working directory {cwd} of handoff {id} is gone")]
    HandoffCwdGone { id: String, cwd: String },
    #[error(
        "cannot find the attach program {} of handoff {id} {looked}: no executable file is there",
        quote(.program)
    )]
    AttachProgramMissing {
        id: String,
        program: String,
        looked: &'static str,
    },
    #[error(
        "cannot run the attach command {} of handoff {id}",
        quote(.program)
    )]
    AttachCommand {
        id: String,
        program: String,
        source: std::io::Error,
    },
}

impl Domain for HandoffError {
    fn kind(&self) -> ErrorKind {
        use HandoffError::*;
        match self {
            BadParent(..)
            | TooManyVariables { .. }
            | NotAVariable { .. }
            | BadVariableName { .. }
            | BadVariableValue { .. }
            | VariableTwice(..)
            | ForbiddenVariable { .. }
            | HandoffElsewhere { .. } => ErrorKind::Usage,
            HandoffNotFound(..) => ErrorKind::NotFound,
            ParentWithoutWorktree { .. }
            | ReplayDiffers { .. }
            | ParentBusy { .. }
            | HandoffEnded { .. }
            | OutcomeStands { .. }
            | NoOutcomeYet { .. }
            | ForbiddenStoredVariables { .. } => ErrorKind::Conflict,
            OutcomeLost(..)
            | HandoffCwdGone { .. }
            | AttachProgramMissing { .. }
            | AttachCommand { .. } => ErrorKind::Operational,
        }
    }

    fn arg(&self) -> Option<Arg> {
        use HandoffError::*;
        Some(match self {
            BadParent(_) | ReplayDiffers { .. } | ParentBusy { .. } => Arg::Parent,
            TooManyVariables { .. }
            | NotAVariable { .. }
            | BadVariableName { .. }
            | BadVariableValue { .. }
            | VariableTwice(_)
            | ForbiddenVariable { .. } => Arg::Env,
            HandoffElsewhere { .. } | ParentWithoutWorktree { .. } => Arg::Cwd,
            HandoffNotFound(_)
            | HandoffEnded { .. }
            | NoOutcomeYet { .. }
            | ForbiddenStoredVariables { .. } => Arg::Id,
            OutcomeStands { .. } => Arg::Outcome,
            _ => return None,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        use HandoffError::*;
        let finish = |id: &String| Command::HandoffFinish {
            id: id.clone(),
            failed: true,
        };
        let show = |id: &String| Command::HandoffShow { id: id.clone() };
        Some(match self {
            HandoffNotFound(_) => Hint::text("see ").command(Command::HandoffList),
            ParentWithoutWorktree { .. } => Hint::text("register the Task with ")
                .command(Command::WorkTaskAdd { worktree: true }),
            ReplayDiffers { id, .. } | HandoffEnded { id, .. } => {
                Hint::text("see ").command(show(id))
            }
            ParentBusy { id, .. } => Hint::text("finish it first, such as: ").command(finish(id)),
            NoOutcomeYet { id, .. } => Hint::text("its wake can be claimed once ")
                .command(Command::HandoffFinish {
                    id: id.clone(),
                    failed: false,
                })
                .then(" records one"),
            ForbiddenStoredVariables { id, .. } => Hint::text("finish it with ")
                .command(finish(id))
                .then(", and let the agent open a new one"),
            HandoffCwdGone { id, .. } => Hint::text("finish the handoff with ").command(finish(id)),
            AttachProgramMissing { id, .. } => {
                Hint::text("install it, or finish the handoff with ").command(finish(id))
            }
            AttachCommand { id, .. } => {
                Hint::text("check that the program exists, or finish the handoff with ")
                    .command(finish(id))
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Caller;
    use crate::work::NewTask;
    use std::path::PathBuf;

    struct Fixture {
        dir: tempfile::TempDir,
        lf: Lf,
        store: Store,
        task: String,
        wave: String,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            for folder in ["repo", "worktree", "elsewhere"] {
                std::fs::create_dir(dir.path().join(folder)).unwrap();
            }
            let home = Home::at(dir.path().join("home"));
            let store = Store::open(&home).unwrap();
            let lf = Lf::at(home, Caller::default());
            let wave = lf.add_wave("product", &dir.path().join("repo")).unwrap();
            let worktree = dir.path().join("worktree");
            let task = lf
                .add_task(NewTask {
                    identifier: "W2-175",
                    title: "Hand interactive work to a human",
                    worktree: Some(&worktree),
                    wave: Some(&wave.id),
                })
                .unwrap();
            Fixture {
                dir,
                lf,
                store,
                task: task.id,
                wave: wave.id,
            }
        }

        fn path(&self, folder: &str) -> PathBuf {
            self.dir.path().join(folder)
        }

        fn reopen(&self) -> Store {
            Store::open(self.store.home()).unwrap()
        }

        fn request(&self, parent: &str, cwd: &str) -> OpenRequest {
            let cwd = self.path(cwd);
            OpenRequest::check(
                &self.lf,
                &OpenArgs {
                    parent,
                    cwd: &cwd,
                    provider: "codex",
                    provider_session_id: Some("task-thread"),
                    body_generation: 4,
                    reason: "OAuth login requires a human",
                    environment: &["GH_TOKEN=s3cret".to_owned(), "NPM_TOKEN=s3cret".to_owned()],
                    attach_argv: &[
                        "tmux".to_owned(),
                        "attach-session".to_owned(),
                        "-t".to_owned(),
                        "lf-task-interactive".to_owned(),
                    ],
                },
            )
            .unwrap()
        }

        fn open_task(&self) -> HandoffRecord {
            let request = self.request(&format!("task:{}", self.task), "worktree");
            open(&self.store, &Caller::default(), &request)
                .unwrap()
                .handoff
        }
    }

    fn id(record: &HandoffRecord) -> HandoffId {
        HandoffId::parse(&record.id).unwrap()
    }

    fn handed_back(summary: &str) -> HandoffOutcome {
        HandoffOutcome::HandedBack {
            summary: summary.to_owned(),
        }
    }

    /// Issue 20: the attach command runs the program found on the
    /// attaching caller's PATH, even if the handoff's environment carried
    /// a PATH of its own. `check_stored` refuses such a row before this,
    /// so no command line reaches it; this is the wall behind that one.
    #[test]
    fn the_attach_command_runs_the_callers_program_whatever_path_it_carries() {
        use std::os::unix::fs::PermissionsExt;
        let fixture = Fixture::new();
        let program = |who: &str| {
            let dir = fixture.path(who);
            std::fs::create_dir(&dir).unwrap();
            let path = dir.join("tmux");
            std::fs::write(&path, format!("#!/bin/sh\necho {who}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            dir
        };
        let (person, agent) = (program("person"), program("agent"));
        let caller = Caller::new(None, |name| {
            (name == "PATH").then(|| person.display().to_string())
        });
        let handoff = id(&fixture.open_task());
        let mut attach = attach(&fixture.store, &caller, &handoff).unwrap();
        attach
            .environment
            .insert("PATH".to_owned(), agent.display().to_string());
        let output = attach.command().unwrap().output().unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), "person\n");
    }

    #[test]
    fn handoff_survives_repeated_attach_restart_and_replay() {
        let fixture = Fixture::new();
        let wrong = fixture.request("task:W2-175", "elsewhere");
        let error = open(&fixture.store, &Caller::default(), &wrong).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Usage);
        assert!(error.to_string().contains("elsewhere") && error.to_string().contains("worktree"));
        assert!(fixture.store.handoffs(false).unwrap().is_empty());

        let request = fixture.request("task:W2-175", "worktree");
        let opened = open(&fixture.store, &Caller::default(), &request).unwrap();
        assert!(opened.created);
        assert_eq!(opened.handoff.status, HandoffStatus::Waiting);
        let replayed = open(&fixture.store, &Caller::default(), &request).unwrap();
        assert!(!replayed.created);
        assert_eq!(replayed.handoff, opened.handoff);

        let handoff = id(&opened.handoff);
        let attached = attach(&fixture.store, &Caller::default(), &handoff).unwrap();
        let again = attach(&fixture.store, &Caller::default(), &handoff).unwrap();
        assert_eq!(attached, again);
        assert!(attached.record.attached_at.is_some());
        assert_eq!(attached.argv, request.attach_argv);

        let reopened = fixture.reopen();
        assert_eq!(
            attach(&reopened, &Caller::default(), &handoff).unwrap(),
            attached
        );
        let back = finish(
            &reopened,
            &Caller::default(),
            &handoff,
            &handed_back("Finish the fixes"),
        )
        .unwrap();
        assert_eq!(back.status, HandoffStatus::HandedBack);
        assert!(claim_wake(&reopened, &handoff, 5).unwrap());
        assert!(!claim_wake(&reopened, &handoff, 6).unwrap());
        let claimed = show(&reopened, &Caller::default(), &handoff).unwrap();
        assert_eq!(claimed.wake_claimed_by_generation, Some(5));
    }

    #[test]
    fn concurrent_outcomes_from_two_store_handles_keep_the_first() {
        let fixture = Fixture::new();
        let request = fixture.request(&format!("wave:{}", fixture.wave), "repo");
        let handoff = id(&open(&fixture.store, &Caller::default(), &request)
            .unwrap()
            .handoff);
        let outcomes = [
            HandoffOutcome::Completed {
                summary: "Human finished the work".to_owned(),
            },
            HandoffOutcome::Failed {
                reason: "interactive body disappeared".to_owned(),
            },
        ];
        let home = fixture.store.home().clone();
        let results: Vec<Result<HandoffRecord>> = std::thread::scope(|scope| {
            let threads: Vec<_> = outcomes
                .iter()
                .map(|outcome| {
                    let (home, handoff) = (home.clone(), handoff.clone());
                    scope.spawn(move || {
                        finish(
                            &Store::open(&home).unwrap(),
                            &Caller::default(),
                            &handoff,
                            outcome,
                        )
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let winners: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        let loser = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert_eq!(loser.kind(), crate::ErrorKind::Conflict);
        assert!(
            loser.to_string().contains("the first outcome stands"),
            "{loser}"
        );
        let stored = show(&fixture.store, &Caller::default(), &handoff).unwrap();
        assert_eq!(stored.outcome, winners[0].outcome);
    }

    #[test]
    fn a_failed_handoff_is_terminal_and_wakes_once() {
        let fixture = Fixture::new();
        let handoff = id(&fixture.open_task());
        let early = claim_wake(&fixture.store, &handoff, 1).unwrap_err();
        assert_eq!(early.kind(), crate::ErrorKind::Conflict);
        let failed = HandoffOutcome::Failed {
            reason: "tmux session exited before completion".to_owned(),
        };
        let record = finish(&fixture.store, &Caller::default(), &handoff, &failed).unwrap();
        assert_eq!(record.status, HandoffStatus::Failed);
        let repeated = finish(&fixture.store, &Caller::default(), &handoff, &failed).unwrap();
        assert_eq!(repeated, record, "a repeated outcome changes nothing");
        let other = finish(
            &fixture.store,
            &Caller::default(),
            &handoff,
            &handed_back("x"),
        )
        .unwrap_err();
        assert_eq!(other.kind(), crate::ErrorKind::Conflict);
        assert!(attach(&fixture.store, &Caller::default(), &handoff).is_err());
        assert!(claim_wake(&fixture.store, &handoff, 2).unwrap());
        assert!(!claim_wake(&fixture.store, &handoff, 2).unwrap());
    }

    #[test]
    fn list_rows_carry_the_census_fields_and_active_drops_finished() {
        let fixture = Fixture::new();
        let record = fixture.open_task();
        let rows = list(&fixture.store, false).unwrap();
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.id, record.id);
        assert_eq!(row.parent_kind, HandoffParentKind::Task);
        assert_eq!(row.parent_id, fixture.task);
        assert_eq!(row.wave_id.as_deref(), Some(fixture.wave.as_str()));
        assert_eq!(row.status, HandoffStatus::Waiting);
        assert_eq!(row.home, fixture.store.home().root().display().to_string());
        assert_eq!(row.provider, "codex");
        assert!(row.age_secs < Seconds(60));
        assert_eq!(list(&fixture.store, true).unwrap(), rows);
        finish(
            &fixture.store,
            &Caller::default(),
            &id(&record),
            &HandoffOutcome::Completed {
                summary: "human logged in".to_owned(),
            },
        )
        .unwrap();
        assert!(list(&fixture.store, true).unwrap().is_empty());
        assert_eq!(list(&fixture.store, false).unwrap().len(), 1);
    }

    #[test]
    fn a_parent_has_one_active_handoff_and_a_changed_replay_is_refused() {
        let fixture = Fixture::new();
        let first = fixture.open_task();
        let mut next = fixture.request("task:W2-175", "worktree");
        next.body_generation = 5;
        let busy = open(&fixture.store, &Caller::default(), &next).unwrap_err();
        assert_eq!(busy.kind(), crate::ErrorKind::Conflict);
        assert!(busy.to_string().contains(&first.id), "{busy}");
        let mut changed = fixture.request("task:W2-175", "worktree");
        changed
            .environment
            .insert("GH_TOKEN".to_owned(), "other".to_owned());
        let refused = open(&fixture.store, &Caller::default(), &changed).unwrap_err();
        assert_eq!(refused.kind(), crate::ErrorKind::Conflict);
        assert!(refused.to_string().contains("environment"), "{refused}");
        assert!(!refused.to_string().contains("s3cret") && !refused.to_string().contains("other"));
        finish(
            &fixture.store,
            &Caller::default(),
            &id(&first),
            &handed_back("done"),
        )
        .unwrap();
        assert!(
            open(&fixture.store, &Caller::default(), &next)
                .unwrap()
                .created
        );
    }

    #[test]
    fn environment_names_are_checked_and_values_never_shown() {
        let entries = |list: &[&str]| list.iter().map(|e| e.to_string()).collect::<Vec<_>>();
        let map = environment(&entries(&["A_TOKEN=1", "B_KEY=x=y", "EMPTY_SECRET="])).unwrap();
        assert_eq!(map["B_KEY"], "x=y");
        assert_eq!(map["EMPTY_SECRET"], "");
        for bad in [
            &["hunter2"][..],
            &["1A=hunter2"],
            &["=hunter2"],
            &["A-B=hunter2"],
            &["A_TOKEN=hunter2", "A_TOKEN=hunter2"],
            &["A_TOKEN=hunter2\0"],
            &["PATH=hunter2"],
        ] {
            let error = environment(&entries(bad)).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::Usage, "{bad:?}");
            assert!(!error.to_string().contains("hunter2"), "{error}");
        }
    }

    #[test]
    fn an_opener_may_give_only_credentials() {
        for name in [
            "GH_TOKEN",
            "OPENAI_API_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "DEPLOY_SECRET",
            "DB_PASSWORD",
            "X2_TOKEN",
        ] {
            assert_eq!(refusal(name), None, "{name}");
        }
        for (name, why) in [
            ("PATH", "which program runs"),
            ("LD_PRELOAD", "loader"),
            ("LD_LIBRARY_PATH", "loader"),
            ("DYLD_INSERT_LIBRARIES", "loader"),
            ("PYTHONSTARTUP", "interpreter"),
            ("PERL5OPT", "interpreter"),
            ("NODE_OPTIONS", "interpreter"),
            ("BASH_ENV", "shell"),
            ("IFS", "shell"),
            ("GIT_CONFIG_KEY_0", "git"),
            ("GIT_TOKEN", "git"),
            ("SSH_AUTH_SOCK", "ssh"),
            ("SSH_KEY", "ssh"),
            ("TMUX_TMPDIR", "tmux server"),
            ("LF_HOME", "lf itself"),
            ("LF_API_TOKEN", "lf itself"),
            ("HOME", "configuration"),
            ("XDG_CONFIG_HOME", "configuration"),
            ("EDITOR", "program"),
            ("TOKEN", "credential"),
            ("_TOKEN", "credential"),
            ("gh_token", "credential"),
            ("GH_TOKEN_FILE", "credential"),
            ("LANG", "credential"),
            ("1_TOKEN", "valid variable name"),
        ] {
            let refused = refusal(name).unwrap_or_else(|| panic!("{name} is allowed"));
            assert!(refused.contains(why), "{name}: {refused}");
        }
    }

    #[test]
    fn the_attach_program_is_found_on_the_callers_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let program = bin.join("attach-probe");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cwd = dir.path().to_str().unwrap();
        let on_path = |path: Option<&str>| {
            Caller::new(Some(dir.path().to_owned()), |name| {
                (name == "PATH").then(|| path.map(str::to_owned)).flatten()
            })
        };
        let caller = on_path(Some("/nonexistent:bin"));
        // A relative PATH entry is from the caller's directory, so the
        // path is one exec finds from the handoff's directory too.
        assert_eq!(
            attach_program(&caller, "/", "attach-probe"),
            Some(program.clone())
        );
        assert_eq!(attach_program(&on_path(None), cwd, "attach-probe"), None);
        assert_eq!(
            attach_program(&on_path(None), cwd, "bin/attach-probe"),
            Some(program)
        );
        assert_eq!(attach_program(&caller, cwd, "./attach-probe"), None);
        assert_eq!(attach_program(&caller, cwd, ""), None);
    }

    #[test]
    fn parents_texts_and_argv_are_checked() {
        assert_eq!(
            ParentSelector::parse("task:LOO-1").unwrap(),
            ParentSelector {
                kind: HandoffParentKind::Task,
                selector: "LOO-1".to_owned()
            }
        );
        assert_eq!(
            ParentSelector::parse("wave:product").unwrap().kind,
            HandoffParentKind::Wave
        );
        for bad in ["LOO-1", "task:", "flow:x", ":x", ""] {
            assert!(ParentSelector::parse(bad).is_err(), "{bad}");
        }
        assert!(attach_argv(&[]).is_err());
        assert!(attach_argv(&[String::new()]).is_err());
        assert!(input::PROVIDER_SESSION_ID.check("a b").is_err());
        assert!(outcome(handed_back("  ")).is_err());
        assert!(outcome(handed_back("a\u{1b}[2J")).is_err());
        assert_eq!(outcome(handed_back(" ok\n")).unwrap(), handed_back("ok"));
    }

    #[test]
    fn a_task_without_a_worktree_cannot_be_checked() {
        let fixture = Fixture::new();
        fixture
            .lf
            .add_task(NewTask {
                identifier: "LOO-9",
                title: "No checkout",
                worktree: None,
                wave: None,
            })
            .unwrap();
        let error = open(
            &fixture.store,
            &Caller::default(),
            &fixture.request("task:LOO-9", "worktree"),
        )
        .unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Conflict);
        assert!(error.to_string().contains("has no worktree"), "{error}");
    }
}
