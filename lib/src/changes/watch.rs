//! Following the change stream (`lf-session-watch`, the plugin's `lf
//! watch`): a transaction that recorded events rings the Home's bell (it
//! touches `events.bell` after the commit); a follower waits for it with
//! inotify, so it prints within milliseconds and costs nothing while
//! nothing happens. A ring lost to a crash between commit and touch only
//! delays the event to the next ring or liveness look (every
//! [`LIVENESS_EVERY`]).

use super::{DEFAULT_KEEP, EventsError, LIVENESS_EVERY};
use crate::Result;
use crate::caller::EVENTS_KEEP_ENV;
use crate::clock::Timestamp;
use crate::facade::Lf;
use crate::home::Home;
use crate::session::project::Projection;
use crate::store::EventRow;
use crate::wire::{EventKind, SessionEvent};
use rustix::fs::inotify;
use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

/// How many events a follower reads at a time.
const BATCH: usize = 256;

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
             {EVENTS_KEEP_ENV} events, {DEFAULT_KEEP} unless set); going on with event {}",
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
        by: row.by,
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

#[cfg(test)]
mod tests {
    use super::super::ring;
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
}
