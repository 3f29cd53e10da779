//! Sessions: the operations every surface offers (`ops`, where a
//! surface's text is resolved once into the Session it names), reaching and
//! launching them (`launch`), a repository's primary conversation
//! (`primary`), turning stored rows into records (`project`) and the
//! picker's order and filter (`pick`). The rules those records follow —
//! state, attention, actions — are `crate::state`.

pub mod act;
pub mod error;
pub mod launch;
pub mod ops;
pub mod pick;
pub mod primary;
pub mod project;
pub mod restore;
mod serve;
pub mod worktree;

pub use crate::state::{Facts, FlowFacts, RunOutcome, Turn};
pub use error::SessionError;
pub use launch::{Destination, OpenOptions};
pub use ops::*;
