//! `lf active` in the real `nu`: a fake live client (a `sleep` recorded as
//! a client of a Session through the library) shows up in the snapshot
//! with typed columns, and the snapshot is the one `lf-session-active`
//! prints.

use super::Env;
use lf::clock::Timestamp;
use lf::snapshot::{Discovery, LiveSnapshot, ProcessState};
use lf::wire::WorkRef;
use serde::Deserialize;
use std::process::{Child, Command, Stdio};

/// A child process killed and reaped on drop, so a failing test leaves no
/// `sleep` behind.
struct Live(Child);

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A process row as `to json -r` writes it; unknown columns are refused,
/// so the columns are pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Process {
    pid: u32,
    ppid: u32,
    provider: String,
    command: Vec<String>,
    started_at: Timestamp,
    state: ProcessState,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Session {
    id: String,
    title: String,
    work: Option<WorkRef>,
    processes: Vec<Process>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot {
    discovery: Discovery,
    home: String,
    observed_at: Timestamp,
    task: Option<String>,
    sessions: Vec<Session>,
    gaps: Vec<String>,
}

fn micros(at: &Timestamp) -> i64 {
    at.micros()
}

#[test]
fn lf_active_shows_a_live_client_with_typed_columns() {
    let env = Env::new();
    let work = env.mkdir("repo");
    let id = env.session("A live agent", &work);
    let before = lf::clock::now_micros();
    let sleep = Live(
        Command::new("sleep")
            .arg("60")
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn sleep"),
    );
    let pid = sleep.0.id();
    env.lf().record_client(&id, pid, Some("%1")).unwrap();

    let first: u32 = env
        .nu("lf active | get sessions | first | get processes | first | get pid | to json -r")
        .json();
    assert_eq!(first, pid);

    let snapshot: Snapshot = env.nu("lf active | to json -r").json();
    assert_eq!(snapshot.discovery, Discovery::Ready);
    assert_eq!(snapshot.home, env.home().display().to_string());
    assert_eq!(snapshot.task, None);
    assert!(snapshot.gaps.is_empty(), "{:?}", snapshot.gaps);
    assert!(micros(&snapshot.observed_at) >= before);
    assert_eq!(snapshot.sessions.len(), 1, "{snapshot:?}");
    let session = &snapshot.sessions[0];
    assert_eq!(session.id, id);
    assert_eq!(session.title, "A live agent");
    assert_eq!(session.work, None);
    assert_eq!(session.processes.len(), 1, "{session:?}");
    let process = &session.processes[0];
    assert_eq!(process.pid, pid);
    assert_eq!(process.ppid, std::process::id());
    assert_eq!(process.provider, "claude");
    assert_eq!(process.command, ["sleep", "60"]);
    assert_eq!(process.state, ProcessState::Waiting);
    // Start times are boot time plus clock ticks: accurate to about a second.
    let started = micros(&process.started_at);
    assert!(
        (started - before).abs() < 5_000_000,
        "started_at {:?} vs {before}",
        process.started_at
    );

    // The same snapshot as lf-session-active's, times compared as instants.
    let binary: LiveSnapshot = env.binary_in(&env.work(), "lf-session-active", &[]).json();
    assert_eq!(binary.sessions.len(), 1);
    assert_eq!(binary.sessions[0].id, session.id);
    let listed = &binary.sessions[0].processes[0];
    assert_eq!(
        (listed.pid, listed.ppid, &listed.provider, &listed.command),
        (
            process.pid,
            process.ppid,
            &process.provider,
            &process.command
        )
    );
    assert_eq!(micros(&listed.started_at), started);
    assert_eq!(binary.gaps, snapshot.gaps);

    // Types as Nushell sees them.
    let ran = env.nu("lf active | describe");
    ran.ok();
    let described = ran.stdout.trim();
    assert!(
        described.starts_with("record<discovery: string, home: string, observed_at: datetime"),
        "{described}"
    );
    for column in [
        "processes: table<pid: int, ppid: int, provider: string, command: list<string>, \
         started_at: datetime, state: string>",
        "gaps: list<",
    ] {
        assert!(described.contains(column), "no {column:?} in {described}");
    }
    let pid_type: String = env
        .nu("lf active | get sessions.0.processes.0.pid | describe | to json -r")
        .json();
    assert_eq!(pid_type, "int");

    // Filtered to a Task the session is not bound to: nothing, and `task`
    // is the Task's id.
    let task = env
        .lf()
        .add_task(lf::work::NewTask {
            identifier: "LOO-7",
            title: "Another task",
            worktree: None,
            wave: None,
        })
        .unwrap();
    let filtered: Snapshot = env.nu("lf active --task LOO-7 | to json -r").json();
    assert_eq!(filtered.task.as_deref(), Some(task.id.as_str()));
    assert!(filtered.sessions.is_empty(), "{filtered:?}");
}
