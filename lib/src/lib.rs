//! lf keeps track of long-lived AI coding-agent conversations and gets a
//! person to the one that needs them. This library holds every rule; the
//! `lf-*` binaries and the Nushell plugin only translate arguments in and
//! records out.
//!
//! Where things live:
//! - `home` — the private data directory; `store` — the SQLite database;
//!   `locks` — cross-process locks; `liveness` — whether a client runs.
//! - `session` — state, attention, actions (`session::rules`), text
//!   validation, projection to the wire and the operations themselves.
//! - `wire` — the JSON contract; `ids` — strict id formats; `work` — Waves
//!   and Tasks; `provider` — the agent CLIs; `error` — errors and exit codes.

pub mod active;
pub mod caller;
pub mod clock;
pub mod demo;
pub mod error;
pub mod flow;
pub mod handoff;
pub mod home;
pub mod hook;
pub mod ids;
pub mod input;
pub mod liveness;
pub mod locks;
mod names;
pub mod provider;
pub mod session;
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
pub use home::Home;
pub use session::{Lf, ListFilter, NewConversation};
