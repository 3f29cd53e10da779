//! The store's side of requests (`crate::request`): a permission prompt
//! opens one, a tool's end or an answer ends it. Several may be open at
//! once — Codex asks for every call of a parallel batch before it shows
//! the first dialog — and they are waited on oldest first. A request is
//! up only while its Session waits on a prompt (`permission_pending`) in
//! the Run that asked: whatever else ends the wait (a turn, a new launch,
//! completion) ends the requests with it, as the listing's join reads
//! them, and the next request to open closes them in the store too.

use super::sessions::set_pending;
use super::{Store, Write, optional};
use crate::Result;
use crate::ids::RequestId;
use crate::request::{Asked, RequestRow};
use crate::wire::Answered;
use rusqlite::{Connection, params};

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Answered through lf.
    By(Answered),
    /// Its tool ran (the person answered at the terminal, or lf did).
    Answered,
    /// The wait it belonged to ended without it (a turn's end, a relaunch).
    Stale,
}

impl Ended {
    fn as_str(self) -> &'static str {
        match self {
            Ended::By(Answered::Allowed) => "allowed",
            Ended::By(Answered::AllowedAlways) => "allowed_always",
            Ended::By(Answered::Denied) => "denied",
            Ended::By(Answered::Sent) | Ended::Answered => "answered",
            Ended::Stale => "ended",
        }
    }
}

/// The open Session whose current Run this is, and whether it waits on
/// a prompt.
fn session_of(conn: &Connection, run: &str) -> Result<Option<(String, bool)>> {
    optional(conn.query_row(
        "SELECT id, permission_pending FROM sessions WHERE current_run_id = ?1 AND completed_at IS NULL",
        [run],
        |row| Ok((row.get(0)?, row.get(1)?)),
    ))
}

fn end(conn: &Connection, id: &RequestId, how: Ended, now: i64) -> Result<bool> {
    Ok(conn.execute(
        "UPDATE requests SET ended_at = ?2, outcome = ?3 WHERE id = ?1 AND ended_at IS NULL",
        params![id, now, how.as_str()],
    )? == 1)
}

/// The requests a Session waits on now, oldest first: open, of its
/// current Run, while the Session waits on a prompt.
fn up_in(conn: &Connection, session: &str) -> Result<Vec<RequestRow>> {
    let mut statement = conn.prepare_cached(
        "SELECT q.id, q.tool, q.input, q.since FROM requests q JOIN sessions s ON s.id = q.session_id \
         WHERE q.session_id = ?1 AND q.ended_at IS NULL AND s.permission_pending = 1 \
         AND q.run_id = s.current_run_id AND s.completed_at IS NULL ORDER BY q.since, q.rowid",
    )?;
    let rows = statement.query_map([session], |row| {
        Ok(RequestRow {
            id: row.get(0)?,
            tool: row.get(1)?,
            input: row.get(2)?,
            since: row.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// End every request of the Session still open in the store that is not
/// up (its wait ended some other way).
fn end_stale(conn: &Connection, session: &str, now: i64) -> Result<()> {
    let up: Vec<RequestId> = up_in(conn, session)?.into_iter().map(|r| r.id).collect();
    let mut statement =
        conn.prepare_cached("SELECT id FROM requests WHERE session_id = ?1 AND ended_at IS NULL")?;
    let open: Vec<RequestId> = statement
        .query_map([session], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for id in open.iter().filter(|id| !up.contains(id)) {
        end(conn, id, Ended::Stale, now)?;
    }
    Ok(())
}

/// Whether a tool's end is for this request: the same input, when the
/// request's hook named one. (Not the tool's name: Gemini's permission
/// notification names the kind of confirmation, `exec`, where its
/// AfterTool names the tool, `run_shell_command`.)
fn is_for(request: &RequestRow, finished: &Asked) -> bool {
    request
        .input
        .as_deref()
        .is_none_or(|input| input == finished.input)
}

impl Store {
    /// A Run's agent waits on a permission prompt. A prompt whose hook
    /// says what it is for is a new request, queued behind the ones up; one
    /// that says nothing (a reminder, Claude's Notification) is the
    /// request already up, or a new one when none is.
    pub fn record_permission_prompt(
        &self,
        run: &str,
        now: i64,
        asked: Option<&Asked>,
    ) -> Result<()> {
        let tx = self.write()?;
        if let Some((session, _)) = session_of(&tx, run)? {
            end_stale(&tx, &session, now)?;
            if asked.is_some() || up_in(&tx, &session)?.is_empty() {
                tx.execute(
                    "INSERT INTO requests (id, session_id, run_id, tool, input, since) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        RequestId::new(),
                        session,
                        run,
                        asked.map(|a| a.tool.as_str()),
                        asked.map(|a| a.input.as_str()),
                        now
                    ],
                )?;
            }
            set_pending(&tx, run, true, now)?;
        }
        tx.commit()
    }

    /// A tool of the Run's agent ran: the request it waited on was
    /// answered — the one its hook names (the same input), else the
    /// oldest. A tool that no request up is for (one that needed no
    /// permission, beside them in a batch) leaves them up. The Session
    /// waits on a prompt until none is up.
    pub fn record_tool_finished(
        &self,
        run: &str,
        now: i64,
        finished: Option<&Asked>,
    ) -> Result<()> {
        let tx = self.write()?;
        if let Some((session, true)) = session_of(&tx, run)? {
            let up = up_in(&tx, &session)?;
            let answered = match finished {
                Some(finished) => up.iter().find(|request| is_for(request, finished)),
                None => up.first(),
            };
            if let Some(request) = answered {
                end(&tx, &request.id, Ended::Answered, now)?;
            }
            if up.is_empty() || (answered.is_some() && up.len() == 1) {
                set_pending(&tx, run, false, now)?;
            }
        }
        tx.commit()
    }

    /// The requests a Session waits on now, oldest first.
    pub(crate) fn requests_up(&self, session: &str) -> Result<Vec<RequestRow>> {
        up_in(self.conn(), session)
    }
}

impl Write<'_> {
    /// The requests a Session waits on now, oldest first, read in this
    /// transaction.
    pub(crate) fn requests_up(&self, session: &str) -> Result<Vec<RequestRow>> {
        up_in(self, session)
    }

    /// The request was answered through lf: it ends, and the Session no
    /// longer waits on a prompt unless another request is up (queued, or
    /// asked while the answer was pressed).
    pub(crate) fn record_request_answered(
        &self,
        session: &str,
        request: &RequestId,
        answered: Answered,
        now: i64,
    ) -> Result<()> {
        let up = self.requests_up(session)?;
        if !up.iter().any(|up| &up.id == request) {
            // Ended already (its tool ran and said so): nothing more.
            return Ok(());
        }
        end(self, request, Ended::By(answered), now)?;
        if up.len() == 1 {
            self.record_prompt_answered(session, now)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::caller::Caller;
    use crate::facade::Lf;
    use crate::home::Home;
    use crate::ids::SessionId;
    use crate::request::Asked;
    use crate::store::act::tests::conversation;
    use crate::wire::{Answered, Attention};

    fn bash(command: &str) -> Asked {
        Asked::new("Bash", command).unwrap()
    }

    /// What the listing says the Session waits on: its attention and its
    /// request's input.
    fn waits(lf: &Lf, id: &SessionId) -> (Option<Attention>, Option<String>) {
        let record = lf.get(id.as_str()).unwrap();
        let input = record
            .attention_request
            .map(|r| r.input.unwrap_or_default());
        (record.attention, input)
    }

    /// Claude 2.1.332 with two parallel Bash calls (seen with the real
    /// CLI): PermissionRequest of the first, its Notification, the
    /// first's PostToolUse, then the second's PermissionRequest.
    #[test]
    fn queued_dialogs_are_requests_of_their_own_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let lf = Lf::at(Home::at(dir.path().join("home")), Caller::default());
        let (id, run) = conversation(&lf);
        let store = lf.store().unwrap();
        store
            .record_permission_prompt(&run, 2, Some(&bash("ls -la")))
            .unwrap();
        let first = lf.get(id.as_str()).unwrap().attention_request.unwrap();
        store.record_permission_prompt(&run, 3, None).unwrap();
        let reminded = lf.get(id.as_str()).unwrap().attention_request.unwrap();
        assert_eq!(reminded.id, first.id, "a reminder is the same request");
        store
            .record_tool_finished(&run, 4, Some(&bash("ls -la")))
            .unwrap();
        assert_eq!(waits(&lf, &id), (None, None));
        store
            .record_permission_prompt(&run, 5, Some(&bash("curl x | sh")))
            .unwrap();
        let second = lf.get(id.as_str()).unwrap().attention_request.unwrap();
        assert_ne!(second.id, first.id);
        assert_eq!(second.input.as_deref(), Some("curl x | sh"));
        assert_eq!(second.tool.as_deref(), Some("Bash"));
        assert_eq!(second.since.micros(), 5);
        // An earlier call's end that comes late leaves the next request up.
        store
            .record_tool_finished(&run, 6, Some(&bash("ls -la")))
            .unwrap();
        assert_eq!(
            waits(&lf, &id),
            (Some(Attention::Approve), Some("curl x | sh".into()))
        );
    }

    /// An answer recorded after the agent already asked the next request
    /// ends only its own: the next stays up and the Session still waits.
    #[test]
    fn an_answer_ends_its_own_request_only() {
        let dir = tempfile::tempdir().unwrap();
        let lf = Lf::at(Home::at(dir.path().join("home")), Caller::default());
        let (id, run) = conversation(&lf);
        let store = lf.store().unwrap();
        store
            .record_permission_prompt(&run, 2, Some(&bash("echo one")))
            .unwrap();
        let first = store.requests_up(id.as_str()).unwrap()[0].clone();
        store
            .record_permission_prompt(&run, 3, Some(&bash("rm -rf ~/important")))
            .unwrap();
        let tx = store.write().unwrap();
        tx.record_request_answered(id.as_str(), &first.id, Answered::Allowed, 4)
            .unwrap();
        tx.commit().unwrap();
        assert_eq!(
            waits(&lf, &id),
            (Some(Attention::Approve), Some("rm -rf ~/important".into()))
        );
        let second = store.requests_up(id.as_str()).unwrap()[0].clone();
        assert_ne!(second.id, first.id);
        let tx = store.write().unwrap();
        tx.record_request_answered(id.as_str(), &second.id, Answered::Denied, 5)
            .unwrap();
        tx.commit().unwrap();
        assert_eq!(waits(&lf, &id), (None, None));
    }

    /// Codex 0.171 with two parallel calls: both hooks come first, and its
    /// dialogs may come in either order; each call's end ends its own.
    #[test]
    fn a_batch_asked_at_once_is_queued_and_each_end_ends_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let lf = Lf::at(Home::at(dir.path().join("home")), Caller::default());
        let (id, run) = conversation(&lf);
        let store = lf.store().unwrap();
        store
            .record_permission_prompt(&run, 2, Some(&bash("touch two.txt")))
            .unwrap();
        store
            .record_permission_prompt(&run, 3, Some(&bash("touch one.txt")))
            .unwrap();
        let up = store.requests_up(id.as_str()).unwrap();
        let inputs: Vec<_> = up.iter().map(|r| r.input.clone().unwrap()).collect();
        assert_eq!(inputs, ["touch two.txt", "touch one.txt"]);
        // A tool that needed no permission ends none.
        store
            .record_tool_finished(&run, 4, Some(&bash("ls")))
            .unwrap();
        assert_eq!(store.requests_up(id.as_str()).unwrap().len(), 2);
        store
            .record_tool_finished(&run, 5, Some(&bash("touch one.txt")))
            .unwrap();
        assert_eq!(
            waits(&lf, &id),
            (Some(Attention::Approve), Some("touch two.txt".into()))
        );
        store
            .record_tool_finished(&run, 6, Some(&bash("touch two.txt")))
            .unwrap();
        assert_eq!(waits(&lf, &id), (None, None));
    }

    /// Whatever else ends the wait (a turn's end) ends its request too, and
    /// a prompt after it is a new one.
    #[test]
    fn a_request_is_up_only_while_its_session_waits_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let lf = Lf::at(Home::at(dir.path().join("home")), Caller::default());
        let (id, run) = conversation(&lf);
        let store = lf.store().unwrap();
        store.record_permission_prompt(&run, 2, None).unwrap();
        let first = store.requests_up(id.as_str()).unwrap()[0].clone();
        assert_eq!(first.input, None);
        store
            .record_turn(&run, crate::state::Turn::Completed, 3)
            .unwrap();
        assert_eq!(store.requests_up(id.as_str()).unwrap(), []);
        assert_eq!(waits(&lf, &id), (Some(Attention::Reply), None));
        store.record_permission_prompt(&run, 4, None).unwrap();
        let next = store.requests_up(id.as_str()).unwrap()[0].clone();
        assert_ne!(next.id, first.id);
    }
}
