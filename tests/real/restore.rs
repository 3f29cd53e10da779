//! lf-session-restore with the real CLIs: five Sessions of three providers
//! run, the tmux server is killed, and restore brings back exactly those
//! five, each agent resumed with its own native conversation (read from the
//! agents' own argv in /proc), once.

use super::*;
use crate::model::{anthropic, responses};
use lf::wire::LostReason;
use lf::wire::{RestoreLine, RestoreResult, RestoreSkip};
use std::collections::BTreeMap;

const READY: &str = "for shortcuts";

/// The argv of every process below `root` (itself included), from /proc.
pub(super) fn argvs_below(root: i32) -> Vec<Vec<String>> {
    let parent = |pid: i32| -> Option<i32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let pids: Vec<i32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect();
    let mut tree = vec![root];
    let mut index = 0;
    while index < tree.len() {
        let at = tree[index];
        tree.extend(pids.iter().filter(|&&pid| parent(pid) == Some(at)));
        index += 1;
    }
    tree.iter()
        .filter_map(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).ok())
        .map(|raw| {
            raw.split(|&byte| byte == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .collect()
}

/// The pid of the process a Session's pane runs (its lf-serve).
pub(super) fn pane_pid(env: &Env, id: &str) -> i32 {
    let record = env.show(id);
    let pane = pane(&record);
    env.tmux(&["display-message", "-p", "-t", &pane, "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap()
}

/// Whether some process of the Session's pane runs with `args` in a row.
pub(super) fn runs_with(env: &Env, id: &str, args: &[&str]) -> bool {
    argvs_below(pane_pid(env, id))
        .iter()
        .any(|argv| argv.windows(args.len()).any(|window| window == args))
}

pub(super) fn restore(env: &Env) -> BTreeMap<String, RestoreLine> {
    let ran = env.run("lf-session-restore", &[]);
    ran.ok();
    ran.stdout
        .lines()
        .map(|line| {
            let line: RestoreLine = serde_json::from_str(line).unwrap();
            (line.id.clone(), line)
        })
        .collect()
}

#[test]
fn restore_after_a_killed_server_resumes_each_native_conversation_once() {
    let claude_model = anthropic::start();
    let codex_model = responses::start();
    let env = agents_env(&claude_model, &codex_model, &["c1", "c2", "x1", "x2", "m"]);
    let start = |provider: &str, dir: &str| new_session(&env, provider, &env.mkdir(dir), None);
    let claudes = [start("claude", "c1"), start("claude", "c2")];
    let codexes = [start("codex", "x1"), start("codex", "x2")];
    let command: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--cwd",
                env.mkdir("m").to_str().unwrap(),
                "--",
                "sleep",
                "600",
            ],
        )
        .json();
    let completed: SessionRecord = env
        .run(
            "lf-session-new",
            &["--provider", "command", "--", "sleep", "600"],
        )
        .json();
    env.run("lf-session-complete", &[&completed.id]).ok();

    // A turn each, so every agent has a conversation of its own to resume.
    let mut natives = BTreeMap::new();
    for (n, record) in claudes.iter().enumerate() {
        let pane = pane(record);
        wait_screen(&env, &pane, READY, 60);
        let word = format!("pelican{n}");
        say(&env, &pane, &format!("Remember the word {word}"));
        let native = anthropic::session_id(&claude_model.wait_prompt(&word, 30)).unwrap();
        wait_history(
            &env.dir.path().join(".claude/projects"),
            &[&word, &native, "\"assistant\""],
            30,
        );
        natives.insert(record.id.clone(), native);
    }
    for (n, record) in codexes.iter().enumerate() {
        let pane = pane(record);
        wait_screen(&env, &pane, READY, 60);
        let word = format!("heron{n}");
        say_until(&env, &pane, &format!("Remember the word {word}"), || {
            codex_model.received_prompt(&word)
        });
        let native = wait_for("the Codex thread", 30, || env.native_id(&record.id));
        wait_history(&env.dir.path().join(".codex/sessions"), &[&word], 30);
        natives.insert(record.id.clone(), native);
    }

    env.tmux(&["kill-server"]);
    let running: Vec<&SessionRecord> = claudes.iter().chain(&codexes).chain([&command]).collect();
    for record in &running {
        let lost = wait_record(&env, &record.id, "lost", 30, |record| {
            record.state == SessionState::Lost
        });
        assert_eq!(lost.lost, Some(LostReason::Terminal), "{lost:#?}");
    }

    let lines = restore(&env);
    assert_eq!(lines.len(), 5, "one line per open Session: {lines:#?}");
    assert!(!lines.contains_key(&completed.id));
    for record in claudes.iter().chain(&codexes) {
        let line = &lines[&record.id];
        assert_eq!(line.result, RestoreResult::Resumed, "{line:#?}");
        assert_eq!(line.native_id.as_ref(), Some(&natives[&record.id]));
    }
    assert_eq!(lines[&command.id].result, RestoreResult::Relaunched);
    // The agents' own argv: the exact conversation, never "the latest".
    for record in &claudes {
        let native = natives[&record.id].as_str();
        assert!(
            runs_with(&env, &record.id, &["--resume", native]),
            "{:?}",
            argvs_below(pane_pid(&env, &record.id))
        );
    }
    for record in &codexes {
        let native = natives[&record.id].as_str();
        assert!(
            runs_with(&env, &record.id, &["resume", native]),
            "{:?}",
            argvs_below(pane_pid(&env, &record.id))
        );
    }
    assert!(runs_with(&env, &command.id, &["sleep", "600"]));
    for record in &running {
        let shown = env.show(&record.id);
        assert_eq!(shown.state, SessionState::Active, "{shown:#?}");
        assert_eq!(shown.lost, None);
    }
    assert_eq!(env.show(&completed.id).state, SessionState::Closed);

    // Again: nothing to do, nothing launched.
    let launchers: Vec<i32> = running
        .iter()
        .map(|record| pane_pid(&env, &record.id))
        .collect();
    let again = restore(&env);
    for record in &running {
        assert_eq!(again[&record.id].skipped, Some(RestoreSkip::Running));
    }
    let after: Vec<i32> = running
        .iter()
        .map(|record| pane_pid(&env, &record.id))
        .collect();
    assert_eq!(launchers, after);
}
