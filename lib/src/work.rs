//! Waves and Tasks: the work Sessions belong to. A Session inside a Task's
//! worktree is associated with that Task; paths are canonicalised here,
//! once, when a Task is registered, so listing compares plain strings.

use crate::Result;
use crate::clock::{Timestamp, now_micros};
use crate::error::domain::What;
use crate::error::domain::{Arg, Domain, ErrorKind};
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::quote;
use crate::facade::Lf;
use crate::ids::{TaskId, WaveId};
use crate::input;
use crate::input::InputError;
use crate::store::{Store, TaskRow, WaveRow};
use crate::wire::{TaskRecord, WaveRecord};
use std::collections::HashMap;
use std::path::Path;

/// A directory as stored: absolute with symlinks resolved. The error names
/// the path and what is wrong with it.
pub(crate) fn canonical_dir(path: &Path, arg: Arg, what: What) -> Result<String> {
    let canonical = std::fs::canonicalize(path).map_err(|source| InputError::UnusableDir {
        arg,
        what,
        path: path.to_path_buf(),
        source,
    })?;
    if !canonical.is_dir() {
        return Err(InputError::NotADirectory {
            arg,
            what,
            path: path.to_path_buf(),
        }
        .into());
    }
    match canonical.into_os_string().into_string() {
        Ok(text) => Ok(text),
        Err(path) => Err(InputError::NotUtf8 {
            arg,
            what,
            path: path.into(),
        }
        .into()),
    }
}

pub struct NewTask<'a> {
    pub identifier: &'a str,
    pub title: &'a str,
    pub worktree: Option<&'a Path>,
    pub wave: Option<&'a str>,
}

impl Lf {
    /// Register a Wave: a named repository.
    pub fn add_wave(&self, name: &str, repo: &Path) -> Result<WaveRecord> {
        let name = input::WAVE_NAME.check(name)?;
        let repo = self.dir(repo, Arg::Repo, "repository")?;
        let row = WaveRow {
            id: WaveId::new().to_string(),
            name,
            repo,
            created_at: now_micros(),
        };
        self.store()?.insert_wave(&row)?;
        Ok(wave_record(row))
    }

    pub fn waves(&self) -> Result<Vec<WaveRecord>> {
        Ok(self
            .store()?
            .waves()?
            .into_iter()
            .map(wave_record)
            .collect())
    }

    /// Register a Task, optionally with its worktree and Wave.
    pub fn add_task(&self, task: NewTask<'_>) -> Result<TaskRecord> {
        let identifier = input::TASK_IDENTIFIER.check(task.identifier)?;
        if TaskId::looks_like(&identifier) || WaveId::looks_like(&identifier) {
            return Err(WorkError::IdentifierLooksLikeId(identifier).into());
        }
        let title = input::title(task.title)?;
        let worktree = task
            .worktree
            .map(|path| self.dir(path, Arg::Worktree, "worktree"))
            .transpose()?;
        let store = self.store()?;
        let wave_id = match task.wave {
            Some(selector) => Some(find_wave(store, selector)?.id),
            None => None,
        };
        let row = TaskRow {
            id: TaskId::new().to_string(),
            identifier,
            title,
            worktree,
            wave_id,
            created_at: now_micros(),
            finished_at: None,
        };
        store.insert_task(&row)?;
        task_record(row, &wave_names(store)?)
    }

    pub fn tasks(&self) -> Result<Vec<TaskRecord>> {
        let store = self.store()?;
        let names = wave_names(store)?;
        store
            .tasks()?
            .into_iter()
            .map(|row| task_record(row, &names))
            .collect()
    }

    /// Mark a Task finished; its flow reviews then need no attention.
    pub fn finish_task(&self, selector: &str) -> Result<TaskRecord> {
        let store = self.store()?;
        let task = find_task(store, selector)?;
        store.finish_task(&task.id, now_micros())?;
        task_record(find_task(store, &task.id)?, &wave_names(store)?)
    }
}

fn wave_record(row: WaveRow) -> WaveRecord {
    WaveRecord {
        id: row.id,
        name: row.name,
        repo: row.repo,
        created_at: Timestamp(row.created_at),
    }
}

/// A Task by id or identifier, or an error saying how to register it.
pub(crate) fn find_task(store: &Store, selector: &str) -> Result<TaskRow> {
    store
        .find_task(selector)?
        .ok_or_else(|| WorkError::TaskNotFound(selector.to_owned(), true).into())
}

pub(crate) fn find_wave(store: &Store, selector: &str) -> Result<WaveRow> {
    store
        .find_wave(selector)?
        .ok_or_else(|| WorkError::WaveNotFound(selector.to_owned()).into())
}

fn wave_names(store: &Store) -> Result<HashMap<String, String>> {
    Ok(store
        .waves()?
        .into_iter()
        .map(|wave| (wave.id, wave.name))
        .collect())
}

fn task_record(row: TaskRow, waves: &HashMap<String, String>) -> Result<TaskRecord> {
    let work_path = crate::state::work_path(
        row.wave_id
            .as_deref()
            .map(|id| (id, waves.get(id).map(String::as_str))),
        Some((row.id.as_str(), Some(row.identifier.as_str()))),
    );
    Ok(TaskRecord {
        work_path,
        finished: row.finished_at.is_some(),
        finished_at: row.finished_at.map(Timestamp),
        created_at: Timestamp(row.created_at),
        id: row.id,
        identifier: row.identifier,
        title: row.title,
        worktree: row.worktree,
        wave_id: row.wave_id,
    })
}
/// Tasks and Waves.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum WorkError {
    #[error("the Task identifier {} looks like an lf id; choose another, such as LOO-291", quote(.0))]
    IdentifierLooksLikeId(String),
    #[error("Task {} is not registered", quote(.0))]
    TaskNotFound(String, bool),
    #[error("Wave {} is not registered", quote(.0))]
    WaveNotFound(String),
    #[error("a Wave named {0:?} is already registered")]
    WaveExists(String),
    #[error("a Task with identifier {0:?} is already registered")]
    TaskExists(String),
}

impl Domain for WorkError {
    fn kind(&self) -> ErrorKind {
        use WorkError::*;
        match self {
            IdentifierLooksLikeId(..) => ErrorKind::Usage,
            TaskNotFound(..) | WaveNotFound(..) => ErrorKind::NotFound,
            WaveExists(..) | TaskExists(..) => ErrorKind::Conflict,
        }
    }

    fn arg(&self) -> Option<Arg> {
        use WorkError::*;
        Some(match self {
            IdentifierLooksLikeId(_) | TaskExists(_) => Arg::Identifier,
            TaskNotFound(..) => Arg::Task,
            WaveNotFound(_) => Arg::Wave,
            WaveExists(_) => Arg::Name,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        let (list, add) = match self {
            WorkError::TaskNotFound(_, addable) => (
                Command::WorkTaskList,
                addable.then_some(Command::WorkTaskAdd { worktree: false }),
            ),
            WorkError::WaveNotFound(_) => (Command::WorkWaveList, Some(Command::WorkWaveAdd)),
            _ => return None,
        };
        let hint = Hint::text("see ").command(list);
        Some(match add {
            Some(add) => hint.then(", or register it with ").command(add),
            None => hint,
        })
    }
}
