//! The store's side of the change stream: which Sessions a write
//! transaction touched, the maintained `attention` columns, what was last
//! told of each Session (`seen_*`), and the `events` table.
//!
//! Every row a write changes is reported by SQLite's update hook, so no
//! write can forget to say which Sessions it touched: as the transaction
//! commits, the rows are resolved to the Sessions whose facts they are
//! (a Run is its Session's current Run, a client receipt is its Session's,
//! a flow or Task is its Sessions'), their attention is computed again
//! with [`ATTENTION_SQL`] (the rule, here beside the write that keeps the
//! column), and the observer (`crate::changes`) records what
//! a person would see change, all before the one COMMIT.

use super::{Store, optional};
use crate::Result;
use crate::ids::SessionId;
use crate::wire::{Attention, EventKind, SessionState};
use rusqlite::hooks::Action;
use rusqlite::params;
use std::sync::{Arc, Mutex};

/// The tables whose rows are facts of a Session's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Sessions,
    Runs,
    Clients,
    Flows,
    Tasks,
}

impl Table {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "sessions" => Table::Sessions,
            "runs" => Table::Runs,
            "clients" => Table::Clients,
            "flows" => Table::Flows,
            "tasks" => Table::Tasks,
            _ => return None,
        })
    }

    /// The Sessions whose facts a row of this table is.
    fn sessions_sql(self) -> &'static str {
        match self {
            Table::Sessions => "SELECT id FROM sessions WHERE rowid = ?1",
            Table::Runs => {
                "SELECT s.id FROM runs r JOIN sessions s ON s.current_run_id = r.id \
                 WHERE r.rowid = ?1"
            }
            Table::Clients => "SELECT session_id FROM clients WHERE rowid = ?1",
            Table::Flows => {
                "SELECT s.id FROM flows f JOIN sessions s ON s.flow_id = f.id WHERE f.rowid = ?1"
            }
            Table::Tasks => {
                "SELECT s.id FROM tasks t JOIN sessions s ON s.task_id = t.id \
                 WHERE t.rowid = ?1 AND s.completed_at IS NULL"
            }
        }
    }
}

/// Rows changed since the write transaction began, as the update hook
/// reported them: `(table, rowid, inserted)`.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    rows: Vec<(Table, i64, bool)>,
}

pub(crate) type SharedChanges = Arc<Mutex<Changes>>;

/// Have every change to a fact table reported into `changes`.
pub(super) fn install_hook(conn: &mut rusqlite::Connection, changes: &SharedChanges) {
    let changes = Arc::clone(changes);
    conn.update_hook(Some(
        move |action: Action, _db: &str, table: &str, rowid: i64| {
            if let Some(table) = Table::of(table)
                && let Ok(mut changes) = changes.lock()
            {
                changes
                    .rows
                    .push((table, rowid, action == Action::SQLITE_INSERT));
            }
        },
    ))
    .ok();
}

/// What a committing write transaction settled.
#[derive(Debug, Default)]
pub(super) struct Settled {
    /// The observer recorded events.
    pub recorded: bool,
    /// The Runs whose rows it changed: their launchers wait for that.
    pub runs: Vec<String>,
}

/// A Session a write transaction touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Touched {
    pub id: SessionId,
    /// It was created by this transaction.
    pub created: bool,
    /// What was last told of it, before this transaction.
    pub seen: Seen,
    /// Its maintained attention as stored, and as the rule computes it
    /// now (written when the two differ).
    maintained: Maintained,
    rule: Maintained,
}

/// A Session's maintained `attention` and `attention_since`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Maintained {
    attention: Option<Attention>,
    since: Option<i64>,
}

/// What the last event of a Session said (all `None` before its first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    pub state: Option<SessionState>,
    pub attention: Option<Attention>,
    pub title: Option<String>,
    pub ready_summary: Option<String>,
}

/// One change to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewEvent<'a> {
    pub at: i64,
    pub session_id: &'a str,
    pub kind: EventKind,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub record: &'a str,
    /// The person who acted, for an `answered` event.
    pub by: Option<&'a str>,
}

/// A stored event, its record still JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventRow {
    pub seq: u64,
    pub at: i64,
    pub session_id: String,
    pub kind: EventKind,
    pub from: Option<String>,
    pub to: Option<String>,
    pub record: String,
    pub by: Option<String>,
}

/// How a write maintains `sessions.attention`: the rule (`state::attention`)
/// in SQL, over `SESSION_FROM` and `tasks t` joined on the Session's Task,
/// computed for every Session a write transaction touched as it commits
/// (`settle`), so nothing that reads attention decodes a row: the listing's
/// `--attention`, `lf-session-next` and `lf-session-count` (through the
/// counts a trigger keeps) read the column. `attention::tests` holds the
/// column equal to the rule over a Home of every combination of the facts
/// it reads. Only a read-only count of a Home older than the column uses
/// this elsewhere.
pub(crate) const ATTENTION_SQL: &str = "CASE \
    WHEN s.completed_at IS NOT NULL THEN NULL \
    WHEN (s.kind = 'flow' AND f.finished = 0 AND f.pending_session_id = s.id \
          AND t.finished_at IS NULL) \
      OR (s.kind = 'conversation' AND s.ready_summary IS NOT NULL AND s.ready_superseded = 0) \
      THEN 'review' \
    WHEN s.permission_pending = 1 THEN 'approve' \
    WHEN s.interactive = 1 AND s.latest_turn = 'completed' \
      AND r.outcome IS NOT 'interrupted' THEN 'reply' \
    END";

/// `state::attention_since` in SQL, for a row whose attention is `a`: how
/// a write maintains `sessions.attention_since`.
pub(super) const ATTENTION_SINCE_SQL: &str = "CASE \
    WHEN a = 'review' AND s.kind = 'flow' THEN s.created_at \
    WHEN a = 'review' THEN COALESCE(s.ready_at, s.updated_at) \
    WHEN a = 'approve' THEN COALESCE(s.permission_at, s.updated_at) \
    ELSE COALESCE(s.turn_completed_at, s.updated_at) END";

/// Compute the maintained attention of the Sessions matching `condition`
/// (over `sessions`) again.
pub(super) fn refresh_attention_sql(condition: &str) -> String {
    format!(
        "UPDATE sessions SET (attention, attention_since) = (SELECT a, \
         CASE WHEN a IS NULL THEN NULL ELSE {ATTENTION_SINCE_SQL} END FROM \
         (SELECT ({ATTENTION_SQL}) AS a, s.kind, s.created_at, s.ready_at, s.permission_at, \
         s.turn_completed_at, s.updated_at FROM sessions s \
         LEFT JOIN runs r ON r.id = s.current_run_id LEFT JOIN flows f ON f.id = s.flow_id \
         LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = sessions.id) s) WHERE {condition}"
    )
}

impl Store {
    /// Forget the rows reported before a write transaction began.
    pub(super) fn forget_changes(&self) {
        if let Ok(mut changes) = self.changes.lock() {
            changes.rows.clear();
        }
    }

    /// As a write transaction commits: the Sessions it touched, their
    /// attention computed again, and the observer told.
    pub(super) fn settle(&self) -> Result<Settled> {
        let rows = match self.changes.lock() {
            Ok(mut changes) => std::mem::take(&mut changes.rows),
            Err(_) => Vec::new(),
        };
        let mut settled = Settled {
            recorded: false,
            runs: self.changed_runs(&rows)?,
        };
        if rows.is_empty() {
            return Ok(settled);
        }
        let touched = self.touched(rows)?;
        if touched.is_empty() {
            return Ok(settled);
        }
        // Only a maintained attention that changed is written: most writes
        // (a turn's end after the last, a transcript) change none, and an
        // unchanged row costs a WAL frame of its index all the same.
        for session in touched.iter().filter(|s| s.rule != s.maintained) {
            self.conn()
                .prepare_cached(
                    "UPDATE sessions SET attention = ?2, attention_since = ?3 WHERE id = ?1",
                )?
                .execute(params![
                    session.id,
                    session.rule.attention,
                    session.rule.since
                ])?;
        }
        settled.recorded = match self.observer.get() {
            Some(observer) => observer.observe(self, &touched)?,
            None => false,
        };
        // The observer's own writes are not changes to tell.
        self.forget_changes();
        Ok(settled)
    }

    /// The ids of the Runs whose rows changed (each once).
    fn changed_runs(&self, rows: &[(Table, i64, bool)]) -> Result<Vec<String>> {
        let mut runs = Vec::new();
        for (_, rowid, _) in rows.iter().filter(|(table, ..)| *table == Table::Runs) {
            let mut statement = self
                .conn()
                .prepare_cached("SELECT id FROM runs WHERE rowid = ?1")?;
            if let Some(id) = optional(statement.query_row([rowid], |row| row.get::<_, String>(0)))?
                && !runs.contains(&id)
            {
                runs.push(id);
            }
        }
        Ok(runs)
    }

    /// Resolve changed rows to the Sessions they are facts of, each once,
    /// with what was last told of it.
    fn touched(&self, mut rows: Vec<(Table, i64, bool)>) -> Result<Vec<Touched>> {
        rows.sort_unstable();
        rows.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0 && later.1 == earlier.1;
            if same {
                earlier.2 |= later.2;
            }
            same
        });
        let mut touched: Vec<Touched> = Vec::new();
        for (table, rowid, inserted) in rows {
            let mut statement = self.conn().prepare_cached(table.sessions_sql())?;
            let ids = statement
                .query_map([rowid], |row| row.get::<_, SessionId>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            for id in ids {
                let created = table == Table::Sessions && inserted;
                match touched.iter_mut().find(|known| known.id == id) {
                    Some(known) => known.created |= created,
                    None => {
                        if let Some(session) = self.seen(id, created)? {
                            touched.push(session);
                        }
                    }
                }
            }
        }
        Ok(touched)
    }

    /// A touched Session: what was last told of it, and its maintained
    /// attention as stored and by the rule, in one read (`None` when the
    /// row is gone, which leaves nothing to maintain or tell).
    fn seen(&self, id: SessionId, created: bool) -> Result<Option<Touched>> {
        // The subquery is a fence (OFFSET): flattened, every use of `a`
        // would be a copy of the rule to compile and evaluate.
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT seen_state, attention, seen_title, seen_ready_summary, attention_since, a, \
             CASE WHEN a IS NULL THEN NULL ELSE {ATTENTION_SINCE_SQL} END FROM \
             (SELECT ({ATTENTION_SQL}) AS a, s.kind, s.created_at, s.ready_at, s.permission_at, \
             s.turn_completed_at, s.updated_at, s.seen_state, s.attention, s.seen_title, \
             s.seen_ready_summary, s.attention_since FROM sessions s \
             LEFT JOIN runs r ON r.id = s.current_run_id LEFT JOIN flows f ON f.id = s.flow_id \
             LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = ?1 LIMIT -1 OFFSET 0) s"
        ))?;
        optional(statement.query_row([&id], |row| {
            let seen = Seen {
                state: row.get(0)?,
                attention: row.get(1)?,
                title: row.get(2)?,
                ready_summary: row.get(3)?,
            };
            let maintained = Maintained {
                attention: seen.attention,
                since: row.get(4)?,
            };
            let rule = Maintained {
                attention: row.get(5)?,
                since: row.get(6)?,
            };
            Ok(Touched {
                id: id.clone(),
                created,
                seen,
                maintained,
                rule,
            })
        }))
    }

    /// Remember what the Session's latest events told.
    pub(crate) fn note_seen(
        &self,
        id: &str,
        state: SessionState,
        title: &str,
        ready_summary: Option<&str>,
    ) -> Result<()> {
        self.conn()
            .prepare_cached(
                "UPDATE sessions SET seen_state = ?2, seen_title = ?3, seen_ready_summary = ?4 \
                 WHERE id = ?1",
            )?
            .execute(params![id, state, title, ready_summary])?;
        Ok(())
    }

    /// Record one event; returns its `seq`.
    pub(crate) fn insert_event(&self, event: &NewEvent<'_>) -> Result<u64> {
        self.conn()
            .prepare_cached(
                "INSERT INTO events (at, session_id, kind, from_value, to_value, record, by_person) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                event.at,
                event.session_id,
                event.kind,
                event.from,
                event.to,
                event.record,
                event.by
            ])?;
        Ok(self.conn().last_insert_rowid() as u64)
    }

    /// Keep only the `keep` latest events up to `last`.
    pub(crate) fn prune_events(&self, last: u64, keep: u64) -> Result<()> {
        if let Some(bound) = last.checked_sub(keep) {
            self.conn()
                .prepare_cached("DELETE FROM events WHERE seq <= ?1")?
                .execute([bound as i64])?;
        }
        Ok(())
    }

    /// Up to `limit` events after `seq`, oldest first.
    pub(crate) fn events_after(&self, seq: u64, limit: usize) -> Result<Vec<EventRow>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT seq, at, session_id, kind, from_value, to_value, record, by_person FROM events \
             WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )?;
        let rows = statement.query_map(params![seq as i64, limit as i64], |row| {
            Ok(EventRow {
                seq: row.get::<_, i64>(0)? as u64,
                at: row.get(1)?,
                session_id: row.get(2)?,
                kind: row.get(3)?,
                from: row.get(4)?,
                to: row.get(5)?,
                record: row.get(6)?,
                by: row.get(7)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// The first and last `seq` the Home keeps (`None` before any event)
    /// and the last ever given (pruned events included).
    pub(crate) fn event_bounds(&self) -> Result<(Option<u64>, u64)> {
        let (first, last): (Option<i64>, Option<i64>) = self.conn().query_row(
            "SELECT min(seq), (SELECT seq FROM sqlite_sequence WHERE name = 'events') FROM events",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        Ok((first.map(|seq| seq as u64), last.unwrap_or(0) as u64))
    }

    /// The Sessions whose last event said they were active.
    pub(crate) fn seen_active(&self) -> Result<Vec<SessionId>> {
        let mut statement = self
            .conn()
            .prepare_cached("SELECT id FROM sessions WHERE seen_state = 'active'")?;
        let ids = statement.query_map([], |row| row.get(0))?;
        Ok(ids.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Look at Sessions again in a write transaction of their own, so the
    /// observer records what changed without anything being written
    /// (a client that died, which no hook reports).
    pub(crate) fn observe_again(&self, ids: &[SessionId]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let tx = self.write()?;
        let mut rowid = tx.prepare_cached("SELECT rowid FROM sessions WHERE id = ?1")?;
        let mut rows = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(found) = optional(rowid.query_row([id], |row| row.get::<_, i64>(0)))? {
                rows.push((Table::Sessions, found, false));
            }
        }
        drop(rowid);
        if let Ok(mut changes) = self.changes.lock() {
            changes.rows.extend(rows);
        }
        tx.commit()
    }
}

/// What the observer of a Home's changes does as a write transaction
/// commits (implemented by `crate::changes`, above the store).
pub(crate) trait Observer: Send {
    /// Record what a person would see change in the touched Sessions, in
    /// the committing transaction; whether any event was recorded.
    fn observe(&self, store: &Store, touched: &[Touched]) -> Result<bool>;
    /// The transaction that recorded events committed.
    fn committed(&self);
}
