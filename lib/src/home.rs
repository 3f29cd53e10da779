//! The Home: the one private directory that holds lf's data —
//! `loopflow.db` (the single source of truth), `runs/<run-id>/` for per-run
//! files and `locks/` for cross-process locks. Every binary and the plugin
//! find it the same way: `$LF_HOME`, else
//! `${XDG_STATE_HOME:-$HOME/.local/state}/loopflow`.

use crate::error::{Context, Error, Result};
use crate::ids::RunId;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub const HOME_ENV: &str = "LF_HOME";
pub const DATABASE_FILE: &str = "loopflow.db";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// The Home named by the environment of this process.
    pub fn from_env() -> Result<Self> {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// The Home named by an environment given as a lookup (the Nushell
    /// plugin passes the engine's environment, not its own process's).
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<Self> {
        let set = |name: &str| {
            var(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        let root = if let Some(home) = set(HOME_ENV) {
            home
        } else if let Some(state) = set("XDG_STATE_HOME") {
            state.join("loopflow")
        } else if let Some(home) = set("HOME") {
            home.join(".local/state/loopflow")
        } else {
            return Err(Error::usage(
                "cannot find the lf Home: set LF_HOME (or HOME) to choose where lf keeps its data",
            ));
        };
        Self::at(root)
    }

    /// A Home at an explicit directory; relative paths are made absolute so
    /// that `open_argv` carries a location valid from any directory.
    pub fn at(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        let root = if root.is_absolute() {
            root
        } else {
            std::env::current_dir()
                .context("cannot resolve the relative LF_HOME")?
                .join(root)
        };
        Ok(Home { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn database(&self) -> PathBuf {
        self.root.join(DATABASE_FILE)
    }
    pub fn locks(&self) -> PathBuf {
        self.root.join("locks")
    }
    pub fn runs(&self) -> PathBuf {
        self.root.join("runs")
    }
    /// The directory of one Run. The id is already validated by its type,
    /// so it cannot climb out of `runs/`.
    pub fn run_dir(&self, run: &RunId) -> PathBuf {
        self.runs().join(run.as_str())
    }
    pub fn hook_log(&self) -> PathBuf {
        self.root.join("hook.log")
    }

    /// Create the Home and its folders, private to this user (0700).
    pub fn ensure(&self) -> Result<()> {
        for dir in [self.root.clone(), self.locks(), self.runs()] {
            if dir.is_dir() {
                continue;
            }
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
                .with_context_path("cannot create the lf Home folder", &dir)?;
            // The mode passed to mkdir is filtered by the umask; set it exactly.
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .with_context_path("cannot make the lf Home folder private", &dir)?;
        }
        Ok(())
    }
}

trait PathContext<T> {
    fn with_context_path(self, what: &str, path: &Path) -> Result<T>;
}

impl<T> PathContext<T> for std::io::Result<T> {
    fn with_context_path(self, what: &str, path: &Path) -> Result<T> {
        self.map_err(|error| {
            Error::operational(format!(
                "{what} {}: {error}; check that its parent exists and is writable, or set LF_HOME",
                path.display()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn lf_home_wins_then_xdg_state_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| OsString::from(value))
            }
        };
        let all = env(&[("LF_HOME", "/a"), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(Home::from_vars(all).unwrap().root(), Path::new("/a"));
        let xdg = env(&[("LF_HOME", ""), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(
            Home::from_vars(xdg).unwrap().root(),
            Path::new("/b/loopflow")
        );
        let home = env(&[("HOME", "/c")]);
        assert_eq!(
            Home::from_vars(home).unwrap().root(),
            Path::new("/c/.local/state/loopflow")
        );
        assert_eq!(
            Home::from_vars(env(&[])).unwrap_err().kind,
            crate::ErrorKind::Usage
        );
    }

    #[test]
    fn ensure_creates_a_private_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("nested/home")).unwrap();
        home.ensure().unwrap();
        for path in [home.root().to_path_buf(), home.locks(), home.runs()] {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", path.display());
        }
    }
}
