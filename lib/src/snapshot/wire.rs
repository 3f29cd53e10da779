//! The snapshot on the wire: what `lf-session-active` prints, documented by
//! `schema/active.schema.json`; `tests/fixtures/active.json` round-trips
//! through these types exactly. Like `SessionRecord`, it carries no Run id:
//! a person deals with Sessions, Runs are how lf launched them.

use crate::wire::{WorkRef, required};
use serde::{Deserialize, Serialize};

crate::names::named! {
    "discovery";
    /// Whether the snapshot could look at all.
    pub enum Discovery {
        /// `/proc` and the database were read: `sessions` and `gaps` are complete.
        Ready,
        /// `/proc` or the database could not be read; `gaps` says why and
        /// `sessions` is empty. Nothing is known, which is not "nothing runs".
        Unavailable,
    }
}

crate::names::named! {
    "process state";
    /// What the scheduler says a process is doing (field 3 of `/proc/<pid>/stat`).
    pub enum ProcessState {
        /// Running or runnable (`R`): working right now.
        Running,
        /// Any sleep or stop (`S`, `D`, `T`, `I`, …): waiting for input, a
        /// child, the network or the disk.
        Waiting,
    }
}

impl ProcessState {
    /// The state of a live (not zombie) process from its scheduler letter.
    pub fn from_scheduler(letter: char) -> Self {
        if letter == 'R' {
            ProcessState::Running
        } else {
            ProcessState::Waiting
        }
    }
}

/// One live process attributed to a Session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveProcess {
    pub pid: u32,
    /// The parent process id (1, or a subreaper, once its parent exited).
    pub ppid: u32,
    /// The provider of the Run whose evidence attributed the process (a
    /// `Provider` name).
    pub provider: String,
    /// Its argv from `/proc/<pid>/cmdline`: at most 4 KiB and 64 items, so
    /// the last item may be cut short.
    pub command: Vec<String>,
    /// When it started (RFC 3339, UTC; boot time plus its start ticks, so
    /// accurate to about a second).
    pub started_at: crate::clock::Timestamp,
    pub state: ProcessState,
}

/// A Session with the live processes exact evidence attributes to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveSession {
    pub id: String,
    pub title: String,
    /// `{"task": id}`, `{"wave": id}` or null, as in a SessionRecord.
    #[serde(deserialize_with = "required")]
    pub work: Option<WorkRef>,
    /// Sorted by pid; never empty.
    pub processes: Vec<LiveProcess>,
}

/// The live-process snapshot of one Home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveSnapshot {
    pub discovery: Discovery,
    /// The Home observed.
    pub home: String,
    /// When `/proc` was read (RFC 3339, UTC).
    pub observed_at: crate::clock::Timestamp,
    /// The Task id the Sessions were filtered to (`--task`), else null.
    #[serde(deserialize_with = "required")]
    pub task: Option<String>,
    /// Newest first.
    pub sessions: Vec<LiveSession>,
    /// Every process lf could not attribute to exactly one Session, and
    /// every stale receipt, in words; sorted.
    pub gaps: Vec<String>,
}
