//! Cross-process exclusion. lf's concurrency is between processes (two
//! terminals, a hook and a listing), so locks are `flock`s on files under
//! `locks/`. A lock belongs to its open file: the kernel releases it when
//! the process dies, so a `kill -9` never leaves a session locked. Rust opens
//! files close-on-exec, so an agent started while a lock is held does not
//! inherit it.

use crate::Result;
use crate::home::Home;
use crate::home::HomeError;
use crate::ids::{SessionId, short_digest};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

fn open(path: &Path) -> Result<File> {
    crate::home::open_private(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .map_err(|source| {
        HomeError::LockFile {
            path: path.to_path_buf(),
            source,
        }
        .into()
    })
}

fn exclusive(path: &Path) -> Result<Lock> {
    let file = open(path)?;
    file.lock().map_err(|source| HomeError::Lock {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Lock { _file: file })
}

/// The launch lock of one Session: every launch, resume, completion and
/// rename that must not interleave with another takes it. The file name is
/// a digest of the id, so no id text ever becomes a path.
pub fn launch(home: &Home, session: &SessionId) -> Result<Lock> {
    home.ensure()?;
    exclusive(
        &home
            .locks()
            .join(format!("{}.lock", short_digest(session.as_str()))),
    )
}

/// A lock named by any text (such as a primary Session's scope), hashed
/// into a file name like the launch locks.
pub fn named(home: &Home, key: &str) -> Result<Lock> {
    home.ensure()?;
    exclusive(&home.locks().join(format!("{}.lock", short_digest(key))))
}

/// The launch lock, or `None` at once when another process holds it.
pub fn try_launch(home: &Home, session: &SessionId) -> Result<Option<Lock>> {
    try_at(home, session.as_str())
}

/// A lock named by any text, or `None` at once when another process
/// holds it.
pub fn try_named(home: &Home, key: &str) -> Result<Option<Lock>> {
    try_at(home, key)
}

fn try_at(home: &Home, key: &str) -> Result<Option<Lock>> {
    home.ensure()?;
    let path = home.locks().join(format!("{}.lock", short_digest(key)));
    let file = open(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Lock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(source)) => Err(HomeError::Lock {
            path: path.to_path_buf(),
            source,
        }
        .into()),
    }
}

/// The lock under which schema migrations run, once, in one process.
pub fn migration(home: &Home) -> Result<Lock> {
    exclusive(&home.locks().join("migrate.lock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_launch_lock_excludes_another_open_file() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let session = SessionId::new();
        let held = launch(&home, &session).unwrap();
        assert!(try_launch(&home, &session).unwrap().is_none());
        assert!(try_launch(&home, &SessionId::new()).unwrap().is_some());
        drop(held);
        assert!(try_launch(&home, &session).unwrap().is_some());
    }
}
