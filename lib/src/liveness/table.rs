//! One pass over `/proc`: the parent, scheduler state and start time of
//! every process, from one small read of `/proc/<pid>/stat` each. Only the
//! processes that end up attributed cost more (their `cmdline`), so the
//! snapshot's price is the price of listing process ids.

use crate::Result;
use crate::liveness::LivenessError;
use crate::liveness::parse_stat;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read;

/// What the snapshot needs of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Proc {
    pub ppid: u32,
    /// Scheduler state, field 3: `R`, `S`, `Z`, …
    pub state: char,
    /// `PF_EXITING` (see `ProcStat::exiting`).
    pub exiting: bool,
    /// Field 22: clock ticks since boot.
    pub starttime: u64,
}

impl Proc {
    /// It has exited or is exiting: it is no agent any more.
    pub fn is_dead(&self) -> bool {
        crate::liveness::is_dead(self.state, self.exiting)
    }
}

/// Every process that existed while `/proc` was read, by pid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProcessTable {
    pub procs: HashMap<u32, Proc>,
}

impl ProcessTable {
    /// Read `/proc` once. A process that exits during the walk is simply
    /// missing; only an unreadable `/proc` itself is an error.
    pub fn read() -> Result<Self> {
        let entries = std::fs::read_dir("/proc").map_err(|source| LivenessError::Proc {
            what: "the list of processes in /proc",
            source,
        })?;
        let mut procs = HashMap::with_capacity(1024);
        let mut path = String::with_capacity(32);
        let mut buffer = [0u8; STAT_MAX_BYTES];
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|name| name.parse::<u32>().ok()) else {
                continue;
            };
            path.clear();
            let _ = write!(path, "/proc/{pid}/stat");
            let Some(length) = read_line(&path, &mut buffer) else {
                continue;
            };
            // The command name may hold any bytes; the fields after it are ASCII.
            if let Some(stat) = parse_stat(&String::from_utf8_lossy(&buffer[..length])) {
                procs.insert(
                    pid,
                    Proc {
                        ppid: stat.ppid,
                        state: stat.state,
                        exiting: stat.exiting,
                        starttime: stat.starttime,
                    },
                );
            }
        }
        Ok(ProcessTable { procs })
    }

    pub fn get(&self, pid: u32) -> Option<&Proc> {
        self.procs.get(&pid)
    }

    /// The live children of every process.
    pub fn children(&self) -> HashMap<u32, Vec<u32>> {
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (&pid, proc) in &self.procs {
            if !proc.is_dead() && proc.ppid != pid {
                children.entry(proc.ppid).or_default().push(pid);
            }
        }
        children
    }
}

/// More than a `stat` line can hold: a 16-byte name and 50 numbers.
const STAT_MAX_BYTES: usize = 2048;

/// Read a one-line `/proc` file into `buffer`: open, one read (procfs
/// returns the whole line at once, ending with its newline), close — no
/// size probing, no read to confirm the end.
fn read_line(path: &str, buffer: &mut [u8]) -> Option<usize> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut filled = 0;
    loop {
        let count = file.read(&mut buffer[filled..]).ok()?;
        filled += count;
        if count == 0 || filled == buffer.len() || buffer[filled - 1] == b'\n' {
            return Some(filled);
        }
    }
}

/// The most of `/proc/<pid>/cmdline` a snapshot shows.
pub(crate) const COMMAND_MAX_BYTES: usize = 4096;
pub(crate) const COMMAND_MAX_ITEMS: usize = 64;

/// A process's argv, bounded (see `LiveProcess::command`). Empty when the
/// process is gone or has none.
pub(crate) fn command(pid: u32) -> Vec<String> {
    let mut buffer = [0u8; COMMAND_MAX_BYTES];
    let Ok(mut file) = std::fs::File::open(format!("/proc/{pid}/cmdline")) else {
        return Vec::new();
    };
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(count) => filled += count,
        }
    }
    split_command(&buffer[..filled])
}

/// Split NUL-separated arguments, keeping at most `COMMAND_MAX_ITEMS`.
pub(crate) fn split_command(bytes: &[u8]) -> Vec<String> {
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    if bytes.is_empty() {
        return Vec::new();
    }
    bytes
        .split(|byte| *byte == 0)
        .take(COMMAND_MAX_ITEMS)
        .map(|item| String::from_utf8_lossy(item).into_owned())
        .collect()
}

/// Turns start ticks into wall-clock time: the boot time (`btime` of
/// `/proc/stat`, whole seconds) plus ticks over `CLK_TCK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StartClock {
    pub boot_seconds: i64,
    pub ticks_per_second: u64,
}

impl StartClock {
    pub fn read() -> Result<Self> {
        let text = std::fs::read_to_string("/proc/stat").map_err(|source| LivenessError::Proc {
            what: "/proc/stat",
            source,
        })?;
        let boot_seconds = parse_btime(&text).ok_or(LivenessError::NoBootTime)?;
        let ticks = rustix::param::clock_ticks_per_second();
        Ok(StartClock {
            boot_seconds,
            ticks_per_second: if ticks > 0 { ticks } else { 100 },
        })
    }

    /// Microseconds since the Unix epoch of a start time in ticks.
    pub fn micros(&self, starttime: u64) -> i64 {
        let whole = starttime / self.ticks_per_second;
        let part = starttime % self.ticks_per_second;
        self.boot_seconds * 1_000_000
            + whole as i64 * 1_000_000
            + (part * 1_000_000 / self.ticks_per_second) as i64
    }
}

pub(crate) fn parse_btime(stat: &str) -> Option<i64> {
    stat.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_split_on_nul_and_bounded() {
        assert_eq!(split_command(b"sleep\0x\0"), ["sleep", "x"]);
        assert_eq!(split_command(b"a\0\0b\0"), ["a", "", "b"]);
        assert!(split_command(b"").is_empty());
        assert!(split_command(b"\0").is_empty());
        let many: Vec<u8> = (0..200).flat_map(|_| *b"x\0").collect();
        assert_eq!(split_command(&many).len(), COMMAND_MAX_ITEMS);
        assert_eq!(split_command(b"caf\xc3\xa9\0\xff\0"), ["café", "\u{fffd}"]);
    }

    #[test]
    fn a_long_command_line_is_cut_at_the_bound() {
        let long = "y".repeat(10_000);
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30; exit", &long])
            .spawn()
            .unwrap();
        // A vfork parent resumes before exec has placed the new argv: wait for it.
        let mut command = Vec::new();
        for _ in 0..500 {
            command = super::command(child.id());
            if command.len() > 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(command[..2], ["sh", "-c"]);
        // The separators between items count; the cut item has none after it.
        let bytes = command.iter().map(String::len).sum::<usize>() + command.len() - 1;
        assert_eq!(bytes, COMMAND_MAX_BYTES);
        assert!(command.last().unwrap().len() < long.len());
    }

    #[test]
    fn start_ticks_become_wall_clock_time() {
        let clock = StartClock {
            boot_seconds: 1_700_000_000,
            ticks_per_second: 100,
        };
        assert_eq!(clock.micros(0), 1_700_000_000_000_000);
        assert_eq!(clock.micros(12_345), 1_700_000_123_450_000);
        assert_eq!(
            parse_btime("cpu 1 2\nbtime 1795990676\nprocesses 5\n"),
            Some(1_795_990_676)
        );
        assert_eq!(parse_btime("cpu 1 2\n"), None);
        // This machine: a process started now started about now.
        let clock = StartClock::read().unwrap();
        let own = crate::liveness::read_stat(std::process::id()).unwrap();
        let started = clock.micros(own.starttime);
        let now = crate::clock::now_micros();
        assert!(started <= now + 2_000_000, "{started} > {now}");
        assert!(now - started < 3_600_000_000, "started an hour ago?");
    }

    #[test]
    fn the_walk_sees_this_process_and_its_parent() {
        let table = ProcessTable::read().unwrap();
        let own = table.get(std::process::id()).unwrap();
        assert_eq!(own.ppid, std::os::unix::process::parent_id());
        assert!(!own.is_dead());
        let children = table.children();
        assert!(children[&own.ppid].contains(&std::process::id()));
    }
}
