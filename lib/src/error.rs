//! Every way an lf operation can fail, as one type, `Error`, joined from
//! one enum per domain. Each domain's enum lives beside the rule that
//! raises it (`input::InputError`, `home::HomeError`,
//! `handoff::HandoffError`, …), so a newcomer finds a failure next to its
//! rule; `Error` holds one of them (`?` converts), or says what was being
//! done (`During`), which argument it is about (`About`) or which variable
//! held it (`InVariable`), or is a plain I/O failure.
//!
//! Each message is written once, in its variant, for a person: what
//! happened, to which session or file. What to type next is a typed
//! `Hint`, which each surface spells in its own words (`hint`). `kind()`
//! gives the documented exit code, `arg()` the argument an error is about
//! (so the plugin can put its label under it without reading the
//! message), `name()` the variant's stable name, and `source()` the
//! lower-level I/O or SQLite error, which surfaces print as `Caused by:`.

pub mod domain;
pub mod hint;
pub mod untrusted;

pub use crate::events::EventsError;
pub use crate::flow::FlowError;
pub use crate::git::GitError;
pub use crate::handoff::HandoffError;
pub use crate::home::HomeError;
pub use crate::hook::HookError;
pub use crate::input::InputError;
pub use crate::liveness::LivenessError;
pub use crate::provider::ProviderError;
pub use crate::remote::RemoteError;
pub use crate::session::error::SessionError;
pub use crate::session::launch::LaunchError;
pub use crate::session::pick::PickError;
pub use crate::session::worktree::WorktreeError;
pub use crate::tmux::TmuxError;
pub use crate::work::WorkError;
pub use domain::{Arg, Domain, ErrorKind, What};
pub use hint::{Command, Hint};
pub use untrusted::{HOST_TEXT_MAX, host_text, quote};

use std::fmt;

/// An lf failure: one domain's error, or one wrapped to say more. `name()`
/// is the domain variant's stable snake_case name (`session_not_found`),
/// which `LF_ERROR_FORMAT=json` prints as `error`: a program (or a test)
/// matches it, not the message, which is for a person.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr)]
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

/// Say what was being done when a lower-level error happened.
pub trait Context<T> {
    fn during(self, what: impl fmt::Display) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn during(self, what: impl fmt::Display) -> Result<T> {
        self.map_err(|error| error.into().during(what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_have_stable_snake_case_names() {
        assert_eq!(
            Error::from(SessionError::SessionNotFound("x".into())).name(),
            "session_not_found"
        );
        let complete = Error::from(SessionError::AlreadyComplete {
            session: "x".into(),
            at: "y".into(),
        });
        assert_eq!(complete.name(), "already_complete");
        assert_eq!(Error::from(HomeError::NoHome).name(), "no_home");
        assert_eq!(
            Error::from(WorkError::WaveNotFound("w".into()))
                .about(Arg::Parent)
                .name(),
            "wave_not_found"
        );
        let io = std::io::Error::other("x");
        assert_eq!(Error::io("reading", io).name(), "io");
    }

    #[test]
    fn kinds_keep_their_documented_exit_codes() {
        use ErrorKind::*;
        let codes = [Operational, Usage, NotFound, Conflict].map(ErrorKind::exit_code);
        assert_eq!(codes, [1, 2, 3, 4]);
    }

    #[test]
    fn causes_follow_the_message_and_wrapped_errors_keep_kind_and_arg() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let error = Error::from(InputError::UnusableDir {
            arg: Arg::Cwd,
            what: "working directory",
            path: "/x".into(),
            source: io,
        })
        .during("review Session 1 was recorded but did not start");
        assert_eq!(error.kind(), ErrorKind::Usage);
        assert_eq!(error.arg(), Some(Arg::Cwd));
        assert_eq!(error.name(), "unusable_dir");
        assert_eq!(
            error.report(),
            "review Session 1 was recorded but did not start: the working directory \"/x\" cannot be used\nCaused by: denied"
        );
    }

    #[test]
    fn the_hint_follows_the_message_in_the_binaries_words_and_wrappers_keep_it() {
        let error = Error::from(WorkError::TaskNotFound("LOO-1".into(), true)).about(Arg::Parent);
        assert_eq!(error.to_string(), "Task \"LOO-1\" is not registered");
        let hint = error.hint().expect("a hint");
        assert_eq!(
            hint.commands().cloned().collect::<Vec<_>>(),
            [Command::WorkTaskList, Command::WorkTaskAdd { worktree: false }]
        );
        assert_eq!(
            error.one_line(),
            "Task \"LOO-1\" is not registered; see lf-work task list, or register it with lf-work task add"
        );
        assert_eq!(error.one_line_without_hint(), error.to_string());
    }
}
