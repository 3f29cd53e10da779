//! The Home: the one private directory that holds lf's data —
//! `loopflow.db` (the single source of truth), `runs/<run-id>/` for per-run
//! files and `locks/` for cross-process locks. Every binary and the plugin
//! find it the same way: `$LF_HOME`, else
//! `${XDG_STATE_HOME:-$HOME/.local/state}/loopflow`.

use crate::error::{Context, Error, Result};
use crate::ids::RunId;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
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

    /// Create the Home and its folders, private to this user (0700). A
    /// folder that exists with a wider mode is made private when it is this
    /// user's, and refused when it is another user's.
    pub fn ensure(&self) -> Result<()> {
        for dir in [&self.root, &self.locks(), &self.runs()] {
            match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => tighten(dir, &meta, PRIVATE_DIR)?,
                Ok(_) => {
                    return Err(Error::operational(format!(
                        "the lf Home folder {} is not a folder; move it aside or set LF_HOME",
                        dir.display()
                    )));
                }
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                    ) =>
                {
                    create_private_dir(dir)?
                }
                Err(error) => {
                    return Err(error).with_context_path("cannot read the lf Home folder", dir);
                }
            }
        }
        Ok(())
    }

    /// Make the database file exist, owner-only, before SQLite opens it:
    /// SQLite gives its `-wal` and `-shm` the database file's mode, so the
    /// three stay private whatever the umask. A database left wider by an
    /// older lf has its whole Home tightened once.
    pub(crate) fn ensure_database(&self) -> Result<()> {
        let path = self.database();
        match std::fs::metadata(&path) {
            Ok(meta) if meta.permissions().mode() & 0o077 != 0 => {
                tighten(&path, &meta, PRIVATE_FILE)?;
                self.tighten_tree()
            }
            Ok(_) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                open_private(&path, std::fs::OpenOptions::new().write(true).create(true))
                    .map(drop)
                    .with_context_path("cannot create the lf database", &path)
            }
            Err(error) => Err(error).with_context_path("cannot read the lf database", &path),
        }
    }

    /// Tighten every folder (0700) and file (0600) in the Home, without
    /// following symbolic links.
    fn tighten_tree(&self) -> Result<()> {
        let mut pending = vec![self.root.clone()];
        while let Some(dir) = pending.pop() {
            let entries = std::fs::read_dir(&dir)
                .with_context_path("cannot read the lf Home folder", &dir)?;
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(meta) = std::fs::symlink_metadata(&path) else {
                    continue;
                };
                if meta.is_dir() {
                    tighten(&path, &meta, PRIVATE_DIR)?;
                    pending.push(path);
                } else if meta.is_file() {
                    tighten(&path, &meta, PRIVATE_FILE)?;
                }
            }
        }
        Ok(())
    }
}

/// The mode of every folder lf creates in the Home.
pub const PRIVATE_DIR: u32 = 0o700;
/// The mode of every file lf creates in the Home.
pub const PRIVATE_FILE: u32 = 0o600;

/// Create a folder (and its parents) owner-only, whatever the umask.
pub(crate) fn create_private_dir(dir: &Path) -> Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR)
        .create(dir)
        .with_context_path("cannot create the lf Home folder", dir)?;
    // The mode given to mkdir is filtered by the umask; set it exactly.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(PRIVATE_DIR))
        .with_context_path("cannot make the lf Home folder private", dir)
}

/// Open a file in the Home with `options`; a file it creates is owner-only
/// whatever the umask, and an existing one with a wider mode is tightened.
pub(crate) fn open_private(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    let file = options.mode(PRIVATE_FILE).open(path)?;
    let meta = file.metadata()?;
    if meta.permissions().mode() & 0o777 != PRIVATE_FILE && meta.uid() == current_uid() {
        file.set_permissions(std::fs::Permissions::from_mode(PRIVATE_FILE))?;
    }
    Ok(file)
}

/// Write a whole file in the Home, owner-only.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    open_private(
        path,
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
    )
    .and_then(|mut file| file.write_all(bytes))
    .with_context_path("cannot write", path)
}

fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Narrow the mode of one existing path in the Home to `mode`, when it is
/// this user's; another user's path that others may read is refused.
fn tighten(path: &Path, meta: &std::fs::Metadata, mode: u32) -> Result<()> {
    let found = meta.permissions().mode() & 0o7777;
    if found & 0o077 == 0 {
        return Ok(());
    }
    if found & 0o1000 != 0 {
        return Err(Error::operational(format!(
            "{} is a shared folder (mode {found:04o}), not an lf Home; set LF_HOME to a folder \
             of your own",
            path.display()
        )));
    }
    if meta.uid() != current_uid() {
        return Err(Error::operational(format!(
            "{} in the lf Home has mode {found:04o} and belongs to another user, so lf cannot \
             make it private; make it yours and private (chown, then chmod {:o}) or set LF_HOME \
             to a folder of your own",
            path.display(),
            mode
        )));
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context_path("cannot make this lf Home entry private", path)
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
