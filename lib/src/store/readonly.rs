//! The database side of the live-process snapshot (`snapshot`): read-only, and
//! one read transaction
//! for everything it asks. Observing must change nothing — no migration,
//! no checkpoint, no file created — so this opens the database itself with
//! `SQLITE_OPEN_READ_ONLY` instead of through `Store::open`.
//!
//! It also holds the one write the snapshot needs from elsewhere:
//! `Store::record_launcher`, which `lf-serve` calls with its own identity
//! before it starts the provider, so that everything beneath it can be
//! attributed by containment.

use super::events::{ATTENTION_SINCE_SQL, ATTENTION_SQL};
use super::{Store, schema};
use crate::home::Home;
use crate::home::HomeError;
use crate::liveness::ProcessIdentity;
use crate::session::error::SessionError;
use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::path::PathBuf;
use std::time::Duration;

impl Store {
    /// Record the identity of the launcher (`lf-serve`) now serving a Run.
    pub fn record_launcher(&self, run: &str, launcher: &ProcessIdentity) -> Result<()> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE runs SET launcher_boot_id = ?2, launcher_pid = ?3, launcher_starttime = ?4 \
             WHERE id = ?1",
            params![
                run,
                launcher.boot_id,
                launcher.pid,
                launcher.starttime as i64
            ],
        )?;
        if changed == 0 {
            return Err(SessionError::RunNotFound(run.to_string()).into());
        }
        tx.commit()?;
        Ok(())
    }
}

/// One recorded claim on a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claim {
    pub process: ProcessIdentity,
    pub session: String,
    /// The provider of the Run the record belongs to.
    pub provider: String,
}

/// Everything the database says about which process belongs to whom.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// Open client receipts.
    pub clients: Vec<Claim>,
    /// Launchers of Runs that have not ended.
    pub launchers: Vec<Claim>,
}

impl Evidence {
    pub fn is_empty(&self) -> bool {
        self.clients.is_empty() && self.launchers.is_empty()
    }
}

/// What a snapshot shows of a Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionFacts {
    pub title: String,
    pub task_id: Option<String>,
    pub wave_id: Option<String>,
    pub created_at: i64,
}

/// A read-only view of a Home's database.
pub(crate) struct ReadOnly {
    conn: Connection,
    path: PathBuf,
    /// Whether Runs record their launcher (schema with launcher columns).
    launchers: bool,
    /// Whether the counts of each attention are kept (`attention_counts`).
    counted: bool,
    /// Whether each Session's attention is kept (`sessions.attention`).
    maintained: bool,
}

impl ReadOnly {
    /// Open the database of a Home for reading; `None` when there is none
    /// yet (nothing was ever recorded, so nothing can be live).
    pub fn open(home: &Home) -> Result<Option<Self>> {
        let path = home.database();
        if !path.try_exists().unwrap_or(false) {
            return Ok(None);
        }
        let fail = |error: rusqlite::Error| read_error(&path, error);
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(fail)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(fail)?;
        // A read-only connection cannot checkpoint anyway; say so twice.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(fail)?;
        // One consistent view for every question below, this first one
        // included (one read transaction: its locks are taken once).
        conn.execute_batch("BEGIN DEFERRED").map_err(fail)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(fail)?;
        if version > schema::version() {
            return Err(HomeError::NewerSchema {
                path: path.clone(),
                found: version,
                supported: schema::version(),
            }
            .into());
        }
        if version == 0 {
            return Ok(None);
        }
        let launchers = version >= schema::RUN_LAUNCHERS;
        Ok(Some(ReadOnly {
            conn,
            path,
            launchers,
            counted: version >= schema::ATTENTION_COUNTED,
            maintained: version >= schema::MAINTAINED_ATTENTION,
        }))
    }

    /// Count attention from the kept column, as in a Home not migrated to
    /// the kept counts (version 8).
    #[cfg(test)]
    pub(crate) fn by_the_column(mut self) -> Self {
        self.counted = false;
        self
    }

    /// Count attention by the rule, as in a Home not migrated to the kept
    /// column either.
    #[cfg(test)]
    pub(crate) fn by_the_rule(mut self) -> Self {
        self.counted = false;
        self.maintained = false;
        self
    }

    fn fail(&self, error: rusqlite::Error) -> Error {
        read_error(&self.path, error)
    }

    /// The id of a Task given by id or identifier.
    pub fn find_task(&self, selector: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT id FROM tasks WHERE id = ?1 OR identifier = ?1",
                [selector],
                |row| row.get(0),
            )
            .optional()
            .map_err(|error| self.fail(error))
    }

    /// Open client receipts and the launchers of unfinished Runs, of this
    /// boot only: every other boot's processes are gone.
    pub fn evidence(&self, boot: &str) -> Result<Evidence> {
        let clients = self
            .claims(
                "SELECT c.pid, c.starttime, c.session_id, COALESCE(r.provider, s.provider, '') \
                 FROM clients c LEFT JOIN runs r ON r.id = c.run_id \
                 LEFT JOIN sessions s ON s.id = c.session_id \
                 WHERE c.boot_id = ?1 AND c.ended_at IS NULL",
                boot,
            )
            .map_err(|error| self.fail(error))?;
        let launchers = if self.launchers {
            self.claims(
                "SELECT launcher_pid, launcher_starttime, session_id, provider FROM runs \
                 WHERE launcher_boot_id = ?1 AND launcher_pid IS NOT NULL AND ended_at IS NULL",
                boot,
            )
            .map_err(|error| self.fail(error))?
        } else {
            Vec::new()
        };
        Ok(Evidence { clients, launchers })
    }

    fn claims(&self, sql: &str, boot: &str) -> rusqlite::Result<Vec<Claim>> {
        let mut statement = self.conn.prepare(sql)?;
        let rows = statement.query_map([boot], |row| {
            Ok(Claim {
                process: ProcessIdentity {
                    boot_id: boot.to_owned(),
                    pid: row.get(0)?,
                    starttime: row.get::<_, i64>(1)? as u64,
                },
                session: row.get(2)?,
                provider: row.get(3)?,
            })
        })?;
        rows.collect()
    }

    /// Whether lf ended a client receipt of exactly this process.
    pub fn is_retired(&self, boot: &str, pid: u32, starttime: u64) -> Result<bool> {
        self.conn
            .prepare_cached(
                "SELECT 1 FROM clients WHERE boot_id = ?1 AND pid = ?2 AND starttime = ?3 \
                 AND ended_at IS NOT NULL",
            )
            .and_then(|mut statement| statement.exists(params![boot, pid, starttime as i64]))
            .map_err(|error| self.fail(error))
    }

    pub fn session(&self, id: &str) -> Result<Option<SessionFacts>> {
        self.conn
            .prepare_cached(
                "SELECT title, task_id, wave_id, created_at FROM sessions WHERE id = ?1",
            )
            .and_then(|mut statement| {
                statement
                    .query_row([id], |row| {
                        Ok(SessionFacts {
                            title: row.get(0)?,
                            task_id: row.get(1)?,
                            wave_id: row.get(2)?,
                            created_at: row.get(3)?,
                        })
                    })
                    .optional()
            })
            .map_err(|error| self.fail(error))
    }
}

/// `columns` of the open Sessions that owe attention (`a`), then `tail`:
/// read from the maintained column and its index, or (in a Home older than
/// the column, which a read-only connection cannot migrate) by the rule,
/// as the write that keeps the column computes it, for every open Session.
fn owing(maintained: bool, columns: &str, tail: &str) -> String {
    if maintained {
        return format!(
            "SELECT {columns} FROM (SELECT id, attention AS a, attention_since AS since \
             FROM sessions WHERE attention IS NOT NULL) {tail}"
        );
    }
    let since = format!("{ATTENTION_SINCE_SQL} AS since");
    format!(
        "SELECT {columns} FROM (SELECT id, a, {since} FROM (SELECT s.id AS id, \
         ({ATTENTION_SQL}) AS a, s.created_at, s.kind, s.ready_at, s.permission_at, \
         s.turn_completed_at, s.updated_at \
         FROM sessions s LEFT JOIN runs r ON r.id = s.current_run_id \
         LEFT JOIN flows f ON f.id = s.flow_id LEFT JOIN tasks t ON t.id = s.task_id \
         WHERE s.completed_at IS NULL) s WHERE a IS NOT NULL) {tail}",
    )
}

/// One Session that owes attention, as `lf-session-next` orders them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owed {
    pub session: crate::ids::SessionId,
    pub attention: crate::wire::Attention,
    pub since: i64,
}

impl ReadOnly {
    /// How many open Sessions owe each kind of attention: the kept counts,
    /// or (in a Home not yet migrated to them, which a read-only
    /// connection cannot migrate) the kept column's, or in a Home older
    /// than that by the rule over every open Session.
    pub fn attention_counts(&self) -> Result<crate::wire::AttentionCounts> {
        use crate::wire::Attention;
        let sql = if self.counted {
            "SELECT attention, sessions FROM attention_counts".to_owned()
        } else {
            owing(self.maintained, "a, count(*)", "GROUP BY a")
        };
        let mut counts = crate::wire::AttentionCounts::default();
        let mut statement = self.conn.prepare(&sql).map_err(|error| self.fail(error))?;
        let rows = statement
            .query_map([], |row| {
                Ok((row.get::<_, Attention>(0)?, row.get::<_, i64>(1)?))
            })
            .map_err(|error| self.fail(error))?;
        for row in rows {
            let (attention, sessions) = row.map_err(|error| self.fail(error))?;
            let sessions = u64::try_from(sessions).unwrap_or(0);
            *match attention {
                Attention::Review => &mut counts.review,
                Attention::Approve => &mut counts.approve,
                Attention::Reply => &mut counts.reply,
            } = sessions;
            counts.total += sessions;
        }
        Ok(counts)
    }
}

impl Store {
    /// Every open Session that owes attention: approvals first, then
    /// replies, then reviews (what blocks an agent before what waits on
    /// the person's judgement), each longest-waiting first; the first
    /// `limit` of them, if given. Read from the maintained column's index
    /// alone.
    pub(crate) fn owed(&self, limit: Option<usize>) -> Result<Vec<Owed>> {
        let sql = owing(
            true,
            "id, a, since",
            &format!(
                "ORDER BY {}, since, id{}",
                crate::state::waiting_rank_sql("a"),
                limit.map(|n| format!(" LIMIT {n}")).unwrap_or_default()
            ),
        );
        let mut statement = self.conn().prepare(&sql)?;
        let owed = statement.query_map([], |row| {
            Ok(Owed {
                session: row.get(0)?,
                attention: row.get(1)?,
                since: row.get(2)?,
            })
        })?;
        Ok(owed.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

fn read_error(path: &std::path::Path, source: rusqlite::Error) -> Error {
    HomeError::DatabaseUnreadable {
        path: path.to_path_buf(),
        source,
    }
    .into()
}
