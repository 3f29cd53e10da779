//! The one place that runs git. Every call is an argv vector (never a shell
//! string) run with `git -C DIR`, names are checked by `input::branch_name`
//! before they get here, and `--` separates paths wherever git takes them.
//! Output is read in git's machine formats (`--porcelain=v2 -z`,
//! `--numstat -z`), so no path is ever split on a space or a newline.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A git repository or worktree, by a directory inside it.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
}

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
    Error::Git {
        what: what.to_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    }
}

impl Git {
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Git { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            // Reading must never take the index lock from under the agent
            // (`git status` would otherwise write the refreshed index).
            .arg("--no-optional-locks")
            .arg("-C")
            .arg(&self.dir)
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

    /// Start a command that must succeed; `what` says what failed.
    fn start(&self, args: &[&str], what: &str) -> Result<Running> {
        let child = self
            .command(args)
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

    /// Start `git rev-parse --show-toplevel` (read with `Running::line`).
    pub fn start_toplevel(&self) -> Result<Running> {
        self.start(
            &["rev-parse", "--show-toplevel"],
            "find the top of the repository",
        )
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
        let path = path.to_str().ok_or_else(|| Error::Git {
            what: "create the worktree".to_owned(),
            stderr: format!("{} is not valid UTF-8", path.display()),
        })?;
        self.succeeded(
            &[
                "worktree", "add", "--quiet", "--track", "-b", branch, "--", path, base,
            ],
            &format!("create the worktree {path} on a new branch {branch} from {base}"),
        )
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
        self.succeeded(&args, &format!("remove the worktree {path}"))
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
    /// branches live), absolute.
    pub fn common_dir(&self) -> Result<PathBuf> {
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
        self.start(
            &[
                "status",
                "--porcelain=v2",
                "--branch",
                "-z",
                // An untracked folder is one entry (`notes/`), not a walk
                // of everything in it.
                "--untracked-files=normal",
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
        let mut args = vec![
            "--literal-pathspecs",
            "diff",
            "--no-ext-diff",
            "--numstat",
            "-z",
        ];
        if merge_base {
            args.push("--merge-base");
        }
        args.extend([base, "--"]);
        args.extend(paths);
        self.start(&args, &format!("compare the worktree with {base}"))
    }

    /// Start `git diff --numstat -z --merge-base BASE HEAD`: the commits
    /// of the branch since it left `base`, without looking at the files.
    pub fn start_committed_numstat(&self, base: &str) -> Result<Running> {
        self.start(
            &[
                "diff",
                "--no-ext-diff",
                "--numstat",
                "-z",
                "--merge-base",
                base,
                "HEAD",
                "--",
            ],
            &format!("compare the branch with {base}"),
        )
    }

    /// The unified diff, as `start_numstat` compares.
    pub fn patch(&self, base: &str, merge_base: bool) -> Result<Vec<u8>> {
        let mut args = vec!["diff", "--no-ext-diff", "--no-color"];
        if merge_base {
            args.push("--merge-base");
        }
        args.extend([base, "--"]);
        Ok(self
            .succeeded(&args, &format!("compare the worktree with {base}"))?
            .stdout)
    }
}

fn not_run(error: std::io::Error) -> Error {
    if error.kind() == std::io::ErrorKind::NotFound {
        Error::NoGit
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
    Error::Git {
        what: format!("read {what}"),
        stderr: "git printed something lf does not understand".to_owned(),
    }
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
