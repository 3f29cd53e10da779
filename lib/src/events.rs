//! The change stream: every change a person could see — a Session created
//! or completed, its state, attention, title or ready summary — recorded as
//! an event in the same transaction as the change (so none is missed and
//! none is told that did not happen), and followed by `lf-session-watch`
//! and the plugin's `lf watch`.
//!
//! Recording: the store reports which Sessions a committing transaction
//! touched (`store::events`); the [`Recorder`] projects each one as every
//! surface would, compares it with what its last event said, and records
//! the difference with the record after it. Liveness is the one fact no
//! write reports (a client that died): a listing that shows a state other
//! than the last event's, and a follower every [`LIVENESS_EVERY`], look at
//! those Sessions again in a write transaction of their own.
//!
//! Following: a transaction that recorded events rings the Home's bell (it
//! touches `events.bell` after the commit); a follower waits for it with
//! inotify, so it prints within milliseconds and costs nothing while
//! nothing happens. A ring lost to a crash between commit and touch only
//! delays the event to the next ring or liveness look.
//!
//! The Home keeps the latest [`DEFAULT_KEEP`] events (`LF_EVENTS_KEEP`);
//! every recording transaction prunes older ones, so the table stays
//! bounded however long writers run. A follower that resumes before what
//! was pruned is told so ([`Watch::gap`]).

use crate::Result;
use crate::clock::{Timestamp, now_micros};
use crate::error::domain::{Domain, ErrorKind};
use crate::error::untrusted::quote;
use crate::facade::{Lf, OpenCommand};
use crate::home::Home;
use crate::session::project::Projection;
use crate::state;
use crate::store::{EventRow, NewEvent, Observer, Store, Touched};
use crate::wire::{EventKind, SessionEvent, SessionState};
use rustix::fs::inotify;
use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How many events a Home keeps unless `LF_EVENTS_KEEP` says otherwise.
pub const DEFAULT_KEEP: u64 = 10_000;
/// The variable that bounds the events a Home keeps.
pub const KEEP_ENV: &str = "LF_EVENTS_KEEP";
/// How often a follower looks whether a Session's live client died.
pub const LIVENESS_EVERY: Duration = Duration::from_secs(2);
/// How many events a follower reads at a time.
const BATCH: usize = 256;

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
fn ring(bell: &std::path::Path) {
    crate::home::ring(bell);
}

/// What a follower asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct WatchOptions {
    /// Resume after this event; `None` starts after the latest one.
    pub since: Option<u64>,
    /// Only attention events.
    pub attention: bool,
    /// Keep waiting for new events once caught up.
    pub follow: bool,
}

/// Events lost between where a follower asked to resume and the oldest one
/// the Home still keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The first event that was pruned.
    pub first: u64,
    /// The last event that was pruned.
    pub last: u64,
}

impl std::fmt::Display for Gap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "events {} to {} were pruned before they could be read (the Home keeps the latest \
             {KEEP_ENV} events, {DEFAULT_KEEP} unless set); going on with event {}",
            self.first,
            self.last,
            self.last + 1
        )
    }
}

/// What a follower got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Event(Box<SessionEvent>),
    /// Nothing new within the wait.
    Idle,
    /// Caught up, and not following.
    End,
}

/// A follower of a Home's events, in `seq` order, each once.
pub struct Watch {
    lf: Lf,
    options: WatchOptions,
    after: u64,
    gap: Option<Gap>,
    buffer: VecDeque<EventRow>,
    bell: Option<OwnedFd>,
    looked: Instant,
}

impl Lf {
    /// Follow this Home's events.
    pub fn watch(self, options: WatchOptions) -> Result<Watch> {
        // The bell is watched before the first read, so no commit can fall
        // between reading and waiting unseen.
        let bell = if options.follow {
            Some(watch_bell(self.home())?)
        } else {
            None
        };
        let (first, last) = self.store()?.event_bounds()?;
        let after = options.since.unwrap_or(last);
        let gap = match first {
            Some(first) if after + 1 < first => Some(Gap {
                first: after + 1,
                last: first - 1,
            }),
            None if after < last => Some(Gap {
                first: after + 1,
                last,
            }),
            _ => None,
        };
        Ok(Watch {
            lf: self,
            options,
            after,
            gap,
            buffer: VecDeque::new(),
            bell,
            looked: Instant::now(),
        })
    }

    /// Look again at Sessions whose last event said a client was live,
    /// and record those whose client died.
    pub(crate) fn look_at_liveness(&self) -> Result<()> {
        let store = self.store()?;
        let active = store.seen_active()?;
        if active.is_empty() {
            return Ok(());
        }
        let projection = Projection::on_demand(&self.open);
        let mut changed = Vec::new();
        for id in active {
            if let Some(row) = store.session_row(&id)?
                && !projection.live.is_live(store, &row)?
            {
                changed.push(id);
            }
        }
        store.observe_again(&changed)
    }
}

impl Watch {
    /// Events the Home no longer kept when this follower started.
    pub fn gap(&self) -> Option<Gap> {
        self.gap
    }

    /// The `seq` of the last event handed out (or the start).
    pub fn position(&self) -> u64 {
        self.after
    }

    /// The next event, waiting up to `wait` for one when following.
    pub fn next_within(&mut self, wait: Duration) -> Result<Next> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(row) = self.buffer.pop_front() {
                return Ok(Next::Event(Box::new(event(row)?)));
            }
            let rows = self.lf.store()?.events_after(self.after, BATCH)?;
            if let Some(last) = rows.last() {
                self.after = last.seq;
            }
            let attention = self.options.attention;
            self.buffer.extend(
                rows.into_iter()
                    .filter(|row| !attention || row.kind == EventKind::Attention),
            );
            if !self.buffer.is_empty() {
                continue;
            }
            let Some(bell) = &self.bell else {
                return Ok(Next::End);
            };
            let now = Instant::now();
            if now.duration_since(self.looked) >= LIVENESS_EVERY {
                self.looked = now;
                self.lf.look_at_liveness()?;
                continue;
            }
            if now >= deadline {
                return Ok(Next::Idle);
            }
            let until = deadline.min(self.looked + LIVENESS_EVERY);
            wait_for_ring(bell, until - now, self.lf.home())?;
        }
    }
}

fn event(row: EventRow) -> Result<SessionEvent> {
    let record = serde_json::from_str(&row.record).map_err(|source| EventsError::BadEvent {
        seq: row.seq,
        source,
    })?;
    Ok(SessionEvent {
        seq: row.seq,
        at: Timestamp(row.at),
        session_id: row.session_id,
        kind: row.kind,
        from: row.from,
        to: row.to,
        record,
    })
}

/// An inotify watch on the Home's folder, where the bell rings.
fn watch_bell(home: &Home) -> Result<OwnedFd> {
    home.ensure()?;
    let fail = |source: rustix::io::Errno| EventsError::CannotWatch {
        path: home.root().to_path_buf(),
        source: source.into(),
    };
    let fd = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)
        .map_err(fail)?;
    inotify::add_watch(
        &fd,
        home.root(),
        inotify::WatchFlags::ATTRIB | inotify::WatchFlags::CREATE | inotify::WatchFlags::MOVED_TO,
    )
    .map_err(fail)?;
    Ok(fd)
}

/// Wait up to `wait` for anything to happen in the Home's folder (the
/// bell, mostly), then take what inotify reported.
fn wait_for_ring(fd: &OwnedFd, wait: Duration, home: &Home) -> Result<()> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let timeout = Timespec::try_from(wait).unwrap_or(Timespec {
        tv_sec: 1,
        tv_nsec: 0,
    });
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    match poll(&mut fds, Some(&timeout)) {
        Ok(_) | Err(rustix::io::Errno::INTR) => {}
        Err(source) => {
            return Err(EventsError::CannotWatch {
                path: home.root().to_path_buf(),
                source: source.into(),
            }
            .into());
        }
    }
    let mut buffer = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
    let mut reader = inotify::Reader::new(fd, &mut buffer);
    while reader.next().is_ok() {}
    Ok(())
}

/// The change stream.
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

    /// The bell is heard at once: inotify queues the event within the
    /// touch itself, so a follower never waits for its next look.
    #[test]
    fn ringing_the_bell_wakes_a_follower() {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let fd = watch_bell(&home).unwrap();
        let ready = |fd: &OwnedFd| {
            let mut fds = [PollFd::new(fd, PollFlags::IN)];
            poll(&mut fds, Some(&Timespec::default())).unwrap()
        };
        for round in 0..3 {
            wait_for_ring(&fd, Duration::ZERO, &home).unwrap();
            assert_eq!(ready(&fd), 0, "round {round}: nothing rang yet");
            ring(&home.events_bell());
            assert_eq!(ready(&fd), 1, "round {round}: the ring is heard");
        }
    }

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
