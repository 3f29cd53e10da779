//! Remote Homes: lf on other machines, reached with OpenSSH. A person
//! names those machines once in the host list (`hosts`, a file in the
//! Home that `lf-host` keeps); a listing asks each of them for its Sessions
//! over ssh, in parallel and within a timeout, and merges them with this
//! Home's in the usual order (`list`); opening a remote Session takes the
//! terminal there through ssh (`open`). `ssh` builds every ssh argv and
//! the one remote command line each carries, and runs them.
//!
//! lf runs no daemon and speaks no protocol of its own: the other machine
//! runs the same `lf-session-list --jsonl` a person would, so its records
//! are the wire, decoded strictly (an lf that speaks another version is
//! reported as incompatible, never guessed at). A host that is down, slow
//! or incompatible is a problem reported beside the listing, never a
//! reason for it to fail or hang.

use crate::error::domain::{Arg, Domain, ErrorKind, What};
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::quote;
use std::path::PathBuf;
pub mod hosts;
pub mod list;
pub mod open;
mod ssh;
pub mod usage;

pub use hosts::Remotes;
pub use list::Merged;
pub use open::{Located, RemoteSession};
/// Remote hosts: the host list, and what a host or its lf said.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum RemoteError {
    #[error(
        "{} is not a host name lf passes to ssh: use letters, digits and - . _ @ : [ ] %, not starting with -",
        quote(.0)
    )]
    BadHost(String),
    #[error(
        "the remote {what} {} cannot be used: give an absolute path (or one starting with ~/) without quotes, backslashes or control characters",
        quote(.text)
    )]
    BadRemotePath { arg: Arg, what: What, text: String },
    #[error(
        "{flag} names something of this machine, so it cannot be combined with --host or --hosts; remote sessions can be filtered with --attention, --state, --kind, --orphan and --all"
    )]
    LocalOnlyFilter { flag: &'static str },
    #[error("host {} is not in the host list", quote(.0))]
    HostNotFound(String),
    #[error("Session {id} was not found here or on any host of the host list{problems}")]
    NowhereFound { id: String, problems: String },
    /// What a remote lf refused, in its own words (escaped) and naming the
    /// host; the kind is its kind, and the name its error's name when it
    /// gave one (`name()` is then that name, so a program matches the
    /// remote's variant as it would a local one).
    #[error("{message}")]
    RemoteRefused {
        host: String,
        kind: ErrorKind,
        message: String,
        name: Option<String>,
    },
    #[error("host {} is already in the host list", quote(.0))]
    HostExists(String),
    #[error(
        "the host list {} cannot be read: {problem}",
        .path.display()
    )]
    BadHostList { path: PathBuf, problem: String },
    /// A host could not be asked; the message says why, for a person.
    #[error("{message}")]
    HostUnavailable { host: String, message: String },
    /// A host sent more than lf reads (`bound`, such as "1 MiB"), so lf cut
    /// it off: told apart from a host that did not answer in time, which
    /// is `HostUnavailable`.
    #[error("{message}")]
    HostSentTooMuch {
        host: String,
        bound: String,
        message: String,
    },
}

impl Domain for RemoteError {
    fn kind(&self) -> ErrorKind {
        use RemoteError::*;
        match self {
            BadHost(..) | BadRemotePath { .. } | LocalOnlyFilter { .. } => ErrorKind::Usage,
            HostNotFound(..) | NowhereFound { .. } => ErrorKind::NotFound,
            RemoteRefused { kind, .. } => *kind,
            BadHostList { .. } | HostUnavailable { .. } | HostSentTooMuch { .. } => {
                ErrorKind::Operational
            }
            HostExists(..) => ErrorKind::Conflict,
        }
    }

    fn arg(&self) -> Option<Arg> {
        use RemoteError::*;
        Some(match self {
            BadHost(_) | HostNotFound(_) | HostExists(_) => Arg::Host,
            BadRemotePath { arg, .. } => *arg,
            NowhereFound { .. } => Arg::Id,
            _ => return None,
        })
    }

    fn name(&self) -> &str {
        match self {
            RemoteError::RemoteRefused {
                name: Some(name), ..
            } => name,
            other => other.into(),
        }
    }

    fn hint(&self) -> Option<Hint> {
        Some(match self {
            RemoteError::HostNotFound(_) => Hint::text("see ")
                .command(Command::HostList)
                .then(", or add it with ")
                .command(Command::HostAdd {
                    host: None,
                    bin: false,
                }),
            RemoteError::NowhereFound { .. } => {
                Hint::text("pass --host HOST if it is on another machine (")
                    .command(Command::HostList)
                    .then(" shows the host list)")
            }
            RemoteError::HostExists(host) => Hint::text("remove it first to change it (")
                .command(Command::HostRemove {
                    host: Some(host.clone()),
                })
                .then(")"),
            RemoteError::BadHostList { .. } => Hint::text("fix it or remove it (")
                .command(Command::HostList)
                .then(" shows it once it reads)"),
            _ => return None,
        })
    }
}
