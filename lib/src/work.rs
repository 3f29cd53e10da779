//! Waves and Tasks: the work Sessions belong to. A Session inside a Task's
//! worktree is associated with that Task; paths are canonicalised here,
//! once, when a Task is registered, so listing compares plain strings.

use crate::clock::{now_micros, rfc3339};
use crate::error::{Error, Result};
use crate::ids::{TaskId, WaveId, quote};
use crate::session::text;
use crate::store::{Store, TaskRow, WaveRow};
use crate::wire::{TaskRecord, WaveRecord};
use std::collections::HashMap;
use std::path::Path;

/// A directory as stored: absolute with symlinks resolved. The error names
/// the path and what is wrong with it.
pub fn canonical_dir(path: &Path, what: &str) -> Result<String> {
    let canonical = std::fs::canonicalize(path).map_err(|error| {
        Error::usage(format!(
            "the {what} {} cannot be used: {error}",
            quote(&path.display().to_string())
        ))
    })?;
    if !canonical.is_dir() {
        return Err(Error::usage(format!(
            "the {what} {} is not a directory",
            quote(&path.display().to_string())
        )));
    }
    canonical.to_str().map(str::to_owned).ok_or_else(|| {
        Error::usage(format!(
            "the {what} {} is not valid UTF-8",
            canonical.display()
        ))
    })
}

fn name(text: &str, what: &str) -> Result<String> {
    let trimmed = text.trim();
    let ok = !trimmed.is_empty()
        && trimmed.len() <= 100
        && trimmed
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./ ".contains(c));
    if ok {
        Ok(trimmed.to_owned())
    } else {
        Err(Error::usage(format!(
            "{} is not a valid {what}: use 1 to 100 letters, digits, spaces and - _ . /",
            quote(text)
        )))
    }
}

pub fn add_wave(store: &Store, wave_name: &str, repo: &Path) -> Result<WaveRecord> {
    let row = WaveRow {
        id: WaveId::new().to_string(),
        name: name(wave_name, "Wave name")?,
        repo: canonical_dir(repo, "repository")?,
        created_at: now_micros(),
    };
    store.insert_wave(&row)?;
    Ok(wave_record(row))
}

pub fn waves(store: &Store) -> Result<Vec<WaveRecord>> {
    Ok(store.waves()?.into_iter().map(wave_record).collect())
}

fn wave_record(row: WaveRow) -> WaveRecord {
    WaveRecord {
        id: row.id,
        name: row.name,
        repo: row.repo,
        created_at: rfc3339(row.created_at),
    }
}

pub struct NewTask<'a> {
    pub identifier: &'a str,
    pub title: &'a str,
    pub worktree: Option<&'a Path>,
    pub wave: Option<&'a str>,
}

pub fn add_task(store: &Store, task: NewTask<'_>) -> Result<TaskRecord> {
    let identifier = name(task.identifier, "Task identifier")?;
    if TaskId::looks_like(&identifier) || WaveId::looks_like(&identifier) {
        return Err(Error::usage(format!(
            "the Task identifier {} looks like an lf id; choose another, such as LOO-291",
            quote(&identifier)
        )));
    }
    let wave_id = match task.wave {
        Some(selector) => Some(find_wave(store, selector)?.id),
        None => None,
    };
    let row = TaskRow {
        id: TaskId::new().to_string(),
        identifier,
        title: text::title(task.title)?,
        worktree: task
            .worktree
            .map(|path| canonical_dir(path, "worktree"))
            .transpose()?,
        wave_id,
        created_at: now_micros(),
        finished_at: None,
    };
    store.insert_task(&row)?;
    task_record(row, &wave_names(store)?)
}

pub fn tasks(store: &Store) -> Result<Vec<TaskRecord>> {
    let names = wave_names(store)?;
    store
        .tasks()?
        .into_iter()
        .map(|row| task_record(row, &names))
        .collect()
}

pub fn finish_task(store: &Store, selector: &str) -> Result<TaskRecord> {
    let task = find_task(store, selector)?;
    store.finish_task(&task.id, now_micros())?;
    task_record(find_task(store, &task.id)?, &wave_names(store)?)
}

/// A Task by id or identifier, or an error saying how to register it.
pub fn find_task(store: &Store, selector: &str) -> Result<TaskRow> {
    store.find_task(selector)?.ok_or_else(|| {
        Error::not_found(format!(
            "Task {} is not registered; see lf-work task list, or register it with lf-work task add",
            quote(selector)
        ))
    })
}

pub fn find_wave(store: &Store, selector: &str) -> Result<WaveRow> {
    store.find_wave(selector)?.ok_or_else(|| {
        Error::not_found(format!(
            "Wave {} is not registered; see lf-work wave list, or register it with lf-work wave add",
            quote(selector)
        ))
    })
}

fn wave_names(store: &Store) -> Result<HashMap<String, String>> {
    Ok(store
        .waves()?
        .into_iter()
        .map(|wave| (wave.id, wave.name))
        .collect())
}

fn task_record(row: TaskRow, waves: &HashMap<String, String>) -> Result<TaskRecord> {
    let work_path = crate::session::rules::work_path(
        row.wave_id
            .as_deref()
            .map(|id| (id, waves.get(id).map(String::as_str))),
        Some((row.id.as_str(), Some(row.identifier.as_str()))),
    );
    Ok(TaskRecord {
        work_path,
        finished: row.finished_at.is_some(),
        finished_at: row.finished_at.map(rfc3339),
        created_at: rfc3339(row.created_at),
        id: row.id,
        identifier: row.identifier,
        title: row.title,
        worktree: row.worktree,
        wave_id: row.wave_id,
    })
}
