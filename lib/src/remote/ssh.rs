//! Every ssh lf runs: its argv, the one remote command line it carries,
//! and running many at once within a timeout.
//!
//! ssh is always run with an argv vector, its options first, then `--`,
//! then the (checked) host, then the remote command as ONE argument: ssh
//! joins whatever follows the host into one string for the login shell on
//! the far side, so lf builds that string itself, word by word. Each word
//! is in single quotes, and a word holds no single quote, backslash or
//! control character (lf's own words never do; remote paths are refused
//! with them when the host is added), so it means the same text to sh,
//! dash, bash, zsh and fish alike. A path under `~/` becomes
//! `"$HOME"/'rest'`, which each of them expands the same way.
//!
//! Connections go through an OpenSSH ControlMaster socket lf keeps under
//! `$LF_HOME/ssh` (0700, one socket per destination, `%C`), kept open for
//! ten minutes after its last use, so a second listing pays no handshake.
//! A host whose entry says `control_master: false` gets none of these
//! options, so the person's own `~/.ssh/config` decides.

use crate::Result;
use crate::facade::Lf;
use crate::wire::HostEntry;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a master connection stays after its last client.
const PERSIST: &str = "ControlPersist=600";

/// A socket path longer than this cannot be bound (`sun_path` is 108
/// bytes); `%C` expands to 40 hex characters and ssh adds a temporary
/// suffix while it creates the socket.
const MAX_SOCKET_DIR: usize = 108 - 1 - 40 - 20;

/// How lf reaches one host.
pub(crate) struct Ssh<'a> {
    program: PathBuf,
    entry: &'a HostEntry,
    /// The ControlMaster socket folder, when this host uses one.
    control: Option<PathBuf>,
}

impl Lf {
    pub(crate) fn ssh<'a>(&self, entry: &'a HostEntry) -> Ssh<'a> {
        let dir = self.home().ssh_dir();
        let control = (entry.control_master && usable_socket_dir(&dir)).then_some(dir);
        Ssh {
            program: self
                .caller
                .program("ssh")
                .unwrap_or_else(|| PathBuf::from("ssh")),
            entry,
            control,
        }
    }
}

/// Whether ssh can take this folder in a `ControlPath` option: short
/// enough for a socket, and free of what ssh would expand or split.
fn usable_socket_dir(dir: &Path) -> bool {
    dir.to_str().is_some_and(|text| {
        text.len() <= MAX_SOCKET_DIR
            && !text
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "%\"'\\~".contains(c))
    })
}

/// One word of a remote command line, quoted for any common login shell
/// (see the module docs). `text` has been checked to hold no `'`, `\` or
/// control character; a path under `~/` starts from `$HOME`.
pub(crate) fn word(text: &str) -> String {
    match text.strip_prefix("~/") {
        Some(rest) => format!("\"$HOME\"/'{rest}'"),
        None => format!("'{text}'"),
    }
}

impl Ssh<'_> {
    pub(crate) fn host(&self) -> &str {
        &self.entry.host
    }

    pub(crate) fn entry(&self) -> &HostEntry {
        self.entry
    }

    /// The remote command line that runs one of lf's binaries there with
    /// the host's Home: `env [LF_HOME=…] [LF_ERROR_FORMAT=json] BIN/NAME ARGS`.
    pub(crate) fn remote_line(&self, program: &str, args: &[&str], json_errors: bool) -> String {
        let mut words = vec![word("env")];
        if let Some(home) = &self.entry.home {
            words.push(format!("LF_HOME={}", word(home)));
        }
        if json_errors {
            words.push(word("LF_ERROR_FORMAT=json"));
        }
        words.push(match &self.entry.bin {
            Some(bin) => word(&format!("{bin}/{program}")),
            None => word(program),
        });
        words.extend(args.iter().map(|arg| word(arg)));
        words.join(" ")
    }

    fn control_options(&self) -> Vec<String> {
        let Some(dir) = &self.control else {
            return Vec::new();
        };
        [
            "-o".to_owned(),
            "ControlMaster=auto".to_owned(),
            "-o".to_owned(),
            format!("ControlPath={}/%C", dir.display()),
            "-o".to_owned(),
            PERSIST.to_owned(),
        ]
        .to_vec()
    }

    fn argv(&self, options: &[&str], line: String) -> Vec<String> {
        let mut argv = vec![self.program.display().to_string()];
        argv.extend(options.iter().map(|option| (*option).to_owned()));
        argv.extend(self.control_options());
        argv.extend(["--".to_owned(), self.entry.host.clone(), line]);
        argv
    }

    /// A command for a program, not a person: no terminal, no prompt for a
    /// password or a host key (it would wait for nobody), and a connect
    /// timeout as long as the caller's.
    pub(crate) fn batch_argv(
        &self,
        program: &str,
        args: &[&str],
        timeout: Duration,
    ) -> Vec<String> {
        let connect = format!("ConnectTimeout={}", timeout.as_secs().max(1));
        let line = self.remote_line(program, args, true);
        self.argv(&["-T", "-o", "BatchMode=yes", "-o", &connect], line)
    }

    /// The argv that takes a terminal to a Session there: ssh with a
    /// terminal running `lf-session-open` with the host's Home.
    pub(crate) fn open_argv(&self, args: &[&str]) -> Vec<String> {
        let line = self.remote_line("lf-session-open", args, false);
        self.argv(&["-t"], line)
    }

    /// Close the ControlMaster of this host, if one runs (`ssh -O exit`).
    pub(crate) fn close_master(&self) {
        if self.control.is_none() {
            return;
        }
        let mut argv = vec!["-O".to_owned(), "exit".to_owned()];
        argv.extend(self.control_options());
        argv.extend(["--".to_owned(), self.entry.host.clone()]);
        let _ = Command::new(&self.program)
            .args(&argv)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// Make the socket folder exist, private, before ssh binds in it.
    pub(crate) fn prepare(&self) -> Result<()> {
        match &self.control {
            Some(dir) => crate::home::create_private_dir(dir),
            None => Ok(()),
        }
    }
}

/// How one ssh ended.
pub(crate) struct Finished<T> {
    pub status: ExitStatus,
    pub stdout: T,
    /// The end of what it wrote on stderr (the last 16 KiB).
    pub stderr: String,
}

/// Why one ssh did not finish.
pub(crate) enum NotFinished {
    Spawn(std::io::Error),
    /// It was still running at the deadline, and was killed.
    Timeout,
    /// Its host sent more than lf takes, and it was killed.
    Exceeded(Exceeded),
}

/// A host's answer went past one of lf's bounds: `bound` says which, for
/// a message ("1 MiB for one Session"), and `advice` what a person can do.
pub(crate) struct Exceeded {
    pub bound: String,
    pub advice: &'static str,
}

/// The most lf reads of one host's stdout, and what to tell a person
/// whose host sent more.
#[derive(Clone, Copy)]
pub(crate) struct Limit {
    pub bytes: u64,
    pub advice: &'static str,
}

/// The most one record may take on the wire, wherever lf reads one from a
/// host. The largest record lf itself writes is far smaller: its longest
/// field is a ready summary of at most 20,000 characters (80 KB of UTF-8
/// at worst); paths, titles and actions add a few KB. 1 MiB leaves room
/// for many times that and still keeps a flooding host to one megabyte.
pub(crate) const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// A bound of bytes, for a message.
pub(crate) fn mebibytes(bytes: u64) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}

const STDERR_KEPT: usize = 16 * 1024;

/// Run these argvs at once, each reading its stdout with `read` on a
/// thread of its own, and give each one's outcome, in order. Whatever has
/// not finished when `timeout` has passed since the start is killed, so
/// this returns within the timeout (and the moment it takes to kill).
///
/// What a host sends is bounded: `read` sees at most `limit.bytes` of it
/// (one byte more tells that there was more), and may stop early itself
/// with [`Exceeded`] (too many rows). Either way that ssh is killed at
/// once rather than awaited: a host that floods would otherwise keep it
/// writing until the deadline, and its stderr open.
pub(crate) fn run_all<T: Send + 'static>(
    jobs: Vec<Vec<String>>,
    timeout: Duration,
    limit: Limit,
    read: impl Fn(&mut dyn BufRead) -> Result<T, Exceeded> + Send + Sync + Clone + 'static,
) -> Vec<Result<Finished<T>, NotFinished>> {
    let deadline = Instant::now() + timeout;
    let (sender, inbox) = mpsc::channel();
    let mut children = Vec::with_capacity(jobs.len());
    let mut outcomes: Vec<Option<Result<Finished<T>, NotFinished>>> = Vec::new();
    for (index, argv) in jobs.iter().enumerate() {
        outcomes.push(None);
        let spawned = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => {
                outcomes[index] = Some(Err(NotFinished::Spawn(error)));
                children.push(None);
                continue;
            }
        };
        if let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) {
            let sender = sender.clone();
            let read = read.clone();
            std::thread::spawn(move || {
                let tail = std::thread::spawn(move || tail(stderr));
                let stdout = read_bounded(stdout, limit, &read);
                // Past a bound the ssh is killed before its stderr ends.
                let sent = match stdout {
                    Ok(stdout) => Ok((stdout, tail.join().unwrap_or_default())),
                    Err(exceeded) => Err(exceeded),
                };
                let _ = sender.send((index, sent));
            });
        }
        children.push(Some(child));
    }
    drop(sender);
    let mut pending = children.iter().filter(|child| child.is_some()).count();
    while pending > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok((index, sent)) = inbox.recv_timeout(left) else {
            break;
        };
        pending -= 1;
        let Some(mut child) = children[index].take() else {
            continue;
        };
        let (stdout, stderr) = match sent {
            Ok(sent) => sent,
            Err(exceeded) => {
                let _ = child.kill();
                let _ = child.wait();
                outcomes[index] = Some(Err(NotFinished::Exceeded(exceeded)));
                continue;
            }
        };
        // Its output ended: it is exiting now, or is killed at the deadline.
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => break None,
            }
        };
        outcomes[index] = Some(match status {
            Some(status) => Ok(Finished {
                status,
                stdout,
                stderr,
            }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(NotFinished::Timeout)
            }
        });
    }
    for (index, child) in children.iter_mut().enumerate() {
        if let Some(mut child) = child.take() {
            let _ = child.kill();
            let _ = child.wait();
            outcomes[index] = Some(Err(NotFinished::Timeout));
        }
    }
    outcomes
        .into_iter()
        .map(|outcome| outcome.unwrap_or(Err(NotFinished::Timeout)))
        .collect()
}

/// What `read` makes of at most `limit.bytes` of a stdout; more is
/// `Exceeded`, whatever `read` said of the part it saw.
fn read_bounded<T>(
    stdout: ChildStdout,
    limit: Limit,
    read: impl Fn(&mut dyn BufRead) -> Result<T, Exceeded>,
) -> Result<T, Exceeded> {
    let mut bounded = BufReader::new(stdout.take(limit.bytes.saturating_add(1)));
    let made = read(&mut bounded);
    if bounded.get_ref().limit() == 0 {
        return Err(Exceeded {
            bound: mebibytes(limit.bytes),
            advice: limit.advice,
        });
    }
    made
}

/// The last `STDERR_KEPT` bytes of a stream, as text.
fn tail(mut stream: impl Read) -> String {
    let mut kept: Vec<u8> = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(count) = stream.read(&mut buffer) {
        if count == 0 {
            break;
        }
        kept.extend_from_slice(&buffer[..count]);
        if kept.len() > 2 * STDERR_KEPT {
            kept.drain(..kept.len() - STDERR_KEPT);
        }
    }
    if kept.len() > STDERR_KEPT {
        kept.drain(..kept.len() - STDERR_KEPT);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// What a remote lf said when it failed (`LF_ERROR_FORMAT=json`).
pub(crate) struct Reported {
    pub kind: crate::error::domain::ErrorKind,
    /// Escaped for a terminal (`error::host_text`).
    pub message: String,
    /// Its error's stable name (`session_not_found`), when it gave one
    /// that is a snake_case word.
    pub name: Option<String>,
}

/// What a remote lf said when it failed, when its stderr ends with such an
/// object. The message is escaped for a terminal here, where it enters lf,
/// so no message that embeds it can show it raw; a name that is not a
/// plain snake_case word (as every lf error's is) is dropped, never shown.
pub(crate) fn remote_error(stderr: &str) -> Option<Reported> {
    #[derive(serde::Deserialize)]
    struct Said {
        kind: crate::error::domain::ErrorKind,
        message: String,
        #[serde(default)]
        error: Option<String>,
    }
    let line = stderr.lines().rev().find(|line| !line.trim().is_empty())?;
    let said: Said = serde_json::from_str(line).ok()?;
    Some(Reported {
        kind: said.kind,
        message: crate::error::untrusted::host_text(&said.message),
        name: said.error.filter(|name| is_error_name(name)),
    })
}

/// Whether `text` can be an lf error's name: a snake_case word of at most
/// 64 characters (`session_not_found`).
fn is_error_name(text: &str) -> bool {
    let mut chars = text.chars();
    text.len() <= 64
        && chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The last thing ssh (or the remote shell) said, bounded and escaped for
/// a message.
pub(crate) fn last_words(stderr: &str) -> String {
    let line = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("no message");
    crate::error::untrusted::host_text(line)
}

/// ssh's own failure: it exits with 255 when it could not connect or log
/// in (or the connection broke).
pub(crate) const SSH_FAILED: i32 = 255;

/// A command the remote shell could not find (127) or run (126).
pub(crate) fn not_installed(code: i32) -> bool {
    code == 127 || code == 126
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> HostEntry {
        HostEntry {
            host: "box".into(),
            home: Some("/srv/lf home".into()),
            bin: Some("~/.cargo/bin".into()),
            control_master: true,
        }
    }

    #[test]
    fn the_remote_line_is_quoted_word_by_word() {
        let entry = entry();
        let ssh = Ssh {
            program: "/usr/bin/ssh".into(),
            entry: &entry,
            control: Some("/h/ssh".into()),
        };
        assert_eq!(
            ssh.remote_line("lf-session-list", &["--jsonl", "--state", "ready"], true),
            "'env' LF_HOME='/srv/lf home' 'LF_ERROR_FORMAT=json' \"$HOME\"/'.cargo/bin/lf-session-list' '--jsonl' '--state' 'ready'"
        );
        let argv = ssh.open_argv(&["0123456789abcdef0123456789abcdef"]);
        assert_eq!(argv[0], "/usr/bin/ssh");
        assert_eq!(argv[1], "-t");
        assert!(argv.contains(&"ControlPath=/h/ssh/%C".to_owned()));
        let dashes = argv.iter().position(|arg| arg == "--").unwrap();
        assert_eq!(argv[dashes + 1], "box");
        assert_eq!(argv.len(), dashes + 3, "one remote command line");
    }

    #[test]
    fn the_line_means_the_same_to_a_real_shell() {
        let entry = HostEntry {
            bin: Some("/opt/lf bin".into()),
            ..entry()
        };
        let ssh = Ssh {
            program: "ssh".into(),
            entry: &entry,
            control: None,
        };
        let line = ssh.remote_line("lf-session-list", &["--state", "a b;c $(x)"], true);
        // `printf` in place of env shows the words the shell made.
        let line = line.replacen("'env'", "printf '<%s>'", 1);
        let output = Command::new("sh").args(["-c", &line]).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "<LF_HOME=/srv/lf home><LF_ERROR_FORMAT=json></opt/lf bin/lf-session-list><--state><a b;c $(x)>"
        );
    }

    #[test]
    fn sockets_need_a_short_plain_folder() {
        assert!(usable_socket_dir(Path::new(
            "/home/me/.local/state/loopflow/ssh"
        )));
        assert!(!usable_socket_dir(Path::new("/a b/ssh")));
        assert!(!usable_socket_dir(Path::new("/a%h/ssh")));
        assert!(!usable_socket_dir(&Path::new("/").join("x".repeat(60))));
    }

    #[test]
    fn a_job_that_hangs_is_killed_at_the_deadline() {
        let jobs = vec![
            vec!["sh".to_owned(), "-c".to_owned(), "echo hi".to_owned()],
            vec!["sleep".to_owned(), "30".to_owned()],
            vec!["/nonexistent/ssh".to_owned()],
        ];
        let limit = Limit {
            bytes: 1024,
            advice: "",
        };
        let outcomes = run_all(jobs, Duration::from_millis(300), limit, |out| {
            let mut text = String::new();
            let _ = out.read_to_string(&mut text);
            Ok(text)
        });
        assert!(matches!(&outcomes[0], Ok(done) if done.stdout == "hi\n" && done.status.success()));
        assert!(matches!(outcomes[1], Err(NotFinished::Timeout)));
        assert!(matches!(outcomes[2], Err(NotFinished::Spawn(_))));
    }

    #[test]
    fn a_job_that_floods_is_killed_at_its_bound() {
        let started = Instant::now();
        let limit = Limit {
            bytes: MAX_RECORD_BYTES,
            advice: "stop",
        };
        // `yes` never ends: only the bounds end these two.
        let jobs = vec![vec!["yes".to_owned()], vec!["yes".to_owned()]];
        let outcomes = run_all(jobs.clone(), Duration::from_secs(60), limit, |out| {
            let mut text = String::new();
            let _ = out.read_to_string(&mut text);
            Ok(text)
        });
        for outcome in &outcomes {
            assert!(
                matches!(outcome, Err(NotFinished::Exceeded(e)) if e.bound == "1 MiB" && e.advice == "stop")
            );
        }
        // A reader that stops by itself (too many rows) has it killed too.
        let outcomes = run_all(jobs, Duration::from_secs(60), limit, |out| {
            let _ = out.lines().nth(10);
            Err::<(), _>(Exceeded {
                bound: "10 rows".to_owned(),
                advice: "",
            })
        });
        assert!(matches!(&outcomes[0], Err(NotFinished::Exceeded(e)) if e.bound == "10 rows"));
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "not the deadline"
        );
    }

    #[test]
    fn a_remote_error_is_escaped_where_it_enters() {
        let stderr =
            "motd\n{\"kind\": \"not_found\", \"message\": \"no \\u001b]2;x\\u0007\\u202e\"}\n";
        let reported = remote_error(stderr).unwrap();
        assert_eq!(reported.kind, crate::error::domain::ErrorKind::NotFound);
        assert_eq!(reported.message, "no \\u{1b}]2;x\\u{7}\\u{202e}");
        assert_eq!(reported.name, None);
        assert_eq!(last_words("a\n \u{1b}[2J \n\n"), "\\u{1b}[2J");
    }

    #[test]
    fn a_remote_error_keeps_its_name_only_when_it_is_a_snake_case_word() {
        let said = |name: &str| {
            let line = serde_json::json!({"kind": "conflict", "message": "m", "error": name});
            remote_error(&line.to_string()).unwrap().name
        };
        assert_eq!(
            said("already_complete").as_deref(),
            Some("already_complete")
        );
        let long = "x".repeat(65);
        for bad in [
            "",
            "Already",
            "a-b",
            "a b",
            "\u{1b}[2J",
            "_x",
            "1x",
            long.as_str(),
        ] {
            assert_eq!(said(bad), None, "{bad:?}");
        }
    }
}
