//! Who is asking. An operation that depends on the person's shell — where
//! they are, which tmux server and pane they are in, which Session's agent
//! they are — reads it from a [`Caller`], never from this process: the
//! Nushell plugin is a long-lived process whose environment and current
//! directory are not the user's. A binary builds its Caller from its own
//! process with [`Caller::from_process`], the one place in the library that
//! reads `std::env` or the current directory; the plugin builds it from the
//! engine with [`Caller::new`].

use crate::Result;
use crate::home::Home;
use crate::input::InputError;
use crate::provider::Provider;
use crate::tmux::Tmux;
use std::path::{Path, PathBuf};

/// The environment variables lf reads for itself; with every agent
/// CLI's [`Provider::config_env`] (the person's own agent configuration),
/// the only ones a Caller knows.
pub const VARIABLES: &[&str] = &[
    // Where the Home is (see `home`).
    crate::home::HOME_ENV,
    "XDG_STATE_HOME",
    "HOME",
    // Who the person is, named in what they do from afar (`session::act`).
    "USER",
    // Where the agent CLIs are installed.
    "PATH",
    // Which tmux server and pane the person is in.
    "TMUX",
    "TMUX_PANE",
    crate::tmux::SOCKET_ENV,
    // Which Session and Run an agent belongs to (set by lf-serve).
    "LF_SESSION_ID",
    "LF_RUN_ID",
    WORKTREES_ENV,
    // How the binaries print errors: `json` for one JSON object.
    "LF_ERROR_FORMAT",
    EVENTS_KEEP_ENV,
    // Test-only: a fixed clock (see `clock::TEST_NOW_ENV`).
    crate::clock::TEST_NOW_ENV,
    // Test-only: a seed for new ids (see `ids::TEST_SEED_ENV`).
    crate::ids::TEST_SEED_ENV,
];

/// Where `lf-session-new --worktree` puts worktrees,
/// `$LF_WORKTREES/<repo>/<name>` (see `session::worktree`).
pub const WORKTREES_ENV: &str = "LF_WORKTREES";

/// How many events of the change stream a Home keeps (see `changes`).
pub const EVENTS_KEEP_ENV: &str = "LF_EVENTS_KEEP";

#[derive(Debug, Clone, Default)]
pub struct Caller {
    cwd: Option<PathBuf>,
    vars: Vec<(&'static str, String)>,
}

impl Caller {
    /// The caller is this process: its environment and current directory.
    pub fn from_process() -> Self {
        Caller::new(std::env::current_dir().ok(), |name| {
            std::env::var(name).ok()
        })
    }

    /// A caller described from outside: its current directory (if known)
    /// and a lookup of its environment. Empty values count as unset.
    pub fn new(cwd: Option<PathBuf>, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let vars = VARIABLES
            .iter()
            .copied()
            .chain(Provider::all_config_env())
            .filter_map(|name| Some((name, lookup(name).filter(|value| !value.is_empty())?)))
            .collect();
        Caller { cwd, vars }
    }

    /// One of [`VARIABLES`], if set and not empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, value)| value.as_str())
    }

    /// The person's own agent configuration as this caller has it (each
    /// of [`Provider::config_env`] that is set): what an agent launched
    /// for this caller gets, whatever environment the tmux server it runs
    /// in was started with.
    pub fn agent_config(&self) -> Vec<(&'static str, String)> {
        Provider::all_config_env()
            .filter_map(|name| Some((name, self.var(name)?.to_owned())))
            .collect()
    }

    /// This caller with a variable set (or, with `None`, unset).
    pub fn with_var(mut self, name: &'static str, value: Option<String>) -> Self {
        self.vars.retain(|(known, _)| *known != name);
        if let Some(value) = value.filter(|value| !value.is_empty()) {
            self.vars.push((name, value));
        }
        self
    }

    /// The caller's current directory, if it has a usable one.
    pub fn cwd(&self) -> Result<&Path> {
        self.cwd.as_deref().ok_or(InputError::NoCurrentDir.into())
    }

    /// A path the caller typed, taken from its current directory.
    pub fn path(&self, typed: &Path) -> Result<PathBuf> {
        if typed.is_absolute() {
            return Ok(typed.to_path_buf());
        }
        Ok(self.cwd()?.join(typed))
    }

    /// The Home this caller names (`$LF_HOME`, else the XDG state folder).
    pub fn home(&self) -> Result<Home> {
        let root = Home::root_from(|name| self.var(name))?;
        Ok(Home::at(self.path(&root)?))
    }

    /// The tmux server this caller uses: `$LF_TMUX_SOCKET`, else the default.
    pub fn tmux(&self) -> Tmux {
        let server = match self.var(crate::tmux::SOCKET_ENV) {
            Some(socket) => Tmux::with_socket(socket),
            None => Tmux::default(),
        };
        server.with_client(self.var("TMUX").map(str::to_owned))
    }

    /// Now, as this caller's clock says: `$LF_TEST_NOW` when a test fixed
    /// it (RFC 3339), else the system's clock.
    pub fn now(&self) -> crate::clock::Timestamp {
        self.var(crate::clock::TEST_NOW_ENV)
            .and_then(crate::clock::Timestamp::parse)
            .unwrap_or_else(crate::clock::Timestamp::now)
    }

    /// A new Session id: random, or the next of `$LF_TEST_SEED`'s sequence
    /// when a test set one (see `ids::TEST_SEED_ENV`).
    pub fn new_session_id(&self) -> crate::ids::SessionId {
        match self.var(crate::ids::TEST_SEED_ENV) {
            Some(seed) => crate::ids::SessionId::seeded(seed),
            None => crate::ids::SessionId::new(),
        }
    }

    /// A new Run id, made now by this caller's clock: random, or the next
    /// of `$LF_TEST_SEED`'s sequence when a test set one.
    pub fn new_run_id(&self) -> crate::ids::RunId {
        match self.var(crate::ids::TEST_SEED_ENV) {
            Some(seed) => {
                let millis = u64::try_from(self.now().micros() / 1000).unwrap_or(0);
                crate::ids::RunId::seeded(seed, millis)
            }
            None => crate::ids::RunId::new(),
        }
    }

    /// Whether the caller runs inside tmux (so "go there" is a switch).
    pub fn in_tmux(&self) -> bool {
        self.var("TMUX").is_some()
    }

    /// The caller's tmux pane (`%N`), if it is in one.
    pub fn tmux_pane(&self) -> Option<&str> {
        self.var("TMUX_PANE")
            .filter(|pane| crate::ids::PaneId::parse(pane).is_some())
    }

    /// An executable of this name on the caller's `PATH`. A relative entry
    /// of PATH is from the caller's directory (not this process's, nor the
    /// one a command will run in), so the path found is absolute whenever
    /// the caller's directory is known.
    pub fn program(&self, name: &str) -> Option<PathBuf> {
        self.var("PATH")?
            .split(':')
            .filter(|dir| !dir.is_empty())
            .filter_map(|dir| Some(self.path(Path::new(dir)).ok()?.join(name)))
            .find(|path| is_executable(path))
    }
}

/// Whether a file is there that exec can run (a file with an execute bit).
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_knows_only_its_own_variables_and_directory() {
        let caller = Caller::new(Some("/work/repo".into()), |name| match name {
            "LF_TMUX_SOCKET" => Some("private".into()),
            "TMUX_PANE" => Some("%12".into()),
            "LF_RUN_ID" => Some(String::new()),
            "SECRET" => Some("never read".into()),
            _ => None,
        });
        assert_eq!(caller.tmux().base_argv(), ["tmux", "-L", "private"]);
        assert_eq!(caller.tmux_pane(), Some("%12"));
        assert_eq!(caller.var("LF_RUN_ID"), None, "empty is unset");
        assert_eq!(caller.var("SECRET"), None, "not one of lf's variables");
        assert!(!caller.in_tmux());
        assert_eq!(
            caller.path(Path::new("sub")).unwrap(),
            Path::new("/work/repo/sub")
        );
        assert!(matches!(
            Caller::new(None, |_| None).cwd(),
            Err(crate::Error::Input(InputError::NoCurrentDir))
        ));
        let bad_pane = caller.with_var("TMUX_PANE", Some("%1; rm".into()));
        assert_eq!(bad_pane.tmux_pane(), None);
    }

    #[test]
    fn a_test_fixes_the_callers_clock_and_nothing_else_does() {
        let fixed = Caller::default().with_var(
            crate::clock::TEST_NOW_ENV,
            Some("2026-12-02T07:00:00Z".into()),
        );
        assert_eq!(fixed.now().to_string(), "2026-12-02T07:00:00.000000Z");
        let before = crate::clock::now_micros();
        let now = Caller::default().now().micros();
        assert!(now >= before, "without it, the system's clock");
        let unreadable =
            Caller::default().with_var(crate::clock::TEST_NOW_ENV, Some("yesterday".into()));
        assert!(unreadable.now().micros() >= before);
    }
}
