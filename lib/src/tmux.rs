//! The one place that talks to tmux. Every call is an argv vector (never a
//! shell string) with exact targets: sessions as `=NAME`, panes by id.
//! `LF_TMUX_SOCKET` selects a tmux server by socket name (`-L`), or by a
//! socket path when it holds a `/` (`-S`); tests use it to run a private
//! server each and never touch the user's.
//!
//! An argv is not enough where tmux itself interprets an argument: it
//! expands formats (`#{…}`, and `#(…)`, which runs a shell command) in
//! some of them, `new-session -c` among them. Text lf did not write (a
//! folder's name: a cloned repository chooses it) reaches such an argument
//! only through [`literal`]. The others lf passes (`-e`, the command's
//! argv, `-t` targets) are taken as they are; a test holds both.

use crate::error::domain::Arg;
use crate::error::domain::{Domain, ErrorKind};
use crate::error::hint::Hint;
use crate::ids::{PaneId, SessionId};
use crate::input::InputError;
use crate::{Error, Result};
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub const SOCKET_ENV: &str = "LF_TMUX_SOCKET";

/// A tmux server, as one caller reaches it (see `Caller::tmux`).
#[derive(Debug, Clone, Default)]
pub struct Tmux {
    socket: Option<String>,
    /// The caller's `$TMUX` when it runs inside tmux: which server and
    /// client "go there" switches.
    client: Option<String>,
}

/// The durable tmux session of an lf Session: `lf-` and 12 id characters.
pub fn session_name(id: &SessionId) -> String {
    format!("lf-{}", &id.as_str()[..12])
}

/// Text for an argument tmux expands formats in, meaning exactly itself:
/// every `#` doubled (`##` is tmux's own escape for one `#`), so no `#{…}`
/// or `#(…)` inside is read as a format or run.
pub fn literal(text: &str) -> String {
    text.replace('#', "##")
}

/// An argument as tmux's command parser must get it to mean exactly
/// itself: tmux reads an argument that ends in `;` as that argument and
/// the end of the command (its separator), so a text typed, a folder or a
/// title ending in `;` would lose it; `\;` at the end is tmux's escape for
/// a literal one.
fn argument(arg: &str) -> std::borrow::Cow<'_, str> {
    match arg.strip_suffix(';') {
        Some(rest) => format!("{rest}\\;").into(),
        None => arg.into(),
    }
}

impl Tmux {
    pub fn with_socket(socket: impl Into<String>) -> Self {
        Tmux {
            socket: Some(socket.into()),
            client: None,
        }
    }

    /// This server as seen by a caller inside tmux, whose `$TMUX` says
    /// which client to switch.
    pub fn with_client(mut self, client: Option<String>) -> Self {
        self.client = client;
        self
    }

    /// The tmux argv prefix: `tmux [-L name | -S path]`.
    pub fn base_argv(&self) -> Vec<String> {
        let mut argv = vec!["tmux".to_owned()];
        if let Some(socket) = &self.socket {
            let flag = if socket.contains('/') { "-S" } else { "-L" };
            argv.extend([flag.to_owned(), socket.clone()]);
        }
        argv
    }

    /// Every tmux command lf runs: each argument as [`argument`] makes it
    /// mean itself.
    fn command(&self, args: &[&str]) -> Command {
        let base = self.base_argv();
        let mut command = Command::new(&base[0]);
        command
            .args(&base[1..])
            .args(args.iter().map(|arg| argument(arg).into_owned()))
            .stdin(Stdio::null());
        command
    }

    fn output(&self, args: &[&str]) -> Result<Output> {
        self.command(args).output().map_err(not_run)
    }

    fn run(&self, args: &[&str], what: &str) -> Result<()> {
        self.succeeded(args, what).map(drop)
    }

    /// The output of a tmux command that must succeed; `what` says what
    /// failed otherwise, beside tmux's own words.
    fn succeeded(&self, args: &[&str], what: &str) -> Result<Output> {
        let output = self.output(args)?;
        if output.status.success() {
            return Ok(output);
        }
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        Err(TmuxError::Tmux {
            what: what.to_owned(),
            stderr,
        }
        .into())
    }

    /// Whether a tmux session of exactly this name exists. A server that is
    /// not running has no sessions.
    pub fn has_session(&self, name: &str) -> Result<bool> {
        let target = format!("={name}");
        let output = self.output(&["has-session", "-t", &target])?;
        Ok(output.status.success())
    }

    /// Start a detached session running `argv` (no shell) in `cwd`. A
    /// command that dies at once takes its session with it: the caller
    /// waits for the launcher (`Lf::started`), which tells that apart, with
    /// the launcher's log, so no second look is spent here.
    pub fn new_session(
        &self,
        name: &str,
        cwd: &Path,
        env: &[(&str, String)],
        argv: &[String],
    ) -> Result<()> {
        let cwd = cwd.to_str().ok_or_else(|| InputError::NotUtf8 {
            arg: Arg::Cwd,
            what: "working directory",
            path: cwd.to_path_buf(),
        })?;
        let cwd = literal(cwd);
        let mut args: Vec<String> = [
            "new-session",
            "-d",
            "-s",
            name,
            "-c",
            &cwd,
            "-x",
            "200",
            "-y",
            "50",
        ]
        .map(str::to_owned)
        .to_vec();
        for (key, value) in env {
            args.extend(["-e".to_owned(), format!("{key}={value}")]);
        }
        args.push("--".to_owned());
        args.extend(argv.iter().cloned());
        let borrowed: Vec<&str> = args.iter().map(String::as_str).collect();
        // A server whose last session was just killed (Move here stops the
        // old one) exits on its own a moment later; a new-session that
        // reaches it then fails with "server exited unexpectedly". The next
        // attempt starts a fresh server.
        let mut attempts = 0;
        loop {
            let output = self.output(&borrowed)?;
            if output.status.success() {
                break;
            }
            let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
            attempts += 1;
            if attempts < 5 && stderr.contains("server exited unexpectedly") {
                std::thread::sleep(std::time::Duration::from_millis(50));
                continue;
            }
            // tmux refuses a second session of a name, atomically.
            if stderr.starts_with("duplicate session") {
                return Err(TmuxError::TmuxSessionExists(name.to_owned()).into());
            }
            return Err(TmuxError::Tmux {
                what: format!("cannot start the tmux session {name}"),
                stderr,
            }
            .into());
        }
        Ok(())
    }

    /// The names of every session of this server (none when no server
    /// runs): one look for many sessions.
    pub fn session_names(&self) -> Result<std::collections::HashSet<String>> {
        let output = self.output(&["list-sessions", "-F", "#{session_name}"])?;
        if !output.status.success() {
            return Ok(Default::default());
        }
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect())
    }

    /// What a pane shows now, its colours as SGR escapes (`capture-pane -p
    /// -e`). The text is whatever the pane's program printed: untrusted.
    pub fn capture_pane(&self, pane: &PaneId) -> Result<String> {
        let args = ["capture-pane", "-p", "-e", "-t", pane.as_str()];
        let output = self.succeeded(&args, &format!("cannot show the pane {pane}"))?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Type `text` into a pane as it is (`send-keys -l`, after `--`): no
    /// word of it is read as a key name or a flag. The caller checks the
    /// text holds no control character (a newline would submit early).
    pub fn type_text(&self, pane: &PaneId, text: &str) -> Result<()> {
        self.run(
            &["send-keys", "-t", pane.as_str(), "-l", "--", text],
            &format!("cannot type into the pane {pane}"),
        )
    }

    /// Press keys in a pane, each a tmux key name (`Enter`, `Escape`, `y`).
    pub fn press(&self, pane: &PaneId, keys: &[&str]) -> Result<()> {
        let mut args = vec!["send-keys", "-t", pane.as_str(), "--"];
        args.extend_from_slice(keys);
        self.run(&args, &format!("cannot press keys in the pane {pane}"))
    }

    /// Open a window in the caller's tmux session running `argv` (no
    /// shell), and show it: how a person inside tmux reaches a Session of
    /// another machine, whose ssh runs in that window.
    pub fn new_window(&self, argv: &[String]) -> Result<()> {
        let mut args = vec!["new-window", "--"];
        args.extend(argv.iter().map(String::as_str));
        let mut command = self.command(&args);
        if let Some(client) = &self.client {
            command.env("TMUX", client);
        }
        let output = command.output().map_err(not_run)?;
        if output.status.success() {
            return Ok(());
        }
        Err(TmuxError::Tmux {
            what: "cannot open a tmux window".to_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        }
        .into())
    }

    pub fn kill_session(&self, name: &str) -> Result<()> {
        if !self.has_session(name)? {
            return Ok(());
        }
        let target = format!("={name}");
        let killed = self.run(
            &["kill-session", "-t", &target],
            &format!("cannot stop the tmux session {name}"),
        );
        // It may have ended by itself in between (its launcher exits when
        // its agent was stopped): gone is what was asked for.
        match killed {
            Err(_) if !self.has_session(name)? => Ok(()),
            killed => killed,
        }
    }

    /// The tmux session the caller's client shows, when the caller is
    /// inside tmux (on this server).
    pub fn current_session(&self) -> Option<String> {
        let client = self.client.as_ref()?;
        let output = self
            .command(&["display-message", "-p", "#{session_name}"])
            .env("TMUX", client)
            .output()
            .ok()?;
        let name = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        (output.status.success() && !name.is_empty()).then_some(name)
    }

    /// Take the caller's terminal to a session: `switch-client` inside tmux
    /// (the caller's client, named by its `$TMUX`), `attach-session`
    /// outside (which returns when the person detaches).
    pub fn go_to(&self, name: &str) -> Result<()> {
        let target = format!("={name}");
        if let Some(client) = &self.client {
            let output = self
                .command(&["switch-client", "-t", &target])
                .env("TMUX", client)
                .output()
                .map_err(not_run)?;
            if output.status.success() {
                return Ok(());
            }
            return Err(TmuxError::Tmux {
                what: format!("cannot switch to {name}"),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            }
            .into());
        }
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(TmuxError::NotATerminal {
                name: name.to_owned(),
                attach: Hint::text(format!(
                    "run {} attach-session -t ={name}",
                    self.base_argv().join(" ")
                )),
            }
            .into());
        }
        let status = self
            .command(&["attach-session", "-t", &target])
            .stdin(Stdio::inherit())
            .status()
            .map_err(not_run)?;
        if status.success() {
            Ok(())
        } else {
            Err(TmuxError::AttachFailed(name.to_owned()).into())
        }
    }
}

fn not_run(error: std::io::Error) -> Error {
    if error.kind() == std::io::ErrorKind::NotFound {
        TmuxError::NoTmux.into()
    } else {
        TmuxError::TmuxFailed(error).into()
    }
}

/// tmux: not installed, failed, or a terminal it cannot attach.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum TmuxError {
    #[error(
        "tmux is not installed (or not on PATH): lf runs agents in tmux sessions; install tmux"
    )]
    NoTmux,
    #[error("cannot run tmux")]
    TmuxFailed(#[source] std::io::Error),
    #[error("{what}: tmux said: {stderr}")]
    Tmux { what: String, stderr: String },
    #[error("the tmux session {0} exists already: another process launched it")]
    TmuxSessionExists(String),
    #[error("tmux could not attach to {0}")]
    AttachFailed(String),
    /// `attach` says how to attach from a terminal.
    #[error("cannot attach to the tmux session {name}: this is not a terminal")]
    NotATerminal { name: String, attach: Hint },
}

impl Domain for TmuxError {
    fn kind(&self) -> ErrorKind {
        use TmuxError::*;
        match self {
            NoTmux | TmuxFailed(..) | Tmux { .. } | TmuxSessionExists(..) | AttachFailed(..) => {
                ErrorKind::Operational
            }
            NotATerminal { .. } => ErrorKind::Usage,
        }
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            TmuxError::NotATerminal { attach, .. } => Some(attach.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A private tmux server whose socket is in a temp dir of its own
    /// (issue 26: a `-L` name put it in the user's own socket folder); the
    /// folder lives as long as the server.
    struct Server(Tmux, #[allow(dead_code)] tempfile::TempDir);

    impl Server {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let socket = dir.path().join("tmux").display().to_string();
            Server(Tmux::with_socket(socket), dir)
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let base = self.0.base_argv();
            let _ = Command::new(&base[0])
                .args(&base[1..])
                .arg("kill-server")
                .output();
        }
    }

    /// Issue 34, item 8: tmux took a trailing `;` as its command separator.
    #[test]
    fn r34_a_text_that_ends_in_a_semicolon_is_typed_whole() {
        let server = Server::new();
        let tmux = &server.0;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("dir;");
        std::fs::create_dir(&folder).unwrap();
        let argv = ["sh".to_owned(), "-c".to_owned(), "cat; sleep 30".to_owned()];
        tmux.new_session("semi", &folder, &[], &argv).unwrap();
        let output = tmux
            .output(&["display-message", "-p", "-t", "=semi:", "#{pane_id}"])
            .unwrap();
        let pane = PaneId::parse(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
        tmux.type_text(&pane, "ends with semicolon;").unwrap();
        tmux.type_text(&pane, "\\;").unwrap();
        tmux.press(&pane, &["Enter"]).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let shown = loop {
            let shown = tmux.capture_pane(&pane).unwrap();
            if shown.contains("ends with semicolon;\\;") || std::time::Instant::now() > deadline {
                break shown;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(shown.contains("ends with semicolon;\\;"), "{shown}");
        let output = tmux
            .output(&[
                "display-message",
                "-p",
                "-t",
                "=semi:",
                "#{pane_current_path}",
            ])
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).trim(),
            folder.canonicalize().unwrap().display().to_string()
        );
    }

    #[test]
    fn a_socket_with_a_slash_is_a_path() {
        assert_eq!(
            Tmux::with_socket("lf-x").base_argv(),
            ["tmux", "-L", "lf-x"]
        );
        assert_eq!(
            Tmux::with_socket("/run/lf/tmux").base_argv(),
            ["tmux", "-S", "/run/lf/tmux"]
        );
    }

    #[test]
    fn names_are_derived_from_the_id() {
        let id = SessionId::parse("0123456789abcdef0123456789abcdef").unwrap();
        assert_eq!(session_name(&id), "lf-0123456789ab");
    }

    /// Issue 20: a folder named `x#(touch PWNED)y` ran `touch PWNED` when a
    /// session started in it, and the agent started elsewhere.
    #[test]
    fn a_folder_name_is_never_a_format() {
        let server = Server::new();
        let dir = tempfile::tempdir().unwrap();
        // Harmless if run: the folder the agent starts in shows the bug.
        let folder = dir.path().join("x#(echo ran)#{pane_id}y");
        std::fs::create_dir(&folder).unwrap();
        let out = dir.path().join("out");
        let argv = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            "printf '%s\\n' \"$(pwd)\" \"$LF_PROBE\" \"$1\" > \"$2\"; sleep 30".to_owned(),
            "sh".to_owned(),
            "#(echo ran)".to_owned(),
            out.display().to_string(),
        ];
        let env = [("LF_PROBE", "#{pane_id}".to_owned())];
        server.0.new_session("lf-f", &folder, &env, &argv).unwrap();
        for _ in 0..300 {
            if std::fs::read_to_string(&out).is_ok_and(|text| text.lines().count() == 3) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let canonical = std::fs::canonicalize(&folder).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            format!("{}\n#{{pane_id}}\n#(echo ran)\n", canonical.display())
        );
    }

    #[test]
    fn sessions_start_with_argv_and_are_found_exactly() {
        let server = Server::new();
        let tmux = &server.0;
        assert!(
            !tmux.has_session("lf-x").unwrap(),
            "no server yet means no session"
        );
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let argv = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            "echo \"$LF_PROBE $(pwd)\" > out; sleep 30".to_owned(),
        ];
        tmux.new_session(
            "lf-x",
            dir.path(),
            &[("LF_PROBE", "a b;c".to_owned())],
            &argv,
        )
        .unwrap();
        assert!(tmux.has_session("lf-x").unwrap());
        assert!(
            !tmux.has_session("lf").unwrap(),
            "targets are exact, not prefixes"
        );
        for _ in 0..200 {
            if out.exists() && std::fs::read_to_string(&out).unwrap().ends_with('\n') {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let canonical = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap().trim(),
            format!("a b;c {}", canonical.display())
        );
        tmux.kill_session("lf-x").unwrap();
        assert!(!tmux.has_session("lf-x").unwrap());
    }
}
