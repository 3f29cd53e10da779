//! Interactive handoff rows. Every change that must not interleave with
//! another process's (opening, attaching, the first outcome, the one wake)
//! is a compare-and-set inside one IMMEDIATE transaction; what the result
//! means for a person is decided in the `handoff` module.

use super::{Store, optional};
use crate::Result;
use crate::home::HomeError;
use crate::wire::{HandoffOutcome, HandoffParentKind};
use rusqlite::{Row, Transaction, params};
use std::collections::BTreeMap;

/// A stored handoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandoffRow {
    pub id: String,
    pub parent_kind: HandoffParentKind,
    pub parent_id: String,
    pub wave_id: Option<String>,
    pub cwd: String,
    pub provider: String,
    pub provider_session_id: Option<String>,
    pub body_generation: u32,
    pub reason: String,
    /// Names to values; the values may be secret.
    pub environment: BTreeMap<String, String>,
    pub attach_argv: Vec<String>,
    pub attached_at: Option<i64>,
    pub outcome: Option<HandoffOutcome>,
    pub finished_at: Option<i64>,
    pub wake_claimed_by_generation: Option<u32>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What opening found or did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// A new handoff was stored.
    Created(HandoffRow),
    /// The parent already has a handoff for this body generation.
    Existing(HandoffRow),
    /// The parent has another handoff still without an outcome.
    ParentBusy(HandoffRow),
}

const COLUMNS: &str = "id, parent_kind, parent_id, wave_id, cwd, provider, provider_session_id, \
    body_generation, reason, environment, attach_argv, attached_at, outcome, outcome_text, \
    finished_at, wake_claimed_by_generation, created_at, updated_at";

fn outcome(kind: Option<String>, text: Option<String>) -> Option<HandoffOutcome> {
    let text = text.unwrap_or_default();
    match kind.as_deref()? {
        "handed_back" => Some(HandoffOutcome::HandedBack { summary: text }),
        "completed" => Some(HandoffOutcome::Completed { summary: text }),
        "failed" => Some(HandoffOutcome::Failed { reason: text }),
        _ => None,
    }
}

fn outcome_kind(outcome: &HandoffOutcome) -> &'static str {
    outcome.status().as_str()
}

fn json_column<T: serde::de::DeserializeOwned>(row: &Row<'_>, index: usize) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text).map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, error.into())
    })
}

impl HandoffRow {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        let parent_kind = match row.get_ref(1)?.as_str()? {
            "wave" => HandoffParentKind::Wave,
            _ => HandoffParentKind::Task,
        };
        Ok(HandoffRow {
            id: row.get(0)?,
            parent_kind,
            parent_id: row.get(2)?,
            wave_id: row.get(3)?,
            cwd: row.get(4)?,
            provider: row.get(5)?,
            provider_session_id: row.get(6)?,
            body_generation: row.get(7)?,
            reason: row.get(8)?,
            environment: json_column(row, 9)?,
            attach_argv: json_column(row, 10)?,
            attached_at: row.get(11)?,
            outcome: outcome(row.get(12)?, row.get(13)?),
            finished_at: row.get(14)?,
            wake_claimed_by_generation: row.get(15)?,
            created_at: row.get(16)?,
            updated_at: row.get(17)?,
        })
    }
}

fn get(tx: &Transaction<'_>, id: &str) -> Result<Option<HandoffRow>> {
    optional(tx.query_row(
        &format!("SELECT {COLUMNS} FROM handoffs WHERE id = ?1"),
        [id],
        HandoffRow::from_row,
    ))
}

impl Store {
    /// Store a handoff unless its parent already has one for the same body
    /// generation (a replayed open) or another one without an outcome.
    pub fn open_handoff(&self, handoff: &HandoffRow) -> Result<Opened> {
        let tx = self.write()?;
        let existing = |sql: &str, params: &[&dyn rusqlite::ToSql]| {
            optional(tx.query_row(
                &format!("SELECT {COLUMNS} FROM handoffs WHERE {sql}"),
                params,
                HandoffRow::from_row,
            ))
        };
        let kind = handoff.parent_kind.as_str();
        if let Some(row) = existing(
            "parent_kind = ?1 AND parent_id = ?2 AND body_generation = ?3",
            &[&kind, &handoff.parent_id, &handoff.body_generation],
        )? {
            return Ok(Opened::Existing(row));
        }
        if let Some(row) = existing(
            "parent_kind = ?1 AND parent_id = ?2 AND outcome IS NULL",
            &[&kind, &handoff.parent_id],
        )? {
            return Ok(Opened::ParentBusy(row));
        }
        tx.execute(
            &format!(
                "INSERT INTO handoffs ({COLUMNS}) VALUES \
                 (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL, NULL, NULL, NULL, NULL, ?12, ?12)"
            ),
            params![
                handoff.id,
                kind,
                handoff.parent_id,
                handoff.wave_id,
                handoff.cwd,
                handoff.provider,
                handoff.provider_session_id,
                handoff.body_generation,
                handoff.reason,
                serde_json::to_string(&handoff.environment)?,
                serde_json::to_string(&handoff.attach_argv)?,
                handoff.created_at,
            ],
        )?;
        let row = get(&tx, &handoff.id)?.ok_or_else(|| HomeError::NotStored(handoff.id.clone()))?;
        tx.commit()?;
        Ok(Opened::Created(row))
    }

    pub fn handoff(&self, id: &str) -> Result<Option<HandoffRow>> {
        optional(self.conn().query_row(
            &format!("SELECT {COLUMNS} FROM handoffs WHERE id = ?1"),
            [id],
            HandoffRow::from_row,
        ))
    }

    /// Every handoff, newest first; only those without an outcome if
    /// `active`.
    pub fn handoffs(&self, active: bool) -> Result<Vec<HandoffRow>> {
        let filter = if active { "WHERE outcome IS NULL" } else { "" };
        let mut statement = self.conn().prepare_cached(&format!(
            "SELECT {COLUMNS} FROM handoffs {filter} ORDER BY created_at DESC, id DESC"
        ))?;
        Ok(statement
            .query_map([], HandoffRow::from_row)?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// Record the first attach of a handoff that has no outcome yet; a
    /// repeat changes nothing. Returns the row as it stands.
    pub fn attach_handoff(&self, id: &str, now: i64) -> Result<Option<HandoffRow>> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE handoffs SET attached_at = ?2, updated_at = ?2 \
             WHERE id = ?1 AND outcome IS NULL AND attached_at IS NULL",
            params![id, now],
        )?;
        let row = get(&tx, id)?;
        tx.commit()?;
        Ok(row)
    }

    /// Record an outcome unless one is recorded already: the first wins.
    /// Returns the row as it stands, with whichever outcome won.
    pub fn finish_handoff(
        &self,
        id: &str,
        outcome: &HandoffOutcome,
        now: i64,
    ) -> Result<Option<HandoffRow>> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE handoffs SET outcome = ?2, outcome_text = ?3, finished_at = ?4, updated_at = ?4 \
             WHERE id = ?1 AND outcome IS NULL",
            params![id, outcome_kind(outcome), outcome.text(), now],
        )?;
        let row = get(&tx, id)?;
        tx.commit()?;
        Ok(row)
    }

    /// Claim the wake of a handoff that has an outcome, unless it is
    /// claimed already. Returns whether this call claimed it, and the row.
    pub fn claim_handoff_wake(
        &self,
        id: &str,
        generation: u32,
        now: i64,
    ) -> Result<(bool, Option<HandoffRow>)> {
        let tx = self.write()?;
        let claimed = tx.execute(
            "UPDATE handoffs SET wake_claimed_by_generation = ?2, wake_claimed_at = ?3, updated_at = ?3 \
             WHERE id = ?1 AND outcome IS NOT NULL AND wake_claimed_by_generation IS NULL",
            params![id, generation, now],
        )? == 1;
        let row = get(&tx, id)?;
        tx.commit()?;
        Ok((claimed, row))
    }
}
