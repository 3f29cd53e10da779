//! lf-session-restore with the fake agents in a private tmux server: the
//! server killed (or the agents killed without a word, or a reboot set up
//! in the database) and exactly the lost Sessions brought back, each with
//! its own native id, once, however many restores and opens run at once.
//! The real CLIs' exact resume is in tests/real/restore.rs.

use crate::util::*;
use lf::wire::LostReason;
use lf::wire::{RestoreLine, RestoreResult, RestoreSkip, SessionRecord, SessionState};
use std::collections::BTreeMap;

fn tmux_name(id: &str) -> String {
    format!("lf-{}", &id[..12])
}

/// The lines of one restore, by Session id.
fn restore(env: &Env, args: &[&str]) -> BTreeMap<String, RestoreLine> {
    let ran = env.run("lf-session-restore", args);
    ran.ok();
    lines(&ran.stdout)
}

/// Each line checked against schema/restore.schema.json, then decoded.
pub fn lines(stdout: &str) -> BTreeMap<String, RestoreLine> {
    let schema = crate::schema::read_json("schema/restore.schema.json");
    stdout
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            crate::schema::assert_keys_match("a restore line", &value, &schema);
            crate::schema::validate(&schema, &schema, &value, "")
                .unwrap_or_else(|error| panic!("{error}: {line}"));
            let line: RestoreLine = serde_json::from_value(value)
                .unwrap_or_else(|error| panic!("not a restore line ({error}): {line}"));
            (line.id.clone(), line)
        })
        .collect()
}

#[test]
fn the_restore_schema_names_exactly_the_serialised_values() {
    use crate::schema::to_value;
    let schema = crate::schema::read_json("schema/restore.schema.json");
    let enumerated = |values: Vec<serde_json::Value>, null: bool| {
        let mut values = values;
        if null {
            values.push(serde_json::Value::Null);
        }
        serde_json::Value::from(values)
    };
    let property = |name: &str| schema["properties"][name]["enum"].clone();
    assert_eq!(
        property("result"),
        enumerated(RestoreResult::ALL.iter().map(to_value).collect(), false)
    );
    assert_eq!(
        property("skipped"),
        enumerated(RestoreSkip::ALL.iter().map(to_value).collect(), true)
    );
    assert_eq!(
        property("lost"),
        enumerated(LostReason::ALL.iter().map(to_value).collect(), true)
    );
}

/// The argv of every launch of a Session's agent, oldest first.
fn launches(env: &Env, session: &SessionRecord) -> Vec<Vec<String>> {
    let run_ids = env
        .db()
        .prepare("SELECT id FROM runs WHERE session_id = ?1")
        .unwrap()
        .query_map([&session.id], |row| row.get::<_, String>(0))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    env.agent_log("launch")
        .into_iter()
        .filter(|entry| {
            entry["env"]["LF_RUN_ID"]
                .as_str()
                .is_some_and(|run| run_ids.iter().any(|id| id == run))
        })
        .map(|entry| serde_json::from_value(entry["argv"].clone()).unwrap())
        .collect()
}

fn wait_lost(env: &Env, id: &str, reason: LostReason) -> SessionRecord {
    wait_for(&format!("Session {id} lost ({reason:?})"), 30, || {
        let record = env.show(id);
        (record.state == SessionState::Lost && record.lost == Some(reason)).then_some(record)
    })
}

fn wait_native(env: &Env, id: &str) -> String {
    wait_for(&format!("the native id of {id}"), 20, || env.native_id(id))
}

/// The fake Codex names its thread to no hook (the real one's hooks are
/// tested in tests/real): read it from its history file and record it, as
/// the real Codex's SessionStart would.
fn fake_codex_thread(env: &Env, session: &SessionRecord) -> String {
    let dir = env.dir.path().join("fake-agents/codex");
    let thread = wait_for("the fake Codex's thread", 20, || {
        let entry = std::fs::read_dir(&dir).ok()?.flatten().next()?;
        Some(entry.path().file_stem()?.to_string_lossy().into_owned())
    });
    env.db()
        .execute(
            "UPDATE runs SET native_id = ?2 WHERE id = ?1",
            [env.current_run(&session.id), thread.clone()],
        )
        .unwrap();
    thread
}

#[test]
fn a_killed_server_is_restored_exactly_once_with_each_native_id() {
    let env = Env::new();
    let claude: SessionRecord = env.run("lf-session-new", &["hello"]).json();
    let codex: SessionRecord = env
        .run("lf-session-new", &["--provider", "codex", "hello"])
        .json();
    let command: SessionRecord = env
        .run(
            "lf-session-new",
            &["--provider", "command", "--", "sleep", "300"],
        )
        .json();
    let completed: SessionRecord = env.run("lf-session-new", &["done"]).json();
    let quit: SessionRecord = env.run("lf-session-new", &["bye"]).json();
    let claude_native = wait_native(&env, &claude.id);
    let codex_native = fake_codex_thread(&env, &codex);
    env.run("lf-session-complete", &[&completed.id]).ok();
    env.type_line(&quit.terminal_ids[0], "/exit");
    // Until its launcher recorded that it exited by itself: a dead agent
    // whose launcher still runs reads the same, and the server killed
    // before that record would make it lost.
    let quit_run = env.current_run(&quit.id);
    wait_for("the quit agent's exit to be recorded", 20, || {
        let outcome: Option<String> = env
            .db()
            .query_row(
                "SELECT outcome FROM runs WHERE id = ?1",
                [&quit_run],
                |row| row.get(0),
            )
            .unwrap();
        (outcome.as_deref() == Some("exited")).then_some(())
    });
    let record = env.show(&quit.id);
    assert!(
        !record.alive && record.state == SessionState::Unknown,
        "{record:#?}"
    );

    let command_run = env.current_run(&command.id);
    env.tmux(&["kill-server"]);
    for session in [&claude, &codex, &command] {
        wait_lost(&env, &session.id, LostReason::Terminal);
        // Lost at once; its agent, told of the hang-up, ends soon after.
        wait_for("the lost agent to end", 20, || {
            let record = env.show(&session.id);
            (record.state == SessionState::Lost && !record.alive).then_some(())
        });
    }
    assert_eq!(env.show(&quit.id).lost, None, "it exited by itself");
    assert_eq!(env.show(&completed.id).state, SessionState::Closed);
    let lost: Vec<SessionRecord> = env.list(&["--state", "lost"]);
    assert_eq!(lost.len(), 3);

    let plan = restore(&env, &["--dry-run"]);
    assert_eq!(plan[&claude.id].result, RestoreResult::WouldResume);
    assert_eq!(plan[&claude.id].native_id.as_ref(), Some(&claude_native));
    assert_eq!(plan[&codex.id].result, RestoreResult::WouldResume);
    assert_eq!(plan[&command.id].result, RestoreResult::WouldRelaunch);
    assert_eq!(plan[&quit.id].skipped, Some(RestoreSkip::Exited));
    assert!(!plan.contains_key(&completed.id), "only open Sessions");
    assert!(
        !env.tmux_has(&tmux_name(&claude.id)),
        "a dry run launches nothing"
    );

    let done = restore(&env, &[]);
    assert_eq!(done.len(), 4, "{done:#?}");
    let claude_line = &done[&claude.id];
    assert_eq!(claude_line.result, RestoreResult::Resumed);
    assert_eq!(claude_line.lost, Some(LostReason::Terminal));
    assert_eq!(claude_line.native_id.as_ref(), Some(&claude_native));
    assert_eq!(
        claude_line.tmux_session.as_deref(),
        Some(tmux_name(&claude.id).as_str())
    );
    assert_eq!(done[&codex.id].result, RestoreResult::Resumed);
    assert_eq!(done[&codex.id].native_id.as_ref(), Some(&codex_native));
    assert_eq!(done[&command.id].result, RestoreResult::Relaunched);
    assert_eq!(done[&quit.id].result, RestoreResult::Skipped);
    assert_eq!(done[&quit.id].skipped, Some(RestoreSkip::Exited));

    // Each agent runs again in its own tmux session, with its exact id.
    for session in [&claude, &codex, &command] {
        assert!(env.tmux_has(&tmux_name(&session.id)));
        let record = env.show(&session.id);
        assert_eq!(record.state, SessionState::Active, "{record:#?}");
        assert_eq!(record.lost, None);
    }
    let resumed = launches(&env, &claude).pop().unwrap();
    assert_eq!(
        resumed[..2],
        ["--resume".to_owned(), claude_native.clone()],
        "{resumed:?}"
    );
    let resumed = launches(&env, &codex).pop().unwrap();
    let at = resumed.iter().position(|arg| arg == "resume").unwrap();
    assert_eq!(resumed[at + 1], codex_native, "{resumed:?}");
    assert_ne!(
        env.current_run(&command.id),
        command_run,
        "a command has no native history: a new Run of the same argv"
    );
    assert!(!env.tmux_has(&tmux_name(&quit.id)));
    assert_eq!(env.show(&completed.id).state, SessionState::Closed);

    // A second restore does nothing: they run.
    let before = env.agent_log("launch").len();
    let again = restore(&env, &[]);
    for session in [&claude, &codex, &command] {
        assert_eq!(again[&session.id].skipped, Some(RestoreSkip::Running));
    }
    assert_eq!(env.agent_log("launch").len(), before);
}

/// Killing the tmux server hangs up every lf-serve's terminal. Each
/// Session reads `lost` (terminal) as soon as the server is gone, and the
/// first restore brings every one back, although each agent here ignores
/// SIGHUP and would outlive its terminal for lf-serve's 5 s grace: restore
/// stops it first, so two agents never share a Session.
#[test]
fn a_restore_right_after_the_server_is_killed_brings_every_session_back() {
    let env = Env::new();
    let sessions: Vec<SessionRecord> = (0..3)
        .map(|n| {
            let title = format!("outlives {n}");
            env.run(
                "lf-session-new",
                &[
                    "--provider",
                    "command",
                    "--title",
                    &title,
                    "--",
                    "sh",
                    "-c",
                    "trap '' HUP; exec sleep 300",
                ],
            )
            .json()
        })
        .collect();
    let agents: Vec<i32> = sessions.iter().map(|s| env.agent_pid(&s.id)).collect();
    let server: i32 = env
        .tmux(&["list-sessions", "-F", "#{pid}"])
        .lines()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    env.tmux(&["kill-server"]);
    // The server's exit closes every pane's terminal: from then on the
    // hang-up is a fact of /proc, whatever lf-serve has recorded yet.
    wait_for("the tmux server to exit", 20, || {
        let stat = std::fs::read_to_string(format!("/proc/{server}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .next();
        matches!(state, None | Some("Z")).then_some(())
    });
    for session in &sessions {
        let record = env.show(&session.id);
        assert_eq!(record.state, SessionState::Lost, "{record:#?}");
        assert_eq!(record.lost, Some(LostReason::Terminal));
    }
    let done = restore(&env, &[]);
    assert_eq!(done.len(), 3, "{done:#?}");
    for (session, agent) in sessions.iter().zip(&agents) {
        let line = &done[&session.id];
        assert_eq!(line.result, RestoreResult::Relaunched, "{line:#?}");
        assert_eq!(line.lost, Some(LostReason::Terminal));
        assert!(env.tmux_has(&tmux_name(&session.id)));
        let record = env.show(&session.id);
        assert_eq!(record.state, SessionState::Active, "{record:#?}");
        assert_ne!(env.agent_pid(&session.id), *agent, "a new agent");
        let old = std::fs::read_to_string(format!("/proc/{agent}/stat")).unwrap_or_default();
        let state = old
            .rsplit(')')
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .next();
        assert!(
            matches!(state, None | Some("Z")),
            "the agent that outlived its terminal was stopped first: {old}"
        );
    }
}

#[test]
fn concurrent_restores_and_opens_launch_each_lost_session_once() {
    let env = Env::new();
    let sessions: Vec<SessionRecord> = (0..4)
        .map(|n| env.run("lf-session-new", &[&format!("task {n}")]).json())
        .collect();
    for session in &sessions {
        wait_native(&env, &session.id);
    }
    env.tmux(&["kill-server"]);
    for session in &sessions {
        wait_lost(&env, &session.id, LostReason::Terminal);
    }
    let before = env.agent_log("launch").len();
    let spawn = |name: &str, args: &[&str]| {
        let mut command = env.command(name);
        command
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        command.spawn().unwrap()
    };
    let restores: Vec<_> = (0..4).map(|_| spawn("lf-session-restore", &[])).collect();
    let opens: Vec<_> = (0..2)
        .map(|_| spawn("lf-session-open", &[&sessions[0].id, "--detach"]))
        .collect();
    let succeeded = |child: std::process::Child| {
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let mut resumed: BTreeMap<String, usize> = BTreeMap::new();
    for child in restores {
        for (id, line) in lines(&succeeded(child)) {
            match line.result {
                RestoreResult::Resumed => *resumed.entry(id).or_default() += 1,
                RestoreResult::Skipped => assert_eq!(line.skipped, Some(RestoreSkip::Running)),
                other => panic!("{id}: {other:?} {line:#?}"),
            }
        }
    }
    for child in opens {
        succeeded(child);
    }
    assert_eq!(
        env.agent_log("launch").len() - before,
        sessions.len(),
        "one launch per Session"
    );
    for session in &sessions[1..] {
        assert_eq!(resumed.get(&session.id), Some(&1), "{resumed:?}");
    }
    assert!(resumed.get(&sessions[0].id).copied().unwrap_or(0) <= 1);
    for session in &sessions {
        assert_eq!(
            launches(&env, session).len(),
            2,
            "launched, then once again"
        );
        assert_eq!(env.show(&session.id).state, SessionState::Active);
    }
}

#[test]
fn agents_killed_without_a_word_or_by_a_reboot_read_lost_with_why() {
    let env = Env::new();
    let killed: SessionRecord = env.run("lf-session-new", &["one"]).json();
    let rebooted: SessionRecord = env.run("lf-session-new", &["two"]).json();
    for session in [&killed, &rebooted] {
        wait_native(&env, &session.id);
        // lf-serve and its agent, killed at once: nothing is recorded.
        let pane_pid: i32 = env
            .tmux(&[
                "display-message",
                "-p",
                "-t",
                &session.terminal_ids[0],
                "#{pane_pid}",
            ])
            .trim()
            .parse()
            .unwrap();
        kill(-pane_pid, Signal::KILL);
    }
    wait_lost(&env, &killed.id, LostReason::Killed);
    wait_lost(&env, &rebooted.id, LostReason::Killed);
    // The tmux session outlives its pane's process for a moment (its agent
    // ends on the hang-up after lf-serve); while it is there, restore
    // rightly leaves the Session to what runs in it.
    for session in [&killed, &rebooted] {
        let name = lf::tmux::session_name(&lf::ids::SessionId::parse(&session.id).unwrap());
        wait_for(&format!("tmux session {name} gone"), 20, || {
            (!env.tmux_has(&name)).then_some(())
        });
    }
    // As if the machine had restarted since: another boot's launcher and client.
    let db = env.db();
    let run = env.current_run(&rebooted.id);
    db.execute(
        "UPDATE runs SET launcher_boot_id = 'an-earlier-boot' WHERE id = ?1",
        [&run],
    )
    .unwrap();
    db.execute(
        "UPDATE clients SET boot_id = 'an-earlier-boot' WHERE run_id = ?1",
        [&run],
    )
    .unwrap();
    wait_lost(&env, &rebooted.id, LostReason::Reboot);
    let listed = env.list(&["--state", "lost"]);
    assert_eq!(listed.len(), 2, "{listed:#?}");
    let done = restore(&env, &[]);
    assert_eq!(done[&killed.id].lost, Some(LostReason::Killed), "{done:#?}");
    assert_eq!(
        done[&rebooted.id].lost,
        Some(LostReason::Reboot),
        "{done:#?}"
    );
    for session in [&killed, &rebooted] {
        assert_eq!(done[&session.id].result, RestoreResult::Resumed);
        assert_eq!(env.show(&session.id).state, SessionState::Active);
    }
}
