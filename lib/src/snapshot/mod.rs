//! The live-process snapshot (`lf-session-active`): which agent processes
//! run right now, each attributed to exactly one Session by exact evidence
//! — a client receipt or containment under a recorded `lf-serve` launcher
//! (see `attribute` for the rules) — and every ambiguity or stale receipt
//! reported as a gap, never guessed.
//!
//! The database says who may own what; `/proc` alone says what lives. The
//! snapshot reads the database once (read-only: observing changes
//! nothing), walks `/proc` once reading only each process's `stat`, and
//! reads a command line only for the processes it attributes. A Home with
//! no live evidence skips the walk.

mod attribute;
mod wire;

pub use wire::{Discovery, LiveProcess, LiveSession, LiveSnapshot, ProcessState};

use crate::clock::{Timestamp, now_micros};
use crate::home::Home;
use crate::liveness::table::{ProcessTable, StartClock};
use crate::store::ReadOnly;
use crate::wire::WorkRef;
use crate::work::WorkError;
use crate::{Error, Result};

/// Observe a Home: its Sessions with live processes (only those bound to
/// `task`, a Task id or identifier, when given). A database or `/proc`
/// that cannot be read makes an `unavailable` snapshot that says why; only
/// an unknown Task is an error.
pub fn observe(home: &Home, task: Option<&str>) -> Result<LiveSnapshot> {
    let mut snapshot = LiveSnapshot {
        discovery: Discovery::Ready,
        home: home.root().display().to_string(),
        observed_at: Timestamp(now_micros()),
        task: None,
        sessions: Vec::new(),
        gaps: Vec::new(),
    };
    let database = match ReadOnly::open(home) {
        Ok(database) => database,
        Err(error) => return Ok(unavailable(snapshot, error)),
    };
    if let Some(selector) = task {
        let found = match &database {
            Some(database) => match database.find_task(selector) {
                Ok(found) => found,
                Err(error) => return Ok(unavailable(snapshot, error)),
            },
            None => None,
        };
        snapshot.task =
            Some(found.ok_or_else(|| WorkError::TaskNotFound(selector.to_owned(), false))?);
    }
    let Some(database) = database else {
        return Ok(snapshot);
    };
    match look(&database, &mut snapshot) {
        Ok(()) => Ok(snapshot),
        Err(error) => Ok(unavailable(snapshot, error)),
    }
}

impl crate::Lf {
    /// The live-process snapshot of this Home; see [`observe`]. It opens
    /// the database read-only, so looking never creates or changes one.
    pub fn active(&self, task: Option<&str>) -> Result<LiveSnapshot> {
        observe(self.home(), task)
    }
}

fn unavailable(mut snapshot: LiveSnapshot, error: Error) -> LiveSnapshot {
    snapshot.discovery = Discovery::Unavailable;
    snapshot.sessions.clear();
    snapshot.gaps = vec![error.one_line()];
    snapshot
}

fn look(database: &ReadOnly, snapshot: &mut LiveSnapshot) -> Result<()> {
    let boot = crate::liveness::boot_id()?;
    let evidence = database.evidence(&boot)?;
    if evidence.is_empty() {
        return Ok(());
    }
    let table = ProcessTable::read()?;
    snapshot.observed_at = Timestamp(now_micros());
    let attribution = attribute::attribute(&boot, &table, &evidence, |pid, starttime| {
        database.is_retired(&boot, pid, starttime)
    })?;
    snapshot.gaps = attribution.gaps;
    if attribution.sessions.is_empty() {
        return Ok(());
    }
    let clock = StartClock::read()?;
    let mut sessions = Vec::new();
    for (id, processes) in attribution.sessions {
        let Some(facts) = database.session(&id)? else {
            for process in processes {
                snapshot.gaps.push(format!(
                    "Live process {}: its evidence names Session {id}, which is not recorded; \
                     attribution is unresolved",
                    process.pid
                ));
            }
            continue;
        };
        if snapshot
            .task
            .as_ref()
            .is_some_and(|task| facts.task_id.as_ref() != Some(task))
        {
            continue;
        }
        let processes = processes
            .into_iter()
            .filter_map(|process| {
                let live = table.get(process.pid)?;
                Some(LiveProcess {
                    pid: process.pid,
                    ppid: live.ppid,
                    provider: process.provider,
                    command: crate::liveness::table::command(process.pid),
                    started_at: Timestamp(clock.micros(live.starttime)),
                    state: ProcessState::from_scheduler(live.state),
                })
            })
            .collect();
        let work = match (facts.task_id, facts.wave_id) {
            (Some(task), _) => Some(WorkRef::Task(task)),
            (None, Some(wave)) => Some(WorkRef::Wave(wave)),
            (None, None) => None,
        };
        sessions.push((
            facts.created_at,
            LiveSession {
                id,
                title: facts.title,
                work,
                processes,
            },
        ));
    }
    // Newest first, as listings are.
    sessions.sort_by(|(a_created, a), (b_created, b)| (b_created, &b.id).cmp(&(a_created, &a.id)));
    snapshot.sessions = sessions.into_iter().map(|(_, session)| session).collect();
    snapshot.gaps.sort();
    snapshot.gaps.dedup();
    Ok(())
}
