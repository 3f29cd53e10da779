use crate::session_list::insert_flow_review;
use crate::util::*;
use lf::wire::{ActionKind, SessionRecord, SessionState};
use std::process::{Command, Stdio};

#[test]
fn completing_stops_the_live_client_and_prints_the_closed_record() {
    let env = Env::new();
    let session = env.new_session(&["--title", "parser"]);
    let run = env.current_run(&session.id);
    let mut ready = env.command("lf-session-ready");
    ready
        .env("LF_SESSION_ID", &session.id)
        .env("LF_RUN_ID", &run)
        .arg("Parser fixed");
    env.run_command(ready).ok();
    let mut agent = Child::sleep();
    env.lf()
        .record_client(&session.id, agent.id(), Some("%3"))
        .unwrap();

    let closed: SessionRecord = env.run("lf-session-complete", &[&session.id]).json();
    assert_eq!(closed.state, SessionState::Closed);
    assert_eq!(closed.attention, None);
    assert_eq!(closed.ready_summary.as_deref(), Some("Parser fixed"));
    assert!(closed.completed_at.is_some());
    let status = agent.0.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(Signal::TERM.as_raw())
    );
    assert!(env.list(&[]).is_empty());
    assert_eq!(env.show(&session.id), closed);
}

#[test]
fn a_client_that_ignores_sigterm_is_killed_after_the_grace() {
    let env = Env::new();
    let session = env.new_session(&[]);
    let mut stubborn = Command::new("sh")
        .args(["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(stubborn.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    env.lf()
        .record_client(&session.id, stubborn.id(), None)
        .unwrap();
    env.run("lf-session-complete", &[&session.id, "--grace", "0.2"])
        .ok();
    let status = stubborn.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(Signal::KILL.as_raw())
    );
}

#[test]
fn a_receipt_whose_pid_was_reused_is_never_signalled() {
    let env = Env::new();
    let session = env.new_session(&[]);
    let bystander = Child::sleep();
    env.lf()
        .record_client(&session.id, bystander.id(), None)
        .unwrap();
    env.db()
        .execute("UPDATE clients SET starttime = starttime + 1", [])
        .unwrap();
    env.run("lf-session-complete", &[&session.id, "--grace", "0"])
        .ok();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", bystander.id())).unwrap();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    assert_ne!(state, "Z", "the bystander was killed");
}

#[test]
fn a_flow_review_completes_only_when_ready() {
    let env = Env::new();
    let review = insert_flow_review(&env, "inv-1", true, false);
    let error = env
        .attempt("lf-session-complete", &[&review])
        .fails_with(4, "unavailable");
    assert_eq!(error.message, lf::state::NOT_READY);
    assert_eq!(env.show(&review).state, SessionState::Waiting);
    let mut ready = env.command("lf-session-ready");
    ready
        .env("LF_SESSION_ID", &review)
        .env("LF_RUN_ID", env.current_run(&review))
        .arg("Design approved with two changes");
    env.run_command(ready).ok();
    let closed: SessionRecord = env.run("lf-session-complete", &[&review]).json();
    assert_eq!(
        closed.ready_summary.as_deref(),
        Some("Design approved with two changes")
    );
    assert_eq!(closed.state, SessionState::Closed);
}

#[test]
fn completing_twice_or_an_unknown_session_is_refused() {
    let env = Env::new();
    let session = env.new_session(&[]);
    env.run("lf-session-complete", &[&session.id]).ok();
    let error = env
        .attempt("lf-session-complete", &[&session.id])
        .fails_with(4, "already_complete");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    let error = env
        .attempt("lf-session-complete", &["0123456789abcdef0123456789abcdef"])
        .fails_with(3, "session_not_found");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    env.attempt("lf-session-complete", &["not-an-id"])
        .fails_with(2, "bad_selector");
    env.attempt("lf-session-complete", &[&session.id, "--grace", "-1"])
        .fails_with(2, "command_line");
}

#[test]
fn a_completed_sessions_actions_say_why_each_binary_refuses_them() {
    let env = Env::new();
    let session = env.new_session(&["--title", "Done"]);
    env.run("lf-session-complete", &[&session.id]).ok();
    let closed = env.show(&session.id);
    // The record says why each action is unavailable now, in one reason
    // (tests/messages.rs pins its words), and every binary refuses with it.
    let reason = closed.actions[0]
        .unavailable_reason
        .as_deref()
        .map(str::to_owned)
        .expect("a completed Session can no longer be opened");
    let offered: Vec<(ActionKind, Option<&str>)> = closed
        .actions
        .iter()
        .map(|action| (action.kind, action.unavailable_reason.as_deref()))
        .collect();
    assert_eq!(
        offered,
        [
            (ActionKind::Open, Some(reason.as_str())),
            (ActionKind::Complete, Some(reason.as_str()))
        ]
    );
    let id = session.id.as_str();
    let refusals = [
        ("lf-session-open", vec![id]),
        ("lf-session-open", vec![id, "--detach"]),
        ("lf-session-open", vec![id, "--here"]),
        ("lf-session-open", vec![id, "--replace", "--detach"]),
        ("lf-session-complete", vec![id]),
        ("lf-session-complete", vec![id, "--remove-worktree"]),
        // Renaming is no action of the record, and is refused the same way.
        ("lf-session-rename", vec![id, "Again"]),
    ];
    for (program, args) in refusals {
        let error = env
            .attempt(program, &args)
            .fails_with(4, "already_complete");
        assert_eq!(error.message, reason, "{program} {args:?}");
    }
    // --print is a read: it shows the record, whose actions say why not.
    let printed: SessionRecord = env.run("lf-session-open", &[id, "--print"]).json();
    assert_eq!(printed.actions, closed.actions);
    assert_eq!(env.show(id).title, "Done");
}
