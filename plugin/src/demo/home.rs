//! The demo Home the Nushell plugin's examples describe. Examples are help
//! that is tested: each command's test seeds this Home afresh (fixed ids,
//! fixed times) and checks that every example returns the result it shows.
//! The ids and texts are here for the examples to spell out; seeding
//! writes through the library's store (public only with its `testing`
//! feature), so it is built for the plugin's tests only.
//!
//! The demo: a wave `product` with the Task `LOO-291`, and seven sessions,
//! newest first — "Explore the codebase" (nothing to do), "Upgrade the
//! database" (waits on a permission prompt), "Fix the flaky test" (the
//! agent finished a turn), "Rewrite the parser" (ready for review, in the
//! Task's worktree), "Review review-design for LOO-291" (the pending flow
//! review of invocation `inv-7` of the flow `feature`, node 2), "Review
//! review-plan for LOO-291" (the completed review of the earlier
//! invocation `inv-6`, node 1, with its feedback) and "Old experiment"
//! (closed).
//!
//! And two interactive handoffs, newest first: "OAuth login requires a
//! human" (Task LOO-291, waiting for a person, with `GH_TOKEN` in its
//! environment) and "Approve the production deploy" (wave `product`,
//! handed back; its wake is not claimed yet).

pub const TASK: &str = "task-01kdw0000000000000000000b1";

pub const EXPLORE: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
pub const DATABASE: &str = "c5d2e9f6a3b0c7d4e1f8a5b2c9d6e3f0";
pub const FLAKY: &str = "8b1e4d7a2c9f6e3b0a5d8c1f4e7b2a9d";
pub const PARSER: &str = "3f2a9c0e5b7d4e1f8a6c2b0d9e7f5a3c";
pub const OLD: &str = "0f9e8d7c6b5a49382716f5e4d3c2b1a0";

pub const EXPLORE_TITLE: &str = "Explore the codebase";
pub const DATABASE_TITLE: &str = "Upgrade the database";
pub const FLAKY_TITLE: &str = "Fix the flaky test";
pub const PARSER_TITLE: &str = "Rewrite the parser";
pub const OLD_TITLE: &str = "Old experiment";
pub const PARSER_SUMMARY: &str = "Parser rewritten; see tests/parser.rs";

pub const REVIEW_DESIGN_TITLE: &str = "Review review-design for LOO-291";
pub const REVIEW_PLAN_FEEDBACK: &str = "Plan approved; split the lexer out first";
pub const HANDOFF_LOGIN_REASON: &str = "OAuth login requires a human";
pub const HANDOFF_DEPLOY_SUMMARY: &str = "Deploy approved; carry on";

/// The current Run of "Explore the codebase": the demo engine's
/// `$env.LF_RUN_ID`, as inside that agent.
pub const EXPLORE_RUN: &str = "run-01kdw00000000000000000000e";

/// 2026-01-05T08:00:00Z, when the demo begins.
const T0: i64 = 1_767_600_000_000_000;
const HOUR: i64 = 3_600_000_000;

/// The demo sessions, oldest first, with their Runs and creation times.
const SESSIONS: [(&str, &str, &str, i64); 5] = [
    (OLD, OLD_TITLE, "run-01kdw000000000000000000000", T0),
    (
        PARSER,
        PARSER_TITLE,
        "run-01kdw00000000000000000000p",
        T0 + HOUR,
    ),
    (
        FLAKY,
        FLAKY_TITLE,
        "run-01kdw00000000000000000000f",
        T0 + 2 * HOUR,
    ),
    (
        DATABASE,
        DATABASE_TITLE,
        "run-01kdw00000000000000000000d",
        T0 + 3 * HOUR,
    ),
    (EXPLORE, EXPLORE_TITLE, EXPLORE_RUN, T0 + 4 * HOUR),
];

/// When a demo session was created, in the microseconds of page cursors.
pub fn created_micros(id: &str) -> i64 {
    SESSIONS
        .iter()
        .find(|(session, ..)| *session == id)
        .map_or(0, |(.., at)| *at)
}

#[cfg(test)]
pub use seeding::*;

#[cfg(test)]
mod seeding {
    use super::*;
    use lf::home::Home;
    use lf::ids::{HandoffId, RunId, SessionId};
    use lf::state::Turn;
    use lf::store::handoffs::HandoffRow;
    use lf::store::{NewReview, NewRun, NewSessionRow, TaskRow, WaveRow};
    use lf::wire::{HandoffOutcome, HandoffParentKind, SessionKind, TitleSource};
    use std::path::{Path, PathBuf};

    pub const WAVE: &str = "wave-01kdw0000000000000000000a1";
    /// The Claude conversation of "Rewrite the parser", whose transcript
    /// the demo holds (`lf usage`).
    const PARSER_CONVERSATION: &str = "6e0c3b1a-2f4d-4c8e-9a7b-1d2e3f4a5b6c";

    // The ids the examples spell out; seeding checks that each review's id
    // is the one its flow position derives.
    pub const REVIEW_DESIGN: &str = "112d3fccc09e41902b2daa6cba4020fa";
    pub const REVIEW_PLAN: &str = "58280eb938e0e752255a3becea432bdf";
    pub const REVIEW_PLAN_TITLE: &str = "Review review-plan for LOO-291";
    pub const HANDOFF_LOGIN: &str = "handoff-01kdw0000000000000000000h1";
    pub const HANDOFF_DEPLOY: &str = "handoff-01kdw0000000000000000000h0";
    const HANDOFF_DEPLOY_REASON: &str = "Approve the production deploy";
    const MINUTE: i64 = 60_000_000;

    /// The demo flow reviews, oldest first: session, title, Run, invocation,
    /// node, step, creation time.
    const REVIEWS: [(&str, &str, &str, &str, u32, &str, i64); 2] = [
        (
            REVIEW_PLAN,
            REVIEW_PLAN_TITLE,
            "run-01kdw0000000000000000000r6",
            "inv-6",
            1,
            "review-plan",
            T0 + 20 * MINUTE,
        ),
        (
            REVIEW_DESIGN,
            REVIEW_DESIGN_TITLE,
            "run-01kdw0000000000000000000r7",
            "inv-7",
            2,
            "review-design",
            T0 + 40 * MINUTE,
        ),
    ];

    /// The demo Home, opened as lf itself opens it, so its writes are
    /// recorded as events too.
    fn recording(home: &Home) -> lf::Lf {
        lf::Lf::at(home.clone(), lf::Caller::default())
    }

    /// Write the demo into `<root>/home`, with its repository at
    /// `<root>/app` and the Task's worktree at `<root>/app-loo-291`.
    pub fn seed(root: &Path) -> Home {
        let app = root.join("app");
        let worktree = root.join("app-loo-291");
        for dir in [&app, &worktree] {
            std::fs::create_dir_all(dir).expect("demo folders");
        }
        let text = |path: &PathBuf| path.display().to_string();
        let home = Home::at(root.join("home"));
        let lf = recording(&home);
        let store = lf.store().expect("the demo Home opens");
        store
            .insert_wave(&WaveRow {
                id: WAVE.into(),
                name: "product".into(),
                repo: text(&app),
                created_at: T0,
            })
            .expect("the demo wave");
        store
            .insert_task(&TaskRow {
                id: TASK.into(),
                identifier: "LOO-291".into(),
                title: PARSER_TITLE.into(),
                worktree: Some(text(&worktree)),
                wave_id: Some(WAVE.into()),
                created_at: T0,
                finished_at: None,
            })
            .expect("the demo Task");
        for (id, title, run, at) in SESSIONS {
            let parser = id == PARSER;
            let session = NewSessionRow {
                id: SessionId::parse(id).expect("a demo session id"),
                kind: SessionKind::Conversation,
                title: title.into(),
                title_source: if id == EXPLORE {
                    TitleSource::Generated
                } else {
                    TitleSource::Human
                },
                interactive: true,
                cwd: text(if parser { &worktree } else { &app }),
                provider: "claude".into(),
                model: None,
                task_id: parser.then(|| TASK.into()),
                wave_id: parser.then(|| WAVE.into()),
                primary_scope: None,
                independent: true,
            };
            let run = NewRun {
                id: RunId::parse(run).expect("a demo run id"),
                chosen_native_id: None,
                provider: "claude".into(),
                model: None,
                argv: Vec::new(),
                prompt: None,
            };
            store
                .insert_session(&session, &run, at)
                .expect("a demo session");
        }
        let run_of = |id: &str| {
            SESSIONS
                .iter()
                .find(|(session, ..)| *session == id)
                .map(|(_, _, run, _)| *run)
                .expect("a demo session")
        };
        let later = T0 + 5 * HOUR;
        store
            .mark_ready(PARSER, run_of(PARSER), PARSER_SUMMARY, later)
            .expect("the parser is ready");
        store
            .record_turn(run_of(FLAKY), Turn::Completed, later)
            .expect("the flaky test's turn");
        store
            .record_permission_prompt(run_of(DATABASE), later, None)
            .expect("the database's prompt");
        store
            .complete_session(OLD, later)
            .expect("the old experiment is closed");
        seed_transcript(root, store, run_of(PARSER));
        seed_flows(&home, &text(&worktree));
        seed_handoffs(&home, &text(&app), &text(&worktree));
        home
    }

    /// The transcript of "Rewrite the parser": one turn of five minutes
    /// (09:00 to 09:05 on the demo's day) and two messages of
    /// claude-sonnet-4-5, 122,500 tokens in all.
    fn seed_transcript(root: &Path, store: &lf::store::Store, run: &str) {
        let path = root.join(format!("{PARSER_CONVERSATION}.jsonl"));
        let message = |id: &str, at: &str, usage: [u64; 4]| {
            let [input, output, creation, read] = usage;
            format!(
                r#"{{"type":"assistant","timestamp":"{at}","requestId":"req_{id}","message":{{"id":"{id}","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[],"usage":{{"input_tokens":{input},"output_tokens":{output},"cache_creation_input_tokens":{creation},"cache_read_input_tokens":{read}}}}}}}"#
            )
        };
        let lines = [
            r#"{"type":"user","timestamp":"2026-01-05T09:00:00Z","message":{"role":"user","content":"Rewrite the parser"}}"#.to_owned(),
            message("msg_1", "2026-01-05T09:02:30Z", [1200, 800, 4000, 96000]),
            message("msg_2", "2026-01-05T09:05:00Z", [300, 200, 0, 20000]),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").expect("the demo transcript");
        store
            .record_transcript(run, &path.display().to_string())
            .expect("the parser's transcript");
    }

    /// Two invocations of the flow `feature` for LOO-291: `inv-6`, whose
    /// review is completed with feedback (a new invocation of the Task
    /// finished it), and `inv-7`, whose review of node 2 is pending.
    fn seed_flows(home: &Home, worktree: &str) {
        let lf = recording(home);
        let store = lf.store().expect("the demo Home opens");
        for (id, title, run, invocation, node, step, at) in REVIEWS {
            let task_key = format!("{TASK}:{invocation}:feature:{node}:0");
            assert_eq!(
                SessionId::derived(&task_key).as_str(),
                id,
                "a demo review's id is derived from its position"
            );
            let session = NewSessionRow {
                id: SessionId::parse(id).expect("a demo review id"),
                kind: SessionKind::Flow,
                title: title.into(),
                title_source: TitleSource::Generated,
                interactive: true,
                cwd: worktree.into(),
                provider: "claude".into(),
                model: None,
                task_id: Some(TASK.into()),
                wave_id: Some(WAVE.into()),
                primary_scope: None,
                independent: false,
            };
            let run = NewRun {
                id: RunId::parse(run).expect("a demo run id"),
                chosen_native_id: None,
                provider: "claude".into(),
                model: None,
                argv: Vec::new(),
                prompt: None,
            };
            let iterations = vec![vec![0]];
            store
                .insert_review(
                    &NewReview {
                        session: &session,
                        run: &run,
                        invocation,
                        flow: "feature",
                        step,
                        node: Some(node),
                        iterations: Some(&iterations),
                    },
                    at,
                )
                .expect("a demo review");
            if id == REVIEW_PLAN {
                let done = at + 10 * MINUTE;
                store
                    .mark_ready(id, run.id.as_str(), REVIEW_PLAN_FEEDBACK, done)
                    .expect("the plan review is ready");
                store
                    .complete_session(id, done)
                    .expect("the plan review is completed");
            }
        }
    }

    /// A waiting handoff of LOO-291 and a handed-back one of the wave.
    fn seed_handoffs(home: &Home, app: &str, worktree: &str) {
        let lf = recording(home);
        let store = lf.store().expect("the demo Home opens");
        let handoff = |id: &str, kind, parent: &str, cwd: &str, reason: &str, at: i64| HandoffRow {
            id: HandoffId::parse(id).expect("a demo handoff id").to_string(),
            parent_kind: kind,
            parent_id: parent.into(),
            wave_id: Some(WAVE.into()),
            cwd: cwd.into(),
            provider: "codex".into(),
            provider_session_id: Some("thread-loo-291".into()),
            body_generation: 2,
            reason: reason.into(),
            environment: [("GH_TOKEN".to_owned(), "demo-secret".to_owned())].into(),
            attach_argv: ["tmux", "attach-session", "-t", "lf-loo-291"]
                .map(str::to_owned)
                .to_vec(),
            attached_at: None,
            outcome: None,
            finished_at: None,
            wake_claimed_by_generation: None,
            created_at: at,
            updated_at: at,
        };
        let deploy = handoff(
            HANDOFF_DEPLOY,
            HandoffParentKind::Wave,
            WAVE,
            app,
            HANDOFF_DEPLOY_REASON,
            T0 + 2 * HOUR,
        );
        store.open_handoff(&deploy).expect("the deploy handoff");
        let outcome = HandoffOutcome::HandedBack {
            summary: HANDOFF_DEPLOY_SUMMARY.into(),
        };
        store
            .finish_handoff(HANDOFF_DEPLOY, &outcome, T0 + 3 * HOUR)
            .expect("the deploy handoff is handed back");
        let login = handoff(
            HANDOFF_LOGIN,
            HandoffParentKind::Task,
            TASK,
            worktree,
            HANDOFF_LOGIN_REASON,
            T0 + 5 * HOUR,
        );
        store.open_handoff(&login).expect("the login handoff");
    }
}
