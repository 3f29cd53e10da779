//! Everything lf creates in the Home is owner-only, whatever the umask: the
//! database holds `lf-handoff --env` values and prompts in plain text.

use crate::util::{Env, bin, wait_for};
use lf::wire::{SessionRecord, SessionState};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Run a binary as `env.command` would, under umask 000.
fn under_open_umask(env: &Env, name: &str, args: &[&str]) -> crate::util::Ran {
    let template = env.command(name);
    let mut command = Command::new("sh");
    command.env_clear();
    for (key, value) in template.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    command
        .current_dir(env.work())
        .stdin(Stdio::null())
        .args(["-c", "umask 000 && exec \"$0\" \"$@\""])
        .arg(bin(name))
        .args(args);
    env.run_command(command)
}

/// Every path under `root` with its permission bits (symlinks not followed).
fn modes(root: &Path) -> Vec<(PathBuf, u32, bool)> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let meta = std::fs::symlink_metadata(&dir).unwrap();
        found.push((dir.clone(), meta.permissions().mode() & 0o7777, true));
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                pending.push(path);
            } else {
                found.push((path, meta.permissions().mode() & 0o7777, false));
            }
        }
    }
    found
}

fn assert_private(root: &Path) {
    let modes = modes(root);
    let wide: Vec<_> = modes
        .iter()
        .filter(|(_, mode, is_dir)| *mode != if *is_dir { 0o700 } else { 0o600 })
        .map(|(path, mode, _)| format!("{} {mode:04o}", path.display()))
        .collect();
    assert!(wide.is_empty(), "not owner-only: {wide:#?}");
}

#[test]
fn every_file_lf_creates_is_owner_only_under_umask_000() {
    let env = Env::new();
    let cwd = env.mkdir("repo");
    // The tmux server, lf-serve and the agent all start from this process,
    // so they inherit the open umask too.
    let record: SessionRecord = under_open_umask(
        &env,
        "lf-session-new",
        &["--cwd", cwd.to_str().unwrap(), "Fix the parser"],
    )
    .json();
    assert_eq!(record.state, SessionState::Active);
    wait_for("the first turn to complete", 20, || {
        let listed: Vec<SessionRecord> = under_open_umask(&env, "lf-session-list", &[]).json();
        listed[0].attention.map(|_| ())
    });
    // A hook with bad input writes hook.log.
    under_open_umask(&env, "lf-hook", &["claude"]).ok();
    assert!(env.home().join("hook.log").is_file());
    under_open_umask(&env, "lf-session-complete", &[&record.id]).ok();

    let files = modes(&env.home());
    let names: Vec<String> = files
        .iter()
        .map(|(path, _, _)| path.strip_prefix(env.home()).unwrap().display().to_string())
        .collect();
    for expected in [
        "loopflow.db",
        "loopflow.db-wal",
        "loopflow.db-shm",
        "hook.log",
        "locks",
        "runs",
    ] {
        assert!(names.iter().any(|name| name == expected), "{names:?}");
    }
    assert!(
        names.iter().any(|name| name.ends_with(".lock")),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|name| name.starts_with("runs/run-") && name.ends_with("claude-settings.json")),
        "{names:?}"
    );
    assert_private(&env.home());
}

#[test]
fn a_home_left_wide_by_an_older_lf_is_made_private() {
    let env = Env::new();
    env.run("lf-session-new", &["--no-launch", "Fix the parser"])
        .ok();
    let run_dir = env.home().join("runs/run-01kb0000000000000000000000");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("serve.log"), "old\n").unwrap();
    for (path, mode) in [
        (env.home(), 0o755),
        (env.home().join("locks"), 0o777),
        (env.home().join("loopflow.db"), 0o644),
        (env.home().join("loopflow.db-wal"), 0o644),
        (run_dir.clone(), 0o755),
        (run_dir.join("serve.log"), 0o666),
    ] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let listed: Vec<SessionRecord> = env.run("lf-session-list", &[]).json();
    assert_eq!(listed.len(), 1);
    assert_private(&env.home());
    assert_eq!(
        std::fs::read_to_string(run_dir.join("serve.log")).unwrap(),
        "old\n"
    );
}

#[test]
fn another_users_open_home_is_refused_and_left_alone() {
    let env = Env::new();
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::set_permissions(env.home(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Owned by nobody: root may chown, and the tests run as root.
    std::os::unix::fs::chown(env.home(), Some(65534), Some(65534)).unwrap();
    env.attempt("lf-session-list", &[])
        .fails_with(1, "not_ours");
    let meta = std::fs::metadata(env.home()).unwrap();
    assert_eq!(
        (meta.permissions().mode() & 0o777, meta.uid()),
        (0o755, 65534)
    );
    assert!(!env.home().join("loopflow.db").exists());
}
