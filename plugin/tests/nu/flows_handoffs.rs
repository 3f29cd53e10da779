//! Flow reviews and interactive handoffs through the plugin in the real
//! `nu`: the commands' records decoded from `to json -r` into the
//! library's wire types, compared with what the binaries print, and the
//! errors as Nushell catches them.

use super::{Env, caught};
use lf::flow::{FlowRecord, ReviewFeedback};
use lf::wire::{
    Attention, HandoffListRow, HandoffOpened, HandoffOutcome, HandoffParentKind, HandoffRecord,
    HandoffStatus, SessionKind, SessionRecord, SessionState,
};
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// A wave `product` (repository `repo`) with the Task LOO-1 (worktree
/// `repo-loo-1`) and the Task LOO-2 (no worktree).
struct Work {
    repo: PathBuf,
    worktree: PathBuf,
    task_id: String,
}

fn register(env: &Env) -> Work {
    let repo = env.mkdir("repo");
    let worktree = env.mkdir("repo-loo-1");
    let lf = env.lf();
    lf.add_wave("product", &repo).unwrap();
    let task = lf
        .add_task(lf::work::NewTask {
            identifier: "LOO-1",
            title: "The first task",
            worktree: Some(&worktree),
            wave: Some("product"),
        })
        .unwrap();
    lf.add_task(lf::work::NewTask {
        identifier: "LOO-2",
        title: "A task without a worktree",
        worktree: None,
        wave: None,
    })
    .unwrap();
    Work {
        repo,
        worktree,
        task_id: task.id,
    }
}

/// A row of `lf handoffs` as `to json -r` writes it: `age` is a duration
/// (nanoseconds in JSON), times are datetimes (RFC 3339 in JSON). Unknown
/// columns are refused, so the columns are pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HandoffRow {
    id: String,
    parent_kind: HandoffParentKind,
    parent_id: String,
    wave_id: Option<String>,
    status: HandoffStatus,
    home: String,
    provider: String,
    age: i64,
    reason: String,
    cwd: String,
    created_at: String,
    attached_at: Option<String>,
    finished_at: Option<String>,
}

const OPEN_LOGIN: &str = "lf handoff open task:LOO-1 --provider codex --body-generation 4 \
    --reason 'OAuth login requires a human' --env {GH_TOKEN: hunter2} \
    --argv [tmux attach-session -t lf-loo-1]";

#[test]
fn lf_handoffs_shows_age_as_a_duration_and_times_as_datetimes() {
    let env = Env::new();
    let work = register(&env);
    // Open from the Task's worktree: the default --cwd is the engine's
    // directory.
    let ran = env.nu_in(&work.worktree, &format!("{OPEN_LOGIN} | to json -r"));
    let login: HandoffOpened = ran.json();
    assert!(login.created);
    assert_eq!(login.handoff.parent_id, work.task_id);
    assert_eq!(login.handoff.cwd, work.worktree.display().to_string());
    assert_eq!(login.handoff.environment_names, ["GH_TOKEN"]);
    assert!(
        !ran.stdout.contains("hunter2"),
        "an environment value was shown\n{}",
        ran.describe()
    );
    // A replay finds it.
    let replay: HandoffOpened = env
        .nu_in(&work.worktree, &format!("{OPEN_LOGIN} | to json -r"))
        .json();
    assert!(!replay.created);
    assert_eq!(replay.handoff.id, login.handoff.id);

    let deploy: HandoffOpened = env
        .nu_in(
            &work.repo,
            "lf handoff open wave:product --provider claude --body-generation 1 \
             --reason 'Approve the deploy' --argv [tmux attach-session -t deploy] | to json -r",
        )
        .json();
    let deploy = deploy.handoff.id;
    let attached: HandoffRecord = env
        .nu(&format!("lf handoff attach {deploy} | to json -r"))
        .json();
    assert_eq!(attached.status, HandoffStatus::Attached);
    let finished: HandoffRecord = env
        .nu(&format!(
            "lf handoff finish {deploy} --completed 'Deployed' | to json -r"
        ))
        .json();
    assert_eq!(finished.status, HandoffStatus::Completed);

    let ran = env.nu("lf handoffs | describe");
    ran.ok();
    let described = ran.stdout.trim();
    for column in ["age: duration", "created_at: datetime"] {
        assert!(described.contains(column), "no {column:?} in {described}");
    }
    // Null until then: Nushell names both types, in the order it met them.
    for column in ["attached_at", "finished_at"] {
        let either = [
            format!("{column}: oneof<datetime, nothing>"),
            format!("{column}: oneof<nothing, datetime>"),
        ];
        assert!(
            either.iter().any(|text| described.contains(text.as_str())),
            "{column} is not a datetime or nothing in {described}"
        );
    }

    // The rows are those of lf-handoff list, in its order.
    let rows: Vec<HandoffRow> = env.nu("lf handoffs | to json -r").json();
    let listed: Vec<HandoffListRow> = env.binary_in(&env.work(), "lf-handoff", &["list"]).json();
    assert_eq!(
        rows.iter().map(|row| &row.id).collect::<Vec<_>>(),
        listed.iter().map(|row| &row.id).collect::<Vec<_>>()
    );
    assert_eq!(rows[0].id, deploy, "newest first");
    for (row, listed) in rows.iter().zip(&listed) {
        assert_eq!(row.parent_kind, listed.parent_kind);
        assert_eq!(row.parent_id, listed.parent_id);
        assert_eq!(row.wave_id, listed.wave_id);
        assert_eq!(row.status, listed.status);
        assert_eq!(row.home, listed.home);
        assert_eq!(row.provider, listed.provider);
        let age = Duration::from_nanos(u64::try_from(row.age).unwrap());
        assert!(
            age.as_secs().abs_diff(listed.age_secs.0) <= 2,
            "{age:?} vs {:?}",
            listed.age_secs
        );
        assert!(chrono::DateTime::parse_from_rfc3339(&row.created_at).is_ok());
    }
    let done = &rows[0];
    assert_eq!(done.reason, "Approve the deploy");
    assert_eq!(done.cwd, work.repo.display().to_string());
    assert!(done.attached_at.is_some() && done.finished_at.is_some());
    assert!(rows[1].attached_at.is_none() && rows[1].finished_at.is_none());

    // Durations and datetimes compare as such.
    let recent: Vec<String> = env
        .nu("lf handoffs --active | where age < 1hr and created_at > ((date now) - 1hr) | get id | to json -r")
        .json();
    assert_eq!(recent, [login.handoff.id]);
}

#[test]
fn a_flow_review_needs_attention_until_its_flow_advances() {
    let env = Env::new();
    let work = register(&env);
    let position = "--task LOO-1 --invocation inv-1 --flow feature --node 2 --step review-design";
    let review: SessionRecord = env
        .nu(&format!(
            "lf flow review --no-launch {position} | to json -r"
        ))
        .json();
    assert_eq!(review.kind, SessionKind::Flow);
    assert_eq!(review.attention, Some(Attention::Review));
    assert_eq!(review.cwd, work.worktree.display().to_string());
    assert_eq!(review.title, "Review review-design for LOO-1");

    // The binary finds the same session for the same position.
    let args: Vec<&str> = std::iter::once("review")
        .chain(position.split(' '))
        .chain(["--no-launch"])
        .collect();
    let binary: SessionRecord = env.binary_in(&env.work(), "lf-flow", &args).json();
    assert_eq!(binary.id, review.id);

    let pending: Vec<SessionRecord> = env
        .nu("lf sessions --kind flow | where attention == review | to json -r")
        .json();
    assert_eq!(
        pending.iter().map(|s| &s.id).collect::<Vec<_>>(),
        [&review.id]
    );

    let advanced: FlowRecord = env
        .nu("lf flow advance --invocation inv-1 | to json -r")
        .json();
    assert_eq!(
        advanced,
        FlowRecord {
            invocation_id: "inv-1".into(),
            flow: "feature".into(),
            task_id: Some(work.task_id.clone()),
            finished: false,
            pending_session_id: None,
        }
    );
    let flows: Vec<SessionRecord> = env.nu("lf sessions --kind flow | to json -r").json();
    assert_eq!(flows.len(), 1);
    assert_eq!(flows[0].id, review.id);
    assert_eq!(flows[0].attention, None, "{:?}", flows[0]);
    let needing: Vec<SessionRecord> = env
        .nu("lf sessions --kind flow | where attention != null | to json -r")
        .json();
    assert!(needing.is_empty(), "{needing:?}");

    let finished: FlowRecord = env
        .nu("lf flow finish --invocation inv-1 | to json -r")
        .json();
    assert!(finished.finished);

    // A bad token is refused with the library's message, under its flag.
    let error = caught(
        &env,
        "lf flow review --no-launch --task LOO-1 --invocation 'inv 9' --flow feature --node 1 --step s",
    );
    assert_eq!(error.code.as_deref(), Some("lf::usage"));
    assert_eq!(error.labels[0].source, "'inv 9'");
    let error = caught(
        &env,
        "lf flow review --no-launch --task NOPE-1 --invocation inv-9 --flow feature --node 1 --step s",
    );
    assert_eq!(error.code.as_deref(), Some("lf::not_found"), "{error:?}");
    assert_eq!(error.labels[0].source, "NOPE-1");
    let error = caught(&env, "lf flow advance --invocation inv-404");
    assert_eq!(error.code.as_deref(), Some("lf::not_found"), "{error:?}");
    assert_eq!(error.labels[0].source, "inv-404");
}

/// Whether a process other than this test holds `path` open.
fn held_open(path: &std::path::Path) -> bool {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|process| process.file_name() != me.as_str())
        .any(|process| {
            std::fs::read_dir(process.path().join("fd"))
                .into_iter()
                .flatten()
                .flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == path))
        })
}

#[test]
fn lf_flow_wait_returns_the_feedback_once_the_review_is_completed() {
    let env = Env::new();
    register(&env);
    // LOO-2 has no worktree: the review works where the user is (the
    // engine's directory), not where the plugin process runs.
    let elsewhere = env.mkdir("elsewhere");
    let review: SessionRecord = env
        .nu(&format!(
            "lf sessions | ignore; cd '{}'; lf flow review --no-launch --task LOO-2 --invocation inv-2 --flow feature --node 1 --step review-plan | to json -r",
            elsewhere.display()
        ))
        .json();
    assert_eq!(review.cwd, elsewhere.display().to_string());
    let id = review.id;

    let error = caught(&env, &format!("lf flow wait {id} --timeout 200ms"));
    assert_eq!(error.code.as_deref(), Some("lf::operational"));
    assert_eq!(error.labels[0].source, id);

    // A wait that is under way returns when the person completes the
    // review.
    let mut waiting = env.command(&super::nu(), &env.work());
    waiting
        .args(["-n", "--no-std-lib", "--plugins"])
        .arg(super::plugin())
        .arg("-c")
        .arg(format!("lf flow wait {id} --timeout 30sec | to json -r"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let waiting = waiting.spawn().unwrap();
    // Under way once its plugin holds the Home's database open (this
    // test's own Home: no other process opens it).
    let database = env.home().join("loopflow.db");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !held_open(&database) {
        assert!(
            std::time::Instant::now() < deadline,
            "the wait never opened {}",
            database.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let lf = env.lf();
    lf.store()
        .unwrap()
        .mark_ready(
            &id,
            &env.run_of(&id),
            "Looks good; rename the flag",
            lf::clock::now_micros(),
        )
        .unwrap();
    let closed: SessionRecord = env
        .nu(&format!("lf session complete {id} | to json -r"))
        .json();
    assert_eq!(closed.state, SessionState::Closed);
    let output = waiting.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let feedback: ReviewFeedback = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(feedback.session_id, id);
    assert_eq!(feedback.status, "completed");
    assert_eq!(
        feedback.feedback.as_deref(),
        Some("Looks good; rename the flag")
    );
    assert!(feedback.completed_at.is_some());

    // As the binary prints it; the completion time is a datetime.
    let binary: ReviewFeedback = env.binary_in(&env.work(), "lf-flow", &["wait", &id]).json();
    assert_eq!(binary.feedback, feedback.feedback);
    let kind: String = env
        .nu(&format!(
            "lf flow wait {id} | get completed_at | describe | to json -r"
        ))
        .json();
    assert_eq!(kind, "datetime");
}

#[test]
fn finishing_a_handoff_twice_with_different_outcomes_is_a_labeled_error() {
    let env = Env::new();
    let work = register(&env);
    let opened: HandoffOpened = env
        .nu_in(&work.worktree, &format!("{OPEN_LOGIN} | to json -r"))
        .json();
    let id = opened.handoff.id;

    let early = caught(&env, &format!("lf handoff claim-wake {id} --generation 5"));
    assert_eq!(early.code.as_deref(), Some("lf::conflict"), "{early:?}");
    assert_eq!(early.labels[0].source, id);

    let finish = format!("lf handoff finish {id} --handed-back 'Logged in; carry on'");
    let first: HandoffRecord = env.nu(&format!("{finish} | to json -r")).json();
    assert_eq!(first.status, HandoffStatus::HandedBack);
    // The same outcome again returns it.
    let again: HandoffRecord = env.nu(&format!("{finish} | to json -r")).json();
    assert_eq!(again.outcome, first.outcome);
    assert_eq!(again.finished_at, first.finished_at);

    let error = caught(
        &env,
        &format!("lf handoff finish {id} --failed 'the terminal is gone'"),
    );
    assert_eq!(error.code.as_deref(), Some("lf::conflict"), "{error:?}");
    assert_eq!(error.labels.len(), 1, "{error:?}");
    assert_eq!(error.labels[0].source, "'the terminal is gone'");
    // The binary says the same, and the first outcome is what is stored.
    let binary = env.binary_in(
        &env.work(),
        "lf-handoff",
        &["finish", &id, "--failed", "the terminal is gone"],
    );
    assert_eq!(binary.code, Some(4), "{}", binary.describe());
    assert_eq!(
        binary.stderr.trim().strip_prefix("lf-handoff: "),
        Some(error.msg.as_str())
    );
    let shown: HandoffRecord = env.nu(&format!("lf handoff show {id} | to json -r")).json();
    assert_eq!(
        shown.outcome,
        Some(HandoffOutcome::HandedBack {
            summary: "Logged in; carry on".into()
        })
    );

    // Exactly one claim wakes the agent.
    let claims: Vec<bool> = env
        .nu(&format!(
            "[(lf handoff claim-wake {id} --generation 5) (lf handoff claim-wake {id} --generation 6)] | to json -r"
        ))
        .json();
    assert_eq!(claims, [true, false]);

    // No outcome, two outcomes, a bad id: usage errors before anything.
    let none = caught(&env, &format!("lf handoff finish {id}"));
    assert_eq!(none.code.as_deref(), Some("lf::usage"), "{none:?}");
    let two = caught(
        &env,
        &format!("lf handoff finish {id} --completed a --failed b"),
    );
    assert_eq!(two.labels.len(), 2, "{two:?}");
    let bad = caught(&env, "lf handoff show handoff-nope");
    assert_eq!(bad.code.as_deref(), Some("lf::usage"), "{bad:?}");
    assert_eq!(bad.labels[0].source, "handoff-nope");
}

#[test]
fn lf_handoff_open_points_at_what_is_wrong() {
    let env = Env::new();
    let work = register(&env);
    // From the wrong directory: under the --cwd value.
    let error = caught(
        &env,
        &format!(
            "lf handoff open task:LOO-1 --cwd '{}' --provider codex --body-generation 1 --reason r --argv [tmux]",
            work.repo.display()
        ),
    );
    assert_eq!(error.code.as_deref(), Some("lf::usage"), "{error:?}");
    assert_eq!(error.labels[0].source, format!("'{}'", work.repo.display()));
    // An unknown parent: under the parent.
    let error = caught(
        &env,
        "lf handoff open task:NOPE-1 --provider codex --body-generation 1 --reason r --argv [tmux]",
    );
    assert_eq!(error.code.as_deref(), Some("lf::not_found"), "{error:?}");
    assert_eq!(error.labels[0].source, "task:NOPE-1");
    // A bad variable name, and a value that is not text: under --env,
    // never showing the value.
    let error = caught(
        &env,
        "lf handoff open task:LOO-1 --provider codex --body-generation 1 --reason r --env {'1A': hunter2} --argv [tmux]",
    );
    assert_eq!(error.code.as_deref(), Some("lf::usage"), "{error:?}");
    assert!(!error.shows("hunter2"), "{error:?}");
    assert_eq!(error.labels[0].source, "{'1A': hunter2}");
    let error = caught(
        &env,
        "lf handoff open task:LOO-1 --provider codex --body-generation 1 --reason r --env {PORT: 8080} --argv [tmux]",
    );
    assert_eq!(error.code.as_deref(), Some("lf::usage"), "{error:?}");
    assert_eq!(error.labels[0].source, "8080");
    assert!(!error.shows("8080"), "{error:?}");
    // An empty attach command: under --argv.
    let error = caught(
        &env,
        &format!(
            "cd '{}'; lf handoff open task:LOO-1 --provider codex --body-generation 1 --reason r --argv []",
            work.worktree.display()
        ),
    );
    assert_eq!(error.code.as_deref(), Some("lf::usage"), "{error:?}");
    assert_eq!(error.labels[0].source, "[]");
    assert!(
        env.lf()
            .store()
            .unwrap()
            .handoffs(false)
            .unwrap()
            .is_empty()
    );
}
