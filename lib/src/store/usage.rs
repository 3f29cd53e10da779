//! The store's side of usage (`crate::usage`): the transcripts of each
//! Session with how far they were read, and the sums read so far. A read
//! is applied only if its transcript's offset is still the one it read
//! from, so two readers at once never count the same bytes twice.

use super::Store;
use crate::Result;
use crate::usage::{ModelSums, Tally, TimeSums, Tokens};
use rusqlite::{OptionalExtension, params};

/// One transcript of a Session, and how far its usage was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageSource {
    pub session_id: String,
    pub path: String,
    pub provider: String,
    /// Bytes read (always the end of a line).
    pub read_to: u64,
    /// `crate::usage::Carry` as JSON.
    pub carry: String,
}

/// A read of one transcript, to apply.
#[derive(Debug, Clone)]
pub struct UsageRead {
    pub source: UsageSource,
    pub read_to: u64,
    pub carry: String,
    pub tally: Tally,
}

/// A Session's sums of one day and model.
#[derive(Debug, Clone)]
pub struct ModelRow {
    pub session_id: String,
    pub day: String,
    pub model: String,
    pub sums: ModelSums,
}

/// A Session's turns and times of one day.
#[derive(Debug, Clone)]
pub struct TimeRow {
    pub session_id: String,
    pub day: String,
    pub sums: TimeSums,
}

/// What usage groups a Session by.
#[derive(Debug, Clone)]
pub struct UsageSession {
    pub id: String,
    pub title: String,
    pub cwd: String,
    pub provider: Option<String>,
    pub created_at: i64,
}

impl Store {
    /// The transcripts of every Session (or of these).
    pub fn usage_sources(&self, sessions: Option<&[String]>) -> Result<Vec<UsageSource>> {
        let row = |row: &rusqlite::Row<'_>| {
            Ok(UsageSource {
                session_id: row.get(0)?,
                path: row.get(1)?,
                provider: row.get(2)?,
                read_to: row.get::<_, i64>(3)?.max(0) as u64,
                carry: row.get(4)?,
            })
        };
        const SELECT: &str = "SELECT session_id, path, provider, read_to, carry FROM usage_sources";
        let mut sources = Vec::new();
        match sessions {
            None => {
                let mut statement = self.conn().prepare_cached(SELECT)?;
                for source in statement.query_map([], row)? {
                    sources.push(source?);
                }
            }
            Some(sessions) => {
                let mut statement = self
                    .conn()
                    .prepare_cached(&format!("{SELECT} WHERE session_id = ?1"))?;
                for session in sessions {
                    for source in statement.query_map([session], row)? {
                        sources.push(source?);
                    }
                }
            }
        }
        Ok(sources)
    }

    /// Keep more transcripts of Sessions (one a provider found beside
    /// another); one already kept is left as it is.
    pub fn add_usage_sources(&self, sources: &[UsageSource]) -> Result<()> {
        let tx = self.write()?;
        for source in sources {
            tx.execute(
                "INSERT OR IGNORE INTO usage_sources (session_id, path, provider) VALUES (?1, ?2, ?3)",
                params![source.session_id, source.path, source.provider],
            )?;
        }
        tx.commit()
    }

    /// Apply reads in one transaction; a read whose transcript another
    /// reader advanced meanwhile is dropped (it would count twice).
    /// Returns how many were applied.
    pub fn apply_usage(&self, reads: &[UsageRead]) -> Result<usize> {
        if reads.is_empty() {
            return Ok(0);
        }
        let tx = self.write()?;
        let mut applied = 0;
        for read in reads {
            let source = &read.source;
            let changed = tx.execute(
                "UPDATE usage_sources SET read_to = ?3, carry = ?4 \
                 WHERE session_id = ?1 AND path = ?2 AND read_to = ?5",
                params![
                    source.session_id,
                    source.path,
                    read.read_to as i64,
                    read.carry,
                    source.read_to as i64
                ],
            )?;
            if changed != 1 {
                continue;
            }
            applied += 1;
            // Each sum is read, added to in Rust (saturating: SQLite's own
            // `+` turns an integer that overflows into a real, which no
            // later read took as a count), and written whole.
            for ((day, model), sums) in &read.tally.models {
                let mut total = tx
                    .query_row(
                        "SELECT input, output, cache_creation, cache_read, requests FROM usage_models \
                         WHERE session_id = ?1 AND day = ?2 AND model = ?3",
                        params![source.session_id, day, model],
                        |row| model_sums(row, 0),
                    )
                    .optional()?
                    .unwrap_or_default();
                total.add(sums);
                let Tokens {
                    input,
                    output,
                    cache_creation,
                    cache_read,
                } = total.tokens;
                tx.execute(
                    "INSERT INTO usage_models \
                     (session_id, day, model, input, output, cache_creation, cache_read, requests) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
                     ON CONFLICT (session_id, day, model) DO UPDATE SET \
                     input = excluded.input, output = excluded.output, \
                     cache_creation = excluded.cache_creation, cache_read = excluded.cache_read, \
                     requests = excluded.requests",
                    params![
                        source.session_id,
                        day,
                        model,
                        input,
                        output,
                        cache_creation,
                        cache_read,
                        total.requests
                    ],
                )?;
            }
            for (day, time) in &read.tally.time {
                let mut total = tx
                    .query_row(
                        "SELECT turns, working, waiting FROM usage_time \
                         WHERE session_id = ?1 AND day = ?2",
                        params![source.session_id, day],
                        |row| time_sums(row, 0),
                    )
                    .optional()?
                    .unwrap_or_default();
                total.add(time);
                tx.execute(
                    "INSERT INTO usage_time (session_id, day, turns, working, waiting) \
                     VALUES (?1, ?2, ?3, ?4, ?5) \
                     ON CONFLICT (session_id, day) DO UPDATE SET \
                     turns = excluded.turns, working = excluded.working, \
                     waiting = excluded.waiting",
                    params![
                        source.session_id,
                        day,
                        total.turns,
                        total.working,
                        total.waiting
                    ],
                )?;
            }
        }
        tx.commit()?;
        Ok(applied)
    }

    /// The sums read so far, from `since` (a day, `YYYY-MM-DD`) on.
    pub fn usage_rows(&self, since: Option<&str>) -> Result<(Vec<ModelRow>, Vec<TimeRow>)> {
        let since = since.unwrap_or("");
        let mut statement = self.conn().prepare_cached(
            "SELECT session_id, day, model, input, output, cache_creation, cache_read, requests \
             FROM usage_models WHERE day >= ?1",
        )?;
        let models = statement
            .query_map([since], |row| {
                Ok(ModelRow {
                    session_id: row.get(0)?,
                    day: row.get(1)?,
                    model: row.get(2)?,
                    sums: model_sums(row, 3)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut statement = self.conn().prepare_cached(
            "SELECT session_id, day, turns, working, waiting FROM usage_time WHERE day >= ?1",
        )?;
        let times = statement
            .query_map([since], |row| {
                Ok(TimeRow {
                    session_id: row.get(0)?,
                    day: row.get(1)?,
                    sums: time_sums(row, 2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((models, times))
    }

    /// The Sessions that have usage sums.
    pub fn usage_sessions(&self) -> Result<Vec<UsageSession>> {
        let mut statement = self.conn().prepare_cached(
            "SELECT id, title, cwd, provider, created_at FROM sessions \
             WHERE id IN (SELECT session_id FROM usage_sources)",
        )?;
        let sessions = statement
            .query_map([], |row| {
                Ok(UsageSession {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    cwd: row.get(2)?,
                    provider: row.get(3)?,
                    created_at: row.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(sessions)
    }
}

/// A stored count: an integer; a real (what SQLite made of a sum that
/// overflowed, before lf saturated its sums) taken as the nearest integer
/// (`as` saturates), so a Home that has one reads again.
fn count(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<i64> {
    use rusqlite::types::{FromSqlError, ValueRef};
    match row.get_ref(index)? {
        ValueRef::Integer(count) => Ok(count),
        ValueRef::Real(count) => Ok(count as i64),
        ValueRef::Null => Ok(0),
        other => Err(rusqlite::Error::FromSqlConversionFailure(
            index,
            other.data_type(),
            Box::new(FromSqlError::InvalidType),
        )),
    }
}

/// `input, output, cache_creation, cache_read, requests` from `first` on.
fn model_sums(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<ModelSums> {
    Ok(ModelSums {
        tokens: Tokens {
            input: count(row, first)?,
            output: count(row, first + 1)?,
            cache_creation: count(row, first + 2)?,
            cache_read: count(row, first + 3)?,
        },
        requests: count(row, first + 4)?,
    })
}

/// `turns, working, waiting` from `first` on.
fn time_sums(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<TimeSums> {
    Ok(TimeSums {
        turns: count(row, first)?,
        working: count(row, first + 1)?,
        waiting: count(row, first + 2)?,
    })
}
