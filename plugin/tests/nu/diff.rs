//! `lf session diff` in the real `nu`: a Session with a worktree of a real
//! git repository, changed; the record's `files` is a table whose rows are
//! what `lf-session-diff` prints, and `--patch` is its text.

use super::Env;
use lf::session::worktree::WorktreeRequest;
use lf::wire::SessionDiff;
use std::path::Path;
use std::process::Command;

fn git(env: &Env, dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", env.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .arg("-C")
        .arg(dir)
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A repository with one commit of `a.txt` ("one", "two") and a Session
/// (not launched) on a worktree of its own, named `name`.
fn worktree_session(env: &Env, name: &str) -> lf::wire::SessionRecord {
    let repo = env.mkdir("repo");
    git(env, &repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    git(env, &repo, &["add", "."]);
    git(env, &repo, &["commit", "-qm", "start"]);
    env.lf()
        .create(lf::NewConversation {
            provider: lf::provider::Provider::Command,
            model: None,
            title: Some(name.into()),
            cwd: Some(repo),
            task: None,
            prompt: None,
            argv: vec!["true".into()],
            launch: false,
            worktree: Some(WorktreeRequest {
                name: Some(name.into()),
                base: None,
            }),
        })
        .unwrap()
}

#[test]
fn lf_session_diff_is_a_record_with_a_files_table() {
    let env = Env::new();
    let record = worktree_session(&env, "nu-diff");
    let worktree = Path::new(&record.cwd);
    std::fs::write(worktree.join("a.txt"), "one\n2\nthree\n").unwrap();
    let script = format!(
        "let d = lf session diff {}; {{kind: ($d.files | describe), path: $d.files.0.path, \
         insertions: $d.files.0.insertions, base: $d.base}} | to json -r",
        record.id
    );
    let shown: serde_json::Value = env.nu(&script).json();
    assert_eq!(
        shown,
        serde_json::json!({
            "kind": "table<path: string, from: nothing, insertions: int, deletions: int, binary: bool>",
            "path": "a.txt",
            "insertions": 2,
            "base": "main",
        })
    );
    let whole: SessionDiff = env
        .nu(&format!("lf session diff {} | to json -r", record.id))
        .json();
    let printed: SessionDiff = env
        .binary_in(&env.work(), "lf-session-diff", &[&record.id])
        .json();
    assert_eq!(whole, printed);
    let patch = env.nu(&format!("lf session diff {} --patch", record.id));
    patch.ok();
    assert!(patch.stdout.contains("+three"), "{}", patch.stdout);
}

/// `lf session complete --remove-worktree` in the real `nu`: refused, under
/// the flag, while the worktree holds uncommitted work (nothing changes);
/// with `--force` the session is closed and its worktree gone.
#[test]
fn lf_session_complete_removes_a_worktree_only_when_nothing_is_lost_or_forced() {
    let env = Env::new();
    let record = worktree_session(&env, "nu-remove");
    let worktree = Path::new(&record.cwd).to_path_buf();
    std::fs::write(worktree.join("a.txt"), "changed\n").unwrap();
    let refused = env.nu(&format!(
        "try {{ lf session complete {} --remove-worktree }} catch {{ |e| $e.msg }}",
        record.id
    ));
    refused.ok();
    assert!(
        refused
            .stdout
            .contains("would lose uncommitted changes to 1 file"),
        "{}",
        refused.describe()
    );
    assert!(worktree.exists(), "nothing removed");
    let lonely_force = env.nu(&format!(
        "try {{ lf session complete {} --force }} catch {{ |e| $e.msg }}",
        record.id
    ));
    assert_eq!(
        lonely_force.stdout.trim(),
        "--force only goes with --remove-worktree"
    );
    let closed = env.nu(&format!(
        "lf session complete {} --remove-worktree --force | get state",
        record.id
    ));
    closed.ok();
    assert_eq!(closed.stdout.trim(), "closed", "{}", closed.describe());
    assert!(!worktree.exists(), "the worktree is removed");
}
