//! The one place that runs git. Every call is an argv vector (never a shell
//! string) run with `git -C DIR`, names are checked by `input::branch_name`
//! before they get here, and `--` separates paths wherever git takes them.
//! Output is read in git's machine formats (`--porcelain=v2 -z`,
//! `--numstat -z`), so no path is ever split on a space or a newline.
//!
//! A repository's config can name programs that git runs on its own: an
//! fsmonitor, hooks, clean/smudge filters, textconv and external diffs.
//! The agent writes in the folders lf reads (its worktree, its cwd), so
//! lf's git runs none of them: every call turns off the fsmonitor and the
//! hooks, each read of the files (status, diff) turns off every filter
//! driver the config defines, a checkout (`git worktree add`) and a
//! worktree's removal run only the filter drivers of the person's own
//! config (system, global; not the repository's), and diffs pass `--no-ext-diff
//! --no-textconv`; a submodule's dirt is not looked at (that would run
//! git with the submodule's config). A linked worktree is read through the
//! git directory of the repository that made it, checked first
//! ([`Git::worktree`]), never through whatever its `.git` file says now.
//! The threat model is in docs/threat-model.md.

use crate::error::domain::{Domain, ErrorKind};
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A git repository or worktree, by a directory inside it.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    /// A linked worktree's checked git directory and its repository's.
    linked: Option<Linked>,
    /// The config that turns off the programs the repository names.
    overrides: std::cell::OnceCell<Vec<(String, String)>>,
}

#[derive(Debug, Clone)]
struct Linked {
    git_dir: PathBuf,
    common_dir: PathBuf,
}

/// What every diff passes: no external diff or textconv program, and no
/// status run inside a submodule.
const NO_DIFF_PROGRAMS: [&str; 3] = [
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=dirty",
];

/// Config every call carries: the programs git would run by itself on a
/// read, whatever the repository's config says.
const NO_PROGRAMS: [(&str, &str); 2] = [
    ("core.fsmonitor", "false"),
    // Never a hook (no folder of this name exists).
    ("core.hooksPath", "/dev/null/no-hooks"),
];

/// `git status --porcelain=v2 --branch`, as far as lf reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// The checked-out branch; `None` on a detached HEAD.
    pub branch: Option<String>,
    /// The branch's upstream (for an lf worktree: its base).
    pub upstream: Option<String>,
    /// Commits on the branch that its upstream lacks, and the reverse.
    pub ahead: u64,
    pub behind: u64,
    /// Tracked paths with changes, staged or not (including conflicts;
    /// both paths of a rename).
    pub changed: Vec<String>,
    pub untracked: Vec<String>,
}

impl Status {
    /// Whether anything in the worktree is not committed.
    pub fn uncommitted(&self) -> bool {
        !self.changed.is_empty() || !self.untracked.is_empty()
    }
}

/// One file of `git diff --numstat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumStat {
    pub path: String,
    /// The path before a rename.
    pub from: Option<String>,
    /// `None` for a binary file.
    pub insertions: Option<u64>,
    pub deletions: Option<u64>,
}

/// A git command started, whose output is read later (so two can run at
/// once).
pub struct Running {
    child: std::process::Child,
    what: String,
}

impl Running {
    fn finish(self) -> Result<Output> {
        let output = self
            .child
            .wait_with_output()
            .map_err(|source| Error::io(format!("cannot run git to {}", self.what), source))?;
        if output.status.success() {
            Ok(output)
        } else {
            Err(failed(&self.what, &output))
        }
    }

    pub fn numstat(self) -> Result<Vec<NumStat>> {
        parse_numstat(&self.finish()?.stdout)
    }

    pub fn status(self) -> Result<Status> {
        parse_status(&self.finish()?.stdout)
    }

    /// The first line it printed.
    pub fn line(self) -> Result<String> {
        Ok(line(&self.finish()?.stdout))
    }
}

fn failed(what: &str, output: &Output) -> Error {
    GitError::Git {
        what: what.to_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    }
    .into()
}

impl Git {
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Git {
            dir: dir.into(),
            linked: None,
            overrides: Default::default(),
        }
    }

    /// A worktree, read through its repository's own records of it, never
    /// its `.git` file alone (the agent working there can rewrite that
    /// file to point at a git directory it made, whose config runs what
    /// it likes). A `.git` folder is a repository of its own. A `.git`
    /// file must point into `<repository>/worktrees/`, outside the
    /// worktree, at a git directory whose `gitdir` points back at this
    /// worktree and whose `commondir` is that repository: what `git
    /// worktree add` made. git is then told both folders, so a `.git`
    /// changed afterwards changes nothing.
    pub fn worktree(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir: PathBuf = dir.into();
        let foreign = |reason: String| GitError::ForeignGitDir {
            worktree: dir.clone(),
            reason,
        };
        let top = std::fs::canonicalize(&dir)
            .map_err(|error| foreign(format!("cannot resolve the folder: {error}")))?;
        let dot_git = top.join(".git");
        let meta = std::fs::symlink_metadata(&dot_git)
            .map_err(|error| foreign(format!("cannot read its .git: {error}")))?;
        if meta.is_dir() {
            return Ok(Git::at(dir));
        }
        if !meta.is_file() {
            return Err(foreign(".git is neither a file nor a folder".to_owned()).into());
        }
        let read = |path: &Path| {
            std::fs::read_to_string(path)
                .map(|text| text.trim_end_matches(['\n', '\r']).to_owned())
                .map_err(|error| foreign(format!("cannot read {}: {error}", path.display())))
        };
        let canonical = |path: &Path| {
            std::fs::canonicalize(path)
                .map_err(|error| foreign(format!("cannot resolve {}: {error}", path.display())))
        };
        let pointer = read(&dot_git)?;
        let target = pointer
            .strip_prefix("gitdir: ")
            .ok_or_else(|| foreign(".git does not say `gitdir: PATH`".to_owned()))?;
        let git_dir = canonical(&top.join(target))?;
        if git_dir.starts_with(&top) {
            return Err(foreign(format!(
                "its .git points inside the worktree itself, at {}",
                git_dir.display()
            ))
            .into());
        }
        let common_dir = match git_dir.parent() {
            Some(parent) if parent.file_name().is_some_and(|name| name == "worktrees") => {
                parent.parent().map(Path::to_path_buf)
            }
            _ => None,
        }
        .ok_or_else(|| {
            foreign(format!(
                "its .git points at {}, which is not in a repository's worktrees folder",
                git_dir.display()
            ))
        })?;
        let common = canonical(&git_dir.join(read(&git_dir.join("commondir"))?))?;
        if common != common_dir {
            return Err(foreign(format!(
                "{} belongs to the repository {}, not to {}",
                git_dir.display(),
                common.display(),
                common_dir.display()
            ))
            .into());
        }
        let back = PathBuf::from(read(&git_dir.join("gitdir"))?);
        let back = if back.is_absolute() {
            back
        } else {
            git_dir.join(back)
        };
        if back.parent().map(canonical).transpose()?.as_deref() != Some(top.as_path()) {
            return Err(foreign(format!(
                "{} is the git directory of another worktree ({})",
                git_dir.display(),
                back.display()
            ))
            .into());
        }
        Ok(Git {
            dir: top,
            linked: Some(Linked {
                git_dir,
                common_dir,
            }),
            overrides: Default::default(),
        })
    }

    /// The repository or worktree a folder lies in (the nearest folder up
    /// that holds a `.git`), checked as [`Git::worktree`] checks one.
    pub fn containing(dir: &Path) -> Result<Self> {
        match dir
            .ancestors()
            .find(|folder| std::fs::symlink_metadata(folder.join(".git")).is_ok())
        {
            Some(top) => Git::worktree(top),
            None => Ok(Git::at(dir)),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self, args: &[&str]) -> Command {
        self.command_with(args, &[])
    }

    /// A git command with config given through `GIT_CONFIG_COUNT` (any key
    /// and value, as no `-c` can carry a name holding `=`), after what the
    /// caller's own environment gives that way.
    fn command_with(&self, args: &[&str], config: &[(String, String)]) -> Command {
        let mut command = Command::new("git");
        // Reading must never take the index lock from under the agent
        // (`git status` would otherwise write the refreshed index).
        command.arg("--no-optional-locks").arg("-C").arg(&self.dir);
        if let Some(linked) = &self.linked {
            command
                .arg("--git-dir")
                .arg(&linked.git_dir)
                .arg("--work-tree")
                .arg(&self.dir);
        }
        let inherited: usize = std::env::var("GIT_CONFIG_COUNT")
            .ok()
            .and_then(|count| count.parse().ok())
            .unwrap_or(0);
        let fixed = NO_PROGRAMS.iter().map(|(key, value)| (*key, *value));
        let given = config
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()));
        let mut count = inherited;
        for (key, value) in fixed.chain(given) {
            command
                .env(format!("GIT_CONFIG_KEY_{count}"), key)
                .env(format!("GIT_CONFIG_VALUE_{count}"), value);
            count += 1;
        }
        command
            .env("GIT_CONFIG_COUNT", count.to_string())
            .args(args)
            // Never a pager, an editor or a credential prompt: lf reads.
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_PAGER", "cat")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null());
        command
    }

    fn output(&self, args: &[&str]) -> Result<Output> {
        self.command(args).output().map_err(not_run)
    }

    /// Config that turns off every filter driver the repository's config
    /// defines (a clean filter runs on a status of a changed file): asked
    /// once, from the config alone, which runs nothing.
    fn no_filters(&self) -> Result<&[(String, String)]> {
        if let Some(overrides) = self.overrides.get() {
            return Ok(overrides);
        }
        let output = self.output(&[
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\.",
        ])?;
        let mut drivers: Vec<&str> = output
            .stdout
            .split(|byte| *byte == 0)
            .filter_map(|name| std::str::from_utf8(name).ok())
            .filter_map(|name| name.strip_prefix("filter.")?.rsplit_once('.'))
            .map(|(driver, _)| driver)
            .collect();
        drivers.sort_unstable();
        drivers.dedup();
        let overrides = drivers
            .into_iter()
            .flat_map(|driver| {
                [
                    ("clean", ""),
                    ("smudge", ""),
                    ("process", ""),
                    ("required", "false"),
                ]
                .map(|(key, value)| (format!("filter.{driver}.{key}"), value.to_owned()))
            })
            .collect();
        Ok(self.overrides.get_or_init(|| overrides))
    }

    /// Config for a command that writes the person's files (a checkout:
    /// `git worktree add` runs smudge filters): what the repository's own
    /// config — its `local` and `worktree` scopes, with the files they
    /// include, which the agent can write — says of a filter driver is
    /// overridden by what the person's own config says (system, global
    /// and command scopes: git-lfs in `~/.gitconfig` still runs), and
    /// what only the repository sets is turned off (an empty program,
    /// `required` false). Config given on the command line wins over the
    /// repository's, so git runs what the person's config alone names.
    /// One case cannot be exact, as no override unsets a key: a `process`
    /// the repository adds to a driver the person defines with `smudge`
    /// and `clean` only; empty, it turns their driver off too (a required
    /// one then fails the checkout, saying so). Asked from the config
    /// alone (`--show-scope`), which runs nothing.
    fn persons_filters_only(&self) -> Result<Vec<(String, String)>> {
        let output = self.output(&[
            "config",
            "--show-scope",
            "--includes",
            "--null",
            "--get-regexp",
            r"^filter\.",
        ])?;
        // `scope NUL name LF value NUL`, or `scope NUL name NUL` for a
        // key without a value (a boolean true).
        let fields: Vec<&[u8]> = output.stdout.split(|byte| *byte == 0).collect();
        let entries: Vec<(bool, &str, &str)> = fields
            .chunks_exact(2)
            .filter_map(|pair| {
                let scope = std::str::from_utf8(pair[0]).ok()?;
                let entry = std::str::from_utf8(pair[1]).ok()?;
                let (name, value) = entry.split_once('\n').unwrap_or((entry, "true"));
                Some((matches!(scope, "local" | "worktree"), name, value))
            })
            .collect();
        let mut names: Vec<&str> = entries
            .iter()
            .filter(|(repository, _, _)| *repository)
            .map(|(_, name, _)| *name)
            .collect();
        names.sort_unstable();
        names.dedup();
        Ok(names
            .into_iter()
            .filter_map(|name| {
                let (_, key) = name.strip_prefix("filter.")?.rsplit_once('.')?;
                // The person's own value: the last one git reads.
                let theirs = entries
                    .iter()
                    .rev()
                    .find(|(repository, known, _)| !*repository && *known == name)
                    .map(|(_, _, value)| *value);
                let off = if key == "required" { "false" } else { "" };
                Some((name.to_owned(), theirs.unwrap_or(off).to_owned()))
            })
            .collect())
    }

    /// Start a command that must succeed; `what` says what failed.
    fn start(&self, args: &[&str], what: &str) -> Result<Running> {
        self.spawn(self.command(args), what)
    }

    /// Start a command that reads the files (and so would run filters).
    fn start_reading(&self, args: &[&str], what: &str) -> Result<Running> {
        let config = self.no_filters()?;
        self.spawn(self.command_with(args, config), what)
    }

    fn spawn(&self, mut command: Command, what: &str) -> Result<Running> {
        let child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(not_run)?;
        Ok(Running {
            child,
            what: what.to_owned(),
        })
    }

    fn succeeded(&self, args: &[&str], what: &str) -> Result<Output> {
        self.start(args, what)?.finish()
    }

    /// The top of the working tree this directory is in, or `None` when it
    /// is in no git repository.
    pub fn toplevel(&self) -> Result<Option<PathBuf>> {
        let output = self.output(&["rev-parse", "--show-toplevel"])?;
        if !output.status.success() {
            return Ok(None);
        }
        Ok(Some(PathBuf::from(line(&output.stdout))))
    }

    /// The branch HEAD is on, `None` when detached.
    pub fn current_branch(&self) -> Result<Option<String>> {
        let output = self.output(&["symbolic-ref", "--quiet", "--short", "HEAD"])?;
        Ok(output.status.success().then(|| line(&output.stdout)))
    }

    /// Whether a ref exists (`refs/heads/NAME`).
    pub fn has_ref(&self, full_name: &str) -> Result<bool> {
        let output = self.output(&["show-ref", "--verify", "--quiet", full_name])?;
        Ok(output.status.success())
    }

    /// Create `branch` from `base` (which it tracks as its upstream) and
    /// check it out in a new worktree at `path`.
    pub fn add_worktree(&self, path: &Path, branch: &str, base: &str) -> Result<()> {
        let path = path.to_str().ok_or_else(|| GitError::Git {
            what: "create the worktree".to_owned(),
            stderr: format!("{} is not valid UTF-8", path.display()),
        })?;
        let args = [
            "worktree", "add", "--quiet", "--track", "-b", branch, "--", path, base,
        ];
        let config = self.persons_filters_only()?;
        self.spawn(
            self.command_with(&args, &config),
            &format!("create the worktree {path} on a new branch {branch} from {base}"),
        )?
        .finish()
        .map(drop)
    }

    /// Remove the worktree at `path` (`force`: whatever it holds).
    pub fn remove_worktree(&self, path: &Path, force: bool) -> Result<()> {
        let path = path.display().to_string();
        let mut args = vec!["worktree", "remove"];
        if force {
            // Twice: also a locked worktree.
            args.extend(["--force", "--force"]);
        }
        args.extend(["--", &path]);
        // Without --force git first looks whether the worktree is clean,
        // which runs clean filters on files whose stat changed.
        let config = self.persons_filters_only()?;
        self.spawn(
            self.command_with(&args, &config),
            &format!("remove the worktree {path}"),
        )?
        .finish()
        .map(drop)
    }

    /// Delete a branch: `-d` (only when merged), or `-D` with `force`.
    pub fn delete_branch(&self, branch: &str, force: bool) -> Result<()> {
        let flag = if force { "-D" } else { "-d" };
        self.succeeded(
            &["branch", "--quiet", flag, "--", branch],
            &format!("delete the branch {branch}"),
        )
        .map(drop)
    }

    /// The commit a ref names, abbreviated, for a person to recover it.
    pub fn short_commit(&self, rev: &str) -> Result<String> {
        let output = self.succeeded(
            &["rev-parse", "--short", "--verify", "--quiet", rev],
            &format!("read the commit of {rev}"),
        )?;
        Ok(line(&output.stdout))
    }

    /// The repository's common git directory (where every worktree's
    /// branches live), absolute: for a checked worktree, the one checked.
    pub fn common_dir(&self) -> Result<PathBuf> {
        if let Some(linked) = &self.linked {
            return Ok(linked.common_dir.clone());
        }
        let output = self.succeeded(
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
            "find the repository of the worktree",
        )?;
        Ok(PathBuf::from(line(&output.stdout)))
    }

    /// The full name of what `name` refers to (`refs/heads/main`,
    /// `refs/remotes/origin/main`), or `None` when it is not a ref.
    pub fn full_ref_name(&self, name: &str) -> Result<Option<String>> {
        let output = self.output(&[
            "rev-parse",
            "--verify",
            "--quiet",
            "--symbolic-full-name",
            name,
        ])?;
        let full = line(&output.stdout);
        Ok((output.status.success() && !full.is_empty()).then_some(full))
    }

    /// Start `git status --porcelain=v2 --branch -z`.
    pub fn start_status(&self) -> Result<Running> {
        self.start_reading(
            &[
                "status",
                "--porcelain=v2",
                "--branch",
                "-z",
                // An untracked folder is one entry (`notes/`), not a walk
                // of everything in it.
                "--untracked-files=normal",
                // A submodule's own status would run with its own config.
                "--ignore-submodules=dirty",
            ],
            "read the status of the worktree",
        )
    }

    pub fn status(&self) -> Result<Status> {
        parse_status(&self.start_status()?.finish()?.stdout)
    }

    /// Start `git diff --numstat -z`: the working tree (committed or not)
    /// against `base`, or against the merge base of `base` and HEAD
    /// (`merge_base`), for `paths` only when some are given (literally:
    /// never read as patterns).
    pub fn start_numstat(&self, base: &str, merge_base: bool, paths: &[&str]) -> Result<Running> {
        let mut args = vec!["--literal-pathspecs", "diff"];
        args.extend(NO_DIFF_PROGRAMS);
        args.extend(["--numstat", "-z"]);
        if merge_base {
            args.push("--merge-base");
        }
        args.extend([base, "--"]);
        args.extend(paths);
        self.start_reading(&args, &format!("compare the worktree with {base}"))
    }

    /// Start `git diff --numstat -z --merge-base BASE HEAD`: the commits
    /// of the branch since it left `base`, without looking at the files.
    pub fn start_committed_numstat(&self, base: &str) -> Result<Running> {
        let mut args = vec!["diff"];
        args.extend(NO_DIFF_PROGRAMS);
        args.extend(["--numstat", "-z", "--merge-base", base, "HEAD", "--"]);
        self.start_reading(&args, &format!("compare the branch with {base}"))
    }

    /// The unified diff, as `start_numstat` compares.
    pub fn patch(&self, base: &str, merge_base: bool) -> Result<Vec<u8>> {
        let mut args = vec!["diff"];
        args.extend(NO_DIFF_PROGRAMS);
        args.push("--no-color");
        if merge_base {
            args.push("--merge-base");
        }
        args.extend([base, "--"]);
        Ok(self
            .start_reading(&args, &format!("compare the worktree with {base}"))?
            .finish()?
            .stdout)
    }
}

fn not_run(error: std::io::Error) -> Error {
    if error.kind() == std::io::ErrorKind::NotFound {
        GitError::NoGit.into()
    } else {
        Error::io("cannot run git", error)
    }
}

/// The first line of a command's output.
fn line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn malformed(what: &str) -> Error {
    GitError::Git {
        what: format!("read {what}"),
        stderr: "git printed something lf does not understand".to_owned(),
    }
    .into()
}

/// Parse `git status --porcelain=v2 --branch -z`.
pub fn parse_status(bytes: &[u8]) -> Result<Status> {
    let mut status = Status::default();
    let mut fields = bytes.split(|&byte| byte == 0).filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        let entry = text(field);
        if let Some(header) = entry.strip_prefix("# ") {
            let (key, value) = header.split_once(' ').unwrap_or((header, ""));
            match key {
                "branch.head" if value != "(detached)" => status.branch = Some(value.to_owned()),
                "branch.upstream" => status.upstream = Some(value.to_owned()),
                "branch.ab" => {
                    let mut counts = value.split(' ').map(|count| {
                        count
                            .trim_start_matches(['+', '-'])
                            .parse::<u64>()
                            .map_err(|_| malformed("the status of the worktree"))
                    });
                    status.ahead = counts.next().transpose()?.unwrap_or(0);
                    status.behind = counts.next().transpose()?.unwrap_or(0);
                }
                _ => {}
            }
            continue;
        }
        let (kind, rest) = entry.split_at(entry.len().min(2));
        // The path is the last of a fixed number of space-separated fields.
        let path = |fixed: usize| -> Result<String> {
            rest.splitn(fixed + 1, ' ')
                .nth(fixed)
                .map(str::to_owned)
                .ok_or_else(|| malformed("the status of the worktree"))
        };
        match kind {
            "1 " => status.changed.push(path(7)?),
            "2 " => {
                status.changed.push(path(8)?);
                // The original path follows as a field of its own.
                if let Some(from) = fields.next() {
                    status.changed.push(text(from));
                }
            }
            "u " => status.changed.push(path(9)?),
            "? " => status.untracked.push(rest.to_owned()),
            _ => {}
        }
    }
    Ok(status)
}

/// Parse `git diff --numstat -z`: `ADDED\tDELETED\tPATH\0`, or for a
/// rename `ADDED\tDELETED\t\0FROM\0TO\0`; a binary file counts `-`.
pub fn parse_numstat(bytes: &[u8]) -> Result<Vec<NumStat>> {
    let mut files = Vec::new();
    let mut fields = bytes.split(|&byte| byte == 0);
    while let Some(field) = fields.next() {
        if field.is_empty() {
            continue;
        }
        let entry = text(field);
        let mut parts = entry.splitn(3, '\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(malformed("the changed files"));
        };
        let count = |text: &str| -> Result<Option<u64>> {
            match text {
                "-" => Ok(None),
                number => number
                    .parse()
                    .map(Some)
                    .map_err(|_| malformed("the changed files")),
            }
        };
        let (path, from) = if path.is_empty() {
            let from = fields.next().map(text);
            let to = fields.next().map(text);
            match (from, to) {
                (Some(from), Some(to)) => (to, Some(from)),
                _ => return Err(malformed("the changed files")),
            }
        } else {
            (path.to_owned(), None)
        };
        files.push(NumStat {
            path,
            from,
            insertions: count(added)?,
            deletions: count(deleted)?,
        });
    }
    Ok(files)
}

/// Running git.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum GitError {
    #[error("cannot {what}; git said: {stderr}")]
    Git { what: String, stderr: String },
    #[error("git is not installed (not found on PATH); install git to use worktrees and diffs")]
    NoGit,
    #[error(
        "the worktree {} is not the one git made for its repository ({reason}), so lf runs no git in it; look at its .git file (an agent may have rewritten it), or remove the folder yourself",
        .worktree.display()
    )]
    ForeignGitDir { worktree: PathBuf, reason: String },
}

impl Domain for GitError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Operational
    }

    fn name(&self) -> &str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_reads_branch_counts_changes_and_untracked_paths() {
        let raw =
            b"# branch.oid 0123\0# branch.head lf-a\0# branch.upstream main\0# branch.ab +2 -1\0\
1 .M N... 100644 100644 100644 aaa bbb src/a file.rs\0\
2 R. N... 100644 100644 100644 aaa bbb R100 new name\0old name\0\
? notes/new\ttab\0";
        let status = parse_status(raw).unwrap();
        assert_eq!(status.branch.as_deref(), Some("lf-a"));
        assert_eq!(status.upstream.as_deref(), Some("main"));
        assert_eq!((status.ahead, status.behind), (2, 1));
        assert_eq!(status.changed, ["src/a file.rs", "new name", "old name"]);
        assert_eq!(status.untracked, ["notes/new\ttab"]);
        assert!(status.uncommitted());
        let detached = parse_status(b"# branch.oid 0123\0# branch.head (detached)\0").unwrap();
        assert_eq!(detached.branch, None);
        assert!(!detached.uncommitted());
    }

    #[test]
    fn numstat_reads_counts_renames_and_binaries() {
        let raw = b"3\t1\tsrc/a.rs\0-\t-\timage.png\0\
0\t0\t\0old name\0new\nname\0";
        let files = parse_numstat(raw).unwrap();
        assert_eq!(
            files,
            [
                NumStat {
                    path: "src/a.rs".into(),
                    from: None,
                    insertions: Some(3),
                    deletions: Some(1)
                },
                NumStat {
                    path: "image.png".into(),
                    from: None,
                    insertions: None,
                    deletions: None
                },
                NumStat {
                    path: "new\nname".into(),
                    from: Some("old name".into()),
                    insertions: Some(0),
                    deletions: Some(0)
                },
            ]
        );
        assert!(parse_numstat(b"x\ty\n").is_err());
    }
}
