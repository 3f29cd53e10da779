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

pub mod hosts;
pub mod list;
pub mod open;
mod ssh;

pub use hosts::Remotes;
pub use list::Merged;
pub use open::{Located, RemoteSession};
