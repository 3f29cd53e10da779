//! The store: one SQLite database in the Home, the single source of truth.
//!
//! Concurrency is between processes, so the database runs in WAL mode with
//! a busy timeout, and every transaction that may write begins IMMEDIATE (a
//! deferred one that reads and then writes fails at once with SQLITE_BUSY
//! instead of waiting). Migrations run once, under a file lock, and a
//! database written by a newer lf is refused, never rewritten.
//!
//! Most lf processes live a few milliseconds (a hook per turn), so nothing
//! here may cost in proportion to the database's history: a connection
//! never checkpoints when it closes, and the one that finds the WAL past
//! [`WAL_LIMIT`] as it closes checkpoints it and truncates it (see
//! `docs/decisions/0001-store.md`).

mod act;
mod clients;
mod devices;
mod events;
pub mod handoffs;
mod readonly;
mod requests;
pub mod schema;
mod sessions;
mod usage;
mod work;

pub use clients::ClientReceipt;
pub use devices::DeviceRow;
pub(crate) use events::{EventRow, NewEvent, Observer, Touched};
#[cfg(test)]
pub(crate) use readonly::Claim;
#[cfg(test)]
pub(crate) use readonly::Owed;
pub(crate) use readonly::{Evidence, ReadOnly};
pub(crate) use sessions::ListQuery;
pub use sessions::{Launched, NewReview, NewRun, NewSessionRow, RunRow, SessionRow};
pub use usage::{UsageRead, UsageSession, UsageSource};
pub use work::{FlowRow, TaskLabel, TaskRow, WaveRow};

use crate::home::Home;
use crate::home::HomeError;
use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The WAL size past which a closing connection checkpoints and truncates
/// it. Every process that is the only one with the database open rebuilds
/// its WAL index by reading the whole WAL, so this bounds what any process
/// pays, and how much disk the WAL takes.
pub const WAL_LIMIT: u64 = 1 << 20;

pub struct Store {
    conn: Connection,
    home: Home,
    /// The rows the open write transaction changed (see `events`).
    changes: events::SharedChanges,
    /// Who records the change stream as a write transaction commits.
    observer: std::cell::OnceCell<Box<dyn Observer>>,
}

impl Drop for Store {
    fn drop(&mut self) {
        self.bound_wal();
    }
}

/// A write transaction: a `rusqlite` transaction whose commit first
/// settles what it changed (the maintained attention, the change stream's
/// events; see `events`) and names the database when it fails (a full disk
/// is met at commit).
pub(crate) struct Write<'a> {
    tx: Transaction<'a>,
    store: &'a Store,
}

impl<'a> std::ops::Deref for Write<'a> {
    type Target = Transaction<'a>;
    fn deref(&self) -> &Self::Target {
        &self.tx
    }
}

impl Write<'_> {
    pub(crate) fn commit(self) -> Result<()> {
        let store = self.store;
        let settled = store.settle()?;
        self.tx
            .commit()
            .map_err(|error| database_error(&store.home.database(), error))?;
        if settled.recorded
            && let Some(observer) = store.observer.get()
        {
            observer.committed();
        }
        // A Run's launcher (lf-serve) sleeps until its Run changes: a hook
        // confirmed it or recorded its transcript.
        for run in settled.runs {
            store.ring_run(&run);
        }
        Ok(())
    }
}

impl Store {
    /// Wake the Run's launcher (lf-serve): ring the bell in the Run's
    /// folder, which only a launched Run has; elsewhere it rings nothing.
    pub(crate) fn ring_run(&self, run: &str) {
        if let Ok(run) = crate::ids::RunId::parse(run) {
            crate::home::ring(&self.home.run_bell(&run));
        }
    }

    /// Open (creating if needed) the database of a Home, migrated to the
    /// current schema.
    pub fn open(home: &Home) -> Result<Self> {
        home.ensure()?;
        home.ensure_database()?;
        let path = home.database();
        let mut conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|error| database_error(&path, error))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|error| database_error(&path, error))?;
        // Short-lived processes (a hook on every turn) must not pay for a
        // checkpoint and its fsyncs each time they close; `bound_wal` keeps
        // the WAL small instead.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(|error| database_error(&path, error))?;
        let changes = events::SharedChanges::default();
        events::install_hook(&mut conn, &changes);
        let store = Store {
            conn,
            home: home.clone(),
            changes,
            observer: std::cell::OnceCell::new(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Have `observer` record the change stream from now on (once).
    pub(crate) fn observe_with(&self, observer: Box<dyn Observer>) {
        let _ = self.observer.set(observer);
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    fn user_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|error| database_error(&self.home.database(), error))
    }

    fn migrate(&self) -> Result<()> {
        let path = self.home.database();
        let target = schema::version();
        let mut version = self.user_version()?;
        if version == target {
            return self.configure(&path);
        }
        if version > target {
            return Err(newer_schema(&path, version, target));
        }
        // Another process may be migrating: take the lock, then look again.
        let _lock = crate::locks::migration(&self.home)?;
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|error| database_error(&path, error))?;
        version = self.user_version()?;
        if version > target {
            return Err(newer_schema(&path, version, target));
        }
        while version < target {
            let tx = self.write()?;
            tx.execute_batch(schema::MIGRATIONS[version as usize])
                .map_err(|source| HomeError::Migration {
                    path: path.clone(),
                    version: version + 1,
                    source,
                })?;
            version += 1;
            if version == schema::MAINTAINED_ATTENTION {
                tx.execute_batch(&events::refresh_attention_sql("completed_at IS NULL"))?;
            }
            tx.pragma_update(None, "user_version", version)?;
            tx.commit()?;
        }
        self.configure(&path)
    }

    fn configure(&self, path: &Path) -> Result<()> {
        // WAL makes a commit one append; NORMAL syncs at checkpoints, which
        // loses nothing when a process dies (only on power loss).
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(|error| database_error(path, error))
    }

    /// Begin a transaction that may write: IMMEDIATE, so it waits for the
    /// write lock up front (within the busy timeout) instead of failing later.
    pub(crate) fn write(&self) -> Result<Write<'_>> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|error| database_error(&self.home.database(), error))?;
        // What a transaction that did not commit changed was rolled back.
        self.forget_changes();
        Ok(Write { tx, store: self })
    }

    /// Checkpoint the WAL into the database and truncate it once it has
    /// passed [`WAL_LIMIT`]. SQLite forgets, when a lone process rebuilds
    /// the WAL index, that the WAL was already checkpointed, so it would
    /// never restart it and the WAL would grow with every commit ever made.
    /// Best effort and without waiting: when a reader or writer is busy the
    /// next closing connection tries again.
    fn bound_wal(&self) {
        let wal = self.home.database().with_extension("db-wal");
        let size = std::fs::metadata(&wal).map(|meta| meta.len()).unwrap_or(0);
        if size <= WAL_LIMIT {
            return;
        }
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    /// `PRAGMA integrity_check`: `ok`, or what is broken.
    pub fn integrity_check(&self) -> Result<String> {
        let rows: Vec<String> = self
            .conn
            .prepare("PRAGMA integrity_check")?
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows.join("\n"))
    }
}

fn newer_schema(path: &Path, found: i64, supported: i64) -> Error {
    HomeError::NewerSchema {
        path: path.to_path_buf(),
        found,
        supported,
    }
    .into()
}

/// An error opening or reading the database, naming the file and what to do.
pub(crate) fn database_error(path: &Path, error: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode;
    let code = error.sqlite_error_code();
    let advice = match code {
        Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
            "it is not a valid lf database (corrupt or another kind of file); it was left as it is: \
             move it aside to start afresh, or restore it from a backup"
        }
        Some(ErrorCode::CannotOpen)
        | Some(ErrorCode::PermissionDenied)
        | Some(ErrorCode::ReadOnly) => {
            "check that the lf Home exists and is writable, or set LF_HOME"
        }
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            "another lf process held it too long; try again"
        }
        Some(ErrorCode::DiskFull) => {
            "the disk that holds the lf Home is full; nothing was changed: free some space on it \
             and try again"
        }
        _ => "see the cause below",
    };
    HomeError::Database {
        path: path.to_path_buf(),
        advice,
        source: error,
    }
    .into()
}

/// Map "no row" to `None`.
pub(crate) fn optional<T>(result: rusqlite::Result<T>) -> Result<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_home_is_migrated_once_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let store = Store::open(&home).unwrap();
        assert_eq!(store.user_version().unwrap(), schema::version());
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(store);
        assert!(Store::open(&home).is_ok());
    }

    #[test]
    fn a_newer_schema_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        drop(Store::open(&home).unwrap());
        let conn = Connection::open(home.database()).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let error = Store::open(&home).err().unwrap();
        assert!(error.to_string().contains("schema version 99"), "{error}");
        assert!(error.to_string().contains("upgrade lf"), "{error}");
        let conn = Connection::open(home.database()).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, 99);
    }

    #[test]
    fn a_corrupt_database_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        home.ensure().unwrap();
        let garbage = b"this is not a database, it is a shopping list\n".repeat(100);
        std::fs::write(home.database(), &garbage).unwrap();
        let error = Store::open(&home).err().unwrap();
        assert!(
            error.to_string().contains("not a valid lf database"),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains(&home.database().display().to_string())
        );
        assert_eq!(std::fs::read(home.database()).unwrap(), garbage);
    }

    /// A launcher sleeps until its Run changes: every commit that changed
    /// a Run rings the bell in that Run's folder, and only there.
    #[test]
    fn a_commit_that_changes_a_run_rings_its_bell() {
        use crate::ids::{RunId, SessionId};
        use crate::wire::{SessionKind, TitleSource};
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let store = Store::open(&home).unwrap();
        let run = |id: &RunId| NewRun {
            id: id.clone(),
            chosen_native_id: None,
            provider: "command".into(),
            model: None,
            argv: vec!["true".into()],
            prompt: None,
        };
        let (ours, other) = (RunId::new(), RunId::new());
        for id in [&ours, &other] {
            let session = NewSessionRow {
                id: SessionId::new(),
                kind: SessionKind::Conversation,
                title: "t".into(),
                title_source: TitleSource::Human,
                interactive: true,
                cwd: "/".into(),
                provider: "command".into(),
                model: None,
                task_id: None,
                wave_id: None,
                primary_scope: None,
                independent: true,
            };
            store.insert_session(&session, &run(id), 1).unwrap();
            crate::home::create_private_dir(&home.run_dir(id)).unwrap();
        }
        let bell = home.run_bell(&ours);
        assert!(!bell.exists());
        store
            .record_transcript(ours.as_str(), "/t/a.jsonl")
            .unwrap();
        assert!(bell.exists(), "a hook recorded the transcript");
        assert!(
            !home.run_bell(&other).exists(),
            "another Run's bell stays silent"
        );
        std::fs::remove_file(&bell).unwrap();
        store.confirm_start(ours.as_str(), 2).unwrap();
        assert!(bell.exists(), "a hook confirmed the Run");
        // A usage source that is not the transcript (OpenCode's records)
        // changes no Run; its launcher is told all the same, once.
        std::fs::remove_file(&bell).unwrap();
        store
            .record_usage_source(ours.as_str(), "/o/opencode.db#ses_1")
            .unwrap();
        assert!(bell.exists(), "a hook named the usage records");
        std::fs::remove_file(&bell).unwrap();
        store
            .record_usage_source(ours.as_str(), "/o/opencode.db#ses_1")
            .unwrap();
        assert!(!bell.exists(), "a source kept already is told no more");
    }
}
