//! The change stream: every change a person could see — a Session created
//! or completed, its state, attention, title or ready summary — recorded as
//! an event in the same transaction as the change (so none is missed and
//! none is told that did not happen), and followed by `lf-session-watch`
//! and the plugin's `lf watch`.
//!
//! Recording: the store reports which Sessions a committing transaction
//! touched (`store::events`); the `Recorder` projects each one as every
//! surface would, compares it with what its last event said, and records
//! the difference with the record after it. Liveness is the one fact no
//! write reports (a client that died): a listing that shows a state other
//! than the last event's, and a follower every [`LIVENESS_EVERY`], look at
//! those Sessions again in a write transaction of their own.
//!
//! The Home keeps the latest [`DEFAULT_KEEP`] events (`LF_EVENTS_KEEP`);
//! every recording transaction prunes older ones, so the table stays
//! bounded however long writers run. A follower that resumes before what
//! was pruned is told so ([`Watch::gap`]).
//!
//! Following is [`Lf::watch`](crate::Lf::watch), in `watch`: recording is
//! apart from it because the facade opens every store with a `Recorder`,
//! while following is an operation of the facade.

mod watch;

pub use watch::{Gap, Next, Watch, WatchOptions};

use crate::Result;
use crate::clock::now_micros;
use crate::error::domain::{Domain, ErrorKind};
use crate::error::untrusted::quote;
use crate::home::Home;
use crate::session::project::{OpenCommand, Projection};
use crate::state;
use crate::store::{NewEvent, Observer, Store, Touched};
use crate::wire::{EventKind, SessionState};
use std::path::PathBuf;
use std::time::Duration;

/// How many events a Home keeps unless `LF_EVENTS_KEEP` says otherwise.
pub const DEFAULT_KEEP: u64 = 10_000;
/// How often a follower looks whether a Session's live client died.
pub const LIVENESS_EVERY: Duration = Duration::from_secs(2);

/// The number of events to keep, from `LF_EVENTS_KEEP` (at least 1).
pub(crate) fn keep(value: Option<&str>) -> Result<u64> {
    match value {
        None => Ok(DEFAULT_KEEP),
        Some(text) => text
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|keep| *keep > 0)
            .ok_or_else(|| EventsError::BadEventsKeep(text.to_owned()).into()),
    }
}

/// Records the change stream as write transactions commit.
pub(crate) struct Recorder {
    open: OpenCommand,
    keep: u64,
    bell: std::path::PathBuf,
}

impl Recorder {
    pub(crate) fn new(home: &Home, open: &OpenCommand, keep: u64) -> Self {
        Recorder {
            open: open.clone(),
            keep,
            bell: home.events_bell(),
        }
    }
}

impl Observer for Recorder {
    fn observe(&self, store: &Store, touched: &[Touched]) -> Result<bool> {
        // A write touches a few Sessions: only what they need is read.
        let projection = Projection::on_demand(&self.open);
        let at = now_micros();
        let mut last = None;
        for session in touched {
            let Some(row) = store.session_row(&session.id)? else {
                continue;
            };
            let facts = projection.facts(store, &row)?;
            let now = state::state(&facts);
            let attention = state::attention(&facts);
            let changes = changes(session, now, attention, &row.title, &row.ready_summary);
            if changes.is_empty() && session.seen.state == Some(now) {
                continue;
            }
            store.note_seen(&row.id, now, &row.title, row.ready_summary.as_deref())?;
            if changes.is_empty() {
                continue;
            }
            let id = row.id.clone();
            let record = serde_json::to_string(&projection.record(store, row, &facts)?)?;
            for (kind, from, to) in &changes {
                last = Some(store.insert_event(&NewEvent {
                    at,
                    session_id: &id,
                    kind: *kind,
                    from: from.as_deref(),
                    to: to.as_deref(),
                    record: &record,
                    by: None,
                })?);
            }
        }
        match last {
            Some(last) => {
                store.prune_events(last, self.keep)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn committed(&self) {
        ring(&self.bell);
    }
}

/// What changed of a Session since its last event, as `(kind, from, to)`.
/// A Session from before the change stream (no seen state) is adopted:
/// its state is not told, the rest is.
fn changes(
    session: &Touched,
    now: SessionState,
    attention: Option<crate::wire::Attention>,
    title: &str,
    ready_summary: &Option<String>,
) -> Vec<(EventKind, Option<String>, Option<String>)> {
    let text = |value: Option<&str>| value.map(str::to_owned);
    let seen = &session.seen;
    let mut changes = Vec::new();
    if session.created {
        changes.push((EventKind::Created, None, Some(now.as_str().to_owned())));
    } else {
        match seen.state {
            Some(before) if before != now && now == SessionState::Closed => changes.push((
                EventKind::Completed,
                Some(before.as_str().to_owned()),
                Some(now.as_str().to_owned()),
            )),
            Some(before) if before != now => changes.push((
                EventKind::State,
                Some(before.as_str().to_owned()),
                Some(now.as_str().to_owned()),
            )),
            _ => {}
        }
        if seen.title.as_deref() != Some(title) {
            changes.push((EventKind::Title, seen.title.clone(), text(Some(title))));
        }
        if seen.ready_summary != *ready_summary {
            changes.push((
                EventKind::ReadySummary,
                seen.ready_summary.clone(),
                ready_summary.clone(),
            ));
        }
    }
    if seen.attention != attention {
        changes.push((
            EventKind::Attention,
            text(seen.attention.map(|a| a.as_str())),
            text(attention.map(|a| a.as_str())),
        ));
    }
    changes
}

/// Tell followers that events were committed: ring the Home's bell.
/// Best effort: a follower also looks every [`LIVENESS_EVERY`].
pub(crate) fn ring(bell: &std::path::Path) {
    crate::home::ring(bell);
}

/// The change stream's failures: recording's bound, and following.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum EventsError {
    #[error(
        "LF_EVENTS_KEEP={} is not a number of events to keep: set it to a positive count such as 10000, or unset it",
        quote(.0)
    )]
    BadEventsKeep(String),
    #[error(
        "event {seq} in the database cannot be read (it was left as it is); resume after it with --since {seq}"
    )]
    BadEvent { seq: u64, source: serde_json::Error },
    #[error("cannot watch the lf Home {} for new events", .path.display())]
    CannotWatch {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Domain for EventsError {
    fn kind(&self) -> ErrorKind {
        use EventsError::*;
        match self {
            BadEventsKeep(..) => ErrorKind::Usage,
            BadEvent { .. } | CannotWatch { .. } => ErrorKind::Operational,
        }
    }

    fn name(&self) -> &str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_comes_from_the_variable_or_the_default() {
        assert_eq!(keep(None).unwrap(), DEFAULT_KEEP);
        assert_eq!(keep(Some("500")).unwrap(), 500);
        for bad in ["", "0", "-3", "many", "1e9"] {
            assert!(
                matches!(keep(Some(bad)), Err(crate::Error::Events(EventsError::BadEventsKeep(text))) if text == bad),
                "{bad}"
            );
        }
    }
}
