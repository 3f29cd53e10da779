//! Where bash, zsh, fish, Nushell and `man` look for a user's completions
//! and man pages, and putting lf's there (`lf-install-shell`). `cargo
//! install` copies binaries only, so without this a new user gets no
//! completion and no `man lf-session-list`.
//!
//! Every place is one the shell itself searches for a user, never a file of
//! the user's own, except zsh's: zsh searches no user folder by default, so
//! one marked block at the top of `.zshrc` puts lf's folder on `fpath`
//! before the user's `compinit` runs. Each installed file carries a
//! [`MARK`] line: a file without it is the user's, and is never replaced or
//! removed. Installing twice changes nothing; files and folders are created
//! writable by their owner only, whatever the umask.

use crate::generated::{Generated, Target};
use serde::{Deserialize, Serialize};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The words that make an installed file lf's.
pub const MARK: &str = "Installed by lf-install-shell";

const ZSHRC_BEGIN: &str = "# >>> lf-install-shell: lf's zsh completions (lf-install-shell --uninstall removes this block)";
const ZSHRC_END: &str = "# <<< lf-install-shell";

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Created,
    Updated,
    Unchanged,
    Removed,
    /// A file of the user's own is where lf's would go: left as it is.
    Kept,
}

/// One file lf-install-shell looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub target: Target,
    pub path: PathBuf,
    pub action: Action,
}

/// What an install or uninstall did, and what the person should know.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    pub changes: Vec<Change>,
    pub notes: Vec<String>,
}

/// The folders lf's files go to, for one user.
#[derive(Debug, Clone)]
pub struct Places {
    /// `man1` beside the binaries (`~/.cargo/share/man/man1`): man-db
    /// searches `<dir>/../share/man` of every folder on PATH.
    pub man: PathBuf,
    /// bash-completion's user folder.
    pub bash: PathBuf,
    /// A folder for zsh's `fpath`.
    pub zsh: PathBuf,
    /// The `.zshrc` zsh reads (in `$ZDOTDIR`, as zsh has it after `.zshenv`).
    pub zshrc: PathBuf,
    /// fish's user vendor folder, searched after `~/.config/fish/completions`.
    pub fish: PathBuf,
    /// Nushell's user vendor autoload folder: every file there is sourced
    /// when Nushell starts.
    pub nushell: PathBuf,
    /// The folder of the installed binaries.
    pub bin: PathBuf,
}

impl Places {
    /// The places for the user described by `var` (their environment), for
    /// binaries installed in `bin`. `zdotdir` is where zsh reads `.zshrc`
    /// from, if zsh said so.
    pub fn for_user(
        var: impl Fn(&str) -> Option<String>,
        bin: &Path,
        zdotdir: Option<PathBuf>,
    ) -> lf::Result<Places> {
        let absolute = |name: &str| {
            var(name)
                .filter(|value| Path::new(value).is_absolute())
                .map(PathBuf::from)
        };
        let home = absolute("HOME").ok_or(lf::Error::NoUserHome)?;
        // The XDG base directory spec: a relative value is ignored.
        let data = absolute("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share"));
        let bash = var("BASH_COMPLETION_USER_DIR")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| data.join("bash-completion"))
            .join("completions");
        let zdotdir = zdotdir
            .or_else(|| absolute("ZDOTDIR"))
            .unwrap_or_else(|| home.clone());
        Ok(Places {
            man: bin.parent().unwrap_or(bin).join("share/man/man1"),
            bash,
            zsh: data.join("zsh/site-functions"),
            zshrc: zdotdir.join(".zshrc"),
            fish: data.join("fish/vendor_completions.d"),
            nushell: data.join("nushell/vendor/autoload"),
            bin: bin.to_owned(),
        })
    }

    pub fn dir(&self, target: Target) -> &Path {
        match target {
            Target::Man => &self.man,
            Target::Bash => &self.bash,
            Target::Zsh => &self.zsh,
            Target::Fish => &self.fish,
            Target::Nushell => &self.nushell,
        }
    }
}

/// Where zsh reads `.zshrc` from: `$ZDOTDIR` as zsh has it once `.zshenv`
/// has run (a common setup sets ZDOTDIR there), asked of zsh itself; `None`
/// when zsh cannot be run.
pub fn zsh_dotdir() -> Option<PathBuf> {
    const SAID: &str = "lf-install-shell ZDOTDIR=";
    let output = std::process::Command::new("zsh")
        .args(["-c", &format!("print -r -- \"{SAID}${{ZDOTDIR:-$HOME}}\"")])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix(SAID))
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
}

/// The name a target's file of one binary or page has in its folder.
pub fn file_name(target: Target, name: &str) -> String {
    match target {
        Target::Man => format!("{name}.1"),
        // bash-completion loads `completions/<command>` on the first Tab.
        Target::Bash => name.to_owned(),
        // compinit autoloads `_<command>` and reads its `#compdef` line.
        Target::Zsh => format!("_{name}"),
        Target::Fish => format!("{name}.fish"),
        Target::Nushell => format!("{name}.nu"),
    }
}

/// Whether a name in a target's folder is one lf-install-shell could have
/// written (whether it did, only its [`MARK`] says).
fn could_be_ours(target: Target, file: &str) -> bool {
    let (prefix, suffix) = match target {
        Target::Man => ("lf-", ".1"),
        Target::Bash => ("lf-", ""),
        Target::Zsh => ("_lf-", ""),
        Target::Fish => ("lf-", ".fish"),
        Target::Nushell => ("lf-", ".nu"),
    };
    file.starts_with(prefix) && file.ends_with(suffix)
}

/// A rendered file with its [`MARK`] line, in the target's comment syntax.
/// zsh's must stay second: compinit reads `#compdef` on the first line.
pub fn marked(file: &Generated) -> Vec<u8> {
    let version = env!("CARGO_PKG_VERSION");
    let note = format!(
        "{MARK} (lf {version}); it replaces this file, and lf-install-shell --uninstall removes it."
    );
    let (comment, after_first_line) = match file.target {
        Target::Man => (format!(".\\\" {note}\n"), false),
        Target::Zsh => (format!("# {note}\n"), true),
        Target::Bash | Target::Fish | Target::Nushell => (format!("# {note}\n"), false),
    };
    let content = &file.content;
    let split = if after_first_line {
        content
            .iter()
            .position(|&byte| byte == b'\n')
            .map_or(content.len(), |at| at + 1)
    } else {
        0
    };
    let mut out = Vec::with_capacity(content.len() + comment.len());
    out.extend_from_slice(&content[..split]);
    out.extend_from_slice(comment.as_bytes());
    out.extend_from_slice(&content[split..]);
    out
}

/// Whether the file at `path` carries lf's [`MARK`] in its first lines.
pub fn is_ours(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(1024).read_to_end(&mut head).is_err() {
        return false;
    }
    String::from_utf8_lossy(&head)
        .lines()
        .take(3)
        .any(|line| line.contains(MARK))
}

/// Install every file of `files` for `targets` (man pages always), remove
/// lf's files that no binary generates any more, and for zsh put lf's folder
/// on `fpath` in `.zshrc`.
pub fn install(places: &Places, targets: &[Target], files: &[Generated]) -> lf::Result<Report> {
    let mut report = Report::default();
    for &target in targets {
        let dir = places.dir(target);
        create_dirs(dir)?;
        let mut wanted = Vec::new();
        for file in files.iter().filter(|file| file.target == target) {
            let name = file_name(target, &file.name);
            let path = dir.join(&name);
            let action = place(&path, &marked(file))?;
            if action == Action::Kept {
                report.notes.push(format!(
                    "kept {}: it is not lf's (it has no \"{MARK}\" line), so lf's {} for {} is not there; move it aside and run lf-install-shell again",
                    path.display(),
                    describe(target),
                    file.name
                ));
            }
            report.changes.push(Change {
                target,
                path,
                action,
            });
            wanted.push(name);
        }
        remove_ours(
            target,
            dir,
            |name| !wanted.iter().any(|w| w == name),
            &mut report,
        )?;
        if target == Target::Zsh {
            let action = edit_zshrc(&places.zshrc, Some(&zshrc_block(&places.zsh)))?;
            report.changes.push(Change {
                target,
                path: places.zshrc.clone(),
                action,
            });
        }
    }
    Ok(report)
}

/// Remove every file of lf's from every target's folder, and lf's block
/// from `.zshrc`. Files of the user's own are left, and so are folders.
pub fn uninstall(places: &Places) -> lf::Result<Report> {
    let mut report = Report::default();
    for target in [
        Target::Man,
        Target::Bash,
        Target::Zsh,
        Target::Fish,
        Target::Nushell,
    ] {
        remove_ours(target, places.dir(target), |_| true, &mut report)?;
    }
    let action = edit_zshrc(&places.zshrc, None)?;
    if action == Action::Removed || action == Action::Updated {
        report.changes.push(Change {
            target: Target::Zsh,
            path: places.zshrc.clone(),
            action,
        });
    }
    Ok(report)
}

fn describe(target: Target) -> &'static str {
    match target {
        Target::Man => "man page",
        Target::Bash => "bash completion",
        Target::Zsh => "zsh completion",
        Target::Fish => "fish completion",
        Target::Nushell => "Nushell externs",
    }
}

/// Remove lf's files in `dir` whose names `unwanted` says.
fn remove_ours(
    target: Target,
    dir: &Path,
    unwanted: impl Fn(&str) -> bool,
    report: &mut Report,
) -> lf::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(()),
        Err(error) => {
            return Err(lf::Error::io(
                format!("cannot read {}", dir.display()),
                error,
            ));
        }
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| could_be_ours(target, name) && unwanted(name))
        })
        .map(|entry| entry.path())
        .filter(|path| is_ours(path))
        .collect();
    found.sort();
    for path in found {
        std::fs::remove_file(&path)
            .map_err(|error| lf::Error::io(format!("cannot remove {}", path.display()), error))?;
        report.changes.push(Change {
            target,
            path,
            action: Action::Removed,
        });
    }
    Ok(())
}

/// Folders writable by their owner only (the umask may narrow them more).
fn create_dirs(dir: &Path) -> lf::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(dir)
        .map_err(|error| lf::Error::io(format!("cannot create {}", dir.display()), error))
}

/// Put `content` at `path` unless a file of the user's own is there.
fn place(path: &Path, content: &[u8]) -> lf::Result<Action> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => {
            write_replacing(path, content, None)?;
            Ok(Action::Created)
        }
        Err(error) => Err(lf::Error::io(
            format!("cannot read {}", path.display()),
            error,
        )),
        Ok(meta) if meta.is_file() && is_ours(path) => {
            if std::fs::read(path).is_ok_and(|old| old == content) {
                return Ok(Action::Unchanged);
            }
            write_replacing(path, content, None)?;
            Ok(Action::Updated)
        }
        Ok(_) => Ok(Action::Kept),
    }
}

/// Write a whole file through a temporary file beside it and a rename, so
/// a reader (a shell starting now) sees the old file or the new one. A new
/// file is 0644 narrowed by the umask (never writable by others); `keep`
/// gives a replaced file of the user's its own mode back.
fn write_replacing(path: &Path, content: &[u8], keep: Option<u32>) -> lf::Result<()> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.lf-install-shell-{}", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&temp)?;
        if let Some(mode) = keep {
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(content)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(|error| lf::Error::io(format!("cannot write {}", path.display()), error))
}

/// lf's block for `.zshrc`: the folder first on `fpath`, once.
pub fn zshrc_block(dir: &Path) -> String {
    let quoted = format!("'{}'", dir.display().to_string().replace('\'', r"'\''"));
    format!("{ZSHRC_BEGIN}\nfpath=({quoted} ${{fpath:#{quoted}}})\n{ZSHRC_END}\n")
}

/// Where lf's block is in a `.zshrc`: its byte range, end line included.
fn find_block(text: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if start.is_none() && bare == ZSHRC_BEGIN {
            start = Some(offset);
        } else if let Some(start) = start
            && bare == ZSHRC_END
        {
            return Some(start..offset + line.len());
        }
        offset += line.len();
    }
    None
}

/// Put `block` in `.zshrc` (at the top, before any `compinit`, if it is not
/// there yet), or with `None` take lf's block out of it. The rest of the
/// file is kept byte for byte, and so are its mode and a symlink to it.
fn edit_zshrc(zshrc: &Path, block: Option<&str>) -> lf::Result<Action> {
    let failed = |error| lf::Error::io(format!("cannot read {}", zshrc.display()), error);
    // Through a symlink (a dotfile manager's) to the file itself.
    let (path, text, mode) = match std::fs::canonicalize(zshrc) {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).map_err(failed)?;
            let mode = std::fs::metadata(&path)
                .map_err(failed)?
                .permissions()
                .mode()
                & 0o7777;
            (path, Some(text), Some(mode))
        }
        Err(error)
            if error.kind() == ErrorKind::NotFound && std::fs::symlink_metadata(zshrc).is_err() =>
        {
            (zshrc.to_owned(), None, None)
        }
        Err(error) => return Err(failed(error)),
    };
    let existing = text.as_deref().unwrap_or_default();
    let found = find_block(existing);
    let edited = match (block, &found) {
        (Some(block), Some(range)) if &existing[range.clone()] == block => {
            return Ok(Action::Unchanged);
        }
        (Some(block), Some(range)) => {
            let mut edited = existing.to_owned();
            edited.replace_range(range.clone(), block);
            edited
        }
        (Some(block), None) => format!("{block}{existing}"),
        (None, Some(range)) => {
            let mut edited = existing.to_owned();
            edited.replace_range(range.clone(), "");
            edited
        }
        (None, None) => return Ok(Action::Unchanged),
    };
    if block.is_none() && edited.is_empty() {
        // Only lf's block was in it: lf made the file.
        std::fs::remove_file(&path)
            .map_err(|error| lf::Error::io(format!("cannot remove {}", path.display()), error))?;
        return Ok(Action::Removed);
    }
    if let Some(parent) = path.parent() {
        create_dirs(parent)?;
    }
    write_replacing(&path, edited.as_bytes(), mode)?;
    Ok(if text.is_none() {
        Action::Created
    } else {
        Action::Updated
    })
}

/// What a person should know about `man` finding the pages: man-db looks
/// beside PATH only while MANPATH is unset or has an empty part.
pub fn man_notes(places: &Places, var: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut notes = Vec::new();
    let man_root = places.man.parent().unwrap_or(&places.man);
    let same = |a: &Path, b: &Path| {
        a == b
            || std::fs::canonicalize(a)
                .ok()
                .zip(std::fs::canonicalize(b).ok())
                .is_some_and(|(a, b)| a == b)
    };
    let on_path = var("PATH")
        .unwrap_or_default()
        .split(':')
        .any(|dir| !dir.is_empty() && same(Path::new(dir), &places.bin));
    if let Some(manpath) = var("MANPATH").filter(|value| !value.is_empty()) {
        let parts: Vec<&str> = manpath.split(':').collect();
        let searches_path = parts.iter().any(|part| part.is_empty());
        let names_ours = parts
            .iter()
            .any(|part| !part.is_empty() && same(Path::new(part), man_root));
        if !searches_path && !names_ours {
            notes.push(format!(
                "MANPATH is set, so man does not look beside PATH: add {} to it (or end it with a colon) to read lf's man pages",
                man_root.display()
            ));
        }
    } else if !on_path {
        notes.push(format!(
            "{} is not on PATH; man finds lf's pages once it is (or add {} to MANPATH)",
            places.bin.display(),
            man_root.display()
        ));
    }
    notes
}
