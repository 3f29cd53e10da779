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
//! - `input` — every check of untrusted text; `ids` — strict id formats;
//!   `error` — every failure, its exit code and the argument it is about.
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
pub use facade::Lf;
pub use home::Home;
pub use session::project::OpenCommand;
pub use session::{ListFilter, NewConversation};
