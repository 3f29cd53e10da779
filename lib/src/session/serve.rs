//! What lf-serve does while its agent runs, as a state machine fed by
//! events, and the waiting that produces those events.
//!
//! An idle lf-serve must cost nothing, so it never polls: it sleeps in one
//! `poll(2)` on the agent's pidfd (readable when the agent exits), a
//! self-pipe its SIGHUP handler writes to (the terminal hung up), an
//! inotify watch on its Run's folder (the store rings `changed.bell` there
//! after every commit that changed the Run: a hook confirmed it or
//! recorded its transcript) and one on the folder of the agent's
//! transcript (it grew). Its only timers are the finite deadlines of the
//! start ([`START_GRACE`], a resume's settle), those of the hang-up
//! ([`HANGUP_GRACE`]) and a slow safety look ([`SAFETY_LOOK`]) for a bell
//! lost to a writer killed between its commit and the touch.
//!
//! [`Launch`] holds the decisions (no I/O, unit-tested below): each event
//! gives the actions to take, and [`Launch::deadline`] says when it next
//! needs to be told that time passed.

use crate::changes::EventsError;
use crate::liveness::LivenessError;
use crate::{Error, Result};
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::inotify;
use rustix::process::Signal;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long an agent that has not confirmed its conversation is given
/// before lf assumes a dialog waits for the person (lf never kills it).
pub const START_GRACE: Duration = Duration::from_secs(5);

/// How long an agent may outlive its terminal after being told (SIGHUP)
/// before it gets SIGTERM, and as long again before SIGKILL.
pub(crate) const HANGUP_GRACE: Duration = Duration::from_secs(5);
/// How often an idle lf-serve looks at its Run and transcript anyway.
pub(crate) const SAFETY_LOOK: Duration = Duration::from_secs(60);

/// Where a launch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The agent has not confirmed its conversation yet; the launch lock
    /// is held, so no opener starts a second agent meanwhile.
    Starting,
    /// A start-up dialog waits for the person (the lock is released);
    /// still unconfirmed.
    WaitsForPerson,
    /// The agent runs, confirmed (or needing no confirmation).
    Running,
    /// The terminal hung up at `at` (recorded at once); the agent is being
    /// stopped. `sent` is the last signal it was sent.
    HungUp { at: Instant, sent: Signal },
    /// The agent exited.
    Ended,
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// Time passed (a deadline, or the safety look).
    Tick,
    /// The Run as the database has it now: whether this launch's agent
    /// confirmed its conversation.
    Run { confirmed: bool },
    /// lf-serve's terminal hung up.
    HangUp,
    /// The agent exited.
    Exited,
}

/// What lf-serve does about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// A resume that kept running long enough found its conversation:
    /// confirm the Run.
    Confirm,
    /// Mark the Run as waiting for a person at a start-up dialog.
    WaitForPerson,
    /// Release the launch lock.
    ReleaseLock,
    /// End the Run without an outcome: the Session reads `lost`, reason
    /// `terminal`, while the agent is still being stopped.
    RecordHangup,
    /// Send the agent this signal.
    Signal(Signal),
}

/// The decisions of one launch; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    started: Instant,
    /// A resume of a provider that confirms nothing is taken as confirmed
    /// once it has kept running this long.
    settle: Option<Duration>,
    /// The provider's own state says a start-up dialog waits for the
    /// person: no need to wait [`START_GRACE`] to say so.
    predicted: bool,
    /// How long an unconfirmed agent is given before lf assumes a dialog
    /// waits for the person: [`START_GRACE`], or the provider's own.
    grace: Duration,
    phase: Phase,
    /// Whether the agent confirmed (or needed no confirmation) before it
    /// ended or the terminal hung up.
    confirmed: bool,
    /// The terminal hung up before the agent ended.
    hung_up: bool,
}

impl Launch {
    /// A launch whose agent was started at `started`. One that needs no
    /// confirmation runs from the start (its lock is not kept).
    pub(crate) fn new(
        started: Instant,
        needs_confirm: bool,
        settle: Option<Duration>,
        predicted: bool,
    ) -> Self {
        Launch {
            started,
            settle,
            predicted,
            grace: START_GRACE,
            phase: if needs_confirm {
                Phase::Starting
            } else {
                Phase::Running
            },
            confirmed: !needs_confirm,
            hung_up: false,
        }
    }

    /// The provider's own grace for a start, when it has one
    /// (`Provider::start_grace`).
    pub(crate) fn with_grace(mut self, grace: Option<Duration>) -> Self {
        self.grace = grace.unwrap_or(START_GRACE);
        self
    }

    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether a start-up dialog was known to wait for the person before
    /// the agent started (no grace is waited for).
    pub(crate) fn predicted(&self) -> bool {
        self.phase == Phase::Starting && self.predicted
    }

    /// Whether the agent confirmed its conversation while it ran.
    pub(crate) fn confirmed(&self) -> bool {
        self.confirmed
    }

    /// Whether the terminal hung up before the agent ended.
    pub(crate) fn hung_up(&self) -> bool {
        self.hung_up
    }

    /// The launch lock is held until the Run is resumable or waits for a
    /// person (the durable tmux session keeps other openers out after).
    pub(crate) fn holds_lock(&self) -> bool {
        self.phase == Phase::Starting
    }

    /// When the launch next needs a [`Event::Tick`], if ever.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        let settle = self.settle.map(|settle| self.started + settle);
        match self.phase {
            Phase::Starting if self.predicted => Some(self.started),
            Phase::Starting => Some(settle.map_or(self.started + self.grace, |at| {
                at.min(self.started + self.grace)
            })),
            Phase::WaitsForPerson => settle,
            Phase::HungUp { at, sent } if sent == Signal::HUP => Some(at + HANGUP_GRACE),
            Phase::HungUp { at, sent } if sent == Signal::TERM => Some(at + HANGUP_GRACE * 2),
            Phase::Running | Phase::HungUp { .. } | Phase::Ended => None,
        }
    }

    /// What to do about `event`, which happened at `now`.
    pub(crate) fn on(&mut self, event: Event, now: Instant) -> Vec<Action> {
        let unconfirmed = matches!(self.phase, Phase::Starting | Phase::WaitsForPerson);
        let lock = self.holds_lock();
        let release = |actions: &mut Vec<Action>| {
            if lock {
                actions.push(Action::ReleaseLock);
            }
        };
        let mut actions = Vec::new();
        match event {
            Event::Exited => {
                release(&mut actions);
                self.phase = Phase::Ended;
            }
            // Told once, at once; every later word changes nothing.
            Event::HangUp if !matches!(self.phase, Phase::HungUp { .. } | Phase::Ended) => {
                actions.push(Action::RecordHangup);
                release(&mut actions);
                // The kernel tells only the terminal's session leader (this
                // process): the agent learns its terminal is gone from us,
                // as a shell's jobs do from the shell.
                actions.push(Action::Signal(Signal::HUP));
                self.hung_up = true;
                self.phase = Phase::HungUp {
                    at: now,
                    sent: Signal::HUP,
                };
            }
            Event::HangUp => {}
            Event::Run { confirmed: true } if unconfirmed => {
                release(&mut actions);
                self.confirmed = true;
                self.phase = Phase::Running;
            }
            Event::Run { .. } => {}
            Event::Tick => match self.phase {
                Phase::Starting | Phase::WaitsForPerson
                    if self
                        .settle
                        .is_some_and(|settle| now >= self.started + settle) =>
                {
                    actions.push(Action::Confirm);
                    release(&mut actions);
                    self.confirmed = true;
                    self.phase = Phase::Running;
                }
                Phase::Starting if self.predicted || now >= self.started + self.grace => {
                    actions.push(Action::WaitForPerson);
                    actions.push(Action::ReleaseLock);
                    self.phase = Phase::WaitsForPerson;
                }
                Phase::HungUp { at, sent } => {
                    // An agent that outlives its terminal is stopped, so
                    // lf-serve ends and nothing lingers.
                    let next = match sent {
                        Signal::HUP if now >= at + HANGUP_GRACE => Some(Signal::TERM),
                        Signal::TERM if now >= at + HANGUP_GRACE * 2 => Some(Signal::KILL),
                        _ => None,
                    };
                    if let Some(signal) = next {
                        actions.push(Action::Signal(signal));
                        self.phase = Phase::HungUp { at, sent: signal };
                    }
                }
                _ => {}
            },
        }
        actions
    }
}

/// What woke lf-serve.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Woken {
    pub exited: bool,
    pub hung_up: bool,
    /// The Run's bell rang (or the safety look is due): read the Run.
    pub run: bool,
    /// The transcript's folder changed: read what was appended.
    pub transcript: bool,
}

/// The file descriptors lf-serve sleeps on.
pub(crate) struct Wakers {
    /// Readable once the agent exited.
    agent: OwnedFd,
    /// Written to by the SIGHUP handler.
    hangup: UnixStream,
    /// The Run's folder, where the store rings `changed.bell`.
    run: OwnedFd,
    /// The folder of the agent's transcript, once it is known.
    transcript: Option<Followed>,
    looked: Instant,
}

/// The watch on a transcript's folder, or, while that folder does not
/// exist yet (Claude makes it with the first line), on its nearest
/// ancestor that does, to learn when it appears.
struct Followed {
    /// The transcript's folder.
    folder: PathBuf,
    fd: OwnedFd,
    /// The watch is on the folder itself, not an ancestor.
    there: bool,
}

/// A watch that could not be set up, named for a person.
fn cannot_watch(path: &Path) -> impl Fn(rustix::io::Errno) -> Error + '_ {
    move |source| {
        EventsError::CannotWatch {
            path: path.to_path_buf(),
            source: source.into(),
        }
        .into()
    }
}

/// An inotify descriptor watching `folder` for what `flags` names.
fn watch_folder(folder: &Path, flags: inotify::WatchFlags) -> Result<OwnedFd> {
    let fd = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK)
        .map_err(cannot_watch(folder))?;
    inotify::add_watch(&fd, folder, flags).map_err(cannot_watch(folder))?;
    Ok(fd)
}

/// Take everything queued on a non-blocking descriptor.
fn drain(fd: &impl std::os::fd::AsFd) {
    let mut buffer = [0u8; 4096];
    while rustix::io::read(fd, &mut buffer).is_ok_and(|read| read > 0) {}
}

/// Catch SIGHUP (lf-serve's terminal hung up) into a self-pipe, so the
/// wait wakes at once. A handler, not SIG_IGN: the agent must not inherit
/// an ignored SIGHUP (handlers are reset by exec). Called before the agent
/// starts, so no hang-up is missed.
pub(crate) fn catch_hangup() -> Result<UnixStream> {
    let fail = |source| Error::io("cannot catch the terminal's hang-up (SIGHUP)", source);
    let (read, write) = UnixStream::pair().map_err(fail)?;
    read.set_nonblocking(true).map_err(fail)?;
    signal_hook::low_level::pipe::register(signal_hook::consts::SIGHUP, write).map_err(fail)?;
    Ok(read)
}

impl Wakers {
    /// Sleep on the agent `pid` (just started, not yet reaped, so its pid
    /// names it), the hang-up pipe and the Run's folder `run_dir`.
    pub(crate) fn new(pid: u32, hangup: UnixStream, run_dir: &Path) -> Result<Self> {
        let pid = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
            .ok_or(LivenessError::ProcessNotFound(pid))?;
        let agent = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
            .map_err(|source| {
                Error::io(
                    "cannot watch the agent for its exit (pidfd_open, Linux 5.3 or later)",
                    source.into(),
                )
            })?;
        // The bell is touched (both times set: IN_ATTRIB) or created.
        let run = watch_folder(
            run_dir,
            inotify::WatchFlags::ATTRIB
                | inotify::WatchFlags::CREATE
                | inotify::WatchFlags::MOVED_TO,
        )?;
        Ok(Wakers {
            agent,
            hangup,
            run,
            transcript: None,
            looked: Instant::now(),
        })
    }

    /// Follow the folder of the transcript at `path` (the agent appends to
    /// it, or writes a new one there after `/clear`). A folder that is not
    /// there yet is waited for on its nearest ancestor; one that cannot be
    /// watched at all is left to the safety look. The caller reads the
    /// transcript after: it may have grown before the watch was made.
    pub(crate) fn follow_transcript(&mut self, path: Option<&str>) {
        let Some(folder) = path.and_then(|path| Path::new(path).parent()) else {
            return;
        };
        if let Some(followed) = &self.transcript
            && followed.folder == folder
            && followed.there
        {
            return;
        }
        let grows = inotify::WatchFlags::MODIFY
            | inotify::WatchFlags::CREATE
            | inotify::WatchFlags::MOVED_TO;
        let appears = inotify::WatchFlags::CREATE | inotify::WatchFlags::MOVED_TO;
        self.transcript = None;
        // Twice at most: once more when the folder was made between
        // finding it missing and watching its ancestor.
        for _ in 0..2 {
            let watched = folder.ancestors().enumerate().find_map(|(at, watched)| {
                let there = at == 0;
                let fd = watch_folder(watched, if there { grows } else { appears }).ok()?;
                Some(Followed {
                    folder: folder.to_path_buf(),
                    fd,
                    there,
                })
            });
            let retry = watched
                .as_ref()
                .is_some_and(|followed| !followed.there && folder.is_dir());
            self.transcript = watched;
            if !retry {
                break;
            }
        }
    }

    /// Whether the agent is known to have exited, without waiting.
    pub(crate) fn agent_exited(&self) -> bool {
        ready(&self.agent)
    }

    /// Whether a hang-up is pending, without waiting (takes it).
    pub(crate) fn hung_up(&self) -> bool {
        let rang = ready(&self.hangup);
        drain(&self.hangup);
        rang
    }

    /// Sleep until something happens or `until` (and at most until the
    /// next safety look); say what woke it.
    pub(crate) fn wait(&mut self, until: Option<Instant>) -> Result<Woken> {
        let safety = self.looked + SAFETY_LOOK;
        let until = until.map_or(safety, |until| until.min(safety));
        let timeout = until.saturating_duration_since(Instant::now());
        let timeout = Timespec::try_from(timeout).unwrap_or(Timespec {
            tv_sec: SAFETY_LOOK.as_secs() as i64,
            tv_nsec: 0,
        });
        let mut fds = vec![
            PollFd::new(&self.agent, PollFlags::IN),
            PollFd::new(&self.hangup, PollFlags::IN),
            PollFd::new(&self.run, PollFlags::IN),
        ];
        if let Some(followed) = &self.transcript {
            fds.push(PollFd::new(&followed.fd, PollFlags::IN));
        }
        match poll(&mut fds, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(source) => return Err(Error::io("cannot wait for the agent", source.into())),
        }
        let woke = |index: usize| fds.get(index).is_some_and(|fd| !fd.revents().is_empty());
        let mut woken = Woken {
            exited: woke(0),
            hung_up: woke(1),
            run: woke(2),
            transcript: woke(3),
        };
        drop(fds);
        if woken.hung_up {
            drain(&self.hangup);
        }
        if woken.run {
            drain(&self.run);
        }
        if woken.transcript
            && let Some(followed) = &self.transcript
        {
            drain(&followed.fd);
        }
        if Instant::now() >= safety {
            self.looked = Instant::now();
            woken.run = true;
            woken.transcript = true;
        }
        Ok(woken)
    }

    /// Send the agent a signal through its pidfd: never another process
    /// that reused its pid.
    pub(crate) fn signal(&self, signal: Signal) {
        let _ = rustix::process::pidfd_send_signal(&self.agent, signal);
    }
}

/// Whether a descriptor is readable now.
fn ready(fd: &impl std::os::fd::AsFd) -> bool {
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    poll(&mut fds, Some(&Timespec::default())).is_ok_and(|count| count > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: Instant, seconds: f64) -> Instant {
        start + Duration::from_secs_f64(seconds)
    }

    #[test]
    fn a_launch_without_confirmation_runs_at_once_and_waits_for_nothing() {
        let start = Instant::now();
        let mut launch = Launch::new(start, false, None, false);
        assert_eq!(launch.phase(), Phase::Running);
        assert!(!launch.holds_lock());
        assert_eq!(launch.deadline(), None, "an idle agent needs no timer");
        assert_eq!(launch.on(Event::Tick, at(start, 600.0)), vec![]);
        assert_eq!(launch.on(Event::Run { confirmed: false }, start), vec![]);
        assert_eq!(launch.on(Event::Exited, at(start, 1.0)), vec![]);
        assert_eq!(launch.phase(), Phase::Ended);
        assert!(launch.confirmed() && !launch.hung_up());
    }

    #[test]
    fn a_confirmation_releases_the_lock_once() {
        let start = Instant::now();
        let mut launch = Launch::new(start, true, None, false);
        assert!(launch.holds_lock());
        assert_eq!(launch.deadline(), Some(start + START_GRACE));
        assert_eq!(launch.on(Event::Run { confirmed: false }, start), vec![]);
        assert_eq!(
            launch.on(Event::Run { confirmed: true }, at(start, 0.5)),
            vec![Action::ReleaseLock]
        );
        assert_eq!(launch.phase(), Phase::Running);
        assert_eq!(
            launch.on(Event::Run { confirmed: true }, at(start, 0.6)),
            vec![]
        );
        assert_eq!(launch.deadline(), None);
        assert_eq!(
            launch.on(Event::Tick, at(start, 10.0)),
            vec![],
            "no grace once confirmed"
        );
    }

    #[test]
    fn an_unconfirmed_start_waits_for_the_person_after_the_grace() {
        let start = Instant::now();
        let mut launch = Launch::new(start, true, None, false);
        assert_eq!(launch.on(Event::Tick, at(start, 4.9)), vec![]);
        assert_eq!(
            launch.on(Event::Tick, start + START_GRACE),
            vec![Action::WaitForPerson, Action::ReleaseLock]
        );
        assert_eq!(launch.phase(), Phase::WaitsForPerson);
        assert_eq!(launch.deadline(), None);
        assert_eq!(launch.on(Event::Tick, at(start, 30.0)), vec![], "said once");
        // The person answered the dialog: the lock is already released.
        assert_eq!(
            launch.on(Event::Run { confirmed: true }, at(start, 40.0)),
            vec![]
        );
        assert!(launch.confirmed());
    }

    #[test]
    fn a_predicted_dialog_is_said_at_once() {
        let start = Instant::now();
        let mut launch = Launch::new(start, true, None, true);
        assert_eq!(launch.deadline(), Some(start));
        assert_eq!(
            launch.on(Event::Tick, start),
            vec![Action::WaitForPerson, Action::ReleaseLock]
        );
    }

    #[test]
    fn a_resume_that_keeps_running_is_confirmed_by_its_settle() {
        let settle = Duration::from_secs(2);
        let start = Instant::now();
        let mut launch = Launch::new(start, true, Some(settle), false);
        assert_eq!(launch.deadline(), Some(start + settle));
        assert_eq!(launch.on(Event::Tick, at(start, 1.0)), vec![]);
        assert_eq!(
            launch.on(Event::Tick, start + settle),
            vec![Action::Confirm, Action::ReleaseLock]
        );
        assert!(launch.confirmed());
        assert_eq!(launch.deadline(), None);
    }

    /// A provider's own longer grace (OpenCode's, a slow start that shows
    /// no dialog): no "waits for the person" at the default grace; its
    /// settle confirms, or its exit before then fails the launch.
    #[test]
    fn a_providers_own_grace_keeps_a_slow_resume_starting_until_its_settle() {
        let settle = Duration::from_secs(20);
        let start = Instant::now();
        let mut launch = Launch::new(start, true, Some(settle), false).with_grace(Some(settle));
        assert_eq!(launch.deadline(), Some(start + settle));
        assert_eq!(launch.on(Event::Tick, start + START_GRACE), vec![]);
        assert_eq!(launch.phase(), Phase::Starting);
        let mut exits = launch.clone();
        assert_eq!(
            exits.on(Event::Exited, at(start, 8.0)),
            vec![Action::ReleaseLock]
        );
        assert!(!exits.confirmed(), "a resume that died is not confirmed");
        assert_eq!(
            launch.on(Event::Tick, start + settle),
            vec![Action::Confirm, Action::ReleaseLock]
        );
        let default = Launch::new(start, true, None, false).with_grace(None);
        assert_eq!(default.deadline(), Some(start + START_GRACE));
    }

    #[test]
    fn a_hang_up_is_recorded_at_once_and_the_agent_stopped_in_steps() {
        let start = Instant::now();
        let mut launch = Launch::new(start, false, None, false);
        let hung = at(start, 100.0);
        assert_eq!(
            launch.on(Event::HangUp, hung),
            vec![Action::RecordHangup, Action::Signal(Signal::HUP)]
        );
        assert!(launch.hung_up());
        assert_eq!(launch.on(Event::HangUp, hung), vec![], "told once");
        assert_eq!(launch.deadline(), Some(hung + HANGUP_GRACE));
        assert_eq!(launch.on(Event::Tick, at(hung, 1.0)), vec![]);
        assert_eq!(
            launch.on(Event::Tick, hung + HANGUP_GRACE),
            vec![Action::Signal(Signal::TERM)]
        );
        assert_eq!(launch.deadline(), Some(hung + HANGUP_GRACE * 2));
        assert_eq!(launch.on(Event::Tick, at(hung, 6.0)), vec![]);
        assert_eq!(
            launch.on(Event::Tick, hung + HANGUP_GRACE * 2),
            vec![Action::Signal(Signal::KILL)]
        );
        assert_eq!(launch.deadline(), None);
        assert_eq!(launch.on(Event::Exited, at(hung, 11.0)), vec![]);
        assert!(
            launch.hung_up(),
            "an agent that ended after the hang-up did not end by itself"
        );
    }

    #[test]
    fn a_hang_up_while_starting_releases_the_lock() {
        let start = Instant::now();
        let mut launch = Launch::new(start, true, None, false);
        assert_eq!(
            launch.on(Event::HangUp, at(start, 0.1)),
            vec![
                Action::RecordHangup,
                Action::ReleaseLock,
                Action::Signal(Signal::HUP)
            ]
        );
        assert!(!launch.holds_lock());
        assert_eq!(
            launch.on(Event::Run { confirmed: true }, at(start, 0.2)),
            vec![]
        );
        assert_eq!(
            launch.on(Event::Tick, start + START_GRACE),
            vec![],
            "no dialog is told"
        );
        assert!(!launch.confirmed());
    }

    #[test]
    fn an_agent_that_exits_while_starting_releases_the_lock_unconfirmed() {
        let start = Instant::now();
        let mut launch = Launch::new(start, true, None, false);
        assert_eq!(
            launch.on(Event::Exited, at(start, 0.1)),
            vec![Action::ReleaseLock]
        );
        assert_eq!(
            launch.on(Event::HangUp, at(start, 0.2)),
            vec![],
            "it already ended"
        );
        assert!(!launch.confirmed() && !launch.hung_up());
        assert_eq!(launch.deadline(), None);
    }
}
