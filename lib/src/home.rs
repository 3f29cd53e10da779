//! The Home: the one private directory that holds lf's data —
//! `loopflow.db` (the single source of truth), `runs/<run-id>/` for per-run
//! files and `locks/` for cross-process locks. Every binary and the plugin
//! find it the same way: `$LF_HOME`, else
//! `${XDG_STATE_HOME:-$HOME/.local/state}/loopflow`.

use crate::Result;
use crate::error::domain::{Domain, ErrorKind, What};
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
    /// The folder a caller's environment names: `$LF_HOME`, else
    /// `${XDG_STATE_HOME:-$HOME/.local/state}/loopflow`. Possibly relative.
    pub(crate) fn root_from<'a>(var: impl Fn(&str) -> Option<&'a str>) -> Result<PathBuf> {
        let set = |name: &str| {
            var(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        if let Some(home) = set(HOME_ENV) {
            Ok(home)
        } else if let Some(state) = set("XDG_STATE_HOME") {
            Ok(state.join("loopflow"))
        } else if let Some(home) = set("HOME") {
            Ok(home.join(".local/state/loopflow"))
        } else {
            Err(HomeError::NoHome.into())
        }
    }

    /// A Home at an absolute directory (a caller makes a relative one
    /// absolute from its own directory), so `open_argv` carries a location
    /// valid from anywhere.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Home { root: root.into() }
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
    /// Touched after every commit that changed the Run (its launcher
    /// waits for it).
    pub fn run_bell(&self, run: &RunId) -> PathBuf {
        self.run_dir(run).join("changed.bell")
    }
    /// Touched after every commit that recorded events (see `changes`).
    pub fn events_bell(&self) -> PathBuf {
        self.root.join("events.bell")
    }
    pub fn hook_log(&self) -> PathBuf {
        self.root.join("hook.log")
    }
    /// The secret `lf-web` asks of every request (see [`Home::web_token`]).
    pub fn web_token_file(&self) -> PathBuf {
        self.root.join("web.token")
    }

    /// The secret of this Home's `lf-web`: 256 random bits as 64 hex
    /// digits, made on first use (or anew with `renew`, which locks out
    /// every browser that had the old one) and kept owner-only in
    /// `web.token`. Two first uses at once agree: only one creates it.
    pub fn web_token(&self, renew: bool) -> Result<String> {
        self.ensure()?;
        let path = self.web_token_file();
        let mut replace = renew;
        if !renew {
            match std::fs::read_to_string(&path) {
                Ok(text) if is_token(text.trim()) => {
                    // Owner-only, whatever made it wider since.
                    let meta = std::fs::metadata(&path)
                        .with_context_path("cannot read the lf-web token", &path)?;
                    tighten(&path, &meta, PRIVATE_FILE)?;
                    return Ok(text.trim().to_owned());
                }
                // Not a token (cut short, edited): made anew.
                Ok(_) => replace = true,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => {
                    return Err(error).with_context_path("cannot read the lf-web token", &path);
                }
            }
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|error| std::io::Error::other(error.to_string()))
            .with_context_path("cannot make the lf-web token", &path)?;
        let token: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        // Written beside, then renamed over: a reader sees the old token
        // or the new one, never half of one.
        let fresh = path.with_extension(format!("token.{}", std::process::id()));
        write_private(&fresh, format!("{token}\n").as_bytes())?;
        if replace {
            std::fs::rename(&fresh, &path)
                .with_context_path("cannot write the lf-web token", &path)?;
            return Ok(token);
        }
        // A first use: the first writer's token stands.
        let linked = std::fs::hard_link(&fresh, &path);
        let _ = std::fs::remove_file(&fresh);
        match linked {
            Ok(()) => Ok(token),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                self.web_token(false)
            }
            Err(error) => Err(error).with_context_path("cannot write the lf-web token", &path),
        }
    }

    /// Create the Home and its folders, private to this user (0700). A
    /// folder that exists with a wider mode is made private when it is this
    /// user's, and refused when it is another user's.
    pub fn ensure(&self) -> Result<()> {
        for dir in [&self.root, &self.locks(), &self.runs()] {
            match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => {
                    refuse_read_only(dir, &meta)?;
                    tighten(dir, &meta, PRIVATE_DIR)?;
                }
                Ok(_) => {
                    return Err(HomeError::HomeNotAFolder(dir.clone()).into());
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

/// A Home folder its owner took write permission away from is theirs to
/// give back: lf never adds permission, and says so instead of writing
/// (root could write there anyway), before it changes anything.
fn refuse_read_only(dir: &Path, meta: &std::fs::Metadata) -> Result<()> {
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o300 == 0o300 || meta.uid() != current_uid() {
        return Ok(());
    }
    Err(HomeError::HomeReadOnly {
        path: dir.to_path_buf(),
        mode,
    }
    .into())
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
/// Ring a bell: touch `bell`, creating it (owner-only) if its folder
/// exists. Both its times are set: inotify reports a change of both as
/// IN_ATTRIB, of the modification time alone as IN_MODIFY, which every write
/// to a database's WAL beside it also is. Best effort: whoever waits for a
/// bell also looks now and then.
pub(crate) fn ring(bell: &Path) {
    let now = std::time::SystemTime::now();
    let times = std::fs::FileTimes::new()
        .set_accessed(now)
        .set_modified(now);
    let _ = open_private(bell, std::fs::OpenOptions::new().write(true).create(true))
        .and_then(|file| file.set_times(times));
}

pub(crate) fn open_private(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    let file = options.mode(PRIVATE_FILE).open(path)?;
    let meta = file.metadata()?;
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 && meta.uid() == current_uid() {
        file.set_permissions(std::fs::Permissions::from_mode(narrowed(mode)))?;
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

/// 64 lowercase hex digits: what [`Home::web_token`] writes.
fn is_token(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// A mode without what the group and others may do: narrowing only ever
/// takes permission away (a Home its owner made read-only stays so).
fn narrowed(mode: u32) -> u32 {
    mode & 0o7700
}

/// Narrow the mode of one existing path in the Home (`narrowed`), when it
/// is this user's; another user's path that others may read is refused,
/// naming `mode`, the one lf would give it.
fn tighten(path: &Path, meta: &std::fs::Metadata, mode: u32) -> Result<()> {
    let found = meta.permissions().mode() & 0o7777;
    if found & 0o077 == 0 {
        return Ok(());
    }
    if found & 0o1000 != 0 {
        return Err(HomeError::SharedFolder {
            path: path.to_path_buf(),
            mode: found,
        }
        .into());
    }
    if meta.uid() != current_uid() {
        return Err(HomeError::NotOurs {
            path: path.to_path_buf(),
            mode: found,
            private: mode,
        }
        .into());
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(narrowed(found)))
        .with_context_path("cannot make this lf Home entry private", path)
}

trait PathContext<T> {
    fn with_context_path(self, what: &'static str, path: &Path) -> Result<T>;
}

impl<T> PathContext<T> for std::io::Result<T> {
    fn with_context_path(self, what: &'static str, path: &Path) -> Result<T> {
        self.map_err(|source| {
            HomeError::HomeFile {
                what,
                path: path.to_path_buf(),
                source,
            }
            .into()
        })
    }
}

/// The Home and what it holds: its folder, its database and its lock files.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum HomeError {
    #[error("cannot find the lf Home: set LF_HOME (or HOME) to choose where lf keeps its data")]
    NoHome,
    #[error(
        "HOME is not set to an absolute path, and the shell integration is installed into your home folder: set HOME"
    )]
    NoUserHome,
    #[error("{what} {}; check that its parent exists and is writable, or set LF_HOME", .path.display())]
    HomeFile {
        what: What,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the lf Home folder {} is not a folder; move it aside or set LF_HOME", .0.display())]
    HomeNotAFolder(PathBuf),
    #[error(
        "the lf Home folder {0} is read-only (mode {mode:04o}) and lf writes there; make it writable (chmod u+w {0}) or set LF_HOME to another folder",
        .path.display()
    )]
    HomeReadOnly { path: PathBuf, mode: u32 },
    #[error("{} is a shared folder (mode {mode:04o}), not an lf Home; set LF_HOME to a folder of your own", .path.display())]
    SharedFolder { path: PathBuf, mode: u32 },
    #[error(
        "{} in the lf Home has mode {mode:04o} and belongs to another user, so lf cannot make it private; make it yours and private (chown, then chmod {private:o}) or set LF_HOME to a folder of your own",
        .path.display()
    )]
    NotOurs {
        path: PathBuf,
        mode: u32,
        private: u32,
    },
    #[error("cannot open the lock file {}; check that the lf Home is writable", .path.display())]
    LockFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot take the lock {}", .path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("database {}: {advice}", .path.display())]
    Database {
        path: PathBuf,
        advice: &'static str,
        source: rusqlite::Error,
    },
    #[error("cannot read the database {}; it was left as it is", .path.display())]
    DatabaseUnreadable {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot upgrade the database {} to schema version {version}", .path.display())]
    Migration {
        path: PathBuf,
        version: i64,
        source: rusqlite::Error,
    },
    #[error(
        "the database {} has schema version {found}, newer than this lf understands ({supported}); it was written by a newer lf: upgrade lf, or set LF_HOME to another folder",
        .path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// A SQLite failure not yet tied to a database file.
    #[error("the lf database failed")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the handoff {0} was not stored")]
    NotStored(String),
}

impl Domain for HomeError {
    fn kind(&self) -> ErrorKind {
        use HomeError::*;
        match self {
            NoHome | NoUserHome => ErrorKind::Usage,
            HomeFile { .. }
            | HomeNotAFolder(..)
            | HomeReadOnly { .. }
            | SharedFolder { .. }
            | NotOurs { .. }
            | LockFile { .. }
            | Lock { .. }
            | Database { .. }
            | DatabaseUnreadable { .. }
            | Migration { .. }
            | NewerSchema { .. }
            | Sqlite(..)
            | NotStored(..) => ErrorKind::Operational,
        }
    }

    fn name(&self) -> &str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lf-web's token: made once, owner-only, kept; made anew only when
    /// asked or when the file holds no token.
    #[test]
    fn the_web_token_is_made_once_and_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let token = home.web_token(false).unwrap();
        assert!(is_token(&token), "{token}");
        let mode = |home: &Home| {
            std::fs::metadata(home.web_token_file())
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode(&home), 0o600);
        assert_eq!(home.web_token(false).unwrap(), token);
        std::fs::set_permissions(
            home.web_token_file(),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        assert_eq!(home.web_token(false).unwrap(), token);
        assert_eq!(mode(&home), 0o600, "a wider token file is tightened");
        let renewed = home.web_token(true).unwrap();
        assert_ne!(renewed, token);
        assert_eq!(home.web_token(false).unwrap(), renewed);
        std::fs::write(home.web_token_file(), "cut sh").unwrap();
        let made = home.web_token(false).unwrap();
        assert!(is_token(&made) && made != renewed);
        let left: Vec<_> = std::fs::read_dir(home.root())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .filter(|name| name.to_string_lossy().starts_with("web."))
            .collect();
        assert_eq!(left, ["web.token"], "no temporary file is left");
    }

    #[test]
    fn lf_home_wins_then_xdg_state_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| *value)
            }
        };
        let all = env(&[("LF_HOME", "/a"), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(Home::root_from(all).unwrap(), Path::new("/a"));
        let xdg = env(&[("LF_HOME", ""), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(Home::root_from(xdg).unwrap(), Path::new("/b/loopflow"));
        let home = env(&[("HOME", "/c")]);
        assert_eq!(
            Home::root_from(home).unwrap(),
            Path::new("/c/.local/state/loopflow")
        );
        assert!(matches!(
            Home::root_from(env(&[])),
            Err(crate::Error::Home(HomeError::NoHome))
        ));
    }

    #[test]
    fn ensure_creates_a_private_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("nested/home"));
        home.ensure().unwrap();
        for path in [home.root().to_path_buf(), home.locks(), home.runs()] {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", path.display());
        }
    }
}
