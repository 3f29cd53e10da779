//! The store's side of acting on a Session from afar: the attention a
//! Session owes, read in the write transaction that then records the
//! answer, so of two answers to one prompt exactly one is recorded (the
//! second waits for the first's commit and finds nothing owed).
//!
//! An answer is written as the agent's own hook would write it moments
//! later: an allowed or refused prompt is no longer pending, a reply
//! starts a turn. The maintained `attention` column follows from those
//! facts as the transaction commits (`events`), with the one rule
//! (`ATTENTION_SQL`); nothing here decides attention a second time.

use super::{Write, optional};
use crate::Result;
use crate::state::Turn;
use crate::wire::Attention;
use rusqlite::params;

impl Write<'_> {
    /// The attention an open Session owes now, as kept by the last commit,
    /// and its current Run; `None` when it is not there.
    pub(crate) fn owed(&self, session: &str) -> Result<Option<(Option<Attention>, String)>> {
        optional(self.query_row(
            "SELECT attention, current_run_id FROM sessions WHERE id = ?1",
            [session],
            |row| Ok((row.get(0)?, row.get(1)?)),
        ))
    }

    /// The Session's permission prompt was answered (allowed or refused):
    /// it no longer waits for the person.
    pub(crate) fn record_prompt_answered(&self, session: &str, now: i64) -> Result<()> {
        self.execute(
            "UPDATE sessions SET permission_pending = 0, updated_at = ?2 \
             WHERE id = ?1 AND completed_at IS NULL AND permission_pending = 1",
            params![session, now],
        )?;
        Ok(())
    }

    /// A reply was submitted to the Run's agent: a turn started, as its
    /// `UserPromptSubmit` hook will say.
    pub(crate) fn record_reply(&self, run: &str, now: i64) -> Result<()> {
        super::sessions::record_turn_in(self, run, Turn::Started, now)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::caller::Caller;
    use crate::facade::Lf;
    use crate::home::Home;
    use crate::ids::{RunId, SessionId};
    use crate::state::Turn;
    use crate::store::{NewRun, NewSessionRow};
    use crate::wire::{Attention, SessionKind, TitleSource};

    /// An interactive conversation of Claude, recorded; its id and Run.
    pub(in crate::store) fn conversation(lf: &Lf) -> (SessionId, String) {
        let row = NewSessionRow {
            id: SessionId::new(),
            kind: SessionKind::Conversation,
            title: "t".into(),
            title_source: TitleSource::Human,
            interactive: true,
            cwd: "/".into(),
            provider: "claude".into(),
            model: None,
            task_id: None,
            wave_id: None,
            primary_scope: None,
            independent: true,
        };
        let run = NewRun {
            id: RunId::new(),
            chosen_native_id: None,
            provider: "claude".into(),
            model: None,
            argv: Vec::new(),
            prompt: None,
        };
        lf.store().unwrap().insert_session(&row, &run, 1).unwrap();
        (row.id, run.id.to_string())
    }

    /// What is owed as kept, and by the rule (the record): always equal.
    fn owed(lf: &Lf, id: &SessionId) -> Option<Attention> {
        let tx = lf.store().unwrap().write().unwrap();
        let (kept, _) = tx.owed(id.as_str()).unwrap().unwrap();
        drop(tx);
        assert_eq!(kept, lf.get(id.as_str()).unwrap().attention, "kept = rule");
        kept
    }

    /// An answer and a reply change what is owed as the agent's own hooks
    /// would, and the kept attention follows the rule.
    #[test]
    fn an_answer_or_a_reply_owes_nothing_more_kept_as_the_rule_says() {
        let dir = tempfile::tempdir().unwrap();
        let lf = Lf::at(Home::at(dir.path().join("home")), Caller::default());
        let (id, run) = conversation(&lf);
        let store = lf.store().unwrap();
        store.record_permission_prompt(&run, 2, None).unwrap();
        assert_eq!(owed(&lf, &id), Some(Attention::Approve));
        let tx = store.write().unwrap();
        tx.record_prompt_answered(id.as_str(), 3).unwrap();
        tx.commit().unwrap();
        assert_eq!(owed(&lf, &id), None);
        store.record_turn(&run, Turn::Completed, 4).unwrap();
        assert_eq!(owed(&lf, &id), Some(Attention::Reply));
        let tx = store.write().unwrap();
        tx.record_reply(&run, 5).unwrap();
        tx.commit().unwrap();
        assert_eq!(owed(&lf, &id), None);
    }

    /// Two answers to one prompt at once, from two processes' connections:
    /// the second waits for the first's commit and finds nothing owed.
    #[test]
    fn of_two_answers_at_once_the_second_finds_nothing_owed() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let lf = Lf::at(home.clone(), Caller::default());
        let (id, run) = conversation(&lf);
        lf.store()
            .unwrap()
            .record_permission_prompt(&run, 2, None)
            .unwrap();
        let (holding, held) = std::sync::mpsc::channel();
        let (answered, done) = std::sync::mpsc::channel();
        let first = {
            let (home, id) = (home.clone(), id.clone());
            std::thread::spawn(move || {
                let lf = Lf::at(home, Caller::default());
                let store = lf.store().unwrap();
                let tx = store.write().unwrap();
                let (owed, _) = tx.owed(id.as_str()).unwrap().unwrap();
                holding.send(()).unwrap();
                // The second is waiting for this transaction now, or soon:
                // either way it reads after this commit.
                done.recv().unwrap();
                tx.record_prompt_answered(id.as_str(), 3).unwrap();
                tx.commit().unwrap();
                owed
            })
        };
        held.recv().unwrap();
        let second = {
            let (home, id) = (home.clone(), id.clone());
            std::thread::spawn(move || {
                let lf = Lf::at(home, Caller::default());
                let store = lf.store().unwrap();
                let tx = store.write().unwrap();
                tx.owed(id.as_str()).unwrap().unwrap().0
            })
        };
        answered.send(()).unwrap();
        assert_eq!(first.join().unwrap(), Some(Attention::Approve));
        assert_eq!(second.join().unwrap(), None);
    }
}
