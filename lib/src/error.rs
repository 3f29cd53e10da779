//! Every way an lf operation can fail. Each domain's enum lives beside the
//! rule that raises it (`input::InputError`, `home::HomeError`,
//! `handoff::HandoffError`, …), so a newcomer finds a failure next to its
//! rule; `lf::Error`, defined at the crate root above all of them, holds
//! one (`?` converts), or says what was being done (`During`), which
//! argument it is about (`About`) or which variable held it
//! (`InVariable`), or is a plain I/O failure. This module names them all
//! in one place and holds what they share, in modules that depend on
//! nothing: `domain` (kinds and exit codes, the argument an error is
//! about, the `Domain` trait the join asks), `hint` (what to type next,
//! typed) and `untrusted` (quoting text lf did not write).
//!
//! Each message is written once, in its variant, for a person: what
//! happened, to which session or file. What to type next is a typed
//! `Hint`, which each surface spells in its own words. `kind()` gives the
//! documented exit code, `arg()` the argument an error is about (so the
//! plugin can put its label under it without reading the message),
//! `name()` the variant's stable name, and `source()` the lower-level I/O
//! or SQLite error, which surfaces print as `Caused by:`
//! (docs/decisions/0027-errors-by-domain.md).

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

pub use crate::{Error, Result};

use std::fmt;

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
    fn a_remote_refusal_is_named_and_kinded_as_the_remote_said() {
        let refused = |name: Option<&str>| {
            Error::from(RemoteError::RemoteRefused {
                host: "box".into(),
                kind: ErrorKind::Conflict,
                message: "on host box: no".into(),
                name: name.map(str::to_owned),
            })
        };
        assert_eq!(refused(Some("already_complete")).name(), "already_complete");
        assert_eq!(refused(None).name(), "remote_refused");
        assert_eq!(refused(None).kind(), ErrorKind::Conflict);
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
            [
                Command::WorkTaskList,
                Command::WorkTaskAdd { worktree: false }
            ]
        );
        assert_eq!(
            error.one_line(),
            "Task \"LOO-1\" is not registered; see lf-work task list, or register it with lf-work task add"
        );
        assert_eq!(error.one_line_without_hint(), error.to_string());
    }
}
