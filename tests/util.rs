//! The test harness: a sealed environment per test and helpers that run a
//! binary, show everything about a failure, and decode JSON output.

#![allow(dead_code)]

use lf::wire::SessionRecord;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The path of a built binary of this workspace.
pub fn bin(name: &str) -> PathBuf {
    let path = match name {
        "lf-session-list" => env!("CARGO_BIN_EXE_lf-session-list"),
        "lf-session-active" => env!("CARGO_BIN_EXE_lf-session-active"),
        "lf-session-new" => env!("CARGO_BIN_EXE_lf-session-new"),
        "lf-session-ready" => env!("CARGO_BIN_EXE_lf-session-ready"),
        "lf-session-rename" => env!("CARGO_BIN_EXE_lf-session-rename"),
        "lf-session-complete" => env!("CARGO_BIN_EXE_lf-session-complete"),
        "lf-session-bind" => env!("CARGO_BIN_EXE_lf-session-bind"),
        "lf-work" => env!("CARGO_BIN_EXE_lf-work"),
        "lf-session-open" => env!("CARGO_BIN_EXE_lf-session-open"),
        "lf-serve" => env!("CARGO_BIN_EXE_lf-serve"),
        "lf-hook" => env!("CARGO_BIN_EXE_lf-hook"),
        "lf-primary" => env!("CARGO_BIN_EXE_lf-primary"),
        "lf-flow" => env!("CARGO_BIN_EXE_lf-flow"),
        "lf-session-pick" => env!("CARGO_BIN_EXE_lf-session-pick"),
        "lf-handoff" => env!("CARGO_BIN_EXE_lf-handoff"),
        "lf-session-count" => env!("CARGO_BIN_EXE_lf-session-count"),
        "lf-session-next" => env!("CARGO_BIN_EXE_lf-session-next"),
        "lf-session-watch" => env!("CARGO_BIN_EXE_lf-session-watch"),
        "lf-install-shell" => env!("CARGO_BIN_EXE_lf-install-shell"),
        "lf-session-diff" => env!("CARGO_BIN_EXE_lf-session-diff"),
        "lf-session-restore" => env!("CARGO_BIN_EXE_lf-session-restore"),
        "lf-host" => env!("CARGO_BIN_EXE_lf-host"),
        "lf-session-send" => env!("CARGO_BIN_EXE_lf-session-send"),
        "lf-session-answer" => env!("CARGO_BIN_EXE_lf-session-answer"),
        "lf-session-usage" => env!("CARGO_BIN_EXE_lf-session-usage"),
        // The web crate's binary: built beside these.
        "lf-web" => return built_beside("lf-web", "lf-web"),
        other => panic!("no binary named {other}"),
    };
    PathBuf::from(path)
}

/// A program of another package of the workspace (the plugin, lf-web),
/// built beside the binaries: cargo builds only this package's binaries
/// for its tests, so `cargo build -p PACKAGE` (or scripts/test, which
/// builds the workspace) must have built it.
pub fn built_beside(name: &str, package: &str) -> PathBuf {
    let path = bin("lf-session-list").with_file_name(name);
    assert!(
        path.is_file(),
        "{} is missing: build it with cargo build -p {package} (scripts/test builds the workspace)",
        path.display()
    );
    path
}

/// One sealed environment: a temp dir holding the Home and a work folder,
/// and a private tmux server (killed when the environment is dropped).
pub struct Env {
    pub dir: tempfile::TempDir,
    pub socket: String,
    /// The folder of the agent programs on PATH: the fakes, or the real
    /// CLIs that scripts/test installs.
    pub agents: PathBuf,
    /// More environment for every command and the tmux server (the real
    /// CLIs' model server, their config homes).
    pub vars: Vec<(String, String)>,
}

impl Drop for Env {
    /// Kill everything the private tmux server runs, then the server: the
    /// test is over, and an agent or launcher still writing its state on
    /// the way out would re-create the temp dir after it was removed.
    fn drop(&mut self) {
        let panes = self
            .tmux_command(&["list-panes", "-a", "-F", "#{pane_pid}"])
            .output()
            .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
            .unwrap_or_default();
        let roots: Vec<i32> = panes.lines().filter_map(|pid| pid.parse().ok()).collect();
        let tree = process_tree(&roots);
        for &pid in &tree {
            kill(pid, Signal::KILL);
        }
        let _ = self.tmux_command(&["kill-server"]).output();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while tree.iter().any(|&pid| running(pid)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// These processes and all their descendants, from /proc.
fn process_tree(roots: &[i32]) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid = stat[stat.rfind(')')? + 1..]
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut tree = roots.to_vec();
    let mut index = 0;
    while index < tree.len() {
        let parent = tree[index];
        tree.extend(
            parents
                .iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(pid, _)| *pid),
        );
        index += 1;
    }
    tree
}

/// Whether a process exists and is not a zombie.
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|end| stat[end + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z")
    })
}

/// The real `nu`: `$LF_TEST_NU`, else where scripts/test installs it.
pub fn nu() -> PathBuf {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools/nu/node_modules/@nushell/linux-x64/bin/nu");
    let path = std::env::var_os("LF_TEST_NU")
        .map(PathBuf::from)
        .unwrap_or(installed);
    assert!(
        path.is_file(),
        "nu is missing at {}: run scripts/test, which installs it into .tools/nu",
        path.display()
    );
    path
}

/// The folder of the fake agent programs (`claude`, `codex`).
pub fn fakes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fakes")
}

/// Send a signal to a process (a negative pid: its process group), if it
/// still exists.
pub fn kill(pid: i32, signal: Signal) {
    let target = rustix::process::Pid::from_raw(pid.abs());
    let _ = match target {
        Some(target) if pid < 0 => rustix::process::kill_process_group(target, signal),
        Some(target) => rustix::process::kill_process(target, signal),
        None => Ok(()),
    };
}

pub use rustix::process::Signal;

/// Poll until `probe` returns something, or fail after `seconds` saying
/// what was awaited. A time limit for a failure, not a speed assertion.
pub fn wait_for<T>(what: &str, seconds: u64, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// What a finished command did.
#[derive(Debug)]
pub struct Ran {
    pub argv: Vec<String>,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn describe(&self) -> String {
        format!(
            "argv: {:?}\nexit: {:?}\nstdout:\n{}\nstderr:\n{}",
            self.argv, self.code, self.stdout, self.stderr
        )
    }

    /// Assert success and decode stdout.
    pub fn json<T: DeserializeOwned>(&self) -> T {
        assert_eq!(self.code, Some(0), "command failed\n{}", self.describe());
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not the expected JSON: {error}\n{}",
                self.describe()
            )
        })
    }

    /// Assert success.
    pub fn ok(&self) -> &Self {
        assert_eq!(self.code, Some(0), "command failed\n{}", self.describe());
        self
    }

    /// Assert failure with this exit code, nothing on stdout, and a
    /// message on stderr that names the program; return the message (of a
    /// JSON error, as `Env::attempt` runs a command, its one-line message).
    pub fn fails(&self, code: i32) -> String {
        if self.stderr.starts_with('{') {
            return self.fails_with(code, &self.error_json().error).message;
        }
        assert_eq!(
            self.code,
            Some(code),
            "unexpected exit code\n{}",
            self.describe()
        );
        assert!(
            self.stdout.is_empty(),
            "a failure printed to stdout\n{}",
            self.describe()
        );
        let program = self.program();
        let prefix = format!("{program}: ");
        assert!(
            self.stderr.starts_with(&prefix),
            "stderr does not start with {prefix:?}\n{}",
            self.describe()
        );
        self.stderr[prefix.len()..].trim_end().to_owned()
    }

    /// Assert failure with this exit code and nothing on stdout, and that
    /// stderr is one JSON error (the command ran with
    /// `LF_ERROR_FORMAT=json`, as `Env::attempt` runs it) of the program
    /// and of the variant named `error` (`session_not_found`); return it.
    pub fn fails_with(&self, code: i32, error: &str) -> ErrorJson {
        let decoded = self.error_json();
        assert_eq!(
            (self.code, decoded.error.as_str()),
            (Some(code), error),
            "unexpected exit code or error\n{}",
            self.describe()
        );
        assert_eq!(decoded.code, code, "{}", self.describe());
        assert!(
            self.stdout.is_empty(),
            "a failure printed to stdout\n{}",
            self.describe()
        );
        let program = self.program();
        assert_eq!(decoded.program, program, "{}", self.describe());
        decoded
    }

    /// Whether `text` appears anywhere the command printed, stdout or
    /// stderr: for a secret that must never be shown, whatever the words
    /// around it.
    pub fn shows(&self, text: &str) -> bool {
        self.stdout.contains(text) || self.stderr.contains(text)
    }

    /// The name of the program that ran.
    fn program(&self) -> String {
        Path::new(&self.argv[0])
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// Decode stderr as the one JSON error `LF_ERROR_FORMAT=json` prints.
    pub fn error_json(&self) -> ErrorJson {
        serde_json::from_str(self.stderr.trim()).unwrap_or_else(|error| {
            panic!(
                "stderr is not one JSON error ({error}); run with LF_ERROR_FORMAT=json (Env::attempt)\n{}",
                self.describe()
            )
        })
    }
}

/// An error as `LF_ERROR_FORMAT=json` prints it: every key, no more.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorJson {
    pub program: String,
    /// The variant's stable name (`session_not_found`).
    pub error: String,
    /// The argument the error is about, as its flag is named (`task`).
    pub arg: Option<String>,
    pub kind: lf::ErrorKind,
    pub code: i32,
    /// The whole line a person reads, hint included.
    pub message: String,
    /// What to type next, alone, as the binaries spell it.
    pub hint: Option<String>,
    pub causes: Vec<String>,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        let socket = format!("lf-test-{}", lf::ids::SessionId::new());
        // The fake agents show no start-up dialog: say so in Claude's own
        // state file, as a person's finished onboarding would.
        std::fs::write(
            dir.path().join(".claude.json"),
            r#"{"hasCompletedOnboarding":true,"projects":{"/":{"hasTrustDialogAccepted":true}}}"#,
        )
        .unwrap();
        Env {
            dir,
            socket,
            agents: fakes(),
            vars: Vec::new(),
        }
    }

    /// PATH for every command: the fake agents, the built binaries, the system.
    pub fn path(&self) -> String {
        format!(
            "{}:{}:/usr/bin:/bin",
            self.agents.display(),
            bin("lf-session-list").parent().unwrap().display()
        )
    }

    /// A tmux command on this environment's private server.
    pub fn tmux_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("tmux");
        command
            .env_clear()
            .env("PATH", self.path())
            .env("HOME", self.dir.path())
            .env("TMUX_TMPDIR", self.dir.path())
            .envs(self.vars.iter().map(|(key, value)| (key, value)))
            .args(["-L", &self.socket])
            .args(args)
            .stdin(Stdio::null());
        command
    }

    /// Run tmux on the private server and return its stdout.
    pub fn tmux(&self, args: &[&str]) -> String {
        let output = self.tmux_command(args).output().expect("tmux runs");
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Whether the private server has a session of exactly this name.
    pub fn tmux_has(&self, name: &str) -> bool {
        self.tmux_command(&["has-session", "-t", &format!("={name}")])
            .output()
            .unwrap()
            .status
            .success()
    }

    /// The visible text and history of a pane.
    pub fn capture(&self, pane: &str) -> String {
        self.tmux(&["capture-pane", "-p", "-S", "-", "-t", pane])
    }

    /// What a pane shows now (no history); nothing once the pane is gone.
    pub fn capture_visible(&self, pane: &str) -> String {
        self.tmux_command(&["capture-pane", "-p", "-t", pane])
            .output()
            .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
            .unwrap_or_default()
    }

    /// Type a line into a pane.
    pub fn type_line(&self, pane: &str, text: &str) {
        self.tmux(&["send-keys", "-t", pane, "-l", text]);
        self.tmux(&["send-keys", "-t", pane, "Enter"]);
    }

    /// The lines the fake agents logged, of one kind.
    pub fn agent_log(&self, kind: &str) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.dir.path().join("agent.log"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|entry| entry["kind"] == kind)
            .collect()
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A folder for working directories and worktrees.
    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// Make a directory under the work folder and return its canonical path.
    pub fn mkdir(&self, relative: &str) -> PathBuf {
        let path = self.work().join(relative);
        std::fs::create_dir_all(&path).unwrap();
        std::fs::canonicalize(path).unwrap()
    }

    /// A command for a binary with a cleared environment.
    pub fn command(&self, name: &str) -> Command {
        self.program(bin(name))
    }

    /// Any program, with this environment (cleared, then the Home, the
    /// tmux socket, PATH and the fakes' variables).
    pub fn program(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("PATH", self.path())
            .env("HOME", self.dir.path())
            .env("LF_HOME", self.home())
            .env("LF_TMUX_SOCKET", &self.socket)
            .env("TMUX_TMPDIR", self.dir.path())
            .env("FAKE_AGENT_HOME", self.dir.path().join("fake-agents"))
            .env("FAKE_AGENT_LOG", self.dir.path().join("agent.log"))
            .envs(self.vars.iter().map(|(key, value)| (key, value)))
            .current_dir(self.work())
            .stdin(Stdio::null());
        command
    }

    /// Run `lf-install-shell ARGS` as this environment's user runs it once
    /// `cargo install` has put it in `~/.cargo/bin` (HOME is the temp
    /// folder), so what it installs goes under HOME: the man pages into
    /// `~/.cargo/share/man`, the tmux kit into
    /// `~/.local/share/loopflow/tmux`. The other binaries stay where they
    /// were built, on PATH.
    pub fn install_shell(&self, args: &[&str]) -> Ran {
        let dir = self.dir.path().join(".cargo/bin");
        std::fs::create_dir_all(&dir).unwrap();
        let installer = dir.join("lf-install-shell");
        if !installer.exists() && std::fs::hard_link(bin("lf-install-shell"), &installer).is_err() {
            std::fs::copy(bin("lf-install-shell"), &installer).unwrap();
        }
        let mut command = self.program(&installer);
        command.args(args);
        self.run_command(command)
    }

    pub fn run_command(&self, mut command: Command) -> Ran {
        let argv = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        let Output {
            status,
            stdout,
            stderr,
        } = command.output().expect("spawn the binary");
        Ran {
            argv,
            code: status.code(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    /// A command for a binary whose errors are JSON (`LF_ERROR_FORMAT=json`),
    /// for `Ran::fails_with`.
    pub fn json_errors(&self, name: &str) -> Command {
        let mut command = self.command(name);
        command.env("LF_ERROR_FORMAT", "json");
        command
    }

    /// Run a binary with arguments, its errors as JSON, to match a failure
    /// by its variant with `Ran::fails_with`.
    pub fn attempt(&self, name: &str, args: &[&str]) -> Ran {
        let mut command = self.json_errors(name);
        command.args(args);
        self.run_command(command)
    }

    /// Run a binary with arguments.
    pub fn run(&self, name: &str, args: &[&str]) -> Ran {
        let mut command = self.command(name);
        command.args(args);
        self.run_command(command)
    }

    /// Create a conversation (without launching) and return its record.
    pub fn new_session(&self, args: &[&str]) -> SessionRecord {
        let mut all = vec!["--no-launch"];
        all.extend_from_slice(args);
        self.run("lf-session-new", &all).json()
    }

    pub fn list(&self, args: &[&str]) -> Vec<SessionRecord> {
        self.run("lf-session-list", args).json()
    }

    /// The record of one Session, as listing (with --all) shows it.
    pub fn show(&self, id: &str) -> SessionRecord {
        self.list(&["--all"])
            .into_iter()
            .find(|record| record.id == id)
            .unwrap_or_else(|| panic!("session {id} is not listed"))
    }

    /// The library's view of this Home, for seeding what no binary makes yet.
    pub fn lf(&self) -> lf::Lf {
        lf::Lf::at(lf::Home::at(self.home()), lf::Caller::default())
    }

    /// A raw connection to the database, for checks and seeding.
    pub fn db(&self) -> rusqlite::Connection {
        // Opening the store creates the database (and migrates it).
        self.lf().store().unwrap();
        rusqlite::Connection::open(self.home().join("loopflow.db")).unwrap()
    }

    /// Record a conversation whose Session and Run ids the test chooses
    /// (ids that share a prefix, which lf's random ones almost never do),
    /// as lf-session-new --no-launch records one.
    pub fn seed_conversation(&self, id: &str, run: &str, title: &str) {
        let now = lf::clock::now_micros();
        let db = self.db();
        db.execute(
            "INSERT INTO sessions (id, kind, title, title_source, interactive, cwd, provider, \
             current_run_id, created_at, updated_at) \
             VALUES (?1, 'conversation', ?2, 'human', 1, ?3, 'claude', ?4, ?5, ?5)",
            rusqlite::params![id, title, self.work().to_str().unwrap(), run, now],
        )
        .unwrap();
        db.execute(
            "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', ?3)",
            rusqlite::params![run, id, now],
        )
        .unwrap();
    }

    /// Call `lf-hook PROVIDER` as the agent of `run` would: Claude's
    /// payload on stdin, Codex's notify payload as the last argument.
    pub fn hook(&self, provider: &str, run: Option<&str>, payload: &[u8]) -> Ran {
        use std::io::Write;
        let mut command = self.command("lf-hook");
        command
            .arg(provider)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(Stdio::piped());
        if let Some(run) = run {
            command.env("LF_RUN_ID", run);
        }
        if provider == "codex" {
            command.arg(String::from_utf8_lossy(payload).into_owned());
        }
        let mut child = command.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if provider == "claude" {
            let _ = stdin.write_all(payload);
        }
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        Ran {
            argv: vec![bin("lf-hook").display().to_string(), provider.to_owned()],
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// `lf-session-ready SUMMARY` as the agent of a Session runs it.
    pub fn ready(&self, id: &str, summary: &str) -> Ran {
        let mut command = self.command("lf-session-ready");
        command
            .env("LF_SESSION_ID", id)
            .env("LF_RUN_ID", self.current_run(id))
            .arg(summary);
        self.run_command(command)
    }

    /// The native id lf chose for a Run (Claude's `--session-id`).
    pub fn chosen_native_id(&self, run: &str) -> String {
        self.db()
            .query_row(
                "SELECT chosen_native_id FROM runs WHERE id = ?1",
                [run],
                |row| row.get(0),
            )
            .unwrap()
    }

    /// The current Run of a Session, read from the database.
    /// The pid of a Session's latest client (its agent).
    pub fn agent_pid(&self, session: &str) -> i32 {
        self.db()
            .query_row(
                "SELECT pid FROM clients WHERE session_id = ?1 ORDER BY recorded_at DESC LIMIT 1",
                [session],
                |row| row.get(0),
            )
            .unwrap()
    }

    /// The native id of a Session's current Run, if known.
    pub fn native_id(&self, session: &str) -> Option<String> {
        self.db()
            .query_row(
                "SELECT r.native_id FROM sessions s JOIN runs r ON r.id = s.current_run_id WHERE s.id = ?1",
                [session],
                |row| row.get(0),
            )
            .unwrap()
    }

    /// Whether the current Run of a Session is marked as a resume that
    /// failed (so the next open starts a new conversation).
    pub fn resume_failed(&self, session: &str) -> bool {
        self.db()
            .query_row(
                "SELECT r.resume_failed FROM sessions s JOIN runs r ON r.id = s.current_run_id WHERE s.id = ?1",
                [session],
                |row| row.get(0),
            )
            .unwrap()
    }

    pub fn current_run(&self, session: &str) -> String {
        self.db()
            .query_row(
                "SELECT current_run_id FROM sessions WHERE id = ?1",
                [session],
                |row| row.get(0),
            )
            .unwrap()
    }
}

/// A child process that is killed when dropped.
pub struct Child(pub std::process::Child);

impl Child {
    pub fn sleep() -> Self {
        Child(Command::new("sleep").arg("300").spawn().unwrap())
    }
    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
