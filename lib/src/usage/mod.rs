//! What each Session used, from the agents' own records: tokens by kind and
//! model, turns, and the time the agent worked and the time it waited for
//! the person (docs/decisions/0030-usage.md).
//!
//! A provider reads its own transcript one line at a time into a [`Tally`]
//! (its reader lives in its provider file: `Provider::read_usage`), or
//! records that are no appended file from an offset of its own
//! (`Provider::read_usage_records`: OpenCode's database); what a
//! reader must remember between two reads of the same file (the last
//! message counted, the last cumulative total, where the current turn
//! stands) is its [`Carry`], stored beside the read offset, so each read
//! costs only what was appended since the last one. The store keeps the
//! sums by Session, day and model; reading is [`refresh`], which nothing on
//! a listing's path calls.

pub mod price;
mod read;
mod report;

pub use read::Refreshed;
pub(crate) use read::{refresh, refresh_sessions};
pub use report::{UsageQuery, UsageReport};

use crate::error::domain::{Domain, ErrorKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Usage cannot be priced as the person's table says.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum UsageError {
    #[error("the price table {} cannot be read: {problem}", .path.display())]
    BadPrices { path: PathBuf, problem: String },
    #[error(
        "the price table {} may be written by others (mode {mode:04o}); make it yours alone (chmod 600) or move it away",
        .path.display()
    )]
    SharedPrices { path: PathBuf, mode: u32 },
}

impl Domain for UsageError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Operational
    }

    fn name(&self) -> &str {
        self.into()
    }
}

/// Token counts by kind. `input` is what the model read and no cache
/// served; `cache_creation` what it wrote to the prompt cache (Anthropic
/// bills it apart); `cache_read` what the cache served; `output` what it
/// wrote, reasoning included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: i64,
    pub output: i64,
    pub cache_creation: i64,
    pub cache_read: i64,
}

impl Tokens {
    pub fn total(&self) -> i64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    pub fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_creation += other.cache_creation;
        self.cache_read += other.cache_read;
    }

    fn sub(&mut self, other: &Tokens) {
        self.input -= other.input;
        self.output -= other.output;
        self.cache_creation -= other.cache_creation;
        self.cache_read -= other.cache_read;
    }
}

/// A day, as `YYYY-MM-DD` in UTC (lf speaks UTC alone).
pub fn day(micros: i64) -> String {
    let text = crate::clock::rfc3339(micros);
    text.get(..10).unwrap_or("1970-01-01").to_owned()
}

/// One model request a transcript recorded, as last seen: a later line of
/// the same message replaces it (Claude writes one line per content block,
/// each repeating the message's usage).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    pub key: String,
    pub day: String,
    pub model: String,
    pub tokens: Tokens,
}

/// What a provider's reader remembers from one read of a transcript to the
/// next; stored with the offset read up to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carry {
    /// The last message counted (Claude).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Counted>,
    /// The cumulative total the last usage event said (Codex): an event
    /// that repeats it is not counted again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Tokens>,
    /// The model of the current turn (Codex's `turn_context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A turn is under way.
    #[serde(default)]
    pub in_turn: bool,
    /// The transcript is a subagent's (Gemini's, known from its first
    /// line): its requests count, its prompts are no turns.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub subagent: bool,
    /// When the agent was last seen at work (microseconds): the end of
    /// the working time counted so far, and, between turns, since when it
    /// has waited for the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_work: Option<i64>,
}

/// Sums of one Session's day and model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelSums {
    pub tokens: Tokens,
    /// Model requests (assistant messages, Codex's usage events).
    pub requests: i64,
}

/// Time sums of one Session's day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeSums {
    /// Turns the person started.
    pub turns: i64,
    /// Microseconds from a turn's start to its agent's last work in it.
    pub working: i64,
    /// Microseconds from a turn's last work to the person's next prompt.
    pub waiting: i64,
}

/// What one read of a transcript adds (a replaced message subtracts its
/// earlier counts), by day and model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub models: BTreeMap<(String, String), ModelSums>,
    pub time: BTreeMap<String, TimeSums>,
}

impl Tally {
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.time.is_empty()
    }

    /// A model request's usage under `key` (Claude's message id and
    /// request id): a line repeating the last counted key replaces it.
    pub fn message(&mut self, carry: &mut Carry, key: &str, at: i64, model: &str, tokens: Tokens) {
        if let Some(last) = carry.message.as_mut()
            && last.key == key
        {
            let sums = self
                .models
                .entry((last.day.clone(), last.model.clone()))
                .or_default();
            sums.tokens.sub(&last.tokens);
            sums.tokens.add(&tokens);
            last.tokens = tokens;
            return;
        }
        let counted = Counted {
            key: key.to_owned(),
            day: day(at),
            model: model.to_owned(),
            tokens,
        };
        let sums = self
            .models
            .entry((counted.day.clone(), counted.model.clone()))
            .or_default();
        sums.tokens.add(&tokens);
        sums.requests += 1;
        carry.message = Some(counted);
    }

    /// A usage event carrying the cumulative `total` so far and the
    /// `last` request's own (Codex's `token_count`): counted once, however
    /// often the same total is repeated.
    pub fn request(&mut self, carry: &mut Carry, at: i64, total: Tokens, last: Tokens) {
        if carry.total == Some(total) {
            return;
        }
        carry.total = Some(total);
        let model = carry.model.clone().unwrap_or_else(|| "unknown".to_owned());
        let sums = self.models.entry((day(at), model)).or_default();
        sums.tokens.add(&last);
        sums.requests += 1;
    }

    /// The person started a turn: the time since the agent's last work is
    /// time it waited for them.
    pub fn turn_started(&mut self, carry: &mut Carry, at: i64) {
        let time = self.time.entry(day(at)).or_default();
        time.turns += 1;
        if let Some(last) = carry.last_work
            && at > last
        {
            time.waiting += at - last;
        }
        carry.in_turn = true;
        carry.last_work = Some(at);
    }

    /// The agent worked at `at`, within a turn.
    pub fn worked(&mut self, carry: &mut Carry, at: i64) {
        if !carry.in_turn {
            return;
        }
        if let Some(last) = carry.last_work
            && at > last
        {
            self.time.entry(day(at)).or_default().working += at - last;
        }
        carry.last_work = Some(carry.last_work.map_or(at, |last| last.max(at)));
    }

    /// The turn ended at `at` (after the agent's last work).
    pub fn turn_ended(&mut self, carry: &mut Carry, at: i64) {
        self.worked(carry, at);
        carry.in_turn = false;
    }
}

/// An RFC 3339 time of a transcript line, in microseconds.
pub(crate) fn at(text: Option<&str>) -> Option<i64> {
    crate::clock::Timestamp::parse(text?).map(|at| at.micros())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: i64, output: i64) -> Tokens {
        Tokens {
            input,
            output,
            ..Tokens::default()
        }
    }

    #[test]
    fn a_repeated_message_is_replaced_not_added() {
        let (mut tally, mut carry) = (Tally::default(), Carry::default());
        tally.message(&mut carry, "m1", 0, "a", tokens(10, 1));
        tally.message(&mut carry, "m1", 0, "a", tokens(10, 8));
        tally.message(&mut carry, "m2", 0, "a", tokens(5, 2));
        let sums = tally.models[&("1970-01-01".to_owned(), "a".to_owned())];
        assert_eq!(sums.tokens, tokens(15, 10));
        assert_eq!(sums.requests, 2);
    }

    #[test]
    fn a_repeated_total_is_counted_once() {
        let (mut tally, mut carry) = (Tally::default(), Carry::default());
        carry.model = Some("m".to_owned());
        tally.request(&mut carry, 0, tokens(10, 2), tokens(10, 2));
        tally.request(&mut carry, 0, tokens(10, 2), tokens(10, 2));
        // After a resume the total starts again: still the last request's.
        tally.request(&mut carry, 0, tokens(3, 1), tokens(3, 1));
        let sums = tally.models[&("1970-01-01".to_owned(), "m".to_owned())];
        assert_eq!(sums.tokens, tokens(13, 3));
        assert_eq!(sums.requests, 2);
    }

    #[test]
    fn working_is_within_turns_and_waiting_between_them() {
        let (mut tally, mut carry) = (Tally::default(), Carry::default());
        tally.worked(&mut carry, 1);
        tally.turn_started(&mut carry, 10);
        tally.worked(&mut carry, 15);
        tally.turn_ended(&mut carry, 20);
        tally.worked(&mut carry, 25);
        tally.turn_started(&mut carry, 50);
        tally.worked(&mut carry, 53);
        let time = tally.time["1970-01-01"];
        assert_eq!(
            time,
            TimeSums {
                turns: 2,
                working: 13,
                waiting: 30
            }
        );
    }
}
