//! lf keeps track of long-lived AI coding-agent conversations and gets a
//! person to the one that needs them. This library holds every rule; the
//! `lf-*` binaries and the Nushell plugin only translate arguments in and
//! records out, through one facade: [`Lf`], opened for a [`Caller`].
//!
//! Where things live:
//! - `state` — state, attention and actions: the rules people see, as pure
//!   functions of a Session's facts.
//! - `session` — the operations on Sessions, launching them (`launch`),
//!   primaries, turning stored rows into records (`project`), a worktree
//!   per Session and its diff (`worktree`) and bringing lost Sessions back
//!   (`restore`); `work`, `flow`, `handoff`, `live` (the live-process snapshot), `attention` (who
//!   waits for the person: counts and next) and `hook` hold the operations
//!   of their own subjects; `events` is the change stream (recorded as
//!   writes commit, followed by `lf-session-watch`).
//! - `wire` — the JSON contract; `clock` — its time types; `names` — enums
//!   as text, once for the wire, SQL and command lines.
//! - `input` — every check of untrusted text; `ids` — strict id formats;
//!   `error` — every failure, its exit code and the argument it is about.
//! - `remote` — other machines' Homes over OpenSSH: the host list, the
//!   merged listing, opening a Session there.
//! - `caller` — who is asking (the only reader of this process's env and
//!   cwd); `home` — the private data directory; `store` — the SQLite
//!   database and all of lf's SQL; `locks` — cross-process locks;
//!   `liveness` — whether a client runs, and all `/proc` reading;
//!   `provider` — the agent CLIs; `tmux` — the one place that runs tmux;
//!   `git` — the one place that runs git (worktrees and diffs).

pub mod attention;
pub mod caller;
pub mod changes;
pub mod clock;
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
pub mod wire;
pub mod work;

pub use caller::Caller;
pub use error::{Arg, Error, ErrorKind, Result};
pub use facade::{Lf, OpenCommand};
pub use home::Home;
pub use session::{ListFilter, NewConversation};
