//! lf keeps track of long-lived AI coding-agent conversations and gets a
//! person to the one that needs them. This library holds every rule; the
//! `lf-*` binaries and the Nushell plugin only translate arguments in and
//! records out, through one facade: [`Lf`], opened for a [`Caller`] (its
//! module lists every operation, each beside its subject).
//!
//! Where things live:
//! - `state` — state, attention and actions: the rules people see, as pure
//!   functions of a Session's facts.
//! - `session` — the operations on Sessions, launching them (`launch`,
//!   `serve`), primaries, turning stored rows into records (`project`), a
//!   worktree per Session and its diff (`worktree`) and bringing lost
//!   Sessions back (`restore`); `work`, `flow`, `handoff`, `attention` (who
//!   waits for the person: counts and next) and `hook` hold the operations
//!   of their own subjects.
//! - `changes` — the change stream: recorded as writes commit, followed
//!   by `lf-session-watch` (the store's side is `store::events`).
//! - `snapshot` — the live-process snapshot (`lf-session-active`): which
//!   agent processes run now, and whose they are.
//! - `wire` — the JSON contract; `clock` — its time types; `names` — enums
//!   as text, once for the wire, SQL and command lines.
//! - `input` — every check of untrusted text; `ids` — strict id formats.
//! - Errors: each domain's enum lives beside its rule (`input::InputError`,
//!   `home::HomeError`, `session::error::SessionError`,
//!   `handoff::HandoffError`, …); [`Error`], below, joins them. `error`
//!   holds what they share: kinds and exit codes, the argument an error is
//!   about, quoting untrusted text, and typed hints (`error::hint`), which
//!   each surface spells in its own words.
//! - `devices` — the devices signed in to lf-web (each its own secret,
//!   listed and revocable; the Home's token never in a cookie).
//! - `remote` — other machines' Homes over OpenSSH: the host list, the
//!   merged listing, opening a Session there.
//! - `caller` — who is asking (the only reader of this process's env and
//!   cwd, and the list of variables lf reads); `home` — the private data
//!   directory; `store` — the SQLite database and all of lf's SQL; `locks`
//!   — cross-process locks; `liveness` — whether a Client runs, stopping
//!   an agent, and all `/proc` reading; `provider` — the agent CLIs;
//!   `screen` — terminal text without its escapes; `tmux` — the one place
//!   that runs tmux; `git` — the one place that runs git (worktrees and
//!   diffs).
//!
//! No module cycles (`scripts/module-cycles`): the facade and `caller`
//! depend on no subject, and the wire on no rule.

pub mod attention;
pub mod caller;
pub mod changes;
pub mod clock;
pub mod devices;
pub mod error;
mod facade;
pub mod flow;
pub mod git;
pub mod handoff;
pub mod home;
pub mod hook;
pub mod ids;
pub mod input;
pub mod liveness;
pub mod locks;
mod names;
pub mod provider;
pub mod remote;
pub mod request;
pub mod screen;
pub mod session;
pub mod snapshot;
pub mod state;
// The store is the library's own; the workspace's tests may reach it.
#[cfg(feature = "testing")]
pub mod store;
#[cfg(not(feature = "testing"))]
pub(crate) mod store;
pub mod tmux;
pub mod usage;
pub mod wire;
pub mod work;

pub use caller::Caller;
pub use error::domain::{Arg, ErrorKind};
pub use facade::Lf;
pub use home::Home;
pub use session::project::OpenCommand;
pub use session::{ListFilter, NewConversation};

use error::domain::Domain;
use error::hint::Hint;
use error::untrusted::quote;
use error::{
    DeviceError, EventsError, FlowError, GitError, HandoffError, HomeError, HookError, InputError,
    LaunchError, LivenessError, PickError, ProviderError, RemoteError, SessionError, TmuxError,
    UsageError, WorkError, WorktreeError,
};
use std::fmt;

/// An lf failure: one domain's error, or one wrapped to say more. `name()`
/// is the domain variant's stable snake_case name (`session_not_found`),
/// which `LF_ERROR_FORMAT=json` prints as `error`: a program (or a test)
/// matches it, not the message, which is for a person.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Home(#[from] HomeError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Work(#[from] WorkError),
    #[error(transparent)]
    Flow(#[from] FlowError),
    #[error(transparent)]
    Handoff(#[from] HandoffError),
    #[error(transparent)]
    Remote(#[from] RemoteError),
    #[error(transparent)]
    Tmux(#[from] TmuxError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Worktree(#[from] WorktreeError),
    #[error(transparent)]
    Liveness(#[from] LivenessError),
    #[error(transparent)]
    Hook(#[from] HookError),
    #[error(transparent)]
    Events(#[from] EventsError),
    #[error(transparent)]
    Pick(#[from] PickError),
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Device(#[from] DeviceError),

    /// An error in the value of an environment variable (`LF_RUN_ID`).
    #[error("{variable}: {inner}")]
    InVariable {
        variable: &'static str,
        inner: Box<Error>,
    },
    /// An error about a given argument (a Task named as a handoff's parent).
    #[error("{inner}")]
    About { arg: Arg, inner: Box<Error> },
    /// What was being done when an inner error happened.
    #[error("{what}: {inner}")]
    During { what: String, inner: Box<Error> },

    #[error("{what}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("cannot run {}", quote(.program))]
    CannotRun {
        program: String,
        source: std::io::Error,
    },
    #[error("cannot write the output")]
    Output(#[source] std::io::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

/// A SQLite failure not yet tied to a database file (`?` on rusqlite).
impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Self {
        HomeError::from(error).into()
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What an `Error` holds: a domain's error, another `Error` it wraps, or
/// a failure of its own.
enum Layer<'a> {
    Domain(&'a dyn Domain),
    Wrapped(&'a Error),
    Own,
}

impl Error {
    fn layer(&self) -> Layer<'_> {
        use Error::*;
        match self {
            Input(error) => Layer::Domain(error),
            Home(error) => Layer::Domain(error),
            Session(error) => Layer::Domain(error),
            Launch(error) => Layer::Domain(error),
            Work(error) => Layer::Domain(error),
            Flow(error) => Layer::Domain(error),
            Handoff(error) => Layer::Domain(error),
            Remote(error) => Layer::Domain(error),
            Tmux(error) => Layer::Domain(error),
            Provider(error) => Layer::Domain(error),
            Git(error) => Layer::Domain(error),
            Worktree(error) => Layer::Domain(error),
            Liveness(error) => Layer::Domain(error),
            Hook(error) => Layer::Domain(error),
            Events(error) => Layer::Domain(error),
            Pick(error) => Layer::Domain(error),
            Usage(error) => Layer::Domain(error),
            Device(error) => Layer::Domain(error),
            InVariable { inner, .. } | About { inner, .. } | During { inner, .. } => {
                Layer::Wrapped(inner)
            }
            Io { .. } | CannotRun { .. } | Output(_) | Json(_) => Layer::Own,
        }
    }

    /// The kind, and with it the exit code.
    pub fn kind(&self) -> ErrorKind {
        match self.layer() {
            Layer::Domain(error) => error.kind(),
            Layer::Wrapped(inner) => inner.kind(),
            Layer::Own => ErrorKind::Operational,
        }
    }

    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }

    /// The stable snake_case name of the domain variant this error is
    /// (`session_not_found`); an error wrapped to say what was being done
    /// or which argument it is about (`During`, `About`, `InVariable`) is
    /// named as the error inside it, as its kind and argument are. A remote
    /// lf's refusal is named as that lf named it, when it did.
    pub fn name(&self) -> &str {
        match self.layer() {
            Layer::Domain(error) => error.name(),
            Layer::Wrapped(inner) => inner.name(),
            Layer::Own => self.into(),
        }
    }

    /// The argument this error is about, when it is about one.
    pub fn arg(&self) -> Option<Arg> {
        if let Error::About { arg, .. } = self {
            return Some(*arg);
        }
        match self.layer() {
            Layer::Domain(error) => error.arg(),
            Layer::Wrapped(inner) => inner.arg(),
            Layer::Own => None,
        }
    }

    /// What to type next, for a surface to spell in its own words; the
    /// message (`Display`) does not contain it.
    pub fn hint(&self) -> Option<Hint> {
        match self.layer() {
            Layer::Domain(error) => error.hint(),
            Layer::Wrapped(inner) => inner.hint(),
            Layer::Own => None,
        }
    }

    /// Say what was being done when this error happened.
    pub fn during(self, what: impl fmt::Display) -> Self {
        Error::During {
            what: what.to_string(),
            inner: Box::new(self),
        }
    }

    /// This error, as one about `arg`.
    pub fn about(self, arg: Arg) -> Self {
        Error::About {
            arg,
            inner: Box::new(self),
        }
    }

    /// This error, found in the value of the environment variable
    /// `variable`.
    pub fn in_variable(self, variable: &'static str) -> Self {
        Error::InVariable {
            variable,
            inner: Box::new(self),
        }
    }

    /// An I/O failure, said for a person.
    pub fn io(what: impl fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            what: what.to_string(),
            source,
        }
    }

    /// The message, its hint in the binaries' words after `; `, and every
    /// cause below it, each on its own line after `Caused by:`, as the
    /// binaries print it.
    pub fn report(&self) -> String {
        self.with_causes(true, "\nCaused by: ")
    }

    /// The message, its hint in the binaries' words and its causes on one
    /// line, `message; hint: cause: cause`, for a program or a place that
    /// has one line (a JSON field, a record's reason).
    pub fn one_line(&self) -> String {
        self.with_causes(true, ": ")
    }

    /// The message and its causes on one line, without the hint: for a
    /// surface that shows the hint apart, in its own words (the plugin's
    /// help line).
    pub fn one_line_without_hint(&self) -> String {
        self.with_causes(false, ": ")
    }

    fn with_causes(&self, hinted: bool, before_each: &str) -> String {
        let mut text = self.to_string();
        if let Some(hint) = self.hint().filter(|_| hinted) {
            text.push_str("; ");
            text.push_str(&hint.to_string());
        }
        for cause in self.causes() {
            text.push_str(before_each);
            text.push_str(&cause);
        }
        text
    }

    /// The messages of the lower-level errors below this one (an I/O or
    /// SQLite error), outermost first. A wrapped lf error is part of the
    /// message already ("what: inner"); only its causes are new.
    pub fn causes(&self) -> Vec<String> {
        if let Layer::Wrapped(inner) = self.layer() {
            return inner.causes();
        }
        let mut causes = Vec::new();
        let mut next = std::error::Error::source(self);
        while let Some(cause) = next {
            causes.push(match cause.downcast_ref::<rusqlite::Error>() {
                Some(sqlite) => describe_sqlite_error(sqlite),
                None => cause.to_string(),
            });
            next = cause.source();
        }
        causes
    }
}

/// SQLite's own words for an error, without rusqlite's debug wrapping.
fn describe_sqlite_error(error: &rusqlite::Error) -> String {
    match error {
        rusqlite::Error::SqliteFailure(failure, Some(message)) => {
            format!("{message} ({:?})", failure.code)
        }
        rusqlite::Error::SqliteFailure(failure, None) => failure.to_string(),
        other => other.to_string(),
    }
}
