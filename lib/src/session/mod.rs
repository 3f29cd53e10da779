//! Sessions: the rules that turn stored facts into what a person sees
//! (`rules`),
//! and the operations the binaries and the plugin call (`ops`).

pub mod launch;
pub mod ops;
pub mod pick;
pub mod primary;
pub mod project;
pub mod rules;

pub use launch::{Destination, OpenOptions};
pub use ops::*;
pub use rules::{Facts, FlowFacts, RunOutcome, Turn};
