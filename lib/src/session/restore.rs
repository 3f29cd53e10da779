//! Bringing Sessions back after a reboot or a lost tmux server: every open
//! Session whose agent is `lost` (it was running and did not end by itself)
//! is resumed in its own durable tmux session, detached, with its exact
//! native conversation — or, without one, relaunched with the same argv.
//! Each decision is taken under the Session's launch lock, as an open's
//! is, so concurrent restores and opens launch each Session once; the
//! launches are started one after another and then awaited together, so
//! twenty agents start in about the time of the slowest.

use super::launch::Starting;
use super::project::LiveClients;
use crate::facade::Lf;
use crate::session::launch::LaunchError;
use crate::state::RunOutcome;
use crate::store::{ListQuery, SessionRow};
use crate::tmux;
use crate::tmux::TmuxError;
use crate::wire::LostReason;
use crate::wire::{RestoreLine, RestoreResult, RestoreSkip};
use crate::{Error, Result};

/// A launch restore started and waits for.
struct Pending {
    line: RestoreLine,
    start: Starting,
}

impl Lf {
    /// Restore every lost Session (see the module docs), handing one line
    /// per open Session to `emit` as soon as its fate is known. With
    /// `dry_run`, nothing is launched: the lines say what would be.
    /// Returns an error after all lines when any launch failed.
    pub fn restore(
        &self,
        dry_run: bool,
        mut emit: impl FnMut(RestoreLine) -> Result<()>,
    ) -> Result<()> {
        let store = self.store()?;
        let live = LiveClients::observe(store)?;
        let mut lost = Vec::new();
        store.session_rows_after(&ListQuery::default(), None, None, |row| {
            let alive = live.is_live(store, &row)?;
            match live.lost(&row, alive)? {
                Some(reason) => lost.push((row, reason)),
                None => emit(skipped(&row, alive))?,
            }
            Ok(true)
        })?;
        let tmux = self.caller.tmux();
        let mut pending = Vec::new();
        let mut failed = 0;
        for (row, reason) in lost {
            match self.restore_one(&row, reason, dry_run, &tmux) {
                Ok(Ok(started)) => pending.push(started),
                Ok(Err(line)) => emit(line)?,
                Err(error) => {
                    failed += 1;
                    emit(failure(&row, reason, &error))?;
                }
            }
        }
        while !pending.is_empty() {
            let mut waiting = Vec::with_capacity(pending.len());
            // One look at the tmux server per round, and only if asked.
            let mut sessions = None;
            let mut running = |name: &str| -> Result<bool> {
                if sessions.is_none() {
                    sessions = Some(tmux.session_names()?);
                }
                Ok(sessions.as_ref().is_some_and(|names| names.contains(name)))
            };
            for mut launch in pending {
                match self.started(&launch.start, &mut running) {
                    Ok(false) => waiting.push(launch),
                    Ok(true) => {
                        if launch.line.result == RestoreResult::Relaunched {
                            launch.line.native_id =
                                self.run_row(&launch.start.run)?.chosen_native_id;
                        }
                        emit(launch.line)?;
                    }
                    Err(error) => {
                        failed += 1;
                        launch.line.result = RestoreResult::Failed;
                        launch.line.reason = Some(error.one_line());
                        emit(launch.line)?;
                    }
                }
            }
            pending = waiting;
            if !pending.is_empty() {
                std::thread::sleep(super::launch::POLL);
            }
        }
        match failed {
            0 => Ok(()),
            count => Err(LaunchError::RestoreFailed(count).into()),
        }
    }

    /// Decide on one lost Session under its launch lock and start it: the
    /// launch to wait for, or the line that says why not (or, dry, what
    /// would be done).
    fn restore_one(
        &self,
        scanned: &SessionRow,
        reason: LostReason,
        dry_run: bool,
        tmux: &tmux::Tmux,
    ) -> Result<std::result::Result<Pending, RestoreLine>> {
        let id = scanned.id.clone();
        let name = tmux::session_name(&id);
        if dry_run {
            if tmux.has_session(&name)? {
                return Ok(Err(running(scanned, &name)));
            }
            let run = self.run_row(&scanned.current_run_id)?;
            let resumable = run.native_id.is_some() && !run.resume_failed;
            let mut line = line(scanned, Some(reason), RestoreResult::WouldRelaunch);
            if resumable {
                line.result = RestoreResult::WouldResume;
                line.native_id = run.native_id;
            }
            return Ok(Err(line));
        }
        let _lock = crate::locks::launch(self.home(), &id)?;
        // Decide on what is true under the lock: another restore or an
        // open may have brought it back, or a person completed it.
        let row = self.session(&id)?;
        if row.completed_at.is_some() {
            return Ok(Err(RestoreLine {
                skipped: Some(RestoreSkip::Completed),
                reason: Some("it was completed meanwhile".to_owned()),
                ..line(&row, Some(reason), RestoreResult::Skipped)
            }));
        }
        // A new attempt since the scan: an opener launched it.
        if row.current_run_id != scanned.current_run_id || !self.live_clients(&row.id)?.is_empty() {
            return Ok(Err(running(&row, &name)));
        }
        let Some(reason) = super::project::lost(&row, false, &crate::liveness::boot_id()?) else {
            return Ok(Err(skipped(&row, false)));
        };
        // An opener that launched it since holds no lock now, and its
        // lf-serve may not run yet: the database cannot tell, the tmux
        // session can. Its Run is then new (unlaunched) or resumable, so
        // this decides on the same Run and tmux refuses the second session.
        let run = self.launchable_run(&row)?;
        let resumed = run.id == row.current_run_id && run.native_id.is_some();
        match self.start_in_tmux(&row, &run, tmux, &name) {
            Err(Error::Tmux(TmuxError::TmuxSessionExists(_))) => {
                return Ok(Err(running(&row, &name)));
            }
            started => started?,
        }
        let mut line = line(&row, Some(reason), RestoreResult::Relaunched);
        if resumed {
            line.result = RestoreResult::Resumed;
            line.native_id = run.native_id.clone();
        }
        line.tmux_session = Some(name.clone());
        Ok(Ok(Pending {
            line,
            start: Starting::new(&run, &name)?,
        }))
    }
}

fn line(row: &SessionRow, lost: Option<LostReason>, result: RestoreResult) -> RestoreLine {
    RestoreLine {
        id: row.id.to_string(),
        title: row.title.clone(),
        provider: row.provider.clone(),
        result,
        lost,
        skipped: None,
        reason: None,
        native_id: None,
        tmux_session: None,
    }
}

/// A Session that runs: left alone.
fn running(row: &SessionRow, name: &str) -> RestoreLine {
    RestoreLine {
        tmux_session: Some(name.to_owned()),
        ..skipped(row, true)
    }
}

/// A Session that is not lost, and why it is left as it was.
fn skipped(row: &SessionRow, alive: bool) -> RestoreLine {
    let (skip, why) = if alive {
        (RestoreSkip::Running, "its agent runs")
    } else if !row.launch.started {
        (
            RestoreSkip::NeverLaunched,
            "it was never launched; lf-session-open launches it",
        )
    } else {
        match row.outcome {
            Some(RunOutcome::Exited) => (
                RestoreSkip::Exited,
                "its agent exited by itself; lf-session-open resumes it",
            ),
            Some(RunOutcome::Interrupted) => (
                RestoreSkip::Interrupted,
                "its agent was stopped by a signal; lf-session-open resumes it",
            ),
            Some(RunOutcome::Failed) => (
                RestoreSkip::LaunchFailed,
                "its last launch failed; lf-session-open says why and tries again",
            ),
            None => (
                RestoreSkip::Running,
                "its launcher still runs and records how the agent ended",
            ),
        }
    };
    RestoreLine {
        skipped: Some(skip),
        reason: Some(why.to_owned()),
        ..line(row, None, RestoreResult::Skipped)
    }
}

/// A Session whose restore failed, with the error for a person.
fn failure(row: &SessionRow, lost: LostReason, error: &Error) -> RestoreLine {
    RestoreLine {
        reason: Some(error.one_line()),
        ..line(row, Some(lost), RestoreResult::Failed)
    }
}
