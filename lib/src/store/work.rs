//! Waves, Tasks and flow invocations: the work Sessions belong to. These
//! tables are small next to `sessions`, so a listing loads them whole.

use super::{Store, optional};
use crate::work::WorkError;
use crate::{Error, Result};
use rusqlite::{Row, params};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveRow {
    pub id: String,
    pub name: String,
    pub repo: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    pub id: String,
    pub identifier: String,
    pub title: String,
    pub worktree: Option<String>,
    pub wave_id: Option<String>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowRow {
    pub id: String,
    pub name: String,
    pub task_id: Option<String>,
    pub finished: bool,
    pub current_run_id: Option<String>,
    pub pending_session_id: Option<String>,
}

fn wave(row: &Row<'_>) -> rusqlite::Result<WaveRow> {
    Ok(WaveRow {
        id: row.get(0)?,
        name: row.get(1)?,
        repo: row.get(2)?,
        created_at: row.get(3)?,
    })
}

/// What a listing shows of a Task (`Store::task_label`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLabel {
    pub identifier: String,
    pub finished: bool,
}

fn task(row: &Row<'_>) -> rusqlite::Result<TaskRow> {
    Ok(TaskRow {
        id: row.get(0)?,
        identifier: row.get(1)?,
        title: row.get(2)?,
        worktree: row.get(3)?,
        wave_id: row.get(4)?,
        created_at: row.get(5)?,
        finished_at: row.get(6)?,
    })
}

const FLOW_COLUMNS: &str = "id, name, task_id, finished, current_run_id, pending_session_id";

fn flow(row: &Row<'_>) -> rusqlite::Result<FlowRow> {
    Ok(FlowRow {
        id: row.get(0)?,
        name: row.get(1)?,
        task_id: row.get(2)?,
        finished: row.get(3)?,
        current_run_id: row.get(4)?,
        pending_session_id: row.get(5)?,
    })
}

const WAVE_COLUMNS: &str = "id, name, repo, created_at";
const TASK_COLUMNS: &str = "id, identifier, title, worktree, wave_id, created_at, finished_at";

fn is_unique_violation(error: &rusqlite::Error) -> bool {
    matches!(error, rusqlite::Error::SqliteFailure(failure, _)
        if failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            || failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

impl Store {
    pub fn insert_wave(&self, wave: &WaveRow) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            &format!("INSERT INTO waves ({WAVE_COLUMNS}) VALUES (?1, ?2, ?3, ?4)"),
            params![wave.id, wave.name, wave.repo, wave.created_at],
        )
        .map_err(|error| {
            if is_unique_violation(&error) {
                Error::from(WorkError::WaveExists(wave.name.clone()))
            } else {
                error.into()
            }
        })?;
        tx.commit()?;
        Ok(())
    }

    pub fn waves(&self) -> Result<Vec<WaveRow>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {WAVE_COLUMNS} FROM waves ORDER BY created_at, id"
        ))?;
        Ok(statement
            .query_map([], wave)?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// A Wave by id or by name.
    pub fn find_wave(&self, selector: &str) -> Result<Option<WaveRow>> {
        optional(self.conn().query_row(
            &format!("SELECT {WAVE_COLUMNS} FROM waves WHERE id = ?1 OR name = ?1"),
            [selector],
            wave,
        ))
    }

    pub fn insert_task(&self, task: &TaskRow) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            &format!("INSERT INTO tasks ({TASK_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
            params![
                task.id,
                task.identifier,
                task.title,
                task.worktree,
                task.wave_id,
                task.created_at,
                task.finished_at
            ],
        )
        .map_err(|error| {
            if is_unique_violation(&error) {
                Error::from(WorkError::TaskExists(task.identifier.clone()))
            } else {
                error.into()
            }
        })?;
        tx.commit()?;
        Ok(())
    }

    pub fn tasks(&self) -> Result<Vec<TaskRow>> {
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {TASK_COLUMNS} FROM tasks ORDER BY created_at, id"
        ))?;
        Ok(statement
            .query_map([], task)?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// What a listing shows of a Task: its identifier and whether it is
    /// finished.
    pub fn task_label(&self, id: &str) -> Result<Option<TaskLabel>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT identifier, finished_at IS NOT NULL FROM tasks WHERE id = ?1",
        )?;
        optional(statement.query_row([id], |row| {
            Ok(TaskLabel {
                identifier: row.get(0)?,
                finished: row.get(1)?,
            })
        }))
    }

    /// A Wave's name.
    pub fn wave_name(&self, id: &str) -> Result<Option<String>> {
        let mut statement = self
            .conn()
            .prepare_cached("SELECT name FROM waves WHERE id = ?1")?;
        optional(statement.query_row([id], |row| row.get(0)))
    }

    /// Every Task worktree and its Task's id, in the order the Tasks were
    /// registered (so of two on one worktree, the later comes last).
    pub fn task_worktrees(&self) -> Result<Vec<(String, String)>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT worktree, id FROM tasks WHERE worktree IS NOT NULL ORDER BY rowid",
        )?;
        Ok(statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// The Task worktrees that are one of `dirs`, and their Tasks' ids,
    /// the latest registered first.
    pub(crate) fn task_worktrees_among(&self, dirs: &[&str]) -> Result<Vec<(String, String)>> {
        let dirs = serde_json::to_string(dirs)?;
        let mut statement = self.conn().prepare_cached(
            "SELECT worktree, id FROM tasks WHERE worktree IN (SELECT value FROM json_each(?1)) \
             ORDER BY rowid DESC",
        )?;
        Ok(statement
            .query_map([dirs], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// A Task by id or by identifier.
    pub fn find_task(&self, selector: &str) -> Result<Option<TaskRow>> {
        optional(self.conn().query_row(
            &format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1 OR identifier = ?1"),
            [selector],
            task,
        ))
    }

    /// Mark a Task finished; finishing it again keeps the first time.
    pub fn finish_task(&self, id: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE tasks SET finished_at = COALESCE(finished_at, ?2) WHERE id = ?1",
            params![id, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    pub fn flows(&self) -> Result<Vec<FlowRow>> {
        let mut statement = self
            .conn()
            .prepare_cached(&format!("SELECT {FLOW_COLUMNS} FROM flows"))?;
        Ok(statement
            .query_map([], flow)?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// One flow invocation by id.
    pub fn flow(&self, id: &str) -> Result<Option<FlowRow>> {
        optional(self.conn().query_row(
            &format!("SELECT {FLOW_COLUMNS} FROM flows WHERE id = ?1"),
            [id],
            flow,
        ))
    }
}
