//! `lf-session-active`: live processes attributed to Sessions by exact
//! evidence, with real processes — `sleep` and `sh` trees recorded through
//! the library, and real `lf-serve` launches in the test's private tmux
//! server.
//!
//! The scenarios of the original design (`003_…`), in this product's terms:
//! - Its *Exec* (one process hosting conversations one after another) is
//!   lf's launcher, `lf-serve`, which serves exactly one Run of one
//!   Session: "an earlier Session in the same Exec" has no counterpart, and
//!   its nearest equivalent is one launcher identity recorded on the Runs
//!   of two Sessions, which is a gap.
//! - Its *engine identity* and *native clients* are both lf's client
//!   receipts `(boot_id, pid, starttime)`; a *retained engine* is a process
//!   whose receipt lf ended (a client it stopped or let go of).
//! - Its *trace id* has no counterpart; the boot id takes its place (a
//!   record of another boot claims nothing, silently: that process is gone).
//! - Its *input replacement* is a new attempt (Run) of the same Session;
//!   its *retired payload files* are files under `runs/`.
//! - Its `scanning` discovery state (a background reader still warming up)
//!   has no counterpart: the snapshot is one synchronous pass.

use crate::schema::*;
use crate::util::*;
use lf::liveness::ProcessIdentity;
use lf::snapshot::{Discovery, LiveSnapshot, ProcessState};
use lf::wire::{SessionRecord, WorkRef};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};

fn active(env: &Env, args: &[&str]) -> LiveSnapshot {
    env.run("lf-session-active", args).json()
}

/// Poll the snapshot until `done` holds (a time limit for a failure).
fn active_until(env: &Env, what: &str, done: impl Fn(&LiveSnapshot) -> bool) -> LiveSnapshot {
    let mut last = None;
    let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for(what, 20, || {
            let snapshot = active(env, &[]);
            let ok = done(&snapshot);
            last = Some(snapshot.clone());
            ok.then_some(snapshot)
        })
    }));
    found.unwrap_or_else(|_| panic!("timed out waiting for {what}; last snapshot: {last:#?}"))
}

/// Session id → the pids attributed to it.
fn pids(snapshot: &LiveSnapshot) -> BTreeMap<String, Vec<u32>> {
    snapshot
        .sessions
        .iter()
        .map(|session| {
            (
                session.id.clone(),
                session.processes.iter().map(|p| p.pid).collect(),
            )
        })
        .collect()
}

fn unresolved(pid: u32, sessions: usize) -> String {
    format!(
        "Live process {pid} has {sessions} possible current Sessions; attribution is unresolved"
    )
}

fn stale(session: &str, role: &str, pid: u32) -> String {
    format!(
        "Session {session}: recorded {role} {pid} has no matching live PID/start evidence; \
         the receipt is stale and claims nothing"
    )
}

fn identity(pid: u32) -> ProcessIdentity {
    ProcessIdentity::of(pid).unwrap()
}

/// Record `pid` as the launcher of a Session's current Run.
fn record_launcher(env: &Env, session: &str, pid: u32) {
    env.lf()
        .store()
        .unwrap()
        .record_launcher(&env.current_run(session), &identity(pid))
        .unwrap();
}

fn record_client(env: &Env, session: &str, pid: u32) {
    env.lf().record_client(session, pid, None).unwrap();
}

fn end_client(env: &Env, pid: u32) {
    env.lf()
        .store()
        .unwrap()
        .end_client(&identity(pid), lf::clock::now_micros())
        .unwrap();
}

/// The database and its WAL, byte for byte (absent files as `None`).
fn database_bytes(env: &Env) -> [Option<Vec<u8>>; 2] {
    ["loopflow.db", "loopflow.db-wal"].map(|name| std::fs::read(env.home().join(name)).ok())
}

/// After observing, the database is the same and the WAL holds the same
/// bytes (a reader may create an empty WAL where there was none).
fn assert_unchanged(env: &Env, before: &[Option<Vec<u8>>; 2]) {
    let after = database_bytes(env);
    assert!(after[0] == before[0], "observing changed loopflow.db");
    match (&before[1], &after[1]) {
        (None, None) => {}
        (None, Some(wal)) => assert!(wal.is_empty(), "observing wrote to a new WAL"),
        (before, after) => assert!(before == after, "observing changed loopflow.db-wal"),
    }
}

/// A process tree: `sh -c SCRIPT` in its own process group, killed whole
/// when dropped.
struct Tree {
    child: std::process::Child,
}

impl Tree {
    /// Start it and wait until it has `children` children.
    fn spawn(script: &str, children: usize) -> (Self, Vec<u32>) {
        use std::os::unix::process::CommandExt;
        let child = Command::new("sh")
            .args(["-c", script])
            .process_group(0)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let tree = Tree { child };
        let pid = tree.pid();
        let found = wait_for("the tree's children", 20, || {
            let found = children_of(pid);
            (found.len() == children).then_some(found)
        });
        (tree, found)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        kill(-(self.child.id() as i32), Signal::KILL);
        let _ = self.child.wait();
    }
}

/// The live children of a process, by pid.
fn children_of(parent: u32) -> Vec<u32> {
    let mut found: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|&pid| {
            lf::liveness::read_stat(pid)
                .is_some_and(|stat| stat.ppid == parent && stat.state != 'Z')
        })
        .collect();
    found.sort();
    found
}

/// Stops a process when dropped, only if it is still the same process.
struct Stop(ProcessIdentity);

impl Drop for Stop {
    fn drop(&mut self) {
        if let Ok(boot) = lf::liveness::boot_id() {
            self.0.stop(&boot, std::time::Duration::from_millis(100));
        }
    }
}

fn pane_pid(env: &Env, session: &str) -> u32 {
    let name = format!("lf-{}", &session[..12]);
    env.tmux(&[
        "list-panes",
        "-t",
        &format!("={name}:"),
        "-F",
        "#{pane_pid}",
    ])
    .trim()
    .parse()
    .unwrap()
}

fn alive(pid: u32) -> bool {
    lf::liveness::read_stat(pid).is_some_and(|stat| stat.state != 'Z')
}

// ---------------------------------------------------------------------------
// Real launches.

#[test]
fn a_launched_agent_is_attributed_with_its_command_start_and_state() {
    let env = Env::new();
    let before = lf::clock::Timestamp(lf::clock::now_micros() - 2_000_000);
    let record: SessionRecord = env
        .run("lf-session-new", &["--title", "Parser", "hello"])
        .json();
    let agent = env.agent_pid(&record.id) as u32;
    let launcher = pane_pid(&env, &record.id);
    // Hooks run beneath the agent for a moment; wait until it is alone and idle.
    let snapshot = active_until(&env, "the idle agent alone", |snapshot| {
        snapshot.sessions.len() == 1
            && snapshot.sessions[0].processes.len() == 1
            && snapshot.sessions[0].processes[0].state == ProcessState::Waiting
    });
    let after = lf::clock::Timestamp(lf::clock::now_micros() + 2_000_000);
    assert_eq!(snapshot.discovery, Discovery::Ready);
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    assert_eq!(snapshot.task, None);
    assert_eq!(snapshot.home, env.home().display().to_string());
    let session = &snapshot.sessions[0];
    assert_eq!(
        (session.id.as_str(), session.title.as_str(), &session.work),
        (record.id.as_str(), "Parser", &None)
    );
    let process = &session.processes[0];
    assert_eq!(process.pid, agent);
    assert_eq!(process.ppid, launcher, "the agent runs beneath lf-serve");
    assert_eq!(process.provider, "claude");
    assert!(
        process.command.iter().any(|arg| arg.ends_with("/claude")),
        "{:?}",
        process.command
    );
    assert!(process.command.contains(&"--session-id".to_owned()));
    assert_eq!(process.command.last().unwrap(), "hello");
    assert!(
        before <= process.started_at && process.started_at <= after,
        "{} is not between {before} and {after}",
        process.started_at
    );
    assert!(before <= snapshot.observed_at && snapshot.observed_at <= after);
}

#[test]
fn a_child_launcher_is_distinct_and_a_pid_or_boot_mismatch_cannot_claim_work() {
    let env = Env::new();
    let inner = env.new_session(&[
        "--provider",
        "command",
        "--title",
        "inner",
        "--",
        "sleep",
        "300",
    ]);
    let inner_run = env.current_run(&inner.id);
    // The outer agent starts the inner Session's launcher beneath itself.
    let outer: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--title",
                "outer",
                "--",
                "sh",
                "-c",
                "lf-serve \"$0\"; exec sleep 300",
                &inner_run,
            ],
        )
        .json();
    let outer_launcher = pane_pid(&env, &outer.id);
    let outer_agent = env.agent_pid(&outer.id) as u32;
    let snapshot = active_until(&env, "both sessions", |snapshot| {
        snapshot.sessions.len() == 2
    });
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    let inner_agent = env.agent_pid(&inner.id) as u32;
    let inner_launcher = lf::liveness::read_stat(inner_agent).unwrap().ppid;
    assert_eq!(
        lf::liveness::read_stat(inner_launcher).unwrap().ppid,
        outer_agent,
        "the inner launcher runs beneath the outer agent"
    );
    assert_eq!(
        pids(&snapshot),
        BTreeMap::from([
            (outer.id.clone(), vec![outer_agent]),
            (inner.id.clone(), vec![inner_agent]),
        ]),
        "neither launcher is listed, and the inner agent is not the outer's"
    );
    // Newest first.
    assert_eq!(snapshot.sessions[0].id, outer.id);
    let providers: Vec<&str> = snapshot.sessions[0]
        .processes
        .iter()
        .map(|p| p.provider.as_str())
        .collect();
    assert_eq!(providers, ["command"]);

    // The outer records now name a reused pid; the inner ones another boot.
    let db = env.db();
    let outer_run = env.current_run(&outer.id);
    db.execute(
        "UPDATE runs SET launcher_starttime = launcher_starttime + 1 WHERE id = ?1",
        [&outer_run],
    )
    .unwrap();
    db.execute(
        "UPDATE clients SET starttime = starttime + 1 WHERE session_id = ?1",
        [&outer.id],
    )
    .unwrap();
    db.execute(
        "UPDATE runs SET launcher_boot_id = 'another-boot' WHERE id = ?1",
        [&inner_run],
    )
    .unwrap();
    db.execute(
        "UPDATE clients SET boot_id = 'another-boot' WHERE session_id = ?1",
        [&inner.id],
    )
    .unwrap();
    drop(db);
    let snapshot = active(&env, &[]);
    assert!(snapshot.sessions.is_empty(), "{snapshot:#?}");
    let mut expected = vec![
        stale(&outer.id, "client", outer_agent),
        stale(&outer.id, "launcher", outer_launcher),
    ];
    expected.sort();
    assert_eq!(snapshot.gaps, expected);
}

#[test]
fn native_clients_survive_their_launchers_exit() {
    let env = Env::new();
    let record: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--title",
                "survivor",
                "--",
                "sh",
                "-c",
                "trap '' HUP; exec sleep 300",
            ],
        )
        .json();
    let agent = env.agent_pid(&record.id) as u32;
    let survivor = Stop(identity(agent));
    let launcher = pane_pid(&env, &record.id);
    active_until(&env, "the agent", |snapshot| snapshot.sessions.len() == 1);

    kill(launcher as i32, Signal::KILL);
    wait_for("the launcher to exit", 20, || {
        (!alive(launcher)).then_some(())
    });
    assert!(alive(agent), "the agent ignores the hangup and lives on");
    // Another Session's client never had a launcher at all.
    let other = env.new_session(&["--title", "elsewhere"]);
    let elsewhere = Child::sleep();
    record_client(&env, &other.id, elsewhere.id());

    let snapshot = active_until(&env, "the orphaned agent", |snapshot| {
        snapshot.sessions.len() == 2
            && snapshot
                .sessions
                .iter()
                .all(|session| session.processes.iter().all(|p| p.ppid != launcher))
    });
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    assert_eq!(
        pids(&snapshot),
        BTreeMap::from([
            (record.id.clone(), vec![agent]),
            (other.id.clone(), vec![elsewhere.id()]),
        ])
    );

    // Dead processes disappear, without a gap.
    drop(survivor);
    drop(elsewhere);
    wait_for("the agent to exit", 20, || (!alive(agent)).then_some(()));
    let snapshot = active(&env, &[]);
    assert!(snapshot.sessions.is_empty(), "{snapshot:#?}");
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
}

// ---------------------------------------------------------------------------
// Process trees recorded through the library.

#[test]
fn sequential_sessions_do_not_borrow_a_retained_client() {
    let env = Env::new();
    let first = env.new_session(&["--title", "first"]);
    let second = env.new_session(&["--title", "second"]);
    // `second`'s launcher, with two processes beneath it: one was a client
    // of `first`, which let it go (its receipt is ended), one is new.
    let (launcher, children) = Tree::spawn("sleep 300 & sleep 300 & wait", 2);
    let (retained, fresh) = (children[0], children[1]);
    record_launcher(&env, &second.id, launcher.pid());
    record_client(&env, &first.id, retained);
    end_client(&env, retained);

    let snapshot = active(&env, &[]);
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    assert_eq!(
        pids(&snapshot),
        BTreeMap::from([(second.id.clone(), vec![fresh])]),
        "the retained process is nobody's, and the launcher is no agent"
    );

    // The ended receipt named a process that started at another time: the
    // pid was reused, so this one is simply new beneath `second`.
    let db = env.db();
    db.execute(
        "UPDATE clients SET starttime = starttime + 1 WHERE pid = ?1",
        [retained],
    )
    .unwrap();
    let snapshot = active(&env, &[]);
    assert_eq!(
        pids(&snapshot),
        BTreeMap::from([(second.id.clone(), vec![retained, fresh])])
    );
    db.execute(
        "UPDATE clients SET starttime = starttime - 1 WHERE pid = ?1",
        [retained],
    )
    .unwrap();
    drop(db);

    // One launcher recorded on both Sessions' Runs: nothing is borrowed.
    record_launcher(&env, &first.id, launcher.pid());
    let snapshot = active(&env, &[]);
    assert!(snapshot.sessions.is_empty(), "{snapshot:#?}");
    assert_eq!(snapshot.gaps, [unresolved(fresh, 2)]);

    // An exact open receipt keeps its own process; the rest stays a gap.
    env.db()
        .execute(
            "UPDATE clients SET ended_at = NULL WHERE pid = ?1",
            [retained],
        )
        .unwrap();
    let snapshot = active(&env, &[]);
    assert_eq!(
        pids(&snapshot),
        BTreeMap::from([(first.id.clone(), vec![retained])])
    );
    assert_eq!(
        snapshot.gaps,
        [format!(
            "Live process {fresh} has 2 possible current Sessions; attribution is unresolved"
        )]
    );
}

#[test]
fn a_shared_launcher_is_not_broadcast() {
    let env = Env::new();
    let first = env.new_session(&["--title", "first"]);
    let second = env.new_session(&["--title", "second"]);
    let (engine, children) = Tree::spawn("sleep 300 & sleep 300 & wait", 2);
    record_launcher(&env, &first.id, engine.pid());
    record_launcher(&env, &second.id, engine.pid());
    let snapshot = active(&env, &[]);
    assert!(snapshot.sessions.is_empty(), "{snapshot:#?}");
    assert_eq!(
        snapshot.gaps,
        children
            .iter()
            .map(|&pid| unresolved(pid, 2))
            .collect::<Vec<_>>()
    );
    // A launcher alone (its processes gone) is no conversation, and no gap.
    for pid in children {
        kill(pid as i32, Signal::KILL);
    }
    wait_for("the engine's processes to exit", 20, || {
        children_of(engine.pid()).is_empty().then_some(())
    });
    let snapshot = active(&env, &[]);
    assert!(
        snapshot.sessions.is_empty() && snapshot.gaps.is_empty(),
        "{snapshot:#?}"
    );
}

#[test]
fn old_sessions_are_task_exact_in_one_checkout_and_dead_clients_disappear() {
    let env = Env::new();
    let checkout = env.mkdir("checkout");
    let mut tasks = Vec::new();
    for identifier in ["LOO-1", "LOO-2", "LOO-3"] {
        let task: lf::wire::TaskRecord = env
            .run(
                "lf-work",
                &["task", "add", identifier, "--title", identifier],
            )
            .json();
        tasks.push(task.id);
    }
    let mut sessions = Vec::new();
    let mut clients = Vec::new();
    for identifier in ["LOO-1", "LOO-2"] {
        let record = env.new_session(&[
            "--title",
            identifier,
            "--task",
            identifier,
            "--cwd",
            checkout.to_str().unwrap(),
        ]);
        let client = Child::sleep();
        record_client(&env, &record.id, client.id());
        sessions.push(record.id);
        clients.push(client);
    }
    // Old: created long ago, which hides nothing.
    env.db()
        .execute("UPDATE sessions SET created_at = 0", [])
        .unwrap();
    // A connection left open keeps a WAL with content, as a running lf-serve does.
    let writer = env.db();
    writer
        .execute("UPDATE sessions SET updated_at = 1", [])
        .unwrap();
    let before = database_bytes(&env);
    assert!(before[1].as_ref().is_some_and(|wal| !wal.is_empty()));

    let snapshot = active(&env, &["--task", "LOO-1"]);
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    assert_eq!(snapshot.task.as_deref(), Some(tasks[0].as_str()));
    assert_eq!(snapshot.sessions.len(), 1);
    let session = &snapshot.sessions[0];
    assert_eq!(session.id, sessions[0]);
    assert_eq!(session.work, Some(WorkRef::Task(tasks[0].clone())));
    assert_eq!(session.processes[0].pid, clients[0].id());
    assert_eq!(session.processes[0].state, ProcessState::Waiting);
    assert_eq!(session.processes[0].command, ["sleep", "300"]);
    assert_eq!(session.processes[0].ppid, std::process::id());
    // By id too; a Task without live Sessions is an empty answer.
    assert_eq!(
        active(&env, &["--task", &tasks[1]]).sessions[0].id,
        sessions[1]
    );
    assert!(active(&env, &["--task", "LOO-3"]).sessions.is_empty());
    assert_eq!(active(&env, &[]).sessions.len(), 2);
    env.attempt("lf-session-active", &["--task", "LOO-404"])
        .fails_with(3, "task_not_found");
    assert_unchanged(&env, &before);

    // The receipts stay open, but neither process lives.
    drop(clients);
    let snapshot = active(&env, &[]);
    assert!(
        snapshot.sessions.is_empty() && snapshot.gaps.is_empty(),
        "{snapshot:#?}"
    );

    // Broken or retired files are not ownership and produce no gap.
    let run = env.current_run(&sessions[0]);
    let run_dir = env.home().join("runs").join(&run);
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("claude-settings.json"), b"{").unwrap();
    std::fs::write(env.home().join("runs/not-a-run"), b"\xff\xfe").unwrap();
    let before = database_bytes(&env);
    let snapshot = active(&env, &[]);
    assert!(
        snapshot.sessions.is_empty() && snapshot.gaps.is_empty(),
        "{snapshot:#?}"
    );
    assert_eq!(
        std::fs::read(run_dir.join("claude-settings.json")).unwrap(),
        b"{"
    );
    assert_unchanged(&env, &before);

    // With no other connection, observing leaves the files as they are too.
    drop(writer);
    let before = database_bytes(&env);
    active(&env, &[]);
    assert_unchanged(&env, &before);
}

#[test]
fn a_new_attempt_and_a_rename_keep_the_live_client_with_its_session() {
    let env = Env::new();
    let record = env.new_session(&["--title", "Original"]);
    let client = Child::sleep();
    record_client(&env, &record.id, client.id());
    let snapshot = active(&env, &[]);
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    assert_eq!(snapshot.sessions[0].processes[0].provider, "claude");

    // A new attempt with another provider, a new title, and the first
    // Run's files broken: the client still belongs to its Session, and
    // still shows the provider it was launched with.
    let first_run = env.current_run(&record.id);
    env.lf()
        .store()
        .unwrap()
        .new_attempt(
            &lf::ids::SessionId::parse(&record.id).unwrap(),
            &first_run,
            &lf::store::NewRun {
                id: lf::ids::RunId::new(),
                chosen_native_id: None,
                provider: "codex".to_owned(),
                model: None,
                argv: vec![],
                prompt: None,
            },
            lf::clock::now_micros(),
        )
        .unwrap();
    env.run("lf-session-rename", &[&record.id, "Retained conversation"])
        .ok();
    let run_dir = env.home().join("runs").join(&first_run);
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("serve.log"), b"broken retired payload").unwrap();
    let snapshot = active(&env, &[]);
    assert!(snapshot.gaps.is_empty(), "{snapshot:#?}");
    assert_eq!(snapshot.sessions.len(), 1);
    assert_eq!(snapshot.sessions[0].id, record.id);
    assert_eq!(snapshot.sessions[0].title, "Retained conversation");
    assert_eq!(snapshot.sessions[0].processes[0].provider, "claude");

    drop(client);
    let snapshot = active(&env, &[]);
    assert!(
        snapshot.sessions.is_empty() && snapshot.gaps.is_empty(),
        "{snapshot:#?}"
    );
}

#[test]
fn running_and_waiting_come_from_the_scheduler_state() {
    let env = Env::new();
    let busy_session = env.new_session(&["--title", "busy"]);
    let idle_session = env.new_session(&["--title", "idle"]);
    let busy = Child(
        Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap(),
    );
    let idle = Child::sleep();
    record_client(&env, &busy_session.id, busy.id());
    record_client(&env, &idle_session.id, idle.id());
    // Until the sleep sleeps: just after its spawn it may still be running.
    let snapshot = active_until(&env, "both argvs, the sleep asleep", |snapshot| {
        snapshot.sessions.len() == 2
            && snapshot
                .sessions
                .iter()
                .all(|session| !session.processes[0].command.is_empty())
            && snapshot.sessions.iter().any(|session| {
                session.id == idle_session.id && session.processes[0].state == ProcessState::Waiting
            })
    });
    let state = |session: &str| {
        let session = snapshot.sessions.iter().find(|s| s.id == session).unwrap();
        (
            session.processes[0].state,
            session.processes[0].command.clone(),
        )
    };
    assert_eq!(
        state(&busy_session.id),
        (
            ProcessState::Running,
            vec!["sh".into(), "-c".into(), "while :; do :; done".into()]
        )
    );
    assert_eq!(
        state(&idle_session.id),
        (ProcessState::Waiting, vec!["sleep".into(), "300".into()])
    );
}

// ---------------------------------------------------------------------------
// Edges.

#[test]
fn observing_a_new_home_creates_nothing() {
    let env = Env::new();
    let snapshot = active(&env, &[]);
    assert_eq!(snapshot.discovery, Discovery::Ready);
    assert!(snapshot.sessions.is_empty() && snapshot.gaps.is_empty());
    assert!(!env.home().exists(), "observing created the Home");
    env.attempt("lf-session-active", &["--task", "LOO-1"])
        .fails_with(3, "task_not_found");
    assert!(!env.home().exists());
}

#[test]
fn an_unreadable_database_makes_an_unavailable_snapshot_and_is_left_alone() {
    let env = Env::new();
    std::fs::create_dir_all(env.home()).unwrap();
    let garbage = b"this is not a database, it is a shopping list\n".repeat(100);
    std::fs::write(env.home().join("loopflow.db"), &garbage).unwrap();
    let snapshot = active(&env, &[]);
    assert_eq!(snapshot.discovery, Discovery::Unavailable);
    assert!(snapshot.sessions.is_empty());
    assert_eq!(snapshot.gaps.len(), 1);
    assert!(
        snapshot.gaps[0].contains(&env.home().join("loopflow.db").display().to_string()),
        "{:?}",
        snapshot.gaps
    );
    assert_eq!(
        std::fs::read(env.home().join("loopflow.db")).unwrap(),
        garbage
    );

    let env = Env::new();
    env.new_session(&[]);
    env.db().pragma_update(None, "user_version", 99).unwrap();
    let snapshot = active(&env, &[]);
    assert_eq!(snapshot.discovery, Discovery::Unavailable);
    assert!(snapshot.gaps[0].contains("newer"), "{:?}", snapshot.gaps);
}

#[test]
fn help_has_examples_and_version_names_the_program() {
    let env = Env::new();
    let help = env.run("lf-session-active", &["--help"]);
    help.ok();
    assert!(help.stdout.contains("Examples:"), "{}", help.stdout);
    assert!(help.stdout.contains("lf-session-active --task"));
    let version = env.run("lf-session-active", &["--version"]);
    assert_eq!(
        version.stdout.trim(),
        format!("lf-session-active {}", env!("CARGO_PKG_VERSION"))
    );
    env.attempt("lf-session-active", &["--bogus"])
        .fails_with(2, "command_line");
}

// ---------------------------------------------------------------------------
// The wire: the fixture round-trips, and the schema agrees with the types.

#[test]
fn the_fixture_round_trips_and_required_keys_are_required() {
    let fixture = read_json("tests/fixtures/active.json");
    let decoded: LiveSnapshot = serde_json::from_value(fixture.clone()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), fixture);
    let states: Vec<_> = decoded
        .sessions
        .iter()
        .flat_map(|s| s.processes.iter().map(|p| p.state))
        .collect();
    assert!(states.contains(&ProcessState::Running) && states.contains(&ProcessState::Waiting));
    for key in [
        "discovery",
        "home",
        "observed_at",
        "task",
        "sessions",
        "gaps",
    ] {
        let mut value = fixture.clone();
        value.as_object_mut().unwrap().remove(key);
        assert!(
            serde_json::from_value::<LiveSnapshot>(value).is_err(),
            "a snapshot without {key} decoded"
        );
    }
    let mut value = fixture.clone();
    value["sessions"][0].as_object_mut().unwrap().remove("work");
    assert!(serde_json::from_value::<LiveSnapshot>(value).is_err());
}

#[test]
fn the_schema_describes_the_types_and_accepts_the_fixture() {
    let schema = read_json("schema/active.schema.json");
    let fixture = read_json("tests/fixtures/active.json");
    validate(&schema, &schema, &fixture, "").unwrap();
    // Every key the types write is in the schema, required, and nothing else.
    let keys = |value: &Value| -> Vec<String> {
        let mut keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let schema_keys = |part: &Value| -> (Vec<String>, Vec<String>) {
        let mut required: Vec<String> = part["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|key| key.as_str().unwrap().to_owned())
            .collect();
        required.sort();
        (keys(&part["properties"]), required)
    };
    for (part, value) in [
        (&schema, &fixture),
        (&schema["$defs"]["LiveSession"], &fixture["sessions"][0]),
        (
            &schema["$defs"]["LiveProcess"],
            &fixture["sessions"][0]["processes"][0],
        ),
    ] {
        let (properties, required) = schema_keys(part);
        assert_eq!(properties, keys(value));
        assert_eq!(required, keys(value));
    }
    let enum_of = |part: &Value| -> Vec<Value> { part["enum"].as_array().unwrap().clone() };
    assert_eq!(
        enum_of(&schema["properties"]["discovery"]),
        [Discovery::Ready, Discovery::Unavailable].map(|d| serde_json::to_value(d).unwrap())
    );
    assert_eq!(
        enum_of(&schema["$defs"]["LiveProcess"]["properties"]["state"]),
        [ProcessState::Running, ProcessState::Waiting].map(|s| serde_json::to_value(s).unwrap())
    );
    // And it refuses what the types would refuse.
    for (what, mutate) in [
        (
            "an unknown state",
            Box::new(|v: &mut Value| v["sessions"][0]["processes"][0]["state"] = "sleeping".into())
                as Box<dyn Fn(&mut Value)>,
        ),
        (
            "a missing gaps",
            Box::new(|v: &mut Value| {
                v.as_object_mut().unwrap().remove("gaps");
            }),
        ),
        (
            "an extra key",
            Box::new(|v: &mut Value| v["run_id"] = "run-x".into()),
        ),
        (
            "a session without processes",
            Box::new(|v: &mut Value| v["sessions"][0]["processes"] = Value::Array(vec![])),
        ),
        (
            "a time without microseconds",
            Box::new(|v: &mut Value| v["observed_at"] = "2026-11-29T22:18:31Z".into()),
        ),
        (
            "a bad session id",
            Box::new(|v: &mut Value| v["sessions"][0]["id"] = "nope".into()),
        ),
    ] {
        let mut value = fixture.clone();
        mutate(&mut value);
        assert!(
            validate(&schema, &schema, &value, "").is_err(),
            "the schema accepts {what}"
        );
    }
}
