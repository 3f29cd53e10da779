//! Session and Run rows: what is stored, read back and updated. Rules about
//! what the rows mean lives in `crate::state`; this file only moves data.

use super::{Store, optional};
use crate::flow::FlowError;
use crate::ids::{RunId, SessionId};
use crate::session::error::SessionError;
use crate::state::{FlowFacts, RunOutcome, Turn};
use crate::wire::{SessionKind, TitleSource};
use crate::{Error, Result};
use rusqlite::{Row, params};

/// A Session row with its current Run's outcome: everything a record needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: SessionId,
    pub kind: SessionKind,
    pub title: String,
    pub title_source: TitleSource,
    pub interactive: bool,
    pub cwd: String,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub task_id: Option<String>,
    pub wave_id: Option<String>,
    pub primary_scope: Option<String>,
    pub ready_summary: Option<String>,
    pub flow_id: Option<String>,
    pub step: Option<String>,
    pub node: Option<u32>,
    pub iterations: Option<Vec<Vec<u32>>>,
    pub independent: bool,
    pub current_run_id: String,
    pub latest_turn: Option<Turn>,
    pub permission_pending: bool,
    pub created_at: i64,
    pub updated_at: i64,
    pub completed_at: Option<i64>,
    pub outcome: Option<RunOutcome>,
    /// The flow invocation it belongs to, as recorded now.
    pub flow: Option<FlowFacts>,
    /// The person prompted the agent again after it marked itself ready.
    pub ready_superseded: bool,
    /// Since when each kind of attention is owed (see migration 7).
    pub ready_at: Option<i64>,
    pub permission_at: Option<i64>,
    pub turn_completed_at: Option<i64>,
    /// The state its latest event told (`None` before the first; see
    /// `crate::changes`).
    pub seen_state: Option<crate::wire::SessionState>,
    /// How far the current Run's launch got: whether it started and ended
    /// (an end without an outcome is a lost terminal), and the launcher
    /// (`lf-serve`) that served it.
    pub launch: LaunchRecord,
    /// The request its agent waits on, while it waits on one.
    pub request: Option<crate::request::RequestRow>,
}

/// What the store knows of the current Run's launch, for `state::lost`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchRecord {
    pub started: bool,
    pub ended: bool,
    pub launcher: Option<crate::liveness::ProcessIdentity>,
}

/// The columns `SessionRow::from_row` reads, in order.
pub(crate) const SESSION_COLUMNS: &str = "s.id, s.kind, s.title, s.title_source, s.interactive, \
    s.cwd, s.provider, s.model, s.task_id, s.wave_id, s.primary_scope, s.ready_summary, \
    s.flow_id, s.step, s.node, s.iterations, s.independent, s.current_run_id, s.latest_turn, \
    s.permission_pending, s.created_at, s.updated_at, s.completed_at, r.outcome, \
    f.name, f.finished, f.current_run_id, f.pending_session_id, s.ready_superseded, \
    s.ready_at, s.permission_at, s.turn_completed_at, s.seen_state, r.started_at, r.ended_at, \
    r.launcher_boot_id, r.launcher_pid, r.launcher_starttime, q.id, q.tool, q.input, q.since";

/// The request a Session waits on first is looked up only for a Session
/// that waits on a prompt (the `CASE`), so a listing of idle Sessions pays
/// nothing for it.
pub(crate) const SESSION_FROM: &str = "sessions s LEFT JOIN runs r ON r.id = s.current_run_id \
    LEFT JOIN flows f ON f.id = s.flow_id LEFT JOIN requests q ON q.id = \
    CASE WHEN s.permission_pending = 1 THEN (SELECT o.id FROM requests o WHERE o.session_id = s.id \
    AND o.ended_at IS NULL AND o.run_id = s.current_run_id ORDER BY o.since, o.rowid LIMIT 1) END";

/// What a listing asks of the database: the conditions SQL can decide
/// (the rules decide the rest, row by row), and where the page starts.
#[derive(Debug, Clone, Default)]
pub(crate) struct ListQuery {
    pub all: bool,
    pub kind: Option<SessionKind>,
    /// Only Sessions that owe the person attention, as every write keeps
    /// it in `sessions.attention` (`store::events`): rows that owe none are
    /// never decoded.
    pub attention: bool,
}

impl Store {
    /// Hand Session rows after `after` (a creation time and id), newest
    /// first, to `take` until it returns `false`, or `limit` rows were read;
    /// returns how many were read. A listing that iterates reads its rows
    /// in batches of these, so it owns no statement.
    pub(crate) fn session_rows_after(
        &self,
        query: &ListQuery,
        after: Option<&(i64, String)>,
        limit: Option<usize>,
        mut take: impl FnMut(SessionRow) -> Result<bool>,
    ) -> Result<usize> {
        let mut conditions = Vec::new();
        if !query.all {
            conditions.push("s.completed_at IS NULL");
        }
        if query.kind.is_some() {
            conditions.push("s.kind = :kind");
        }
        if query.attention {
            conditions.push("s.attention IS NOT NULL");
        }
        if after.is_some() {
            conditions.push("(s.created_at, s.id) < (:after_created, :after_id)");
        }
        // The limit is a literal, not a parameter: with STAT4, SQLite
        // re-prepares a statement whose plan a bound value might change.
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM {SESSION_FROM} {} {} ORDER BY s.created_at DESC, s.id DESC{}",
            if conditions.is_empty() { "" } else { "WHERE" },
            conditions.join(" AND "),
            limit
                .map(|limit| format!(" LIMIT {limit}"))
                .unwrap_or_default()
        );
        let mut statement = self.conn().prepare_cached(&sql)?;
        let mut params: Vec<(&str, &dyn rusqlite::ToSql)> = Vec::with_capacity(3);
        if let Some(kind) = &query.kind {
            params.push((":kind", kind));
        }
        if let Some((created, id)) = after {
            params.push((":after_created", created));
            params.push((":after_id", id));
        }
        let mut rows = statement.query(params.as_slice())?;
        let mut read = 0;
        while let Some(row) = rows.next()? {
            read += 1;
            if !take(SessionRow::from_row(row)?)? {
                break;
            }
        }
        Ok(read)
    }
}

impl SessionRow {
    pub(crate) fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        let text = |index: usize| row.get::<_, Option<String>>(index);
        let iterations = text(15)?.and_then(|json| serde_json::from_str(&json).ok());
        Ok(SessionRow {
            id: row.get(0)?,
            kind: row.get(1)?,
            title: row.get(2)?,
            title_source: row.get(3)?,
            interactive: row.get(4)?,
            cwd: row.get(5)?,
            provider: text(6)?,
            model: text(7)?,
            task_id: text(8)?,
            wave_id: text(9)?,
            primary_scope: text(10)?,
            ready_summary: text(11)?,
            flow_id: text(12)?,
            step: text(13)?,
            node: row.get(14)?,
            iterations,
            independent: row.get(16)?,
            current_run_id: row.get(17)?,
            latest_turn: row.get(18)?,
            permission_pending: row.get(19)?,
            created_at: row.get(20)?,
            updated_at: row.get(21)?,
            completed_at: row.get(22)?,
            outcome: row.get(23)?,
            flow: match text(24)? {
                Some(name) => Some(FlowFacts {
                    name,
                    finished: row.get(25)?,
                    current_run: text(26)?,
                    pending_session: text(27)?,
                }),
                None => None,
            },
            ready_superseded: row.get(28)?,
            ready_at: row.get(29)?,
            permission_at: row.get(30)?,
            turn_completed_at: row.get(31)?,
            seen_state: row.get(32)?,
            launch: LaunchRecord {
                started: row.get::<_, Option<i64>>(33)?.is_some(),
                ended: row.get::<_, Option<i64>>(34)?.is_some(),
                launcher: match (text(35)?, row.get::<_, Option<u32>>(36)?) {
                    (Some(boot_id), Some(pid)) => Some(crate::liveness::ProcessIdentity {
                        boot_id,
                        pid,
                        starttime: row.get::<_, Option<i64>>(37)?.unwrap_or_default() as u64,
                    }),
                    _ => None,
                },
            },
            request: match row.get::<_, Option<crate::ids::RequestId>>(38)? {
                Some(id) => Some(crate::request::RequestRow {
                    id,
                    tool: text(39)?,
                    input: text(40)?,
                    since: row.get(41)?,
                }),
                None => None,
            },
        })
    }
}

/// A Run as a hook sees it (`Store::hook_target`).
#[derive(Debug, Clone)]
pub struct HookTarget {
    pub provider: String,
    pub native_id: Option<String>,
    pub chosen_native_id: Option<String>,
    /// The Run is its Session's current Run.
    pub current: bool,
    /// The agent's transcript, as its hooks last named it.
    pub transcript_path: Option<String>,
}

/// One launch attempt of a Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRow {
    pub id: String,
    pub session_id: SessionId,
    pub provider: String,
    pub model: Option<String>,
    pub argv: Vec<String>,
    pub prompt: Option<String>,
    pub native_id: Option<String>,
    pub prepared: bool,
    pub published: bool,
    pub launcher: Option<String>,
    pub outcome: Option<RunOutcome>,
    pub exit_code: Option<i32>,
    pub created_at: i64,
    /// The native id lf chose for this Run (Claude's `--session-id`).
    pub chosen_native_id: Option<String>,
    /// Why its launch failed, for the person who opens it next.
    pub diagnostic: Option<String>,
    /// This launch's agent confirmed its native conversation.
    pub confirmed: bool,
    /// This launch waits for a person at a start-up dialog.
    pub waits_for_person: bool,
    /// The agent's transcript, as its hooks named it.
    pub transcript_path: Option<String>,
    /// A resume of its native id died before confirming it.
    pub resume_failed: bool,
}

/// A launch whose agent started (`Store::record_launch`).
#[derive(Debug, Clone)]
pub struct Launched<'a> {
    /// The agent's receipt (its Session, Run, process and terminal).
    pub client: &'a crate::store::ClientReceipt,
    /// The launcher's description (`lf-serve <terminal>`).
    pub label: &'a str,
    /// The launcher's own process.
    pub launcher: &'a crate::liveness::ProcessIdentity,
    /// The Session's current Run that this prepared attempt replaces.
    pub adopt_from: Option<&'a str>,
    /// A start-up dialog is known to wait for the person (the provider's
    /// own files say so), recorded with the launch.
    pub waits_for_person: bool,
    pub now: i64,
}

/// What creating a Session stores.
#[derive(Debug, Clone)]
pub struct NewSessionRow {
    pub id: SessionId,
    pub kind: SessionKind,
    pub title: String,
    pub title_source: TitleSource,
    pub interactive: bool,
    pub cwd: String,
    pub provider: String,
    pub model: Option<String>,
    pub task_id: Option<String>,
    pub wave_id: Option<String>,
    pub primary_scope: Option<String>,
    pub independent: bool,
}

/// A flow review Session for one exact flow position.
#[derive(Debug, Clone)]
pub struct NewReview<'a> {
    pub session: &'a NewSessionRow,
    pub run: &'a NewRun,
    /// The flow invocation (its id).
    pub invocation: &'a str,
    /// The flow's name.
    pub flow: &'a str,
    /// The step (skill) under review.
    pub step: &'a str,
    pub node: Option<u32>,
    pub iterations: Option<&'a Vec<Vec<u32>>>,
}

/// What preparing a Run stores.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub id: RunId,
    /// The native id lf presets for the provider, if it can preset one.
    pub chosen_native_id: Option<String>,
    pub provider: String,
    pub model: Option<String>,
    pub argv: Vec<String>,
    pub prompt: Option<String>,
}

impl Store {
    /// Store a new Session with its first, prepared Run, in one transaction.
    pub fn insert_session(&self, session: &NewSessionRow, run: &NewRun, now: i64) -> Result<()> {
        let tx = self.write()?;
        insert_session(&tx, session, run, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Store a flow review Session for one flow position and make it the
    /// invocation's pending review, in one transaction. The invocation is
    /// created on first use; an invocation of another task or flow name is
    /// refused. Returns `false` (and changes nothing) when the Session
    /// already exists.
    pub fn insert_review(&self, review: &NewReview<'_>, now: i64) -> Result<bool> {
        let tx = self.write()?;
        let exists: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?1)",
            [review.session.id.as_str()],
            |row| row.get(0),
        )?;
        if exists {
            return Ok(false);
        }
        let flow: Option<(String, Option<String>, bool)> = optional(tx.query_row(
            "SELECT name, task_id, finished FROM flows WHERE id = ?1",
            [review.invocation],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        ))?;
        match flow {
            Some((name, task, finished)) => {
                if name != review.flow || task.as_deref() != review.session.task_id.as_deref() {
                    return Err(FlowError::InvocationOfOtherFlow {
                        invocation: review.invocation.to_owned(),
                        flow: name,
                        task: task.unwrap_or_else(|| "-".to_owned()),
                        requested: review.flow.to_owned(),
                    }
                    .into());
                }
                if finished {
                    return Err(FlowError::InvocationFinished(review.invocation.to_owned()).into());
                }
            }
            None => {
                // A new invocation of a Task replaces (finishes) its older ones.
                tx.execute(
                    "UPDATE flows SET finished = 1, pending_session_id = NULL, updated_at = ?2 \
                     WHERE task_id = ?1 AND finished = 0",
                    params![review.session.task_id, now],
                )?;
                tx.execute(
                    "INSERT INTO flows (id, name, task_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                    params![review.invocation, review.flow, review.session.task_id, now],
                )?;
            }
        }
        insert_session(&tx, review.session, review.run, now)?;
        tx.execute(
            "UPDATE sessions SET flow_id = ?2, step = ?3, node = ?4, iterations = ?5, independent = 0 WHERE id = ?1",
            params![
                review.session.id.as_str(),
                review.invocation,
                review.step,
                review.node,
                review.iterations.map(serde_json::to_string).transpose()?
            ],
        )?;
        tx.execute(
            "UPDATE flows SET pending_session_id = ?2, current_run_id = ?3, updated_at = ?4 WHERE id = ?1",
            params![review.invocation, review.session.id.as_str(), review.run.id.as_str(), now],
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// The orchestrator moved an invocation on: its position is no longer
    /// any review's (`position` is an opaque new position token).
    pub fn advance_flow(&self, invocation: &str, position: &str, now: i64) -> Result<()> {
        self.update_flow(
            invocation,
            "UPDATE flows SET pending_session_id = NULL, current_run_id = ?2, updated_at = ?3 \
             WHERE id = ?1 AND finished = 0",
            params![invocation, position, now],
        )
    }

    /// The invocation finished: all its reviews are past.
    pub fn finish_flow(&self, invocation: &str, now: i64) -> Result<()> {
        self.update_flow(
            invocation,
            "UPDATE flows SET finished = 1, pending_session_id = NULL, updated_at = ?2 WHERE id = ?1",
            params![invocation, now],
        )
    }

    fn update_flow(
        &self,
        invocation: &str,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<()> {
        let tx = self.write()?;
        let exists: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM flows WHERE id = ?1)",
            [invocation],
            |row| row.get(0),
        )?;
        if !exists {
            return Err(FlowError::InvocationNotFound(invocation.to_owned()).into());
        }
        tx.execute(sql, params)?;
        tx.commit()?;
        Ok(())
    }

    /// Close a flow review and release its invocation's pending step, in
    /// one transaction, only while the invocation still waits on it.
    pub fn complete_review(&self, id: &str, invocation: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        let waiting: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM flows WHERE id = ?1 AND finished = 0 AND pending_session_id = ?2)",
            params![invocation, id],
            |row| row.get(0),
        )?;
        if !waiting {
            return Err(SessionError::NoLongerWaiting(id.to_owned()).into());
        }
        close_session(&tx, id, now)?;
        tx.execute(
            "UPDATE flows SET pending_session_id = NULL, updated_at = ?2 WHERE id = ?1",
            params![invocation, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    pub fn session_row(&self, id: &SessionId) -> Result<Option<SessionRow>> {
        optional(self.conn().query_row(
            &format!("SELECT {SESSION_COLUMNS} FROM {SESSION_FROM} WHERE s.id = ?1"),
            [id],
            SessionRow::from_row,
        ))
    }

    /// What a hook needs to know of its Run, in one query: the Run's
    /// provider and native ids, and whether it is its Session's current Run.
    pub fn hook_target(&self, run: &str) -> Result<Option<HookTarget>> {
        optional(self.conn().query_row(
            "SELECT r.provider, r.native_id, r.chosen_native_id, s.current_run_id = r.id, \
             r.transcript_path FROM runs r JOIN sessions s ON s.id = r.session_id WHERE r.id = ?1",
            [run],
            |row| {
                Ok(HookTarget {
                    provider: row.get(0)?,
                    native_id: row.get(1)?,
                    chosen_native_id: row.get(2)?,
                    current: row.get(3)?,
                    transcript_path: row.get(4)?,
                })
            },
        ))
    }

    pub fn run_row(&self, id: &str) -> Result<Option<RunRow>> {
        // lf-serve reads its Run every 50 ms while the agent lives: the
        // statement is kept, not parsed again each time.
        let mut statement = self.conn().prepare_cached(
            "SELECT id, session_id, provider, model, argv, prompt, native_id, prepared, published, \
             launcher, outcome, exit_code, created_at, chosen_native_id, diagnostic, \
             confirmed_at IS NOT NULL, waits_for_person, transcript_path, resume_failed FROM runs WHERE id = ?1",
        )?;
        optional(statement.query_row([id], |row| {
            let argv: String = row.get(4)?;
            Ok(RunRow {
                id: row.get(0)?,
                session_id: row.get(1)?,
                provider: row.get(2)?,
                model: row.get(3)?,
                argv: serde_json::from_str(&argv).unwrap_or_default(),
                prompt: row.get(5)?,
                native_id: row.get(6)?,
                prepared: row.get(7)?,
                published: row.get(8)?,
                launcher: row.get(9)?,
                outcome: row.get(10)?,
                exit_code: row.get(11)?,
                created_at: row.get(12)?,
                chosen_native_id: row.get(13)?,
                diagnostic: row.get(14)?,
                confirmed: row.get(15)?,
                waits_for_person: row.get(16)?,
                transcript_path: row.get(17)?,
                resume_failed: row.get(18)?,
            })
        }))
    }

    /// Set the title. A generated title never replaces a human one; returns
    /// whether the title changed.
    pub fn rename_session(
        &self,
        id: &str,
        title: &str,
        source: TitleSource,
        now: i64,
    ) -> Result<bool> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE sessions SET title = ?2, title_source = ?3, updated_at = ?4 \
             WHERE id = ?1 AND NOT (?3 = 'generated' AND title_source = 'human')",
            params![id, title, title_source_text(source), now],
        )?;
        tx.commit()?;
        Ok(changed == 1)
    }

    /// Mark ready for review, fenced on the Session's current Run: a
    /// superseded Run cannot mark it.
    pub fn mark_ready(&self, id: &str, run: &str, summary: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        let (current, completed): (String, Option<i64>) = tx
            .query_row(
                "SELECT current_run_id, completed_at FROM sessions WHERE id = ?1",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(|error| match error {
                rusqlite::Error::QueryReturnedNoRows => {
                    Error::from(SessionError::SessionNotFound(id.to_string()))
                }
                error => error.into(),
            })?;
        if let Some(at) = completed {
            return Err(crate::state::completed(id, at));
        }
        if current != run {
            return Err(SessionError::SupersededRun {
                run: run.to_owned(),
                session: id.to_owned(),
                current,
            }
            .into());
        }
        tx.execute(
            "UPDATE sessions SET ready_summary = ?2, ready_superseded = 0, updated_at = ?3, \
             ready_at = ?3 WHERE id = ?1",
            params![id, summary, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Close a Session. Exactly one of any number of concurrent callers
    /// wins; the others get a conflict naming the Session.
    pub fn complete_session(&self, id: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        close_session(&tx, id, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Bind a Session to a Task, permanently. Binding the same Task again is
    /// a no-op; a different Task is refused.
    pub fn bind_session(
        &self,
        id: &str,
        task_id: &str,
        wave_id: Option<&str>,
        now: i64,
    ) -> Result<()> {
        let tx = self.write()?;
        let bound: Option<String> = tx
            .query_row("SELECT task_id FROM sessions WHERE id = ?1", [id], |row| {
                row.get(0)
            })
            .map_err(|error| match error {
                rusqlite::Error::QueryReturnedNoRows => {
                    Error::from(SessionError::SessionNotFound(id.to_string()))
                }
                error => error.into(),
            })?;
        match bound {
            Some(existing) if existing == task_id => return Ok(()),
            Some(existing) => {
                return Err(SessionError::AlreadyBound {
                    session: id.to_owned(),
                    task: existing,
                }
                .into());
            }
            None => {}
        }
        tx.execute(
            "UPDATE sessions SET task_id = ?2, wave_id = ?3, bound_at = ?4, updated_at = ?4 WHERE id = ?1",
            params![id, task_id, wave_id, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Record the latest turn of a Run's conversation. A started or
    /// completed turn answers any pending permission prompt; a turn the
    /// person started after the agent marked itself ready supersedes that
    /// readiness (the summary stays).
    pub fn record_turn(&self, run: &str, turn: Turn, now: i64) -> Result<()> {
        let tx = self.write()?;
        record_turn_in(&tx, run, turn, now)?;
        tx.commit()
    }

    /// The Run's agent confirmed its conversation for this launch; a
    /// start-up dialog it waited on was answered.
    pub fn confirm_start(&self, run: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        let waited: bool = optional(tx.query_row(
            "SELECT waits_for_person FROM runs WHERE id = ?1",
            [run],
            |row| row.get(0),
        ))?
        .unwrap_or(false);
        tx.execute(
            "UPDATE runs SET confirmed_at = COALESCE(confirmed_at, ?2), waits_for_person = 0 WHERE id = ?1",
            params![run, now],
        )?;
        if waited {
            set_pending(&tx, run, false, now)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The Run's launch waits for a person at a start-up dialog (before
    /// its agent confirmed anything): the Session needs them.
    pub fn record_waits_for_person(&self, run: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE runs SET waits_for_person = 1 WHERE id = ?1 AND confirmed_at IS NULL",
            [run],
        )?;
        if changed == 1 {
            set_pending(&tx, run, true, now)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The Run's agent moved to another native conversation (Claude's
    /// `/clear`): a resume brings back the new one.
    pub fn move_native_id(&self, run: &str, native_id: &str) -> Result<()> {
        self.execute_write(
            "UPDATE runs SET native_id = ?2 WHERE id = ?1",
            params![run, native_id],
        )
    }

    /// Where the Run's agent writes its transcript.
    /// Every transcript a Session's Runs named is kept for its usage.
    pub fn record_transcript(&self, run: &str, path: &str) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE runs SET transcript_path = ?2 WHERE id = ?1",
            params![run, path],
        )?;
        tx.execute(
            "INSERT OR IGNORE INTO usage_sources (session_id, path, provider) \
             SELECT session_id, ?2, provider FROM runs WHERE id = ?1",
            params![run, path],
        )?;
        tx.commit()
    }

    /// Keep a usage source of the Run's Session that is not its transcript
    /// (OpenCode's records of its conversation); one kept already is left
    /// as it is, and only a new one costs a write.
    pub fn record_usage_source(&self, run: &str, path: &str) -> Result<()> {
        let known: bool = self.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM usage_sources u JOIN runs r ON r.session_id = u.session_id \
             WHERE r.id = ?1 AND u.path = ?2)",
            params![run, path],
            |row| row.get(0),
        )?;
        if known {
            return Ok(());
        }
        self.execute_write(
            "INSERT OR IGNORE INTO usage_sources (session_id, path, provider) \
             SELECT session_id, ?2, provider FROM runs WHERE id = ?1",
            params![run, path],
        )?;
        // The Run's launcher follows the records' file once it knows it:
        // no change to the Run tells it (the hook that named the file may
        // have rung the bell before it was kept, and a turn's end changes
        // only its Session), so it is told here.
        self.ring_run(run);
        Ok(())
    }

    /// A resume of the Run's native id died before confirming it: the
    /// next open starts a new attempt instead of repeating it.
    pub fn mark_resume_failed(&self, run: &str) -> Result<()> {
        self.execute_write("UPDATE runs SET resume_failed = 1 WHERE id = ?1", [run])
    }

    /// The provider says its conversation ended (the person quit it):
    /// nothing is pending any more, and the Run's end is noted (lf-serve
    /// records the outcome when the process exits).
    pub fn record_session_end(&self, run: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE runs SET ended_at = COALESCE(ended_at, ?2) WHERE id = ?1",
            params![run, now],
        )?;
        set_pending(&tx, run, false, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Record how a Run's provider ended. This never completes the Session.
    pub fn record_outcome(
        &self,
        run: &str,
        outcome: RunOutcome,
        exit_code: Option<i32>,
        now: i64,
    ) -> Result<()> {
        self.end_run(run, Some(outcome), exit_code, now)
    }

    /// A Run's terminal hung up (its tmux server or pane went away): the
    /// Run ends with no outcome, since the agent did not end by itself. The
    /// launcher is forgotten, so `state::lost` reads a lost terminal at
    /// once, not "lf-serve will record it", while lf-serve still stops the
    /// agent. The agent's receipt stays open until it is gone: it counts as
    /// no client (its terminal hung up, `Presence::HungUp`), and whoever
    /// launches the Session again first stops it. Fenced on `launcher`
    /// still being the Run's: a restore may have launched it again.
    pub fn record_hangup(
        &self,
        run: &str,
        launcher: &crate::liveness::ProcessIdentity,
        now: i64,
    ) -> Result<()> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE runs SET outcome = NULL, exit_code = NULL, ended_at = ?5, \
             launcher_boot_id = NULL, launcher_pid = NULL, launcher_starttime = NULL \
             WHERE id = ?1 AND launcher_boot_id = ?2 AND launcher_pid = ?3 \
             AND launcher_starttime = ?4",
            params![
                run,
                launcher.boot_id,
                launcher.pid,
                launcher.starttime as i64,
                now
            ],
        )?;
        if changed == 1 {
            tx.execute(
                "UPDATE sessions SET permission_pending = 0, updated_at = ?2 \
                 WHERE current_run_id = ?1",
                params![run, now],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn end_run(
        &self,
        run: &str,
        outcome: Option<RunOutcome>,
        exit_code: Option<i32>,
        now: i64,
    ) -> Result<()> {
        let tx = self.write()?;
        end_run_in(&tx, run, outcome, exit_code, now)?;
        tx.commit()?;
        Ok(())
    }

    fn execute_write(&self, sql: &str, params: impl rusqlite::Params) -> Result<()> {
        let tx = self.write()?;
        tx.execute(sql, params)?;
        tx.commit()?;
        Ok(())
    }

    /// Give a Session a new current Run (a new launch attempt). Its title,
    /// summary and work stay; the turn and prompt state start afresh.
    pub fn new_attempt(
        &self,
        session: &SessionId,
        expected_current: &str,
        run: &NewRun,
        now: i64,
    ) -> Result<()> {
        let tx = self.write()?;
        insert_run(&tx, session, run, now)?;
        let changed = tx.execute(
            "UPDATE sessions SET current_run_id = ?2, latest_turn = NULL, permission_pending = 0, updated_at = ?3 \
             WHERE id = ?1 AND current_run_id = ?4 AND completed_at IS NULL",
            params![session.as_str(), run.id.as_str(), now, expected_current],
        )?;
        if changed == 0 {
            return Err(SessionError::ChangedMeanwhile(session.to_string()).into());
        }
        tx.commit()?;
        Ok(())
    }

    /// A new attempt of a Session that is not its current Run yet: its
    /// launcher makes it current as its agent starts (`record_launch`), so
    /// no listing sees an attempt that has not started between the lost
    /// Run and the running one.
    pub fn prepare_attempt(&self, session: &SessionId, run: &NewRun, now: i64) -> Result<()> {
        let tx = self.write()?;
        insert_run(&tx, session, run, now)?;
        tx.commit()?;
        Ok(())
    }

    /// A prepared attempt becomes the Session's current Run without an
    /// agent (its launch failed at once, and the failure must be seen).
    pub fn adopt_attempt(&self, session: &str, run: &str, previous: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE sessions SET current_run_id = ?2, latest_turn = NULL, permission_pending = 0, \
             updated_at = ?3 WHERE id = ?1 AND current_run_id = ?4 AND completed_at IS NULL",
            params![session, run, now, previous],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Before a launch starts its agent: forget what the last launch was
    /// told (its confirmation, a dialog it waited on). Nothing a person
    /// sees changes, so the Session's state stays what it was until the
    /// agent runs.
    pub fn reset_launch(&self, run: &str) -> Result<()> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE runs SET diagnostic = NULL, confirmed_at = NULL, waits_for_person = 0 \
             WHERE id = ?1",
            [run],
        )?;
        if changed == 0 {
            return Err(SessionError::RunNotFound(run.to_string()).into());
        }
        tx.commit()?;
        Ok(())
    }

    /// The launch started its agent: the Run (made the Session's current
    /// one if it was a prepared attempt of the Run `adopt_from`) is started
    /// by `launcher`, and the agent's receipt recorded, in one transaction,
    /// so the Session goes from what it was straight to `active`.
    pub fn record_launch(&self, launch: &Launched<'_>) -> Result<()> {
        let tx = self.write()?;
        let run = launch.client.run_id.as_str();
        if let Some(previous) = launch.adopt_from {
            let changed = tx.execute(
                "UPDATE sessions SET current_run_id = ?2, latest_turn = NULL, permission_pending = 0, \
                 updated_at = ?3 WHERE id = ?1 AND current_run_id = ?4 AND completed_at IS NULL",
                params![launch.client.session_id, run, launch.now, previous],
            )?;
            if changed == 0 {
                return Err(
                    SessionError::ChangedMeanwhile(launch.client.session_id.clone()).into(),
                );
            }
        }
        let changed = tx.execute(
            "UPDATE runs SET published = 1, launcher = ?2, started_at = ?3, outcome = NULL, \
             exit_code = NULL, ended_at = NULL, launcher_boot_id = ?4, launcher_pid = ?5, \
             launcher_starttime = ?6, waits_for_person = (?7 AND confirmed_at IS NULL) WHERE id = ?1",
            params![
                run,
                launch.label,
                launch.now,
                launch.launcher.boot_id,
                launch.launcher.pid,
                launch.launcher.starttime as i64,
                launch.waits_for_person
            ],
        )?;
        if changed == 0 {
            return Err(SessionError::RunNotFound(run.to_string()).into());
        }
        // A dialog known at launch is the person's at once: the Session
        // reads `approve` from this transaction on, so no opener prints
        // the launch without it (unless the agent confirmed meanwhile).
        let waits: bool = tx.query_row(
            "SELECT waits_for_person FROM runs WHERE id = ?1",
            [run],
            |row| row.get(0),
        )?;
        if waits {
            set_pending(&tx, run, true, launch.now)?;
        }
        super::clients::insert_client(&tx, launch.client, launch.now)?;
        tx.commit()?;
        Ok(())
    }

    /// The Run's agent ended by itself (or by a signal): its receipt and
    /// the Run end together, so the Session goes straight from `active` to
    /// what the outcome makes it.
    pub fn record_exit(
        &self,
        run: &str,
        agent: &crate::liveness::ProcessIdentity,
        outcome: RunOutcome,
        exit_code: Option<i32>,
        now: i64,
    ) -> Result<()> {
        let tx = self.write()?;
        super::clients::end_client_in(&tx, agent, now)?;
        end_run_in(&tx, run, Some(outcome), exit_code, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Mark a prepared Run launched, without an agent (its start failed).
    pub fn mark_run_started(&self, run: &str, launcher: &str, now: i64) -> Result<()> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE runs SET published = 1, launcher = ?2, started_at = ?3, outcome = NULL, \
             exit_code = NULL, ended_at = NULL WHERE id = ?1",
            params![run, launcher, now],
        )?;
        if changed == 0 {
            return Err(SessionError::RunNotFound(run.to_string()).into());
        }
        tx.commit()?;
        Ok(())
    }

    /// Record the provider's native id for a Run, once. Returns the id the
    /// Run has afterwards (an earlier one is never replaced).
    pub fn record_native_id(&self, run: &str, native_id: &str) -> Result<Option<String>> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE runs SET native_id = ?2 WHERE id = ?1 AND native_id IS NULL",
            params![run, native_id],
        )?;
        let stored = optional(tx.query_row(
            "SELECT native_id FROM runs WHERE id = ?1",
            [run],
            |row| row.get::<_, Option<String>>(0),
        ))?
        .flatten();
        tx.commit()?;
        Ok(stored)
    }

    /// Keep why a launch failed (or forget it, before a new launch).
    pub fn record_diagnostic(&self, run: &str, diagnostic: Option<&str>) -> Result<()> {
        self.execute_write(
            "UPDATE runs SET diagnostic = ?2 WHERE id = ?1",
            params![run, diagnostic],
        )
    }

    /// The open primary Session of a scope, if any.
    pub fn primary_session(&self, scope: &str) -> Result<Option<SessionId>> {
        optional(self.conn().query_row(
            "SELECT id FROM sessions WHERE primary_scope = ?1 AND completed_at IS NULL",
            [scope],
            |row| row.get(0),
        ))
    }

    /// Record which Session replaced a primary Session.
    pub fn set_replaced_by(&self, id: &str, successor: &str) -> Result<()> {
        self.execute_write(
            "UPDATE sessions SET replaced_by = ?2 WHERE id = ?1",
            params![id, successor],
        )
    }

    /// The Session that replaced this one, if any.
    pub fn replaced_by(&self, id: &str) -> Result<Option<SessionId>> {
        Ok(optional(self.conn().query_row(
            "SELECT replaced_by FROM sessions WHERE id = ?1",
            [id],
            |row| row.get::<_, Option<SessionId>>(0),
        ))?
        .flatten())
    }

    /// The Sessions whose ids begin with `prefix`, in id order, at most
    /// `limit`: each id and title. A range on the primary key (`id >= prefix
    /// AND id < the prefix with its last character one higher`), which
    /// SQLite searches in the key's index, whatever the Home's size
    /// (`LIKE` would need `case_sensitive_like` to use it).
    pub fn sessions_by_prefix(&self, prefix: &str, limit: i64) -> Result<Vec<(SessionId, String)>> {
        let mut statement = self.conn().prepare_cached(SESSIONS_BY_PREFIX)?;
        let rows = statement.query_map(params![prefix, prefix_end(prefix), limit], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The Runs whose ids begin with `prefix` (`run-` included), in id
    /// order, at most `limit`: each Run's id, its Session's id and title.
    /// A range on the primary key, as for Sessions.
    pub fn runs_by_prefix(
        &self,
        prefix: &str,
        limit: i64,
    ) -> Result<Vec<(RunId, SessionId, String)>> {
        let mut statement = self.conn().prepare_cached(RUNS_BY_PREFIX)?;
        let rows = statement.query_map(params![prefix, prefix_end(prefix), limit], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The Session a Run belongs to.
    pub fn session_of_run(&self, run: &RunId) -> Result<Option<SessionId>> {
        optional(
            self.conn()
                .query_row("SELECT session_id FROM runs WHERE id = ?1", [run], |row| {
                    row.get(0)
                }),
        )
    }
}

const SESSIONS_BY_PREFIX: &str =
    "SELECT id, title FROM sessions WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3";
const RUNS_BY_PREFIX: &str = "SELECT r.id, r.session_id, s.title FROM runs r \
     JOIN sessions s ON s.id = r.session_id WHERE r.id >= ?1 AND r.id < ?2 ORDER BY r.id LIMIT ?3";

/// The first text after every text that begins with `prefix` (ASCII, as
/// an id prefix is): the prefix with its last character one higher.
fn prefix_end(prefix: &str) -> String {
    let mut end = prefix.as_bytes().to_vec();
    if let Some(last) = end.last_mut() {
        *last += 1;
    }
    String::from_utf8_lossy(&end).into_owned()
}

/// `Store::record_turn`, in a write transaction already open.
pub(super) fn record_turn_in(
    conn: &rusqlite::Connection,
    run: &str,
    turn: Turn,
    now: i64,
) -> Result<()> {
    conn.execute(
        "UPDATE sessions SET latest_turn = ?2, permission_pending = 0, updated_at = ?3, \
         ready_superseded = CASE WHEN ?2 = 'started' AND ready_summary IS NOT NULL THEN 1 \
         ELSE ready_superseded END, \
         turn_completed_at = CASE WHEN ?2 != 'completed' THEN NULL \
         WHEN latest_turn = 'completed' THEN turn_completed_at ELSE ?3 END \
         WHERE current_run_id = ?1 AND completed_at IS NULL",
        params![run, turn.as_str(), now],
    )?;
    Ok(())
}

/// Set whether the open Session whose current Run this is waits on the
/// person (a permission prompt or a start-up dialog).
pub(super) fn set_pending(
    conn: &rusqlite::Connection,
    run: &str,
    pending: bool,
    now: i64,
) -> Result<()> {
    conn.execute(
        "UPDATE sessions SET permission_pending = ?3, updated_at = ?2, \
         permission_at = CASE WHEN NOT ?3 THEN NULL WHEN permission_pending = 1 THEN permission_at \
         ELSE ?2 END \
         WHERE current_run_id = ?1 AND completed_at IS NULL",
        params![run, now, pending],
    )?;
    Ok(())
}

/// Close a Session and end its client receipts; a Session closed already
/// is a conflict (so of concurrent closers exactly one wins).
fn close_session(tx: &rusqlite::Transaction<'_>, id: &str, now: i64) -> Result<()> {
    let changed = tx.execute(
        "UPDATE sessions SET completed_at = ?2, updated_at = ?2, permission_pending = 0 \
         WHERE id = ?1 AND completed_at IS NULL",
        params![id, now],
    )?;
    if changed == 0 {
        let at: Option<i64> = optional(tx.query_row(
            "SELECT completed_at FROM sessions WHERE id = ?1",
            [id],
            |row| row.get(0),
        ))?
        .flatten();
        return Err(match at {
            Some(at) => crate::state::completed(id, at),
            None => SessionError::SessionNotFound(id.to_owned()).into(),
        });
    }
    tx.execute(
        "UPDATE clients SET ended_at = ?2 WHERE session_id = ?1 AND ended_at IS NULL",
        params![id, now],
    )?;
    Ok(())
}

fn insert_session(
    tx: &rusqlite::Transaction<'_>,
    session: &NewSessionRow,
    run: &NewRun,
    now: i64,
) -> Result<()> {
    tx.execute(
        "INSERT INTO sessions (id, kind, title, title_source, interactive, cwd, provider, model, \
         task_id, wave_id, bound_at, primary_scope, independent, current_run_id, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15)",
        params![
            session.id.as_str(),
            session.kind.as_str(),
            session.title,
            title_source_text(session.title_source),
            session.interactive,
            session.cwd,
            session.provider,
            session.model,
            session.task_id,
            session.wave_id,
            session.task_id.as_ref().map(|_| now),
            session.primary_scope,
            session.independent,
            run.id.as_str(),
            now,
        ],
    )?;
    insert_run(tx, &session.id, run, now)
}

fn end_run_in(
    tx: &rusqlite::Transaction<'_>,
    run: &str,
    outcome: Option<RunOutcome>,
    exit_code: Option<i32>,
    now: i64,
) -> Result<()> {
    let changed = tx.execute(
        "UPDATE runs SET outcome = ?2, exit_code = ?3, ended_at = ?4 WHERE id = ?1",
        params![run, outcome.map(RunOutcome::as_str), exit_code, now],
    )?;
    if changed == 0 {
        return Err(SessionError::RunNotFound(run.to_string()).into());
    }
    tx.execute(
        "UPDATE sessions SET permission_pending = 0, updated_at = ?2 WHERE current_run_id = ?1",
        params![run, now],
    )?;
    Ok(())
}

fn insert_run(
    tx: &rusqlite::Transaction<'_>,
    session: &SessionId,
    run: &NewRun,
    now: i64,
) -> Result<()> {
    tx.execute(
        "INSERT INTO runs (id, session_id, provider, model, argv, prompt, created_at, chosen_native_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            run.id.as_str(),
            session.as_str(),
            run.provider,
            run.model,
            serde_json::to_string(&run.argv)?,
            run.prompt,
            now,
            run.chosen_native_id
        ],
    )?;
    Ok(())
}

fn title_source_text(source: TitleSource) -> &'static str {
    match source {
        TitleSource::Human => "human",
        TitleSource::Generated => "generated",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Home;

    fn seeded(ids: &[&str]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&Home::at(dir.path())).unwrap();
        for (n, id) in ids.iter().enumerate() {
            let run = format!("run-{:0>26}", n);
            store
                .conn()
                .execute(
                    "INSERT INTO sessions (id, kind, title, title_source, interactive, cwd, \
                     current_run_id, created_at, updated_at) \
                     VALUES (?1, 'conversation', ?2, 'human', 1, '/', ?3, 0, 0)",
                    params![id, format!("title {n}"), run],
                )
                .unwrap();
            store
                .conn()
                .execute(
                    "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', 0)",
                    params![run, id],
                )
                .unwrap();
        }
        (dir, store)
    }

    /// A start-up dialog known at launch (Claude's or Gemini's trust)
    /// reads `approve` from the launch's own transaction, as a person
    /// opening it sees the dialog; a Run whose agent confirmed first (a
    /// hook before the launch was recorded) waits for nobody.
    #[test]
    fn a_launch_known_to_wait_for_a_person_reads_approve_at_once() {
        for confirmed_first in [false, true] {
            let id = "abcdef0000000000000000000000000f";
            let (_dir, store) = seeded(&[id]);
            let run = "run-00000000000000000000000000";
            if confirmed_first {
                store.confirm_start(run, 3).unwrap();
            }
            let process = crate::liveness::ProcessIdentity {
                boot_id: "boot".into(),
                pid: 7,
                starttime: 9,
            };
            store
                .record_launch(&Launched {
                    client: &crate::store::ClientReceipt {
                        session_id: id.into(),
                        run_id: run.into(),
                        process: process.clone(),
                        terminal_id: None,
                    },
                    label: "lf-serve %0",
                    launcher: &process,
                    adopt_from: None,
                    waits_for_person: true,
                    now: 5,
                })
                .unwrap();
            let (pending, at, waits): (bool, Option<i64>, bool) = store
                .conn()
                .query_row(
                    "SELECT s.permission_pending, s.permission_at, r.waits_for_person \
                     FROM sessions s JOIN runs r ON r.id = s.current_run_id WHERE s.id = ?1",
                    [id],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )
                .unwrap();
            let expected = !confirmed_first;
            assert_eq!(
                (pending, at, waits),
                (expected, expected.then_some(5), expected),
                "confirmed first: {confirmed_first}"
            );
        }
    }

    #[test]
    fn a_prefix_finds_exactly_the_ids_it_begins() {
        let (_dir, store) = seeded(&[
            "abcdef0000000000000000000000000f",
            "abcdefffffffffffffffffffffffffff",
            "abcdf00000000000000000000000000f",
            "abcdee0000000000000000000000000f",
        ]);
        let ids = |prefix: &str| -> Vec<String> {
            let found = store.sessions_by_prefix(prefix, 10).unwrap();
            found.into_iter().map(|(id, _)| id.into()).collect()
        };
        assert_eq!(
            ids("abcdef"),
            [
                "abcdef0000000000000000000000000f",
                "abcdefffffffffffffffffffffffffff"
            ]
        );
        assert_eq!(ids("abcdf0"), ["abcdf00000000000000000000000000f"]);
        assert!(ids("abcde0").is_empty());
        assert_eq!(store.sessions_by_prefix("abcd", 1).unwrap().len(), 1);
        let runs = store.runs_by_prefix("run-000000", 10).unwrap();
        assert_eq!(runs.len(), 4);
        assert_eq!(runs[0].2, "title 0");
    }

    #[test]
    fn prefix_lookups_search_the_primary_keys_index() {
        let (_dir, store) = seeded(&[]);
        for (sql, tables) in [(SESSIONS_BY_PREFIX, 1), (RUNS_BY_PREFIX, 2)] {
            let mut plan = store
                .conn()
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap();
            let steps: Vec<String> = plan
                .query_map(params!["abcdef", "abcdeg", 6], |row| row.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert_eq!(steps.len(), tables, "{steps:?}");
            assert!(
                steps[0].starts_with("SEARCH ") && steps[0].ends_with("(id>? AND id<?)"),
                "{steps:?}"
            );
            assert!(
                steps.iter().all(|step| step.starts_with("SEARCH ")),
                "{steps:?}"
            );
        }
    }
}
