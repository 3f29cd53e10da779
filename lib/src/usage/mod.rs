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

/// The most tokens of one kind lf believes one model request used: far
/// above any model's context or output (a million is large today), far
/// below where sums could wrap. A transcript line saying more, or less
/// than none, is not counted (issue 34: `i64::MAX` input and a negative
/// output made a negative cost, and the sums' overflow broke every read).
pub const MOST_PER_REQUEST: i64 = 1_000_000_000_000;

impl Tokens {
    /// The sum of every kind; saturating, as every sum of usage is.
    pub fn total(&self) -> i64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_creation)
            .saturating_add(self.cache_read)
    }

    pub fn add(&mut self, other: &Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_creation = self.cache_creation.saturating_add(other.cache_creation);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
    }

    fn sub(&mut self, other: &Tokens) {
        self.input = self.input.saturating_sub(other.input);
        self.output = self.output.saturating_sub(other.output);
        self.cache_creation = self.cache_creation.saturating_sub(other.cache_creation);
        self.cache_read = self.cache_read.saturating_sub(other.cache_read);
    }

    /// Counts that cannot be true, which no tally counts: what a provider
    /// derives from fields of its record that are (see [`Tokens::derived`]).
    pub const IMPOSSIBLE: Tokens = Tokens {
        input: -1,
        output: -1,
        cache_creation: -1,
        cache_read: -1,
    };

    /// Counts a provider derives from its record's own `fields` by
    /// `derive` (checked arithmetic: `None` on overflow):
    /// [`Tokens::IMPOSSIBLE`] when a field is negative or `derive`
    /// overflows, so the request is refused rather than counted wrong.
    pub fn derived(fields: &[i64], derive: impl FnOnce() -> Option<Tokens>) -> Tokens {
        if fields.iter().any(|field| *field < 0) {
            return Tokens::IMPOSSIBLE;
        }
        derive().unwrap_or(Tokens::IMPOSSIBLE)
    }

    /// Whether one request's counts can be true: none negative, none over
    /// [`MOST_PER_REQUEST`].
    pub fn plausible(&self) -> bool {
        [
            self.input,
            self.output,
            self.cache_creation,
            self.cache_read,
        ]
        .iter()
        .all(|count| (0..=MOST_PER_REQUEST).contains(count))
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

impl ModelSums {
    /// Another's sums added to these, saturating.
    pub fn add(&mut self, other: &ModelSums) {
        self.tokens.add(&other.tokens);
        self.requests = self.requests.saturating_add(other.requests);
    }
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

impl TimeSums {
    /// Another's sums added to these, saturating.
    pub fn add(&mut self, other: &TimeSums) {
        self.turns = self.turns.saturating_add(other.turns);
        self.working = self.working.saturating_add(other.working);
        self.waiting = self.waiting.saturating_add(other.waiting);
    }
}

/// What one read of a transcript adds (a replaced message subtracts its
/// earlier counts), by day and model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub models: BTreeMap<(String, String), ModelSums>,
    pub time: BTreeMap<String, TimeSums>,
    /// Requests not counted: their counts cannot be true
    /// ([`Tokens::plausible`]). The read goes on; the refresh notes them.
    pub refused: u64,
}

impl Tally {
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.time.is_empty()
    }

    /// Whether a request's counts can be counted; one that cannot is
    /// noted as refused.
    fn admits(&mut self, tokens: &Tokens) -> bool {
        let plausible = tokens.plausible();
        if !plausible {
            self.refused = self.refused.saturating_add(1);
        }
        plausible
    }

    /// A model request's usage under `key` (Claude's message id and
    /// request id): a line repeating the last counted key replaces it.
    pub fn message(&mut self, carry: &mut Carry, key: &str, at: i64, model: &str, tokens: Tokens) {
        if !self.admits(&tokens) {
            return;
        }
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
        sums.requests = sums.requests.saturating_add(1);
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
        if !self.admits(&last) {
            return;
        }
        let model = carry.model.clone().unwrap_or_else(|| "unknown".to_owned());
        let sums = self.models.entry((day(at), model)).or_default();
        sums.tokens.add(&last);
        sums.requests = sums.requests.saturating_add(1);
    }

    /// The person started a turn: the time since the agent's last work is
    /// time it waited for them.
    pub fn turn_started(&mut self, carry: &mut Carry, at: i64) {
        let time = self.time.entry(day(at)).or_default();
        time.turns = time.turns.saturating_add(1);
        if let Some(last) = carry.last_work
            && at > last
        {
            time.waiting = time.waiting.saturating_add(at.saturating_sub(last));
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
            let time = self.time.entry(day(at)).or_default();
            time.working = time.working.saturating_add(at.saturating_sub(last));
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

    /// Issue 34, item 15b: counts that cannot be true are not counted
    /// (and noted), and sums saturate instead of wrapping.
    #[test]
    fn impossible_counts_are_refused_and_sums_never_wrap() {
        let (mut tally, mut carry) = (Tally::default(), Carry::default());
        tally.message(&mut carry, "m1", 0, "a", tokens(i64::MAX, 1));
        tally.message(&mut carry, "m2", 0, "a", tokens(1, -5_000_000_000_000));
        tally.message(&mut carry, "m3", 0, "a", tokens(MOST_PER_REQUEST + 1, 0));
        tally.message(&mut carry, "m4", 0, "a", tokens(7, 3));
        tally.request(&mut carry, 0, tokens(1, 1), tokens(-1, 0));
        assert_eq!(tally.refused, 4);
        let sums = tally.models[&("1970-01-01".to_owned(), "a".to_owned())];
        assert_eq!((sums.tokens, sums.requests), (tokens(7, 3), 1));
        let mut big = tokens(i64::MAX, i64::MAX);
        big.add(&tokens(1, 1));
        assert_eq!(big, tokens(i64::MAX, i64::MAX));
        assert_eq!(big.total(), i64::MAX);
        let mut low = tokens(i64::MIN, 0);
        low.sub(&tokens(1, 0));
        assert_eq!(low.input, i64::MIN);
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
