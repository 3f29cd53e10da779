//! lf-session-watch: the change stream, followed by real processes while
//! real writers (hooks, renames, completions, a dying agent) change the
//! Home.

use crate::util::*;
use lf::wire::{Attention, EventKind, SessionEvent, SessionRecord, SessionState, TaskRecord};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// A running `lf-session-watch`, its lines decoded as they come.
struct Follower {
    /// Killed when the follower is dropped.
    _child: Child,
    lines: Receiver<String>,
}

impl Follower {
    fn start(env: &Env, args: &[&str]) -> Self {
        Self::start_with(env, args, &[])
    }

    fn start_with(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Self {
        let mut command = env.command("lf-session-watch");
        command
            .args(args)
            .envs(vars.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().expect("lf-session-watch starts");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Follower {
            _child: Child(child),
            lines,
        }
    }

    /// The next event, or a panic naming what was awaited.
    fn next(&self, awaiting: &str) -> SessionEvent {
        match self.lines.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|error| panic!("not an event ({error}): {line}")),
            Err(RecvTimeoutError::Timeout) => panic!("no event within 30 s: {awaiting}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the follower ended: {awaiting}"),
        }
    }

    /// Events until one matches, returning all of them.
    fn until(&self, awaiting: &str, done: impl Fn(&SessionEvent) -> bool) -> Vec<SessionEvent> {
        let mut seen = Vec::new();
        loop {
            let event = self.next(awaiting);
            let last = done(&event);
            seen.push(event);
            if last {
                return seen;
            }
        }
    }
}

/// Every event the Home keeps, read without following.
pub fn all_events(env: &Env) -> Vec<SessionEvent> {
    let ran = env.run("lf-session-watch", &["--since", "0", "--no-follow"]);
    ran.ok();
    ran.stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A Claude hook for a Session's current Run, as its agent would send it.
fn claude_hook(env: &Env, session: &str, event: &str, extra: &str) {
    let run = env.current_run(session);
    let chosen = env.chosen_native_id(&run);
    let payload =
        format!(r#"{{"hook_event_name":"{event}","session_id":"{chosen}","cwd":"/"{extra}}}"#);
    env.hook("claude", Some(&run), payload.as_bytes()).ok();
}

fn kinds(events: &[SessionEvent]) -> Vec<(EventKind, Option<&str>, Option<&str>)> {
    events
        .iter()
        .map(|event| (event.kind, event.from.as_deref(), event.to.as_deref()))
        .collect()
}

#[test]
fn hooks_are_printed_as_they_arrive_with_the_record_after_them() {
    let env = Env::new();
    let record = env.new_session(&["--title", "watched"]);
    let follower = Follower::start(&env, &["--since", "0"]);
    let created = follower.next("created");
    assert_eq!(
        (created.seq, created.kind, created.session_id.as_str()),
        (1, EventKind::Created, record.id.as_str())
    );
    assert_eq!(created.to.as_deref(), Some("unknown"));
    assert_eq!(
        created.record, record,
        "the record as lf-session-new made it"
    );

    claude_hook(&env, &record.id, "SessionStart", r#","source":"startup""#);
    claude_hook(&env, &record.id, "UserPromptSubmit", r#","prompt":"hi""#);
    claude_hook(
        &env,
        &record.id,
        "PermissionRequest",
        r#","tool_name":"Bash""#,
    );
    let approve = follower.next("the approval");
    assert_eq!(
        kinds(std::slice::from_ref(&approve)),
        [(EventKind::Attention, None, Some("approve"))]
    );
    assert!(approve.seq > created.seq);
    assert_eq!(approve.record.attention, Some(Attention::Approve));
    assert!(approve.record.attention_since <= Some(approve.at));
    assert_eq!(approve.record, env.show(&record.id), "the record after it");

    claude_hook(&env, &record.id, "PostToolUse", r#","tool_name":"Bash""#);
    claude_hook(&env, &record.id, "Stop", "");
    let events = follower.until("the reply", |event| event.to.as_deref() == Some("reply"));
    assert_eq!(
        kinds(&events),
        [
            (EventKind::Attention, Some("approve"), None),
            (EventKind::Attention, None, Some("reply")),
        ]
    );
    // A hook that changes nothing a person sees is no event: none is
    // stored (an event is written with what it tells, so there is nothing
    // to wait for).
    let stored = all_events(&env).len();
    claude_hook(&env, &record.id, "Stop", "");
    assert_eq!(all_events(&env).len(), stored);

    env.ready(&record.id, "all done").ok();
    env.run("lf-session-rename", &[&record.id, "renamed"]).ok();
    env.run("lf-session-complete", &[&record.id]).ok();
    let events = follower.until("the completion", |event| event.kind == EventKind::Completed);
    let told: Vec<_> = kinds(&events);
    assert!(
        told.contains(&(EventKind::ReadySummary, None, Some("all done"))),
        "{told:?}"
    );
    assert!(told.contains(&(EventKind::Title, Some("watched"), Some("renamed"))));
    let completed = events.last().unwrap();
    assert_eq!(completed.to.as_deref(), Some("closed"));
    assert_eq!(completed.record.state, SessionState::Closed);
    // The ready session stopped owing its review as it was completed.
    assert_eq!(
        kinds(&all_events(&env)).last(),
        Some(&(EventKind::Attention, Some("review"), None))
    );
}

#[test]
fn a_consumer_killed_mid_stream_resumes_with_since_and_sees_every_event_once() {
    let env = Env::new();
    const WRITERS: usize = 16;
    const RENAMES: usize = 8;
    let sessions: Vec<String> = (0..WRITERS)
        .map(|n| env.new_session(&["--title", &format!("writer {n}")]).id)
        .collect();
    let expected = WRITERS + WRITERS * RENAMES;
    let first = Follower::start(&env, &["--since", "0"]);
    std::thread::scope(|scope| {
        for (n, id) in sessions.iter().enumerate() {
            let env = &env;
            scope.spawn(move || {
                for round in 0..RENAMES {
                    env.run(
                        "lf-session-rename",
                        &[id, &format!("writer {n} round {round}")],
                    )
                    .ok();
                }
            });
        }
        // Kill the consumer while the writers race.
        let mut handled: Vec<SessionEvent> = (0..40).map(|_| first.next("early events")).collect();
        drop(first);
        let last = handled.last().unwrap().seq.to_string();
        let second = Follower::start(&env, &["--since", &last]);
        while handled.len() < expected {
            handled.push(second.next("the rest of the events"));
        }
        let seqs: Vec<u64> = handled.iter().map(|event| event.seq).collect();
        let mut sorted = seqs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(seqs, sorted, "in order and each once");
        let stored: Vec<u64> = all_events(&env).iter().map(|event| event.seq).collect();
        assert_eq!(seqs, stored, "nothing missed");
        // Nothing more: the next event it gives is the next one made.
        env.run("lf-session-rename", &[&sessions[0], "after"]).ok();
        let after = second.next("the rename after the writers");
        assert_eq!(
            (after.kind, after.to.as_deref()),
            (EventKind::Title, Some("after"))
        );
    });
    let titles = all_events(&env)
        .iter()
        .filter(|event| event.kind == EventKind::Title)
        .count();
    assert_eq!(titles, WRITERS * RENAMES + 1, "and the one after");
}

#[test]
fn exec_runs_once_per_event_with_the_event_on_stdin() {
    let env = Env::new();
    let out = env.mkdir("exec");
    let record = env.new_session(&["--title", "one"]);
    env.run("lf-session-rename", &[&record.id, "two"]).ok();
    env.run("lf-session-rename", &[&record.id, "three"]).ok();
    // Each run writes its stdin to a file of its own.
    let ran = env.run(
        "lf-session-watch",
        &[
            "--since",
            "0",
            "--no-follow",
            "--exec",
            "sh",
            "-c",
            "cat > \"$0/$$.json\"",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(ran.stdout, "", "the command's output, not the events");
    ran.ok();
    let mut got: Vec<SessionEvent> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            serde_json::from_str(text.trim_end()).unwrap()
        })
        .collect();
    got.sort_by_key(|event| event.seq);
    assert_eq!(got, all_events(&env));
    assert_eq!(got.len(), 3);
    // A command that fails is reported and the stream goes on.
    let failing = env.run(
        "lf-session-watch",
        &["--since", "0", "--no-follow", "--exec", "false"],
    );
    failing.ok();
    assert_eq!(failing.stderr.lines().count(), 3, "{}", failing.stderr);
    // One that cannot run at all is an error naming it.
    let missing = env.attempt(
        "lf-session-watch",
        &["--since", "0", "--no-follow", "--exec", "no-such-notifier"],
    );
    missing.fails_with(1, "cannot_run");
}

#[test]
fn attention_only_shows_transitions_into_and_out_of_attention() {
    let env = Env::new();
    let record = env.new_session(&["--title", "quiet"]);
    env.run("lf-session-rename", &[&record.id, "still quiet"])
        .ok();
    env.ready(&record.id, "look").ok();
    let ran = env.run(
        "lf-session-watch",
        &["--since", "0", "--no-follow", "--attention"],
    );
    let events: Vec<SessionEvent> = ran
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        kinds(&events),
        [(EventKind::Attention, None, Some("review"))]
    );
}

/// A write reads only what its Sessions need (the Task worktrees that
/// could hold their cwd, their own clients), and its events tell the same
/// records a listing shows: the innermost worktree's Task included.
#[test]
fn an_event_tells_the_task_worktree_its_session_lies_in() {
    let env = Env::new();
    let mut tasks = Vec::new();
    for (identifier, folder) in [
        ("LOO-1", "repo"),
        ("LOO-2", "repo/nested-wt"),
        ("LOO-3", "elsewhere"),
    ] {
        let worktree = env.mkdir(folder);
        let task: TaskRecord = env
            .run(
                "lf-work",
                &[
                    "task",
                    "add",
                    identifier,
                    "--title",
                    identifier,
                    "--worktree",
                    worktree.to_str().unwrap(),
                ],
            )
            .json();
        tasks.push((task.id, worktree));
    }
    let (inner, worktree) = &tasks[1];
    let cwd = env.mkdir("repo/nested-wt/src");
    let record = env.new_session(&["--cwd", cwd.to_str().unwrap()]);
    claude_hook(&env, &record.id, "UserPromptSubmit", r#","prompt":"hi""#);
    claude_hook(&env, &record.id, "Stop", "");
    let events = all_events(&env);
    let reply = events
        .iter()
        .find(|event| event.session_id == record.id && event.to.as_deref() == Some("reply"))
        .expect("the reply is an event");
    assert_eq!(reply.record.task_ids, [inner.as_str()]);
    let workspace = reply.record.workspace.as_ref().expect("a workspace");
    assert_eq!(
        (workspace.task_id.as_deref(), workspace.worktree.as_deref()),
        (Some(inner.as_str()), worktree.to_str())
    );
    assert_eq!(
        reply.record,
        env.show(&record.id),
        "the record a listing shows"
    );
}

/// Kill a launched Session's pane and agent at once, so nothing of lf's
/// lives to record it (as when a machine's processes are killed).
fn kill_silently(env: &Env, id: &str) {
    let record = env.show(id);
    let pane = record.terminal_ids.first().expect("a live pane");
    let pane_pid: i32 = env
        .tmux(&["display-message", "-p", "-t", pane, "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap();
    let agent = env.agent_pid(id);
    kill(-pane_pid, Signal::KILL);
    kill(agent, Signal::KILL);
}

/// A client that dies tells no hook; a follower notices it within its
/// liveness look, and a listing notices it the next time it looks.
#[test]
fn a_client_that_dies_is_an_event_the_next_time_anything_looks() {
    let env = Env::new();
    let launch = || -> String {
        env.run(
            "lf-session-new",
            &["--provider", "command", "--", "sleep", "600"],
        )
        .json::<lf::wire::SessionRecord>()
        .id
    };
    let followed = launch();
    wait_for("the agent to run", 20, || {
        (env.show(&followed).state == SessionState::Active).then_some(())
    });
    let follower = Follower::start(&env, &["--since", "0"]);
    follower.until("active", |event| {
        event.session_id == followed && event.to.as_deref() == Some("active")
    });
    kill_silently(&env, &followed);
    let started = Instant::now();
    let died = follower.until("the death", |event| event.kind == EventKind::State);
    let died = died.last().unwrap();
    assert_eq!(died.session_id, followed);
    assert_ne!(died.to.as_deref(), Some("active"));
    assert!(!died.record.alive);
    eprintln!("death noticed after {:?}", started.elapsed());
    drop(follower);

    // Without a follower: the listing that shows it records it.
    let listed = launch();
    wait_for("the agent to run", 20, || {
        (env.show(&listed).state == SessionState::Active).then_some(())
    });
    let before = all_events(&env).last().unwrap().seq;
    kill_silently(&env, &listed);
    wait_for("the listing to see it", 20, || {
        (env.show(&listed).state != SessionState::Active).then_some(())
    });
    wait_for("the listing to see it lost", 20, || {
        (env.show(&listed).state == SessionState::Lost).then_some(())
    });
    let after: Vec<SessionEvent> = all_events(&env)
        .into_iter()
        .filter(|event| event.seq > before && event.kind == EventKind::State)
        .collect();
    // active → lost; or, when a listing looked in the moment between the
    // agent's death and its launcher's, active → unknown → lost: each
    // change told once, however often it is listed.
    assert_eq!(after[0].from.as_deref(), Some("active"));
    assert_eq!(after.last().unwrap().to.as_deref(), Some("lost"));
    assert!(after.len() <= 2, "{after:#?}");
    for pair in after.windows(2) {
        assert_eq!(pair[0].to, pair[1].from, "{after:#?}");
    }
    env.show(&listed);
    assert_eq!(
        all_events(&env)
            .iter()
            .filter(|event| event.seq > before && event.kind == EventKind::State)
            .count(),
        after.len()
    );
}

#[test]
fn pruning_keeps_the_events_bounded_and_a_late_consumer_is_told_of_the_gap() {
    let mut env = Env::new();
    env.vars.push(("LF_EVENTS_KEEP".into(), "20".into()));
    let record = env.new_session(&["--title", "t0"]);
    for n in 1..=200 {
        env.run("lf-session-rename", &[&record.id, &format!("t{n}")])
            .ok();
        let stored: i64 = env
            .db()
            .query_row("SELECT count(*) FROM events", [], |row| row.get(0))
            .unwrap();
        assert!(stored <= 20, "{stored} events kept after {n} renames");
    }
    let events = all_events(&env);
    assert_eq!(events.len(), 20);
    assert_eq!(events.last().unwrap().to.as_deref(), Some("t200"));
    let late = env.run("lf-session-watch", &["--since", "3", "--no-follow"]);
    late.ok();
    // Told of the gap in one note (tests/messages.rs pins its words).
    assert_eq!(late.stderr.lines().count(), 1, "{}", late.stderr);
    assert_eq!(late.stdout.lines().count(), 20);
    // A bound that is not a count is refused, naming the variable.
    let mut bad = Env::new();
    bad.vars.push(("LF_EVENTS_KEEP".into(), "lots".into()));
    bad.attempt("lf-session-new", &["--no-launch"])
        .fails_with(2, "bad_events_keep");
}

/// Real events of every kind agree with `schema/event.schema.json`: its
/// keys are exactly the serialised ones, its kinds exactly the enum's, and
/// each record is a valid session record.
#[test]
fn events_are_what_the_schema_says() {
    use crate::schema::{assert_keys_match, read_json, validate};
    let env = Env::new();
    let record = env.new_session(&["--title", "schema"]);
    env.run("lf-session-rename", &[&record.id, "schema 2"]).ok();
    env.ready(&record.id, "done").ok();
    env.run("lf-session-complete", &[&record.id]).ok();
    let schema = read_json("schema/event.schema.json");
    let records = read_json("schema/session-record.schema.json");
    let events = all_events(&env);
    let mut seen: Vec<&str> = Vec::new();
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        assert_keys_match("an event", &value, &schema);
        validate(&schema, &schema, &value, "").unwrap();
        validate(&records, &records, &value["record"], "/record").unwrap();
        seen.push(event.kind.as_str());
    }
    let kinds: Vec<&str> = schema["properties"]["kind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kind| kind.as_str().unwrap())
        .collect();
    assert_eq!(kinds, EventKind::NAMES);
    for kind in [
        "created",
        "title",
        "ready_summary",
        "attention",
        "completed",
    ] {
        assert!(seen.contains(&kind), "{kind} in {seen:?}");
    }
}

/// The events of one Session, as `(kind, from, to)`.
fn session_kinds(env: &Env, id: &str) -> Vec<(EventKind, Option<String>, Option<String>)> {
    all_events(env)
        .into_iter()
        .filter(|event| event.session_id == id)
        .map(|event| (event.kind, event.from, event.to))
        .collect()
}

/// A launch tells exactly what happened: the Session was created, then
/// its agent runs; a lost one opened or restored runs again. No `lost`
/// for a launcher not yet recorded, no `unknown` for an attempt not yet
/// started, in between.
#[test]
fn a_launch_tells_exactly_the_states_that_happened() {
    let env = Env::new();
    let record: SessionRecord = env
        .run(
            "lf-session-new",
            &["--provider", "command", "--", "sleep", "300"],
        )
        .json();
    let state =
        |from: &str, to: &str| (EventKind::State, Some(from.to_owned()), Some(to.to_owned()));
    let mut told = vec![
        (EventKind::Created, None, Some("unknown".to_owned())),
        state("unknown", "active"),
    ];
    assert_eq!(session_kinds(&env, &record.id), told, "lf-session-new");

    let lose = |env: &Env| {
        env.tmux(&["kill-server"]);
        wait_for("the Session to read lost", 20, || {
            (env.show(&record.id).state == SessionState::Lost).then_some(())
        });
    };
    lose(&env);
    env.run("lf-session-open", &[&record.id, "--detach"]).ok();
    told.extend([state("active", "lost"), state("lost", "active")]);
    assert_eq!(
        session_kinds(&env, &record.id),
        told,
        "an open of a lost Session"
    );

    lose(&env);
    let restored = crate::restore::lines(&env.run("lf-session-restore", &[]).ok().stdout);
    assert_eq!(
        restored[&record.id].result,
        lf::wire::RestoreResult::Relaunched,
        "{restored:?}"
    );
    told.extend([state("active", "lost"), state("lost", "active")]);
    assert_eq!(session_kinds(&env, &record.id), told, "a restore");
}
