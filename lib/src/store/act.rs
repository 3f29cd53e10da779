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
