use crate::util::*;
use lf::session::{RunOutcome, Turn};
use lf::wire::{
    Attention, FlowMembership, FlowOccurrence, SessionKind, SessionPage, SessionRecord,
    SessionState,
};

fn ids(records: &[SessionRecord]) -> Vec<String> {
    records.iter().map(|record| record.id.clone()).collect()
}

fn turn(env: &Env, id: &str, turn: Turn) {
    env.lf()
        .store()
        .unwrap()
        .record_turn(&env.current_run(id), turn, lf::clock::now_micros())
        .unwrap();
}

/// A flow review Session of invocation `flow`, recorded as issue-5's
/// orchestration will record it (no binary creates one yet).
pub fn insert_flow_review(env: &Env, flow: &str, pending: bool, finished: bool) -> String {
    let id = lf::ids::SessionId::new().to_string();
    let run = lf::ids::RunId::new().to_string();
    let now = lf::clock::now_micros();
    let db = env.db();
    db.execute(
        "INSERT INTO sessions (id, kind, title, title_source, interactive, cwd, flow_id, step, node, \
         current_run_id, created_at, updated_at) VALUES (?1, 'flow', 'Review design', 'generated', 1, ?2, ?3, \
         'review-design', 2, ?4, ?5, ?5)",
        rusqlite::params![id, env.work().to_str().unwrap(), flow, run, now],
    )
    .unwrap();
    db.execute(
        "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', ?3)",
        rusqlite::params![run, id, now],
    )
    .unwrap();
    db.execute(
        "INSERT OR REPLACE INTO flows (id, name, finished, pending_session_id, created_at, updated_at) \
         VALUES (?1, 'feature', ?2, ?3, ?4, ?4)",
        rusqlite::params![flow, finished, pending.then_some(&id), now],
    )
    .unwrap();
    id
}

#[test]
fn open_sessions_are_listed_newest_first_and_closed_ones_with_all() {
    let env = Env::new();
    let first = env.new_session(&["--title", "first"]);
    let second = env.new_session(&["--title", "second"]);
    let third = env.new_session(&["--title", "third"]);
    assert_eq!(
        ids(&env.list(&[])),
        [third.id.as_str(), second.id.as_str(), first.id.as_str()]
    );
    env.run("lf-session-complete", &[&second.id]).ok();
    assert_eq!(ids(&env.list(&[])), [third.id.as_str(), first.id.as_str()]);
    let all = env.list(&["--all"]);
    assert_eq!(
        ids(&all),
        [third.id.as_str(), second.id.as_str(), first.id.as_str()]
    );
    assert_eq!(all[1].state, SessionState::Closed);
    assert!(all[1].completed_at.is_some());
    assert_eq!(
        env.list(&["--state", "closed"]).len(),
        0,
        "closed ones need --all"
    );
    assert_eq!(
        ids(&env.list(&["--all", "--state", "closed"])),
        [second.id.as_str()]
    );
}

#[test]
fn an_empty_home_lists_an_empty_array() {
    let env = Env::new();
    assert_eq!(env.list(&[]), Vec::<SessionRecord>::new());
    let page: SessionPage = env.run("lf-session-list", &["--page"]).json();
    assert_eq!(
        page,
        SessionPage {
            entries: vec![],
            next: None
        }
    );
    assert_eq!(env.run("lf-session-list", &["--jsonl"]).ok().stdout, "");
}

#[test]
fn attention_is_filtered_before_the_page_size() {
    let env = Env::new();
    let mut needing = Vec::new();
    for index in 0..25 {
        let record = env.new_session(&["--title", &format!("s{index}")]);
        if index % 5 == 0 {
            turn(&env, &record.id, Turn::Completed);
            needing.push(record.id);
        }
    }
    needing.reverse();
    let all = env.list(&["--attention"]);
    assert_eq!(ids(&all), needing);
    assert!(
        all.iter()
            .all(|record| record.attention == Some(Attention::Reply))
    );
    let limited = env.list(&["--attention", "--limit", "3"]);
    assert_eq!(ids(&limited), needing[..3]);
}

#[test]
fn attention_reflects_turns_prompts_readiness_and_interrupts() {
    let env = Env::new();
    let reply = env.new_session(&["--title", "reply"]);
    turn(&env, &reply.id, Turn::Completed);
    let approve = env.new_session(&["--title", "approve"]);
    turn(&env, &approve.id, Turn::Started);
    env.lf()
        .store()
        .unwrap()
        .record_permission_prompt(&env.current_run(&approve.id), 1, None)
        .unwrap();
    let working = env.new_session(&["--title", "working"]);
    turn(&env, &working.id, Turn::Started);
    let interrupted = env.new_session(&["--title", "interrupted"]);
    turn(&env, &interrupted.id, Turn::Completed);
    env.lf()
        .store()
        .unwrap()
        .record_outcome(
            &env.current_run(&interrupted.id),
            RunOutcome::Interrupted,
            None,
            1,
        )
        .unwrap();
    let by_id = |id: &str| env.show(id);
    assert_eq!(by_id(&reply.id).attention, Some(Attention::Reply));
    assert_eq!(by_id(&approve.id).attention, Some(Attention::Approve));
    assert_eq!(by_id(&working.id).attention, None);
    let interrupted = by_id(&interrupted.id);
    assert_eq!(
        (interrupted.state, interrupted.attention),
        (SessionState::Interrupted, None)
    );
    // The next turn answers the permission prompt.
    turn(&env, &approve.id, Turn::Completed);
    assert_eq!(by_id(&approve.id).attention, Some(Attention::Reply));
}

#[test]
fn paging_with_cursors_visits_every_session_once() {
    let env = Env::new();
    for index in 0..11 {
        env.new_session(&["--title", &format!("s{index}")]);
    }
    let expected = ids(&env.list(&[]));
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = vec!["--page", "--limit", "4"];
        if let Some(cursor) = &after {
            args.extend(["--after", cursor]);
        }
        let page: SessionPage = env.run("lf-session-list", &args).json();
        pages += 1;
        seen.extend(ids(&page.entries));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, expected);
    assert_eq!(pages, 3);
    // A page that ends exactly at the end says so.
    let page: SessionPage = env
        .run("lf-session-list", &["--page", "--limit", "11"])
        .json();
    assert_eq!(page.next, None);
}

#[test]
fn a_malformed_cursor_is_a_usage_error() {
    let env = Env::new();
    for cursor in ["nonsense", "1.2", "12.' OR 1=1 --"] {
        env.attempt("lf-session-list", &["--after", cursor])
            .fails_with(2, "bad_cursor");
    }
}

#[test]
fn jsonl_streams_the_same_records_one_per_line() {
    let env = Env::new();
    for index in 0..5 {
        env.new_session(&["--title", &format!("s{index}")]);
    }
    let array = env.list(&[]);
    let ran = env.run("lf-session-list", &["--jsonl"]);
    let lines: Vec<SessionRecord> = ran
        .ok()
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, array);
}

#[test]
fn liveness_needs_the_exact_process_identity() {
    let env = Env::new();
    let live = env.new_session(&["--title", "live"]);
    let dead = env.new_session(&["--title", "dead"]);
    let reused = env.new_session(&["--title", "reused"]);
    let rebooted = env.new_session(&["--title", "rebooted"]);
    let agent = Child::sleep();
    env.lf()
        .record_client(&live.id, agent.id(), Some("%12"))
        .unwrap();
    {
        let gone = Child::sleep();
        env.lf()
            .record_client(&dead.id, gone.id(), Some("%13"))
            .unwrap();
    }
    // A receipt for a pid now running something else (other start time),
    // and one from another boot.
    let other = Child::sleep();
    env.lf()
        .record_client(&reused.id, other.id(), Some("%14"))
        .unwrap();
    env.db()
        .execute(
            "UPDATE clients SET starttime = starttime - 1 WHERE session_id = ?1",
            [&reused.id],
        )
        .unwrap();
    env.lf()
        .record_client(&rebooted.id, other.id(), Some("%15"))
        .unwrap();
    env.db()
        .execute(
            "UPDATE clients SET boot_id = 'another-boot' WHERE session_id = ?1",
            [&rebooted.id],
        )
        .unwrap();

    let record = env.show(&live.id);
    assert_eq!(record.state, SessionState::Active);
    assert_eq!(record.terminal_ids, ["%12"]);
    assert_eq!(
        record.actions[0].unavailable_reason.as_deref(),
        Some("This Session is active in another terminal; use Move here to transfer it")
    );
    for id in [&dead.id, &reused.id, &rebooted.id] {
        let record = env.show(id);
        assert_eq!(record.state, SessionState::Unknown, "{}", record.title);
        assert!(record.terminal_ids.is_empty());
    }
    assert_eq!(ids(&env.list(&["--state", "active"])), [live.id.as_str()]);
    drop(agent);
    assert_eq!(env.show(&live.id).state, SessionState::Unknown);
}

#[test]
fn kind_task_orphan_and_cwd_filters_select_exactly() {
    let env = Env::new();
    let worktree = env.mkdir("wt");
    let inner = env.mkdir("wt/nested");
    let elsewhere = env.mkdir("elsewhere");
    env.run(
        "lf-work",
        &[
            "task",
            "add",
            "LOO-1",
            "--title",
            "Outer",
            "--worktree",
            worktree.to_str().unwrap(),
        ],
    )
    .ok();
    env.run(
        "lf-work",
        &[
            "task",
            "add",
            "LOO-2",
            "--title",
            "Inner",
            "--worktree",
            inner.to_str().unwrap(),
        ],
    )
    .ok();
    env.run("lf-work", &["task", "add", "LOO-3", "--title", "Bound"])
        .ok();
    let in_outer = env.new_session(&["--cwd", worktree.to_str().unwrap()]);
    let in_inner = env.new_session(&["--cwd", inner.to_str().unwrap()]);
    let bound = env.new_session(&["--cwd", elsewhere.to_str().unwrap(), "--task", "LOO-3"]);
    let orphan = env.new_session(&["--cwd", elsewhere.to_str().unwrap()]);
    let review = insert_flow_review(&env, "inv-1", true, false);

    assert_eq!(ids(&env.list(&["--task", "LOO-1"])), [in_outer.id.as_str()]);
    assert_eq!(ids(&env.list(&["--task", "LOO-2"])), [in_inner.id.as_str()]);
    assert_eq!(ids(&env.list(&["--task", "LOO-3"])), [bound.id.as_str()]);
    assert_eq!(
        ids(&env.list(&["--orphan", "--kind", "conversation"])),
        [orphan.id.as_str()]
    );
    assert_eq!(ids(&env.list(&["--kind", "flow"])), [review.as_str()]);
    assert_eq!(
        ids(&env.list(&["--cwd", worktree.to_str().unwrap()])),
        [in_inner.id.as_str(), in_outer.id.as_str()]
    );
    let mut here = env.command("lf-session-list");
    here.arg("--here").current_dir(&inner);
    let here: Vec<SessionRecord> = env.run_command(here).json();
    assert_eq!(ids(&here), [in_inner.id.as_str()]);
    env.attempt("lf-session-list", &["--task", "LOO-404"])
        .fails_with(3, "task_not_found");
}

#[test]
fn flow_reviews_need_review_only_while_they_are_the_pending_step() {
    let env = Env::new();
    let current = insert_flow_review(&env, "inv-1", true, false);
    let unplaced = insert_flow_review(&env, "inv-2", false, false);
    let past = insert_flow_review(&env, "inv-3", true, true);
    let record = env.show(&current);
    assert_eq!(record.kind, SessionKind::Flow);
    assert_eq!(record.state, SessionState::Waiting);
    assert_eq!(record.attention, Some(Attention::Review));
    assert_eq!(record.detail, "review-design");
    assert_eq!(
        record.actions[1].unavailable_reason.as_deref(),
        Some("The session agent has not marked this ready")
    );
    let occurrence = |id: &str| match env.show(id).flow_membership {
        FlowMembership::Step {
            occurrence,
            flow,
            node,
            ..
        } => {
            assert_eq!((flow.as_str(), node), ("feature", Some(2)));
            occurrence
        }
        other => panic!("not a step: {other:?}"),
    };
    assert_eq!(occurrence(&current), FlowOccurrence::Current);
    assert_eq!(occurrence(&unplaced), FlowOccurrence::Unknown);
    assert_eq!(occurrence(&past), FlowOccurrence::Past);
    assert_eq!(env.show(&unplaced).attention, None);
    assert_eq!(env.show(&past).attention, None);
    assert_eq!(ids(&env.list(&["--attention"])), [current.as_str()]);
}
