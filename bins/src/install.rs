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
//!
//! It also installs the tmux kit (`share/tmux/lf.tmux`, carried in the
//! binary) to a place of lf's own, so `~/.tmux.conf` can run it without a
//! clone of the repository; and it says when a shell will not load what it
//! installed ([`bash_warnings`], [`zsh_warnings`]), as [`man_notes`] does
//! for `man`.

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
    /// What will not work until the person changes a file of theirs.
    pub warnings: Vec<Warning>,
}

/// Something the install cannot make work by itself: a shell that will not
/// load lf's completions until the person adds a line to a file of theirs.
/// A warning never changes the exit code (the files are installed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub target: Target,
    /// The file of the person's to change: `~/.bashrc`, or the `.zshrc`
    /// zsh reads.
    pub file: PathBuf,
    /// The exact line to add to `file` (at its end); `None` when the file
    /// has what it needs and something else is missing.
    pub add: Option<String>,
    /// All of it, for a person: what is wrong, for which file, what to do.
    pub message: String,
}

/// What will not work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// bash-completion is not installed in any of [`BASH_COMPLETION`]'s
    /// places: bash never reads a command's completion file.
    BashCompletionMissing,
    /// bash-completion is installed, but no file an interactive bash reads
    /// loads it.
    BashCompletionNotLoaded,
    /// The `.zshrc` runs no `compinit`, nor a framework that runs it: zsh's
    /// completion system is off, and `fpath` is never searched.
    ZshCompinitMissing,
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
    /// lf's own folder for the tmux kit.
    pub tmux: PathBuf,
    /// The user's home folder (`~/.bashrc` is there).
    pub home: PathBuf,
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
        let home = absolute("HOME").ok_or(lf::error::HomeError::NoUserHome)?;
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
            // Not `lf/`: `$XDG_DATA_HOME/lf` is the lf file manager's.
            tmux: data.join("loopflow/tmux"),
            home,
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
            Target::Tmux => &self.tmux,
        }
    }

    /// The installed tmux kit: what `~/.tmux.conf` runs.
    pub fn tmux_kit(&self) -> PathBuf {
        self.tmux.join(TMUX_KIT)
    }

    /// The `.bashrc` an interactive bash of this user reads.
    pub fn bashrc(&self) -> PathBuf {
        self.home.join(".bashrc")
    }
}

/// The kit's name in its folder.
pub const TMUX_KIT: &str = "lf.tmux";

/// The tmux kit as the repository has it (`cargo install` copies binaries
/// only, so the binary carries it). It finds the lf binaries through
/// `@lf-bin-dir` or tmux's PATH, never through its own location, so it
/// runs from anywhere.
pub fn tmux_kit() -> Generated {
    Generated {
        target: Target::Tmux,
        name: TMUX_KIT.to_owned(),
        content: include_bytes!("../../share/tmux/lf.tmux").to_vec(),
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
        Target::Tmux => name.to_owned(),
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
        Target::Tmux => ("lf", ".tmux"),
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
        // After the kit's `#!/bin/sh`.
        Target::Zsh | Target::Tmux => (format!("# {note}\n"), true),
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
            let action = place(&path, &marked(file), mode(target))?;
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
/// from `.zshrc`. Files of the user's own are left, and so are folders but
/// lf's own (the kit's, once empty).
pub fn uninstall(places: &Places) -> lf::Result<Report> {
    let mut report = Report::default();
    for target in [
        Target::Man,
        Target::Bash,
        Target::Zsh,
        Target::Fish,
        Target::Nushell,
        Target::Tmux,
    ] {
        remove_ours(target, places.dir(target), |_| true, &mut report)?;
    }
    // `loopflow/tmux` and `loopflow` hold nothing but lf's kit; a folder
    // that is not empty (a file of the person's) stays.
    for dir in [
        places.tmux.as_path(),
        places.tmux.parent().unwrap_or(&places.tmux),
    ] {
        let _ = std::fs::remove_dir(dir);
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
        Target::Tmux => "tmux kit",
    }
}

/// A new file's mode before the umask: the tmux kit is a program
/// (`run-shell` runs it), the rest is read.
fn mode(target: Target) -> u32 {
    match target {
        Target::Tmux => 0o755,
        _ => 0o644,
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

/// Put `content` at `path` (a new file `mode`, narrowed by the umask)
/// unless a file of the user's own is there.
fn place(path: &Path, content: &[u8], mode: u32) -> lf::Result<Action> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => {
            write_replacing(path, content, New(mode))?;
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
            write_replacing(path, content, New(mode))?;
            Ok(Action::Updated)
        }
        Ok(_) => Ok(Action::Kept),
    }
}

/// The mode a written file gets.
enum Mode {
    /// lf's own file: this mode narrowed by the umask, and never writable
    /// by others.
    New(u32),
    /// A replaced file of the user's: exactly its own mode back.
    Keep(u32),
}
use Mode::{Keep, New};

/// Write a whole file through a temporary file beside it and a rename, so
/// a reader (a shell starting now) sees the old file or the new one.
fn write_replacing(path: &Path, content: &[u8], mode: Mode) -> lf::Result<()> {
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
            .mode(match mode {
                New(mode) => mode & !0o022,
                Keep(_) => 0o600,
            })
            .open(&temp)?;
        if let Keep(mode) = mode {
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
    match mode {
        Some(mode) => write_replacing(&path, edited.as_bytes(), Keep(mode))?,
        None => write_replacing(&path, edited.as_bytes(), New(0o644))?,
    }
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

/// Where bash-completion's loader script is, relative to the system's root
/// (the first that exists is the one to source): every Linux distribution's
/// package (Debian, Ubuntu, Fedora, Arch, openSUSE, Alpine), one built from
/// source, and the older `/etc/bash_completion`. Homebrew's
/// (`$HOMEBREW_PREFIX/etc/profile.d/bash_completion.sh`, by default under
/// `/home/linuxbrew/.linuxbrew`) and Nix's (`~/.nix-profile/share/...`)
/// are looked for too; see [`bash_completion_scripts`].
pub const BASH_COMPLETION: [&str; 3] = [
    "usr/share/bash-completion/bash_completion",
    "usr/local/share/bash-completion/bash_completion",
    "etc/bash_completion",
];

/// The system files an interactive bash reads before `~/.bashrc`, relative
/// to the root: `/etc/bash.bashrc` (Debian, Ubuntu, Arch: bash itself reads
/// it) and `/etc/bashrc` (Fedora, RHEL: their `~/.bashrc` sources it).
pub const SYSTEM_BASHRC: [&str; 2] = ["etc/bash.bashrc", "etc/bashrc"];

/// Every place bash-completion's loader may be, in the order looked at.
pub fn bash_completion_scripts(
    places: &Places,
    root: &Path,
    var: impl Fn(&str) -> Option<String>,
) -> Vec<PathBuf> {
    let brew = var("HOMEBREW_PREFIX")
        .filter(|prefix| Path::new(prefix).is_absolute())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("home/linuxbrew/.linuxbrew"));
    BASH_COMPLETION
        .iter()
        .map(|relative| root.join(relative))
        .chain([
            brew.join("etc/profile.d/bash_completion.sh"),
            places
                .home
                .join(".nix-profile/share/bash-completion/bash_completion"),
        ])
        .collect()
}

/// The lines of a shell start-up file that are not comments.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim_start)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Whether a bash start-up file loads bash-completion: a line that is not
/// a comment names its loader (`bash_completion`, as every distribution's
/// default `.bashrc` and Homebrew's and Nix's instructions do). Fedora's
/// and RHEL's `/etc/bashrc` load it through `/etc/profile.d`, where their
/// package puts `bash_completion.sh`.
fn loads_bash_completion(text: &str, fedora_style: bool) -> bool {
    code_lines(text).any(|line| {
        line.contains("bash_completion") || (fedora_style && line.contains("/etc/profile.d"))
    })
}

/// What the person should know about bash loading lf's completions:
/// bash-completion reads `completions/lf-*` on a command's first Tab, but
/// only once something bash reads has sourced it. The rule:
/// bash-completion is installed when one of [`bash_completion_scripts`]
/// exists, and loaded when `~/.bashrc` or a system file of
/// [`SYSTEM_BASHRC`] has a line (not a comment) that names
/// `bash_completion` (for `/etc/bashrc`, also one that sources
/// `/etc/profile.d` while `/etc/profile.d/bash_completion.sh` exists).
/// `root` is `/` but in tests.
pub fn bash_warnings(
    places: &Places,
    root: &Path,
    var: impl Fn(&str) -> Option<String>,
) -> Vec<Warning> {
    let bashrc = places.bashrc();
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    let profile_d = root.join("etc/profile.d/bash_completion.sh").is_file();
    let system: Vec<(PathBuf, String)> = SYSTEM_BASHRC
        .iter()
        .filter_map(|relative| {
            let path = root.join(relative);
            read(&path).map(|text| (path, text))
        })
        .collect();
    let loaded = read(&bashrc).is_some_and(|text| loads_bash_completion(&text, false))
        || system.iter().any(|(path, text)| {
            let fedora_style = path.ends_with("etc/bashrc") && profile_d;
            loads_bash_completion(text, fedora_style)
        });
    let scripts = bash_completion_scripts(places, root, var);
    let found = scripts.iter().find(|script| script.is_file());
    let script = found.unwrap_or(&scripts[0]);
    let quoted = lf::provider::shell_quote(&script.display().to_string());
    let line = format!("[ -r {quoted} ] && . {quoted}");
    let shown = |path: &Path| path.display().to_string();
    let warning = match (found, loaded) {
        (Some(_), true) => return Vec::new(),
        (None, loaded) => Warning {
            kind: WarningKind::BashCompletionMissing,
            target: Target::Bash,
            file: bashrc.clone(),
            add: (!loaded).then(|| line.clone()),
            message: format!(
                "bash will not complete lf's commands: bash-completion, which loads them, is not installed (there is no {}); install its package (apt install bash-completion, dnf install bash-completion, pacman -S bash-completion){}",
                scripts
                    .iter()
                    .map(|path| shown(path))
                    .collect::<Vec<_>>()
                    .join(", "),
                if loaded {
                    String::new()
                } else {
                    format!(", then add this line to {}: {line}", bashrc.display())
                }
            ),
        },
        (Some(script), false) => {
            let mut read_files = vec![shown(&bashrc)];
            read_files.extend(system.iter().map(|(path, _)| shown(path)));
            Warning {
                kind: WarningKind::BashCompletionNotLoaded,
                target: Target::Bash,
                file: bashrc.clone(),
                add: Some(line.clone()),
                message: format!(
                    "bash will not complete lf's commands: bash-completion ({}) is installed but not loaded, as no line of {} sources it; add this line to {}: {line}",
                    script.display(),
                    or_list(&read_files),
                    bashrc.display()
                ),
            }
        }
    };
    vec![warning]
}

/// The zsh frameworks that run `compinit` themselves, by a word their line
/// in `.zshrc` has: oh-my-zsh (`source $ZSH/oh-my-zsh.sh`), prezto
/// (`.zprezto/init.zsh`), Zim (`${ZIM_HOME}/init.zsh`), antigen (`antigen
/// apply`), zplug (`zplug load`) and zsh4humans (`z4h init`). zinit and
/// antidote do not: their set-ups call `compinit` (or zinit's
/// `zicompinit`), which the rule sees.
pub const ZSH_FRAMEWORKS: [(&str, &str); 6] = [
    ("oh-my-zsh.sh", "oh-my-zsh"),
    ("zprezto", "prezto"),
    ("ZIM_HOME", "Zim"),
    ("antigen", "antigen"),
    ("zplug", "zplug"),
    ("z4h", "zsh4humans"),
];

/// The line to add to a `.zshrc` that runs no `compinit`.
pub const COMPINIT_LINE: &str = "autoload -Uz compinit && compinit";

/// What the person should know about zsh loading lf's completions: zsh
/// reads `fpath` only once its completion system is on. The rule: the
/// `.zshrc` zsh reads has a line (not a comment) with the word `compinit`
/// (`compinit`, `zicompinit`; not `skip_global_compinit`) or one of a
/// framework of [`ZSH_FRAMEWORKS`]. A system zshrc that runs compinit
/// (Ubuntu's) does not count: it runs before lf's `fpath` line.
pub fn zsh_warnings(places: &Places) -> Vec<Warning> {
    let text = std::fs::read_to_string(&places.zshrc).unwrap_or_default();
    let runs = code_lines(&text).any(|line| {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == "compinit" || word == "zicompinit")
            || ZSH_FRAMEWORKS
                .iter()
                .any(|(marker, _)| line.contains(marker))
    });
    if runs {
        return Vec::new();
    }
    let frameworks: Vec<&str> = ZSH_FRAMEWORKS.iter().map(|(_, name)| *name).collect();
    vec![Warning {
        kind: WarningKind::ZshCompinitMissing,
        target: Target::Zsh,
        file: places.zshrc.clone(),
        add: Some(COMPINIT_LINE.to_owned()),
        message: format!(
            "zsh will not complete lf's commands: {} runs no compinit (nor {}, which run it), so zsh's completion system is off; add this line at its end, after lf's block: {COMPINIT_LINE}",
            places.zshrc.display(),
            or_list(&frameworks)
        ),
    }]
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[impl AsRef<str>]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [rest @ .., last] => format!(
            "{} or {}",
            rest.iter()
                .map(|item| item.as_ref())
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}
