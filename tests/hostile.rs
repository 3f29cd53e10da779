//! Issue 20: nothing from outside runs. Each test reproduces an attack of
//! the threat model (docs/decisions.md, "Threat model") with the real
//! parts — tmux, git, processes — and asserts that nothing ran, nothing
//! raw was printed, or the refusal is clear.

use crate::util::*;
use lf::wire::{SessionRecord, SessionState};
use std::path::Path;

/// Every `PWNED*` file in a folder: what a command the attack slipped in
/// would have made.
fn pwned(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("PWNED"))
        .collect()
}

/// tmux expands formats in `new-session -c`: a folder named
/// `x#(cd;touch PWNED)y` (a cloned repository may hold one) ran
/// `touch PWNED` in `$HOME` on every launch, and the agent started
/// elsewhere.
#[test]
fn a_folder_named_like_a_tmux_format_runs_nothing() {
    let env = Env::new();
    let folder = env.mkdir("x#(cd;touch PWNED)#{pane_id}y");
    let out = env.dir.path().join("pwd.out");
    let script = format!("pwd >> '{}'; exec sleep 600", out.display());
    let record: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--cwd",
                folder.to_str().unwrap(),
                "--",
                "sh",
                "-c",
                &script,
            ],
        )
        .json();
    let started = |launches: usize| {
        wait_for("the command to start", 20, || {
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            (text.lines().count() == launches).then_some(text)
        })
    };
    assert_eq!(started(1), format!("{}\n", folder.display()));
    // Again when it is launched anew (open, restore and move here all
    // start it through the same tmux call).
    env.tmux(&["kill-session", "-t", &format!("=lf-{}", &record.id[..12])]);
    wait_for("the session to be lost", 20, || {
        (env.show(&record.id).state != SessionState::Active).then_some(())
    });
    env.run("lf-session-open", &[&record.id, "--detach"]).ok();
    assert_eq!(started(2), format!("{0}\n{0}\n", folder.display()));
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
}
