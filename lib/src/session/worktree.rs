//! A git worktree per Session: `lf-session-new --worktree` creates a branch
//! from a base and checks it out in a worktree of its own, registered as
//! the Session's Task (so `work_path`, `--task` and `lf-session-active
//! --task` work as for any Task); `lf-session-diff` shows what the Session
//! changed against that base; `lf-session-complete --remove-worktree`
//! removes the worktree, and the branch once merged, only when nothing
//! would be lost.
//!
//! The base is the new branch's upstream (`git worktree add --track`): git
//! itself then keeps it (`git status` in the worktree counts against it),
//! and lf stores nothing about the worktree beyond the Task's path.
//! Worktrees go beside the repository, in `<repo>.worktrees/<name>`, or
//! under `$LF_WORKTREES/<repo>/<name>` (see docs/decisions/0024-worktrees-and-restore.md).

use crate::clock::now_micros;
use crate::error::domain::{Arg, Domain, ErrorKind};
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::quote;
use crate::facade::Lf;
use crate::git::{Git, NumStat, Status};
use crate::ids::{SessionId, TaskId};
use crate::input;
use crate::store::{ListQuery, SessionRow, TaskRow};
use crate::wire::{FileChange, SessionDiff, SessionRecord};
use crate::work::WorkError;
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `--worktree [NAME]` and `--base REF` ask for.
#[derive(Debug, Clone, Default)]
pub struct WorktreeRequest {
    /// The branch (and the worktree's folder name); by default `lf-` and
    /// the Session id's first 8 characters.
    pub name: Option<String>,
    /// The branch to start from; by default the repository's current one.
    pub base: Option<String>,
}

/// A worktree checked and ready to be created.
#[derive(Debug, Clone)]
pub(crate) struct PlannedWorktree {
    repo: Git,
    pub path: PathBuf,
    pub branch: String,
    base: String,
}

/// How [`Lf::complete_many`] closes Sessions: the seconds between SIGTERM
/// and SIGKILL for their live clients, and whether their worktrees go too
/// (`force`: even with work that would be lost).
#[derive(Debug, Clone, Copy)]
pub struct Completing {
    pub grace: Duration,
    pub remove_worktree: bool,
    pub force: bool,
}

/// What removing a Session's worktree did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeRemoval {
    pub worktree: String,
    pub branch: Option<String>,
    /// The branch was deleted too (it was merged, or `--force`).
    pub branch_deleted: bool,
    /// What `--force` discarded, for a person to recover what they can.
    pub discarded: Option<String>,
}

impl std::fmt::Display for WorktreeRemoval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "removed the worktree {}", self.worktree)?;
        match (&self.branch, self.branch_deleted) {
            (Some(branch), true) => write!(f, " and the branch {branch}")?,
            (Some(branch), false) => write!(f, "; kept the branch {branch}")?,
            (None, _) => {}
        }
        if let Some(discarded) = &self.discarded {
            write!(f, "; discarded {discarded}")?;
        }
        Ok(())
    }
}

impl Lf {
    /// Check everything a new worktree needs — a repository, a free branch
    /// name and folder, a base branch, no Task of that name — before
    /// anything is created.
    pub(crate) fn plan_worktree(
        &self,
        request: &WorktreeRequest,
        cwd: &str,
        session: &SessionId,
    ) -> Result<PlannedWorktree> {
        let branch = match &request.name {
            Some(name) => input::branch_name(input::WORKTREE_NAME, name)?,
            None => format!("lf-{}", &session.as_str()[..8]),
        };
        let base = request
            .base
            .as_deref()
            .map(|base| input::branch_name(input::BASE_BRANCH, base))
            .transpose()?;
        let toplevel = Git::at(cwd)
            .toplevel()?
            .ok_or_else(|| WorktreeError::NotAGitRepository(cwd.to_owned()))?;
        let repo = Git::at(&toplevel);
        let base = match base {
            Some(base) => base,
            None => repo
                .current_branch()?
                .ok_or_else(|| WorktreeError::DetachedBase(toplevel.display().to_string()))?,
        };
        match repo.full_ref_name(&base)? {
            Some(full) if full.starts_with("refs/heads/") || full.starts_with("refs/remotes/") => {}
            _ => return Err(WorktreeError::BaseNotABranch(base).into()),
        }
        if repo.has_ref(&format!("refs/heads/{branch}"))? {
            return Err(WorktreeError::BranchExists {
                branch,
                repo: toplevel.display().to_string(),
            }
            .into());
        }
        let path = self
            .worktree_place(&toplevel)?
            .join(branch.replace('/', "-"));
        if std::fs::symlink_metadata(&path).is_ok() {
            return Err(WorktreeError::WorktreeDirExists(path.display().to_string()).into());
        }
        if self.store()?.find_task(&branch)?.is_some() {
            return Err(WorkError::TaskExists(branch).into());
        }
        Ok(PlannedWorktree {
            repo,
            path,
            branch,
            base,
        })
    }

    /// The folder worktrees of this repository go in.
    fn worktree_place(&self, toplevel: &Path) -> Result<PathBuf> {
        let name = toplevel
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repository".to_owned());
        Ok(match self.caller.var(crate::caller::WORKTREES_ENV) {
            Some(place) => self.caller.path(Path::new(place))?.join(name),
            None => toplevel
                .parent()
                .unwrap_or(toplevel)
                .join(format!("{name}.worktrees")),
        })
    }

    /// Create the planned worktree and register it as a Task: its id.
    pub(crate) fn create_worktree(&self, plan: &PlannedWorktree, title: &str) -> Result<TaskRow> {
        plan.repo
            .add_worktree(&plan.path, &plan.branch, &plan.base)?;
        let registered = crate::work::canonical_dir(&plan.path, Arg::Worktree, "worktree")
            .and_then(|worktree| {
                let row = TaskRow {
                    id: TaskId::new().to_string(),
                    identifier: plan.branch.clone(),
                    title: title.to_owned(),
                    worktree: Some(worktree),
                    wave_id: None,
                    created_at: now_micros(),
                    finished_at: None,
                };
                self.store()?.insert_task(&row)?;
                Ok(row)
            });
        if registered.is_err() {
            self.discard_worktree(plan);
        }
        registered
    }

    /// Undo a worktree just created (nothing is in it yet).
    pub(crate) fn discard_worktree(&self, plan: &PlannedWorktree) {
        let _ = plan.repo.remove_worktree(&plan.path, true);
        let _ = plan.repo.delete_branch(&plan.branch, true);
    }

    /// The worktree a Session works in: its Task's, else the Task worktree
    /// its cwd lies in.
    fn session_worktree(&self, row: &SessionRow) -> Result<Option<(TaskRow, String)>> {
        let store = self.store()?;
        if let Some(task) = row.task_id.as_deref()
            && let Some(task) = store.find_task(task)?
            && let Some(worktree) = task.worktree.clone()
        {
            return Ok(Some((task, worktree)));
        }
        let catalog = super::project::Catalog::on_demand();
        let Some(checkout) = catalog.task_at(store, &row.cwd)? else {
            return Ok(None);
        };
        Ok(store
            .find_task(&checkout.task_id)?
            .map(|task| (task, checkout.worktree)))
    }

    /// What a Session changed, for review: its worktree against the base
    /// its branch left, or its cwd's repository against HEAD.
    pub fn diff(&self, selector: &str) -> Result<SessionDiff> {
        let row = self.find(selector)?;
        let (git, worktree) = self.diff_place(&row)?;
        let directory;
        let (status, base, files) = if let Some(worktree) = &worktree {
            directory = worktree.clone();
            // Both at once: the status and the diff against the base.
            // One look at the files (the status), and the branch's commits
            // beside it, which need none.
            let status = git.start_status()?;
            let committed = git.start_committed_numstat("@{upstream}")?;
            let (status, committed) = (status.status()?, committed.numstat());
            match status.upstream.clone() {
                Some(upstream) => {
                    let files = against_base(&git, &status, committed?)?;
                    (status, upstream, files)
                }
                // No base (a detached HEAD, an upstream unset): against HEAD.
                None => {
                    let files = git.start_numstat("HEAD", false, &[])?.numstat()?;
                    (status, "HEAD".to_owned(), files)
                }
            }
        } else {
            // A folder outside any repository has no changes to show: said
            // as such, not as git's own failure.
            let toplevel = git
                .toplevel()?
                .ok_or_else(|| super::error::SessionError::NotInRepository(row.cwd.clone()))?;
            let status = git.start_status()?;
            let files = git.start_numstat("HEAD", false, &[])?;
            directory = toplevel.display().to_string();
            (status.status()?, "HEAD".to_owned(), files.numstat()?)
        };
        let against_upstream = base != "HEAD";
        let files: Vec<FileChange> = files
            .into_iter()
            .map(|file| FileChange {
                binary: file.insertions.is_none(),
                path: file.path,
                from: file.from,
                insertions: file.insertions,
                deletions: file.deletions,
            })
            .collect();
        Ok(SessionDiff {
            id: row.id.into(),
            directory,
            worktree,
            branch: status.branch.clone(),
            ahead: if against_upstream { status.ahead } else { 0 },
            behind: if against_upstream { status.behind } else { 0 },
            uncommitted: status.uncommitted(),
            insertions: files.iter().filter_map(|file| file.insertions).sum(),
            deletions: files.iter().filter_map(|file| file.deletions).sum(),
            files,
            untracked: status.untracked,
            base,
        })
    }

    /// The unified diff of what `diff` counts, for a pager.
    pub fn diff_patch(&self, selector: &str) -> Result<Vec<u8>> {
        let row = self.find(selector)?;
        let (git, worktree) = self.diff_place(&row)?;
        if worktree.is_some() && git.status()?.upstream.is_some() {
            return git.patch("@{upstream}", true);
        }
        git.patch("HEAD", false)
    }

    /// Where a Session's diff is taken: its worktree (which must still be
    /// there), else its cwd (which must be in a repository).
    fn diff_place(&self, row: &SessionRow) -> Result<(Git, Option<String>)> {
        match self.session_worktree(row)? {
            Some((_, worktree)) => {
                crate::work::canonical_dir(Path::new(&worktree), Arg::Id, "worktree")?;
                Ok((Git::worktree(&worktree)?, Some(worktree)))
            }
            None => {
                let cwd =
                    crate::work::canonical_dir(Path::new(&row.cwd), Arg::Id, "working directory")?;
                Ok((Git::containing(Path::new(&cwd))?, None))
            }
        }
    }

    /// Complete every one of `selectors`, in order, as `complete` (or,
    /// with `remove_worktree`, `complete_removing_worktree`) does one.
    /// Every selector is checked first, so a typo closes none of the
    /// list; if closing one fails, the ones before it stay closed. The
    /// error comes with the index of the selector it is about; each
    /// worktree removed is told to `removed`.
    pub fn complete_many(
        &self,
        selectors: &[&str],
        how: &Completing,
        tell: &mut dyn FnMut(&crate::liveness::AgentStopping),
        removed: &mut dyn FnMut(&WorktreeRemoval),
    ) -> std::result::Result<Vec<SessionRecord>, (usize, Error)> {
        // Resolved once, all of them first: from here on each is its id.
        let ids = selectors
            .iter()
            .enumerate()
            .map(|(index, selector)| {
                self.resolve(selector)
                    .map(|session| session.row.id)
                    .map_err(|error| (index, error))
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let mut records = Vec::with_capacity(ids.len());
        for (index, id) in ids.iter().enumerate() {
            let record = if how.remove_worktree {
                let (record, removal) = self
                    .session(id)
                    .and_then(|row| self.complete_removing(row, how.grace, how.force, tell))
                    .map_err(|error| (index, error))?;
                removed(&removal);
                record
            } else {
                self.complete_resolved(id, how.grace, tell)
                    .map_err(|error| (index, error))?
            };
            records.push(record);
        }
        Ok(records)
    }

    /// Complete a Session and remove its worktree (and its branch, once
    /// merged into its base). Uncommitted or unmerged work is refused,
    /// naming it, unless `force`; then nothing is changed. The agent may
    /// write until it is stopped: the worktree is looked at again after.
    pub fn complete_removing_worktree(
        &self,
        selector: &str,
        grace: Duration,
        force: bool,
        tell: &mut dyn FnMut(&crate::liveness::AgentStopping),
    ) -> Result<(SessionRecord, WorktreeRemoval)> {
        // Resolved once: the completion below acts on this Session.
        self.complete_removing(self.find(selector)?, grace, force, tell)
    }

    /// [`Lf::complete_removing_worktree`] of a Session already resolved.
    fn complete_removing(
        &self,
        row: SessionRow,
        grace: Duration,
        force: bool,
        tell: &mut dyn FnMut(&crate::liveness::AgentStopping),
    ) -> Result<(SessionRecord, WorktreeRemoval)> {
        crate::state::refuse_completed(row.id.as_str(), row.completed_at)?;
        // Only the worktree of the Session's own Task: one it merely runs
        // inside belongs to another.
        let task = match row.task_id.as_deref() {
            Some(task) => self.store()?.find_task(task)?,
            None => None,
        };
        let (task, worktree) = task
            .and_then(|task| Some((task.worktree.clone()?, task)))
            .map(|(worktree, task)| (task, worktree))
            .ok_or_else(|| WorktreeError::NoWorktree {
                session: row.id.to_string(),
            })?;
        crate::work::canonical_dir(Path::new(&worktree), Arg::RemoveWorktree, "worktree")?;
        let git = Git::worktree(&worktree)?;
        self.refuse_losing(&row.id, &worktree, &git.status()?, force)?;
        self.refuse_shared(&row, &task, &worktree)?;
        let record = self.complete_resolved(&row.id, grace, tell)?;
        let kept = |error: Error| {
            error.during(format!(
                "Session {} was completed; its worktree {worktree} was kept",
                record.id
            ))
        };
        let status = git.status().map_err(kept)?;
        self.refuse_losing(&record.id, &worktree, &status, force)
            .map_err(kept)?;
        let merged = status.upstream.is_some() && status.ahead == 0;
        let mut discarded = Vec::new();
        if status.uncommitted() {
            discarded.push(uncommitted(&status));
        }
        let branch = status.branch.clone();
        let tip = match &branch {
            Some(branch) if force && !merged && status.upstream.is_some() => Some(
                git.short_commit(&format!("refs/heads/{branch}"))
                    .map_err(kept)?,
            ),
            _ => None,
        };
        if let (Some(branch), Some(tip)) = (&branch, &tip) {
            discarded.push(format!(
                "{} on the branch {branch} (its last commit was {tip})",
                commits(status.ahead, status.upstream.as_deref())
            ));
        }
        let repo = Git::at(git.common_dir().map_err(kept)?);
        repo.remove_worktree(Path::new(&worktree), force)
            .map_err(kept)?;
        // The `<repo>.worktrees/` folder lf made for it goes too once empty
        // (remove_dir refuses a folder that is not).
        if let Some(place) = Path::new(&worktree).parent()
            && place
                .file_name()
                .is_some_and(|name| name.to_string_lossy().ends_with(".worktrees"))
        {
            let _ = std::fs::remove_dir(place);
        }
        // Only the branch lf made for this Task (named as the Task).
        let branch_deleted = match &branch {
            Some(branch) if *branch != task.identifier => false,
            Some(branch) if merged => repo.delete_branch(branch, false).is_ok(),
            Some(branch) if tip.is_some() => repo.delete_branch(branch, true).is_ok(),
            _ => false,
        };
        self.store()?.finish_task(&task.id, now_micros())?;
        Ok((
            self.record_of(&row.id)?,
            WorktreeRemoval {
                worktree,
                branch,
                branch_deleted,
                discarded: (!discarded.is_empty()).then(|| discarded.join(" and ")),
            },
        ))
    }

    fn refuse_losing(
        &self,
        session: &str,
        worktree: &str,
        status: &Status,
        force: bool,
    ) -> Result<()> {
        if force {
            return Ok(());
        }
        let mut lost = Vec::new();
        if status.uncommitted() {
            lost.push(uncommitted(status));
        }
        match (&status.branch, &status.upstream) {
            (None, _) => lost.push("a detached HEAD (commits on no branch)".to_owned()),
            (Some(branch), Some(upstream)) if status.ahead > 0 => lost.push(format!(
                "{} on the branch {branch}",
                commits(status.ahead, Some(upstream))
            )),
            _ => {}
        }
        if lost.is_empty() {
            return Ok(());
        }
        Err(WorktreeError::WouldLoseWork {
            session: session.to_owned(),
            worktree: worktree.to_owned(),
            lost: lost.join(" and "),
        }
        .into())
    }

    /// Another open Session working in the same worktree keeps it.
    fn refuse_shared(&self, row: &SessionRow, task: &TaskRow, worktree: &str) -> Result<()> {
        let mut other = None;
        self.store()?
            .session_rows_after(&ListQuery::default(), None, None, |open| {
                let inside = Path::new(&open.cwd).starts_with(worktree);
                if open.id != row.id && (open.task_id.as_ref() == Some(&task.id) || inside) {
                    other = Some(open.id.into());
                    return Ok(false);
                }
                Ok(true)
            })?;
        match other {
            Some(other) => Err(WorktreeError::WorktreeInUse {
                other,
                worktree: worktree.to_owned(),
            }
            .into()),
            None => Ok(()),
        }
    }
}

/// The most changed paths compared one by one; more are compared whole.
const PATHS_AT_ONCE: usize = 256;

/// What `git diff --numstat --merge-base BASE` says, from the branch's
/// commits against the base (`committed`) and the paths the status found
/// changed, compared with the base on their own: the files are looked at
/// once, by the status, instead of by a second walk of the whole tree.
fn against_base(git: &Git, status: &Status, committed: Vec<NumStat>) -> Result<Vec<NumStat>> {
    if status.changed.is_empty() {
        return Ok(committed);
    }
    let mut paths: std::collections::BTreeSet<String> = status.changed.iter().cloned().collect();
    // A rename committed and then changed again: both of its paths, so
    // git pairs them as the whole diff would.
    for file in &committed {
        if let Some(from) = &file.from
            && paths.contains(&file.path)
        {
            paths.insert(from.clone());
        }
    }
    if paths.len() > PATHS_AT_ONCE {
        return git.start_numstat("@{upstream}", true, &[])?.numstat();
    }
    let touched = |file: &NumStat| {
        paths.contains(&file.path) || file.from.as_ref().is_some_and(|from| paths.contains(from))
    };
    let mut files: Vec<NumStat> = committed
        .into_iter()
        .filter(|file| !touched(file))
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    files.extend(git.start_numstat("@{upstream}", true, &paths)?.numstat()?);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// "uncommitted changes to 2 files and 1 untracked file".
fn uncommitted(status: &Status) -> String {
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if !status.changed.is_empty() {
        parts.push(format!(
            "uncommitted changes to {}",
            count(status.changed.len(), "file")
        ));
    }
    let folders = status
        .untracked
        .iter()
        .filter(|path| path.ends_with('/'))
        .count();
    let files = status.untracked.len() - folders;
    if files > 0 {
        parts.push(count(files, "untracked file"));
    }
    if folders > 0 {
        parts.push(count(folders, "untracked folder"));
    }
    parts.join(" and ")
}

/// "2 commits not merged into main".
fn commits(ahead: u64, base: Option<&str>) -> String {
    format!(
        "{ahead} commit{} not merged into {}",
        if ahead == 1 { "" } else { "s" },
        base.unwrap_or("its base")
    )
}
/// A Session's worktree: making one, and removing it.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum WorktreeError {
    #[error(
        "{} is not inside a git repository: --worktree needs one; pass --cwd with a directory of a repository",
        quote(.0)
    )]
    NotAGitRepository(String),
    #[error(
        "the repository {} is on no branch (its HEAD is detached): name the branch to start from with --base BRANCH",
        quote(.0)
    )]
    DetachedBase(String),
    #[error(
        "{} is not a branch of this repository: --base takes a local branch (main) or a remote-tracking one (origin/main)",
        quote(.0)
    )]
    BaseNotABranch(String),
    #[error(
        "--worktree registers a Task of its own; leave out --task (or use the Task's worktree with --task alone)"
    )]
    WorktreeWithTask,
    #[error(
        "the branch {} already exists in {}",
        quote(.branch), quote(.repo)
    )]
    BranchExists { branch: String, repo: String },
    #[error(
        "{} already exists; choose another --worktree NAME, or set LF_WORKTREES to put worktrees elsewhere",
        quote(.0)
    )]
    WorktreeDirExists(String),
    #[error(
        "Session {session} has no worktree to remove (it is bound to no Task with a worktree); complete it without --remove-worktree"
    )]
    NoWorktree { session: String },
    #[error(
        "removing the worktree {} of Session {session} would lose {lost}; commit and merge that first, or pass --force to discard it",
        quote(.worktree)
    )]
    WouldLoseWork {
        session: String,
        worktree: String,
        lost: String,
    },
    #[error(
        "Session {other} is open in the worktree {} too; complete it first, or remove the worktree with the last Session that uses it",
        quote(.worktree)
    )]
    WorktreeInUse { other: String, worktree: String },
}

impl Domain for WorktreeError {
    fn kind(&self) -> ErrorKind {
        use WorktreeError::*;
        match self {
            NotAGitRepository(..) | DetachedBase(..) | BaseNotABranch(..) | WorktreeWithTask => {
                ErrorKind::Usage
            }
            BranchExists { .. }
            | WorktreeDirExists(..)
            | NoWorktree { .. }
            | WouldLoseWork { .. }
            | WorktreeInUse { .. } => ErrorKind::Conflict,
        }
    }

    fn arg(&self) -> Option<Arg> {
        use WorktreeError::*;
        Some(match self {
            NotAGitRepository(_) => Arg::Cwd,
            DetachedBase(_) | BaseNotABranch(_) => Arg::Base,
            WorktreeWithTask | BranchExists { .. } | WorktreeDirExists(_) => Arg::Worktree,
            NoWorktree { .. } | WouldLoseWork { .. } | WorktreeInUse { .. } => Arg::RemoveWorktree,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            WorktreeError::BranchExists { .. } => Some(
                Hint::text("choose another --worktree NAME, or register its worktree as a Task (")
                    .command(Command::WorkTaskAdd { worktree: true })
                    .then(") and pass --task"),
            ),
            _ => None,
        }
    }
}
