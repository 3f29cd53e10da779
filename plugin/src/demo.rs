//! The demo Home the commands' examples describe. Examples are help that is
//! tested: each command's test seeds this Home afresh (fixed ids, fixed
//! times), points the test engine at it, and checks that every example
//! returns the result it shows.
//!
//! The demo: a wave `product` with the Task `LOO-291`, and five sessions,
//! newest first — "Explore the codebase" (nothing to do), "Upgrade the
//! database" (waits on a permission prompt), "Fix the flaky test" (the
//! agent finished a turn), "Rewrite the parser" (ready for review, in the
//! Task's worktree) and "Old experiment" (closed).

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
    use crate::LfPlugin;

    const WAVE: &str = "wave-01kdw0000000000000000000a1";

    use lf::ids::{RunId, SessionId};
    use lf::session::Turn;
    use lf::store::{NewRun, NewSessionRow, TaskRow, WaveRow};
    use lf::wire::{SessionKind, TitleSource};
    use lf::{Home, Lf};
    use nu_plugin_test_support::PluginTest;
    use nu_protocol::Value;
    use std::path::{Path, PathBuf};

    /// A plugin test engine whose `$env.LF_HOME` is a freshly seeded demo
    /// Home, whose current directory is the demo repository and whose
    /// `LF_SESSION_ID`/`LF_RUN_ID` are those of "Explore the codebase".
    /// The Home lives as long as the returned value.
    pub struct DemoTest {
        pub test: PluginTest,
        _dir: tempfile::TempDir,
    }

    /// Run a command's examples against a fresh demo Home; a failing
    /// example panics with the engine's diff.
    pub fn test_examples(command: &impl nu_plugin::PluginCommand) {
        let mut demo = plugin_test();
        if let Err(error) = demo.test.test_command_examples(command) {
            panic!("examples of {} failed: {error:?}", command.name());
        }
    }

    pub fn plugin_test() -> DemoTest {
        let dir = tempfile::tempdir().expect("a temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("a canonical temp dir");
        let home = seed(&root);
        let mut test = PluginTest::new("lf", LfPlugin.into()).expect("a plugin test engine");
        let state = test.engine_state_mut();
        let path = |path: &Path| Value::test_string(path.display().to_string());
        state.add_env_var("LF_HOME".into(), path(home.root()));
        state.add_env_var("PWD".into(), path(&root.join("app")));
        state.add_env_var("HOME".into(), path(&root));
        state.add_env_var("LF_SESSION_ID".into(), Value::test_string(EXPLORE));
        state.add_env_var("LF_RUN_ID".into(), Value::test_string(EXPLORE_RUN));
        DemoTest { test, _dir: dir }
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
        let home = Home::at(root.join("home")).expect("a demo Home");
        let lf = Lf::open(&home).expect("the demo Home opens");
        let store = lf.store();
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
            .record_permission_prompt(run_of(DATABASE), later)
            .expect("the database's prompt");
        store
            .complete_session(OLD, later)
            .expect("the old experiment is closed");
        home
    }
}
