//! Whether a recorded Client still runs, and everything else lf reads from
//! `/proc` (this module is the only place that does). A Client is recorded
//! as `(boot_id, pid, starttime)`: the pid alone can be reused by an
//! unrelated process after the agent exits, and the boot id changes on
//! reboot, so a receipt counts as alive only while all three still match
//! `/proc`. Stopping an agent (SIGTERM, then SIGKILL after a grace) and
//! what a surface tells the person meanwhile ([`AgentStopping`]) are here
//! too. `table` reads every process at once for the live-process snapshot.

pub mod table;

use crate::Result;
use crate::error::domain::{Domain, ErrorKind};
use std::time::{Duration, Instant};

/// The exact identity of one process on one boot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ProcessIdentity {
    pub boot_id: String,
    pub pid: u32,
    /// Field 22 of `/proc/<pid>/stat`: clock ticks since boot.
    pub starttime: u64,
}

/// The terminal this process reads from (`/proc/self/fd/0`), if a tty.
pub fn own_terminal() -> Option<String> {
    std::fs::read_link("/proc/self/fd/0")
        .ok()
        .map(|path| path.display().to_string())
        .filter(|path| path.starts_with("/dev/pts/") || path.starts_with("/dev/tty"))
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`).
pub fn boot_id() -> Result<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|text| text.trim().to_owned())
        .map_err(|source| {
            LivenessError::Proc {
                what: "/proc/sys/kernel/random/boot_id",
                source,
            }
            .into()
        })
}

/// Whether a recorded process still runs, and still in its terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Gone,
    Running,
    /// It runs, but its terminal hung up: it shows nothing to anyone.
    HungUp,
}

/// What a stop tells while it waits (see [`ProcessIdentity::stop_telling`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopping {
    /// It still runs [`TELL_AFTER`] after SIGTERM; SIGKILL follows when
    /// `grace` is over.
    StillRunning { grace: Duration },
    /// It still ran when `grace` was over: it got SIGKILL.
    Killed { grace: Duration },
}

/// How long a stopped process may take to exit before the person is told.
pub const TELL_AFTER: Duration = Duration::from_millis(500);

/// What `/proc/<pid>/stat` says of a process, if it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcStat {
    pub ppid: u32,
    /// Scheduler state: `R` running, `S` sleeping, `Z` zombie, …
    pub state: char,
    pub starttime: u64,
    /// Field 7: the controlling terminal's device number, 0 when none
    /// (the kernel clears it for the whole session as the terminal hangs
    /// up, before any process there has been told).
    pub tty_nr: i64,
    /// Field 9 holds `PF_EXITING`: the process is on its way out (killed,
    /// or returning from `main`). Until it is a zombie it still has a
    /// `stat`, and for a moment no open files either, so without this a
    /// dying agent reads as running, and one whose terminal hung up as
    /// running on: a restore right after a lost tmux server then skipped
    /// it ("its agent runs").
    pub exiting: bool,
}

/// `PF_EXITING` in the flags of `/proc/<pid>/stat` (include/linux/sched.h).
const PF_EXITING: u64 = 0x4;

/// A process in scheduler state `state` has exited or is exiting (a
/// zombie, a dead task, or `exiting`): it is no agent and no launcher any
/// more.
pub(crate) fn is_dead(state: char, exiting: bool) -> bool {
    exiting || matches!(state, 'Z' | 'X' | 'x')
}

/// Parse a `/proc/<pid>/stat` line. The command name (field 2) may hold
/// spaces and `)`, so the fields are read after the LAST `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): field N is fields[N - 3].
    Some(ProcStat {
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        starttime: fields.get(19)?.parse().ok()?,
        tty_nr: fields.get(4)?.parse().ok()?,
        exiting: fields.get(6)?.parse::<u64>().ok()? & PF_EXITING != 0,
    })
}

/// A command name need not be UTF-8, so the line is read as bytes (in one
/// read) and decoded lossily; the fields after the name are ASCII.
pub fn read_stat(pid: u32) -> Option<ProcStat> {
    let bytes = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&String::from_utf8_lossy(&bytes))
}

impl ProcessIdentity {
    /// The identity of a running process on this boot.
    pub fn of(pid: u32) -> Result<Self> {
        let stat = read_stat(pid).ok_or(LivenessError::ProcessNotFound(pid))?;
        Ok(ProcessIdentity {
            boot_id: boot_id()?,
            pid,
            starttime: stat.starttime,
        })
    }

    /// Alive on this boot, with the same start time (so not a reused pid),
    /// and neither exiting nor a zombie.
    pub fn is_alive(&self, current_boot: &str) -> bool {
        self.stat(current_boot).is_some()
    }

    /// Its `stat`, while it is this very process and alive.
    fn stat(&self, current_boot: &str) -> Option<ProcStat> {
        read_stat(self.pid).filter(|stat| {
            self.boot_id == current_boot
                && stat.starttime == self.starttime
                && !is_dead(stat.state, stat.exiting)
        })
    }

    /// Where the process is: gone, running, or running on after its
    /// terminal hung up (its stdin is a terminal, yet it has no controlling
    /// terminal any more: a tmux server or pane killed under it). Known
    /// from `/proc` as the terminal goes, before lf-serve has recorded it.
    pub fn presence(&self, current_boot: &str) -> Presence {
        let Some(stat) = self.stat(current_boot) else {
            return Presence::Gone;
        };
        let reads_a_terminal = || {
            std::fs::read_link(format!("/proc/{}/fd/0", self.pid)).is_ok_and(|path| {
                let path = path.to_string_lossy();
                path.starts_with("/dev/pts/") || path.starts_with("/dev/tty")
            })
        };
        if stat.tty_nr == 0 && reads_a_terminal() {
            Presence::HungUp
        } else {
            Presence::Running
        }
    }

    /// Stop the process: SIGTERM, then SIGKILL if it still runs after
    /// `grace`. Signals only a process whose identity still matches, so a
    /// reused pid is never signalled. Returns whether it was running.
    pub fn stop(&self, current_boot: &str, grace: Duration) -> bool {
        self.stop_telling(current_boot, grace, &mut |_| {})
    }

    /// [`ProcessIdentity::stop`], telling `tell` when the process still
    /// runs [`TELL_AFTER`] after SIGTERM (an interactive shell ignores
    /// it), and when it got SIGKILL, so a person is not left waiting in
    /// silence.
    pub fn stop_telling(
        &self,
        current_boot: &str,
        grace: Duration,
        tell: &mut dyn FnMut(Stopping),
    ) -> bool {
        if !self.is_alive(current_boot) {
            return false;
        }
        self.signal(rustix::process::Signal::TERM);
        let sent = Instant::now();
        let deadline = sent + grace;
        let mut told = false;
        while Instant::now() < deadline {
            if !self.is_alive(current_boot) {
                return true;
            }
            if !told && sent.elapsed() >= TELL_AFTER {
                told = true;
                tell(Stopping::StillRunning { grace });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if self.is_alive(current_boot) {
            self.signal(rustix::process::Signal::KILL);
            tell(Stopping::Killed { grace });
        }
        true
    }

    fn signal(&self, signal: rustix::process::Signal) {
        let pid = i32::try_from(self.pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw);
        if let Some(pid) = pid {
            let _ = rustix::process::kill_process(pid, signal);
        }
    }
}

/// A completion waits for an agent slow to exit: what a surface tells the
/// person, so a pause of `--grace` seconds is never silent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentStopping {
    pub session: String,
    pub pid: u32,
    /// Its command line (empty when `/proc` no longer has it).
    pub command: String,
    pub stage: Stopping,
}

impl std::fmt::Display for AgentStopping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let session = crate::ids::short_id(&self.session);
        let command = crate::error::untrusted::quote(&self.command);
        let seconds = |duration: Duration| format!("{} s", duration.as_secs_f64());
        match self.stage {
            Stopping::StillRunning { grace } => write!(
                f,
                "Session {session}: its agent (pid {}, {command}) still runs {} after SIGTERM \
                 (an interactive shell ignores it); waiting up to {} in all, then SIGKILL \
                 (--grace sets the wait)",
                self.pid,
                seconds(TELL_AFTER),
                seconds(grace),
            ),
            Stopping::Killed { grace } => write!(
                f,
                "Session {session}: its agent (pid {}, {command}) still ran {} after SIGTERM: \
                 killed it (SIGKILL)",
                self.pid,
                seconds(grace),
            ),
        }
    }
}

/// Reading Linux's /proc.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum LivenessError {
    #[error("cannot read {what}; lf needs Linux's /proc")]
    Proc {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("/proc/stat has no btime line")]
    NoBootTime,
    #[error("process {0} is not running (no /proc/{0}/stat)")]
    ProcessNotFound(u32),
}

impl Domain for LivenessError {
    fn kind(&self) -> ErrorKind {
        use LivenessError::*;
        match self {
            Proc { .. } | NoBootTime => ErrorKind::Operational,
            ProcessNotFound(..) => ErrorKind::NotFound,
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
    fn stat_is_split_after_the_last_parenthesis() {
        let line = "4242 (evil) S 1 2 (x) R 99 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat.state, 'R');
        assert_eq!(stat.ppid, 99);
        assert_eq!(stat.starttime, 777);
        assert_eq!(stat.tty_nr, 0);
        assert!(!stat.exiting, "flags 4194560 hold no PF_EXITING");
        let dying = "4242 (x) R 99 1 1 0 -1 4194564 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0";
        assert!(parse_stat(dying).unwrap().exiting);
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1"), None);
    }

    #[test]
    fn a_live_process_matches_and_a_reused_pid_or_new_boot_does_not() {
        let boot = boot_id().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let identity = ProcessIdentity::of(child.id()).unwrap();
        assert!(identity.is_alive(&boot));
        let reused = ProcessIdentity {
            starttime: identity.starttime + 1,
            ..identity.clone()
        };
        assert!(!reused.is_alive(&boot));
        assert!(!identity.is_alive("another-boot"));
        assert!(identity.stop(&boot, Duration::from_secs(5)));
        child.wait().unwrap();
        assert!(!identity.is_alive(&boot));
        assert!(!identity.stop(&boot, Duration::from_secs(5)));
    }

    /// A child that has printed its first line, `ready`.
    fn started(program: &str, args: &[&str]) -> std::process::Child {
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert_eq!(line, "ready\n");
        child
    }

    /// A killed process is gone from the moment it starts exiting, though
    /// `/proc` still shows it (here while the kernel frees 800 MB). The
    /// flaw this pins: a restore right after a lost tmux server read the
    /// dying agent as running and skipped its Session.
    #[test]
    fn a_process_that_is_exiting_is_not_alive() {
        let boot = boot_id().unwrap();
        let mut child = started(
            "perl",
            &[
                "-e",
                "$|=1; $x = 'a' x 800_000_000; print qq(ready\n); sleep 60",
            ],
        );
        let identity = ProcessIdentity::of(child.id()).unwrap();
        assert!(identity.is_alive(&boot));
        identity.signal(rustix::process::Signal::KILL);
        let mut seen_exiting = 0;
        while let Some(stat) = read_stat(identity.pid).filter(|stat| stat.state != 'Z') {
            if stat.exiting {
                seen_exiting += 1;
                assert!(!identity.is_alive(&boot), "alive while exiting: {stat:?}");
                assert_eq!(identity.presence(&boot), Presence::Gone);
            }
        }
        child.wait().unwrap();
        assert!(seen_exiting > 0, "the exit was never seen under way");
    }

    #[test]
    fn a_process_ignoring_sigterm_is_killed_after_the_grace() {
        let boot = boot_id().unwrap();
        let mut child = started("sh", &["-c", "trap '' TERM; echo ready; sleep 30 & wait"]);
        let identity = ProcessIdentity::of(child.id()).unwrap();
        assert!(identity.stop(&boot, Duration::from_millis(200)));
        let status = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(rustix::process::Signal::KILL.as_raw())
        );
    }
}
