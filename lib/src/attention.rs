//! The Sessions that need the person's attention, in the order a person
//! takes them: what `lf-session-count` counts (for a tmux status line) and what
//! `lf-session-next` goes to. Both read the attention every write keeps
//! in `sessions.attention` (computed as a write commits, beside that write
//! in `store::events`, and held equal to the rule in `state` by the test
//! below) from one covering index, so they decode no rows; counting opens
//! the database read-only and never creates one. The listing's
//! `--attention` (and so the picker's) reads the same column, and every
//! order of waiting Sessions is `state::WAITING_ORDER`.

use crate::Result;
use crate::facade::Lf;
use crate::ids::SessionId;
use crate::session::{Destination, OpenOptions};
use crate::store::ReadOnly;
use crate::wire::{Attention, AttentionCounts, SessionRecord};

/// Where `lf-session-next` took the person, or why nowhere.
#[derive(Debug)]
pub enum Next {
    /// Nothing waits for the person.
    Nothing,
    /// Only the Session the person is in waits.
    OnlyHere,
    /// This Session waits (and, for `go`, the person is there now).
    Session(Box<SessionRecord>, Option<Destination>),
}

impl Lf {
    /// How many open Sessions owe each kind of attention. A Home without
    /// a database owes nothing (and none is created).
    pub fn attention_counts(&self) -> Result<AttentionCounts> {
        match ReadOnly::open(self.home())? {
            Some(database) => database.attention_counts(),
            None => Ok(AttentionCounts::default()),
        }
    }

    /// The next Session that waits for the person: approvals first, then
    /// replies, then reviews, each longest-waiting first; after the one
    /// the caller is in (its tmux session), so repeated calls cycle. With
    /// `go`, open it and take the caller's terminal there. When hosts are
    /// configured (`lf-host`), their waiting Sessions take their turn too
    /// (a host that does not answer is left out, in silence: a key press
    /// shows no noise).
    pub fn next_waiting(&self, go: bool) -> Result<Next> {
        let tmux = self.caller.tmux();
        let here = tmux.current_session();
        let remotes = self.configured_remotes()?;
        // Outside tmux and with no hosts, the first one is next; else the
        // one after here, in the order of all of them.
        let limit = (here.is_none() && remotes.is_empty()).then_some(1);
        // A Home without a database owes nothing (and none is created);
        // else the store that shows the record reads the queue too.
        let mut owed: Vec<Waiting> = match self.home().database().try_exists().unwrap_or(false) {
            true => self
                .store()?
                .owed(limit)?
                .into_iter()
                .map(|owed| Waiting::Here {
                    session: owed.session,
                    attention: owed.attention,
                    since: owed.since,
                })
                .collect(),
            false => Vec::new(),
        };
        if !remotes.is_empty() {
            let filter = crate::session::ListFilter {
                attention: true,
                ..Default::default()
            };
            let (records, _problems) = self.remote_sessions(&filter, &remotes)?;
            owed.extend(records.into_iter().map(Box::new).map(Waiting::There));
            owed.sort_by_key(Waiting::order);
        }
        if owed.is_empty() {
            return Ok(Next::Nothing);
        }
        let is_here = |waiting: &Waiting| match (waiting, here.as_deref()) {
            (Waiting::Here { session, .. }, Some(name)) => {
                crate::tmux::session_name(session) == name
            }
            _ => false,
        };
        let position = owed.iter().position(is_here);
        let next = match position {
            Some(_) if owed.len() == 1 => None,
            Some(at) => Some(&owed[(at + 1) % owed.len()]),
            None => owed.first(),
        };
        let next = match next {
            None => return Ok(Next::OnlyHere),
            Some(Waiting::Here { session, .. }) => session,
            Some(Waiting::There(record)) => {
                if go {
                    let session = crate::remote::open::RemoteSession::of(&remotes, record)?;
                    let argv = self.remote_open_argv(&session, &[]);
                    self.go_remote(&session, &argv)?;
                }
                return Ok(Next::Session(record.clone(), None));
            }
        };
        if !go {
            return Ok(Next::Session(Box::new(self.record_of(next)?), None));
        }
        let destination = self.open_session(&self.resolve_id(next)?, OpenOptions::default())?;
        if let Destination::Tmux(name) = &destination {
            self.go_to(name)?;
        }
        let record = self.record_of(next)?;
        Ok(Next::Session(Box::new(record), Some(destination)))
    }
}

/// A record's turn in the order a person takes Sessions: those that wait
/// first, in `state::WAITING_ORDER`, each kind longest-waiting first;
/// then the rest. Sorting by it is stable, so the rest keep their order.
pub fn turn(record: &SessionRecord) -> (usize, i64) {
    let since = record
        .attention_since
        .filter(|_| record.attention.is_some())
        .map_or(i64::MAX, |since| since.0);
    (crate::state::waiting_rank(record.attention), since)
}

/// A Session that waits: one of this Home's, or a host's record.
enum Waiting {
    Here {
        session: SessionId,
        attention: Attention,
        since: i64,
    },
    There(Box<SessionRecord>),
}

impl Waiting {
    fn id(&self) -> &str {
        match self {
            Waiting::Here { session, .. } => session.as_str(),
            Waiting::There(record) => &record.id,
        }
    }

    /// The order next takes them in (the SQL's, for this Home's alone).
    fn order(&self) -> (usize, i64, String) {
        let (attention, since) = match self {
            Waiting::Here {
                attention, since, ..
            } => (*attention, *since),
            Waiting::There(record) => {
                let (rank, since) = turn(record);
                return (rank, since, record.id.clone());
            }
        };
        (
            crate::state::waiting_rank(Some(attention)),
            since,
            self.id().to_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caller::Caller;
    use crate::home::Home;
    use crate::ids::RunId;
    use crate::store::{NewReview, NewRun, NewSessionRow};
    use crate::wire::{Attention, SessionKind, TitleSource};
    use rusqlite::params;

    /// The attention every write keeps in `sessions.attention` (what the
    /// listing, next and count read) is the rule's, for every combination
    /// of the facts the rule reads, after the writes that enter, leave and
    /// change it; so are the counts, kept or not.
    #[test]
    fn kept_attention_is_the_rule() {
        let dir = tempfile::tempdir().unwrap();
        let lf = Lf::at(Home::at(dir.path().join("home")), Caller::default());
        let store = lf.store().unwrap();
        let task = |finished: bool| {
            let id = crate::ids::TaskId::new().to_string();
            let tx = store.write().unwrap();
            tx.execute(
                "INSERT INTO tasks (id, identifier, title, created_at, finished_at) \
                     VALUES (?1, ?1, 't', 1, ?2)",
                params![id, finished.then_some(5)],
            )
            .unwrap();
            tx.commit().unwrap();
            id
        };
        let mut expected: Vec<(String, Option<Attention>)> = Vec::new();
        let mut at = 10;
        let mut session = |kind: SessionKind, interactive: bool, task_id: Option<String>| {
            at += 1;
            let row = NewSessionRow {
                id: SessionId::new(),
                kind,
                title: "t".into(),
                title_source: TitleSource::Human,
                interactive,
                cwd: "/".into(),
                provider: "claude".into(),
                model: None,
                task_id,
                wave_id: None,
                primary_scope: None,
                independent: kind == SessionKind::Conversation,
            };
            let run = NewRun {
                id: RunId::new(),
                chosen_native_id: None,
                provider: "claude".into(),
                model: None,
                argv: Vec::new(),
                prompt: None,
            };
            match kind {
                SessionKind::Conversation => store.insert_session(&row, &run, at).unwrap(),
                SessionKind::Flow => {
                    let invocation = format!("inv-{at}");
                    store
                        .insert_review(
                            &NewReview {
                                session: &row,
                                run: &run,
                                invocation: &invocation,
                                flow: "f",
                                step: "s",
                                node: Some(1),
                                iterations: None,
                            },
                            at,
                        )
                        .unwrap();
                }
            }
            (row.id.to_string(), run.id.to_string())
        };
        for kind in [SessionKind::Conversation, SessionKind::Flow] {
            for bits in 0..(1 << 9) {
                let bit = |n: u32| bits & (1 << n) != 0;
                let task_id = (kind == SessionKind::Flow || bit(8)).then(|| task(bit(7)));
                let (id, run) = session(kind, bit(0), task_id);
                let turn = match (bit(3), bit(4)) {
                    (false, false) => None,
                    (true, false) => Some("started"),
                    _ => Some("completed"),
                };
                // In one write transaction, as lf's own writes are: the
                // maintained attention is computed as it commits.
                let tx = store.write().unwrap();
                tx.execute(
                        "UPDATE sessions SET ready_summary = ?2, ready_superseded = ?3, \
                         permission_pending = ?4, latest_turn = ?5, completed_at = ?6 WHERE id = ?1",
                        params![
                            id,
                            bit(1).then_some("ready"),
                            bit(2),
                            bit(5),
                            turn,
                            (bits % 7 == 0).then_some(99)
                        ],
                    )
                    .unwrap();
                let outcome = match bits % 3 {
                    0 => None,
                    1 => Some("interrupted"),
                    _ => Some("exited"),
                };
                tx.execute(
                    "UPDATE runs SET outcome = ?2 WHERE id = ?1",
                    params![run, outcome],
                )
                .unwrap();
                if kind == SessionKind::Flow && bit(6) {
                    tx.execute(
                        "UPDATE flows SET finished = 1 WHERE pending_session_id = ?1",
                        [&id],
                    )
                    .unwrap();
                }
                tx.commit().unwrap();
                let attention = lf.get(&id).unwrap().attention;
                expected.push((id, attention));
            }
        }
        // Leaving attention, and moving from one kind to another, keeps
        // the counts as well as entering it.
        for (n, (id, attention)) in expected.iter_mut().enumerate() {
            let change = match n % 6 {
                0 => "UPDATE sessions SET completed_at = 100 WHERE id = ?1",
                3 => "UPDATE sessions SET permission_pending = 1 WHERE id = ?1",
                _ => continue,
            };
            let tx = store.write().unwrap();
            tx.execute(change, [&*id]).unwrap();
            tx.commit().unwrap();
            *attention = lf.get(id).unwrap().attention;
        }
        // The queue from the maintained column; the counts both kept and
        // by the rule in SQL over every open Session (a Home not yet
        // migrated to them, which a read-only count cannot migrate).
        let owed = store.owed(None).unwrap();
        assert_eq!(store.owed(Some(1)).unwrap()[..], owed[..1]);
        for database in [
            ReadOnly::open(lf.home()).unwrap().unwrap(),
            ReadOnly::open(lf.home()).unwrap().unwrap().by_the_column(),
            ReadOnly::open(lf.home()).unwrap().unwrap().by_the_rule(),
        ] {
            agrees(&owed, &database, expected.clone());
        }
        // The column, for every Session (those that owe nothing too), and
        // the listing's `--attention`, which reads it, are the rule's.
        let mut column: Vec<(String, Option<Attention>)> = store
            .conn()
            .prepare("SELECT id, attention FROM sessions")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        column.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_rule = expected.clone();
        by_rule.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(column, by_rule);
        let listed = |all: bool| {
            let filter = crate::session::ListFilter {
                attention: true,
                all,
                ..Default::default()
            };
            let lf = Lf::at(lf.home().clone(), Caller::default());
            let mut listed: Vec<(String, Option<Attention>)> = lf
                .list(&filter)
                .unwrap()
                .map(|record| record.map(|record| (record.id, record.attention)))
                .collect::<Result<_>>()
                .unwrap();
            listed.sort_by(|a, b| a.0.cmp(&b.0));
            listed
        };
        let owing: Vec<_> = by_rule
            .iter()
            .filter(|(_, a)| a.is_some())
            .cloned()
            .collect();
        // Both kinds are there: Sessions that owe attention and that do not.
        assert!(owing.len() > 100 && owing.len() + 100 < by_rule.len());
        assert_eq!(listed(false), owing);
        assert_eq!(listed(true), owing);
        // A Home of version 8 (attention maintained, not yet counted) gets
        // the counts of the Sessions it has when it is migrated.
        store
            .conn()
            .execute_batch(
                "DROP TRIGGER sessions_attention_counted; DROP TABLE attention_counts; \
                 CREATE INDEX sessions_attention_kind ON sessions (attention) \
                 WHERE attention IS NOT NULL; ALTER TABLE events DROP COLUMN by_person; \
                 DROP TABLE usage_sources; DROP TABLE usage_models; DROP TABLE usage_time; \
                 DROP TABLE requests; DROP TABLE web_devices; PRAGMA user_version = 8;",
            )
            .unwrap();
        let migrated = Lf::at(lf.home().clone(), Caller::default());
        migrated.store().unwrap();
        agrees(
            &owed,
            &ReadOnly::open(lf.home()).unwrap().unwrap(),
            expected,
        );
    }

    fn agrees(
        owed: &[crate::store::Owed],
        database: &ReadOnly,
        mut expected: Vec<(String, Option<Attention>)>,
    ) {
        let mut got: Vec<(String, Option<Attention>)> = expected
            .iter()
            .map(|(id, _)| {
                let found = owed.iter().find(|owed| owed.session.as_str() == id);
                (id.clone(), found.map(|owed| owed.attention))
            })
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got, expected);
        let counts = database.attention_counts().unwrap();
        let count = |kind| expected.iter().filter(|(_, a)| *a == Some(kind)).count() as u64;
        assert_eq!(
            (counts.review, counts.approve, counts.reply),
            (
                count(Attention::Review),
                count(Attention::Approve),
                count(Attention::Reply)
            )
        );
        assert!(counts.review > 0 && counts.approve > 0 && counts.reply > 0);
        // Approvals come first, then replies, then reviews.
        let kinds: Vec<Attention> = owed.iter().map(|owed| owed.attention).collect();
        let mut sorted = kinds.clone();
        sorted.sort_by_key(|kind| crate::state::waiting_rank(Some(*kind)));
        assert_eq!(kinds, sorted);
        assert_eq!(
            crate::state::WAITING_ORDER,
            [Attention::Approve, Attention::Reply, Attention::Review]
        );
    }
}
