use crate::util::*;
use lf::flow::{FlowRecord, ReviewFeedback};
use lf::wire::{
    Attention, FlowMembership, FlowOccurrence, SessionKind, SessionRecord, SessionState, WorkRef,
};
use std::process::Stdio;

fn setup() -> (Env, lf::wire::TaskRecord) {
    let env = Env::new();
    let worktree = env.mkdir("loo-291");
    env.run(
        "lf-work",
        &[
            "wave",
            "add",
            "product",
            "--repo",
            env.work().to_str().unwrap(),
        ],
    )
    .ok();
    let task = env
        .run(
            "lf-work",
            &[
                "task",
                "add",
                "LOO-291",
                "--title",
                "Parser",
                "--worktree",
                worktree.to_str().unwrap(),
                "--wave",
                "product",
            ],
        )
        .json();
    (env, task)
}

fn review(env: &Env, invocation: &str, node: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "review",
        "--task",
        "LOO-291",
        "--invocation",
        invocation,
        "--flow",
        "feature",
        "--node",
        node,
        "--step",
        "review-design",
    ];
    args.extend_from_slice(extra);
    env.attempt("lf-flow", &args)
}

fn occurrence(record: &SessionRecord) -> FlowOccurrence {
    match &record.flow_membership {
        FlowMembership::Step { occurrence, .. } => *occurrence,
        other => panic!("not a flow step: {other:?}"),
    }
}

#[test]
fn a_review_is_created_once_for_its_position_and_launched_once() {
    let (env, task) = setup();
    let first: SessionRecord = review(&env, "inv-1", "2", &["--iteration", "3"]).json();
    assert_eq!(first.kind, SessionKind::Flow);
    assert_eq!(first.state, SessionState::Active);
    assert_eq!(first.attention, Some(Attention::Review));
    assert_eq!(first.detail, "review-design");
    assert_eq!(first.work, Some(WorkRef::Task(task.id.clone())));
    assert_eq!(first.work_path.as_deref(), Some("product / LOO-291"));
    assert_eq!(first.cwd, task.worktree.clone().unwrap());
    assert_eq!(
        first.flow_membership,
        FlowMembership::Step {
            flow: "feature".into(),
            invocation_id: "inv-1".into(),
            step: "review-design".into(),
            node: Some(2),
            iterations: Some(vec![vec![3]]),
            occurrence: FlowOccurrence::Current,
        }
    );
    assert_eq!(
        first.id,
        lf::ids::SessionId::derived(&format!("{}:inv-1:feature:2:3", task.id)).to_string()
    );
    let again: SessionRecord = review(&env, "inv-1", "2", &["--iteration", "3"]).json();
    assert_eq!(again.id, first.id);
    assert_eq!(
        env.agent_log("launch").len(),
        1,
        "a repeat launches nothing"
    );
    let argv: Vec<String> =
        serde_json::from_value(env.agent_log("launch")[0]["argv"].clone()).unwrap();
    let prompt = argv.last().unwrap();
    assert!(
        prompt.contains("interactive review for Task LOO-291"),
        "{prompt}"
    );
    assert!(
        prompt.contains(&format!("lf-session-complete {}", first.id)),
        "{prompt}"
    );
}

#[test]
fn completing_needs_ready_and_returns_the_feedback_to_the_waiting_orchestrator() {
    let (env, _) = setup();
    let session: SessionRecord = review(&env, "inv-1", "2", &["--no-launch"]).json();
    let error = env
        .attempt("lf-session-complete", &[&session.id])
        .fails_with(4, "unavailable");
    assert_eq!(error.message, lf::state::NOT_READY);
    let waiter = env
        .command("lf-flow")
        .args(["wait", &session.id])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    env.ready(&session.id, "Approved; rename the parser module")
        .ok();
    let closed: SessionRecord = env.run("lf-session-complete", &[&session.id]).json();
    assert_eq!(
        closed.ready_summary.as_deref(),
        Some("Approved; rename the parser module")
    );
    let output = waiter.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let feedback: ReviewFeedback = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(feedback.status, "completed");
    assert_eq!(
        feedback.feedback.as_deref(),
        Some("Approved; rename the parser module")
    );
    assert_eq!(feedback.completed_at, closed.completed_at);
    // The invocation no longer waits on anyone.
    let flow: FlowRecord = env
        .run("lf-flow", &["advance", "--invocation", "inv-1"])
        .json();
    assert_eq!(flow.pending_session_id, None);
}

#[test]
fn advancing_makes_earlier_positions_that_need_nothing_and_refuses_stale_work() {
    let (env, _) = setup();
    let first: SessionRecord = review(&env, "inv-1", "2", &["--no-launch"]).json();
    let flow: FlowRecord = env
        .run("lf-flow", &["advance", "--invocation", "inv-1"])
        .json();
    assert_eq!((flow.finished, flow.pending_session_id), (false, None));
    let earlier = env.show(&first.id);
    assert_eq!(occurrence(&earlier), FlowOccurrence::Earlier);
    assert_eq!(earlier.attention, None);
    let mut late = env.json_errors("lf-session-ready");
    late.env("LF_SESSION_ID", &first.id)
        .env("LF_RUN_ID", env.current_run(&first.id))
        .arg("late");
    env.run_command(late).fails_with(4, "stale_review");
    let second: SessionRecord = review(&env, "inv-1", "5", &["--no-launch"]).json();
    assert_eq!(occurrence(&env.show(&second.id)), FlowOccurrence::Current);
    assert_eq!(occurrence(&env.show(&first.id)), FlowOccurrence::Earlier);
    assert_eq!(env.list(&["--attention"]).len(), 1);
    // Marked ready earlier by hand, it is still not the pending review.
    env.db()
        .execute(
            "UPDATE sessions SET ready_summary = 'x' WHERE id = ?1",
            [&first.id],
        )
        .unwrap();
    let error = env
        .attempt("lf-session-complete", &[&first.id])
        .fails_with(4, "no_longer_waiting");
    assert_eq!(error.arg, None, "{error:?}");
}

#[test]
fn finished_and_replaced_invocations_are_past() {
    let (env, _) = setup();
    let old: SessionRecord = review(&env, "inv-1", "2", &["--no-launch"]).json();
    let newer: SessionRecord = review(&env, "inv-2", "2", &["--no-launch"]).json();
    assert_eq!(
        occurrence(&env.show(&old.id)),
        FlowOccurrence::Past,
        "a new invocation replaces the old"
    );
    assert_eq!(env.show(&old.id).attention, None);
    let flow: FlowRecord = env
        .run("lf-flow", &["finish", "--invocation", "inv-2"])
        .json();
    assert!(flow.finished);
    assert_eq!(occurrence(&env.show(&newer.id)), FlowOccurrence::Past);
    assert!(env.list(&["--attention"]).is_empty());
    review(&env, "inv-2", "7", &["--no-launch"]).fails_with(4, "invocation_finished");
}

#[test]
fn a_finished_tasks_review_needs_no_attention() {
    let (env, _) = setup();
    let session: SessionRecord = review(&env, "inv-1", "2", &["--no-launch"]).json();
    assert_eq!(session.attention, Some(Attention::Review));
    env.run("lf-work", &["task", "finish", "LOO-291"]).ok();
    assert_eq!(env.show(&session.id).attention, None);
}

#[test]
fn concurrent_reviews_of_one_position_make_one_session_and_one_launch() {
    let (env, _) = setup();
    let children: Vec<_> = (0..6)
        .map(|_| {
            env.command("lf-flow")
                .args([
                    "review",
                    "--task",
                    "LOO-291",
                    "--invocation",
                    "inv-1",
                    "--flow",
                    "feature",
                    "--node",
                    "2",
                    "--step",
                    "review-design",
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let ids: Vec<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_slice::<SessionRecord>(&output.stdout)
                .unwrap()
                .id
        })
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]));
    assert_eq!(env.list(&[]).len(), 1);
    assert_eq!(env.agent_log("launch").len(), 1);
}

#[test]
fn reviews_rename_and_refuse_bad_positions() {
    let (env, _) = setup();
    let session: SessionRecord = review(&env, "inv-1", "2", &["--no-launch"]).json();
    let renamed: SessionRecord = env
        .run("lf-session-rename", &[&session.id, "Design review"])
        .json();
    assert_eq!(renamed.title, "Design review");
    let error = review(&env, "inv 1;rm", "2", &["--no-launch"]).fails_with(2, "bad_token");
    assert_eq!(error.arg.as_deref(), Some("invocation"), "{error:?}");
    assert!(
        review(&env, "inv-1", "x", &["--no-launch"])
            .fails(2)
            .contains("--node")
    );
    env.attempt(
        "lf-flow",
        &[
            "review",
            "--task",
            "LOO-404",
            "--invocation",
            "i",
            "--flow",
            "f",
            "--node",
            "1",
            "--step",
            "s",
        ],
    )
    .fails_with(3, "task_not_found");
    env.attempt(
        "lf-flow",
        &[
            "review",
            "--task",
            "LOO-291",
            "--invocation",
            "inv-1",
            "--flow",
            "other",
            "--node",
            "3",
            "--step",
            "s",
            "--no-launch",
        ],
    )
    .fails_with(4, "invocation_of_other_flow");
    env.attempt("lf-flow", &["advance", "--invocation", "nope"])
        .fails_with(3, "invocation_not_found");
    env.attempt("lf-flow", &["wait", "not-an-id"])
        .fails_with(2, "bad_selector");
    // "bad" is hexadecimal: the start of an id, too short to name one.
    env.attempt("lf-flow", &["wait", "bad"])
        .fails_with(2, "prefix_too_short");
    env.attempt("lf-flow", &["wait", &session.id, "--timeout", "0.1"])
        .fails_with(1, "wait_timeout");
}

#[test]
fn flow_shapes_round_trip_and_match_their_schema() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures.join("../../schema/flow.schema.json")).unwrap(),
    )
    .unwrap();
    fn check<T: serde::de::DeserializeOwned + serde::Serialize>(
        text: &str,
        schema: &serde_json::Value,
    ) {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let typed: T = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), value);
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        let mut required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        let mut keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        keys.sort();
        required.sort();
        assert_eq!(keys, required);
        for key in keys {
            let mut missing = value.clone();
            missing.as_object_mut().unwrap().remove(key);
            assert!(
                serde_json::from_value::<T>(missing).is_err(),
                "{key} is required"
            );
        }
    }
    check::<FlowRecord>(
        &std::fs::read_to_string(fixtures.join("flow.json")).unwrap(),
        &schema["$defs"]["FlowRecord"],
    );
    check::<ReviewFeedback>(
        &std::fs::read_to_string(fixtures.join("review_feedback.json")).unwrap(),
        &schema["$defs"]["ReviewFeedback"],
    );
}
