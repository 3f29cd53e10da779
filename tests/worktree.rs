//! A git worktree per Session: created from a real repository in a temp
//! dir, the agent (a fake) launched in it, its diff checked against git's
//! own `--numstat`, and its removal refused while work would be lost.

use crate::util::*;
use lf::wire::{SessionDiff, SessionRecord, SessionState, WorkRef};
use std::path::{Path, PathBuf};

/// Run git in `dir` with a sealed configuration; its stdout.
pub(crate) fn git(env: &Env, dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", env.dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A repository `repo` under the work folder, on `main`, with one commit.
pub(crate) fn repository(env: &Env) -> PathBuf {
    let repo = env.mkdir("repo");
    git(env, &repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "# app\n").unwrap();
    std::fs::write(repo.join("lib.rs"), "fn a() {}\nfn b() {}\nfn c() {}\n").unwrap();
    git(env, &repo, &["add", "."]);
    git(env, &repo, &["commit", "-q", "-m", "start"]);
    repo
}

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

/// A Session with a worktree `name`, launched with the fake Claude.
pub(crate) fn worktree_session(env: &Env, repo: &Path, name: &str) -> SessionRecord {
    let flag = format!("--worktree={name}");
    env.run(
        "lf-session-new",
        &[&flag, "--cwd", repo.to_str().unwrap(), "hello"],
    )
    .json()
}

/// `git diff --numstat` as (path, insertions, deletions).
fn numstat(text: &str) -> Vec<(String, Option<u64>, Option<u64>)> {
    let mut files: Vec<_> = text
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, '\t');
            let count = |part: Option<&str>| part.and_then(|count| count.parse().ok());
            let (added, deleted) = (count(parts.next()), count(parts.next()));
            (parts.next().unwrap().to_owned(), added, deleted)
        })
        .collect();
    files.sort();
    files
}

/// `lf-session-diff`'s JSON, checked against schema/diff.schema.json, decoded.
pub(crate) fn session_diff(env: &Env, id: &str) -> SessionDiff {
    let ran = env.run("lf-session-diff", &[id]);
    ran.ok();
    let value: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let schema = crate::schema::read_json("schema/diff.schema.json");
    crate::schema::assert_keys_match("a diff", &value, &schema);
    for file in value["files"].as_array().unwrap() {
        crate::schema::assert_keys_match("a file", file, crate::schema::def(&schema, "FileChange"));
    }
    crate::schema::validate(&schema, &schema, &value, "").unwrap();
    serde_json::from_value(value).unwrap()
}

fn diff_files(diff: &SessionDiff) -> Vec<(String, Option<u64>, Option<u64>)> {
    let mut files: Vec<_> = diff
        .files
        .iter()
        .map(|file| (file.path.clone(), file.insertions, file.deletions))
        .collect();
    files.sort();
    files
}

#[test]
fn a_worktree_session_runs_on_its_own_branch_and_its_diff_is_gits() {
    let env = Env::new();
    let repo = repository(&env);
    let record = worktree_session(&env, &repo, "feature/parser");
    let worktree = env.work().join("repo.worktrees/feature-parser");
    let worktree = std::fs::canonicalize(&worktree).expect("the worktree exists beside the repo");
    assert_eq!(record.cwd, worktree.display().to_string());
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    // The agent runs there.
    let launch = env.agent_log("launch").pop().unwrap();
    assert_eq!(launch["cwd"], worktree.display().to_string());
    // A branch of its own, tracking the base it started from.
    assert_eq!(
        git(&env, &worktree, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "feature/parser"
    );
    assert_eq!(
        git(
            &env,
            &worktree,
            &["rev-parse", "--abbrev-ref", "@{upstream}"]
        )
        .trim(),
        "main"
    );
    // Registered as its Task, found by --task as any Task is.
    let Some(WorkRef::Task(task)) = &record.work else {
        panic!("the worktree is the Session's Task: {record:#?}");
    };
    assert_eq!(
        record.workspace.as_ref().unwrap().task_id.as_ref(),
        Some(task)
    );
    let listed = env.list(&["--task", "feature/parser"]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, record.id);
    let active: lf::snapshot::LiveSnapshot = env
        .run("lf-session-active", &["--task", "feature/parser"])
        .json();
    assert_eq!(active.task.as_ref(), Some(task));
    assert!(
        active
            .sessions
            .iter()
            .any(|session| session.id == record.id),
        "the live snapshot of its Task shows it: {active:#?}"
    );

    // Work: a commit, an uncommitted change, a new file, a main that moved.
    write(
        &worktree.join("lib.rs"),
        "fn a() {}\nfn b2() {}\nfn c() {}\nfn d() {}\n",
    );
    git(&env, &worktree, &["commit", "-qam", "parser"]);
    git(&env, &worktree, &["mv", "README.md", "GUIDE.md"]);
    git(&env, &worktree, &["commit", "-qm", "renamed"]);
    write(&worktree.join("GUIDE.md"), "# app\n\nNow with a parser.\n");
    write(
        &worktree.join("lib.rs"),
        "fn a() {}\nfn b2() {}\nfn c() {}\nfn d() {}\nfn e() {}\n",
    );
    write(&worktree.join("notes.txt"), "todo\n");
    write(&repo.join("CHANGELOG"), "main moved\n");
    git(&env, &repo, &["add", "CHANGELOG"]);
    git(&env, &repo, &["commit", "-qm", "elsewhere"]);

    let diff = session_diff(&env, &record.id);
    assert_eq!(diff.id, record.id);
    assert_eq!(diff.worktree.as_deref(), Some(record.cwd.as_str()));
    assert_eq!(diff.branch.as_deref(), Some("feature/parser"));
    assert_eq!(diff.base, "main");
    assert_eq!((diff.ahead, diff.behind), (2, 1));
    assert!(diff.uncommitted);
    assert_eq!(diff.untracked, ["notes.txt"]);
    let gits = numstat(&git(
        &env,
        &worktree,
        &["diff", "--numstat", "--merge-base", "main"],
    ));
    assert_eq!(diff_files(&diff), gits);
    assert_eq!(
        (diff.insertions, diff.deletions),
        (
            gits.iter().filter_map(|file| file.1).sum(),
            gits.iter().filter_map(|file| file.2).sum()
        )
    );
    assert!(
        !diff.files.iter().any(|file| file.path == "CHANGELOG"),
        "what main did since is not the Session's"
    );
    let patch = env.run("lf-session-diff", &[&record.id, "--patch"]);
    patch.ok();
    assert_eq!(
        patch.stdout,
        git(&env, &worktree, &["diff", "--merge-base", "main"])
    );
    // A branch whose base was unset is compared with HEAD.
    git(&env, &worktree, &["branch", "--unset-upstream"]);
    let unset = session_diff(&env, &record.id);
    assert_eq!(unset.base, "HEAD");
    assert_eq!((unset.ahead, unset.behind), (0, 0));
    assert_eq!(
        diff_files(&unset),
        numstat(&git(&env, &worktree, &["diff", "--numstat", "HEAD"]))
    );
}

#[test]
fn a_session_without_a_worktree_diffs_its_repository_against_head() {
    let env = Env::new();
    let repo = repository(&env);
    let sub = repo.join("src");
    std::fs::create_dir(&sub).unwrap();
    let record = env.new_session(&["--cwd", sub.to_str().unwrap()]);
    write(&repo.join("lib.rs"), "fn a() {}\n");
    git(&env, &repo, &["add", "lib.rs"]);
    write(&repo.join("README.md"), "# app\nmore\n");
    let diff = session_diff(&env, &record.id);
    assert_eq!(diff.worktree, None);
    assert_eq!(diff.directory, repo.display().to_string());
    assert_eq!(diff.base, "HEAD");
    assert_eq!(diff.branch.as_deref(), Some("main"));
    assert_eq!(
        diff_files(&diff),
        numstat(&git(&env, &repo, &["diff", "--numstat", "HEAD"]))
    );
    assert!(diff.uncommitted);
}

#[test]
fn worktree_names_places_and_repositories_are_checked_before_anything_is_made() {
    let env = Env::new();
    let repo = repository(&env);
    let cwd = repo.to_str().unwrap();
    let plain = env.mkdir("plain");
    env.attempt(
        "lf-session-new",
        &[
            "--worktree",
            "--no-launch",
            "--cwd",
            plain.to_str().unwrap(),
        ],
    )
    .fails_with(2, "not_a_git_repository");
    for bad in ["../escape", "-f", "a..b", "HEAD", "x.lock", "a b", "/abs"] {
        let flag = format!("--worktree={bad}");
        let ran = env.attempt("lf-session-new", &[&flag, "--no-launch", "--cwd", cwd]);
        let error = ran.fails_with(2, "bad_token");
        assert_eq!(error.arg.as_deref(), Some("worktree"), "{bad}: {error:?}");
    }
    env.attempt(
        "lf-session-new",
        &["--worktree", "--base", "nope", "--no-launch", "--cwd", cwd],
    )
    .fails_with(2, "base_not_a_branch");
    git(&env, &repo, &["branch", "taken"]);
    env.attempt(
        "lf-session-new",
        &["--worktree=taken", "--no-launch", "--cwd", cwd],
    )
    .fails_with(4, "branch_exists");
    std::fs::create_dir_all(env.work().join("repo.worktrees/occupied")).unwrap();
    env.attempt(
        "lf-session-new",
        &["--worktree=occupied", "--no-launch", "--cwd", cwd],
    )
    .fails_with(4, "worktree_dir_exists");
    // Nothing was made by any of them.
    assert!(env.list(&["--all"]).is_empty());
    assert_eq!(
        git(&env, &repo, &["branch", "--format=%(refname:short)"]),
        "main\ntaken\n"
    );
    // The place is configurable.
    let place = env.mkdir("elsewhere");
    let mut command = env.command("lf-session-new");
    command
        .env("LF_WORKTREES", &place)
        .args(["--worktree", "--no-launch", "--cwd", cwd]);
    let record: SessionRecord = env.run_command(command).json();
    let expected = place.join("repo").join(format!("lf-{}", &record.id[..8]));
    assert_eq!(record.cwd, expected.display().to_string());
}

#[test]
fn removing_a_worktree_is_refused_while_work_would_be_lost_and_done_once_merged() {
    let env = Env::new();
    let repo = repository(&env);
    let record = worktree_session(&env, &repo, "fix");
    let worktree = PathBuf::from(&record.cwd);
    // Completing without the flag is tested last; first, what is refused.
    write(&worktree.join("lib.rs"), "changed\n");
    env.attempt("lf-session-complete", &[&record.id, "--remove-worktree"])
        .fails_with(4, "would_lose_work");
    assert_eq!(
        env.show(&record.id).state,
        SessionState::Active,
        "nothing changed"
    );
    git(&env, &worktree, &["commit", "-qam", "fix"]);
    env.attempt("lf-session-complete", &[&record.id, "--remove-worktree"])
        .fails_with(4, "would_lose_work");
    assert!(worktree.exists());
    git(&env, &repo, &["merge", "-q", "--ff-only", "fix"]);
    let ran = env.run("lf-session-complete", &[&record.id, "--remove-worktree"]);
    let closed: SessionRecord = ran.json();
    assert_eq!(closed.state, SessionState::Closed);
    // Said in one note (tests/messages.rs pins its words).
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(!worktree.exists());
    // Issue 26: the empty `<repo>.worktrees/` folder stayed behind.
    assert!(
        !worktree.parent().unwrap().exists(),
        "{} is left",
        worktree.parent().unwrap().display()
    );
    assert_eq!(
        git(&env, &repo, &["branch", "--format=%(refname:short)"]),
        "main\n"
    );
    let tasks: Vec<lf::wire::TaskRecord> = env.run("lf-work", &["task", "list"]).json();
    assert!(tasks.iter().all(|task| task.finished), "{tasks:#?}");
}

#[test]
fn force_removes_unmerged_work_and_says_what_it_discarded() {
    let env = Env::new();
    let repo = repository(&env);
    let record = worktree_session(&env, &repo, "spike");
    let worktree = PathBuf::from(&record.cwd);
    write(&worktree.join("new.rs"), "fn new() {}\n");
    git(&env, &worktree, &["add", "new.rs"]);
    git(&env, &worktree, &["commit", "-qm", "spike"]);
    let tip = git(&env, &worktree, &["rev-parse", "--short", "HEAD"]);
    write(&worktree.join("scratch"), "x\n");
    env.attempt("lf-session-complete", &[&record.id, "--remove-worktree"])
        .fails_with(4, "would_lose_work");
    let ran = env.run(
        "lf-session-complete",
        &[&record.id, "--remove-worktree", "--force"],
    );
    let closed: SessionRecord = ran.json();
    assert_eq!(closed.state, SessionState::Closed);
    // The note names the lost tip, so it can be brought back
    // (tests/messages.rs pins its words).
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert_eq!(
        git(&env, &repo, &["cat-file", "-t", tip.trim()]),
        "commit\n",
        "git keeps the tip the note names"
    );
    assert!(!worktree.exists());
    assert_eq!(
        git(&env, &repo, &["branch", "--format=%(refname:short)"]),
        "main\n"
    );
}

#[test]
fn completing_without_the_flag_leaves_the_worktree_as_it_was() {
    let env = Env::new();
    let repo = repository(&env);
    let record = worktree_session(&env, &repo, "keep");
    let worktree = PathBuf::from(&record.cwd);
    write(&worktree.join("lib.rs"), "kept\n");
    let closed: SessionRecord = env.run("lf-session-complete", &[&record.id]).json();
    assert_eq!(closed.state, SessionState::Closed);
    assert_eq!(
        std::fs::read_to_string(worktree.join("lib.rs")).unwrap(),
        "kept\n"
    );
    assert_eq!(
        git(&env, &repo, &["branch", "--format=%(refname:short)"]),
        "keep\nmain\n"
    );
    // A Session without a worktree cannot remove one.
    let plain = env.new_session(&[]);
    env.attempt("lf-session-complete", &[&plain.id, "--remove-worktree"])
        .fails_with(4, "no_worktree");
}
