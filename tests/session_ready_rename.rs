use crate::util::*;
use lf::wire::{Attention, SessionRecord, SessionState, TitleSource};

fn ready(env: &Env, session: &str, run: &str, summary: &str) -> Ran {
    let mut command = env.json_errors("lf-session-ready");
    command
        .env("LF_SESSION_ID", session)
        .env("LF_RUN_ID", run)
        .arg(summary);
    env.run_command(command)
}

#[test]
fn the_agent_marks_its_session_ready_for_review() {
    let env = Env::new();
    let session = env.new_session(&["--title", "parser"]);
    let run = env.current_run(&session.id);
    let record: SessionRecord = ready(
        &env,
        &session.id,
        &run,
        "  Parser fixed; see tests/parser.rs  ",
    )
    .json();
    assert_eq!(
        record.ready_summary.as_deref(),
        Some("Parser fixed; see tests/parser.rs")
    );
    assert_eq!(record.state, SessionState::Ready);
    assert_eq!(record.attention, Some(Attention::Review));
    assert_eq!(env.show(&session.id), record);
}

#[test]
fn readiness_is_fenced_on_the_current_run() {
    let env = Env::new();
    let session = env.new_session(&[]);
    // A superseded attempt of the same Session.
    let old = lf::ids::RunId::new().to_string();
    env.db()
        .execute(
            "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', 0)",
            [&old, &session.id],
        )
        .unwrap();
    ready(&env, &session.id, &old, "done").fails_with(4, "superseded_run");
    // Another Session's Run cannot mark it either.
    let other = env.new_session(&[]);
    ready(&env, &session.id, &env.current_run(&other.id), "done")
        .fails_with(4, "run_of_other_session");
    assert_eq!(env.show(&session.id).ready_summary, None);
}

#[test]
fn empty_summaries_primary_sessions_and_missing_env_are_refused() {
    let env = Env::new();
    let session = env.new_session(&[]);
    let run = env.current_run(&session.id);
    let error = ready(&env, &session.id, &run, "   ").fails_with(2, "empty_text");
    assert_eq!(error.arg.as_deref(), Some("summary"), "{error:?}");
    ready(&env, &session.id, &run, "a\u{1b}[2Jb").fails_with(2, "control_character");
    env.db()
        .execute(
            "UPDATE sessions SET primary_scope = '/repo' WHERE id = ?1",
            [&session.id],
        )
        .unwrap();
    ready(&env, &session.id, &run, "done").fails_with(4, "primary_not_reviewed");
    env.attempt("lf-session-ready", &["done"])
        .fails_with(2, "not_launched_by_lf");
    let error = ready(&env, "../../etc", &run, "done").fails_with(2, "bad_id");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    assert_eq!(env.show(&session.id).ready_summary, None);
}

#[test]
fn a_person_renames_and_a_generated_title_never_replaces_theirs() {
    let env = Env::new();
    let session = env.new_session(&["Fix the parser"]);
    assert_eq!(session.title_source, TitleSource::Generated);
    let renamed: SessionRecord = env
        .run(
            "lf-session-rename",
            &[&session.id, "Agent summary", "--generated"],
        )
        .json();
    assert_eq!(
        (renamed.title.as_str(), renamed.title_source),
        ("Agent summary", TitleSource::Generated)
    );
    let renamed: SessionRecord = env
        .run("lf-session-rename", &[&session.id, "  Parser rewrite "])
        .json();
    assert_eq!(
        (renamed.title.as_str(), renamed.title_source),
        ("Parser rewrite", TitleSource::Human)
    );
    let ran = env.run(
        "lf-session-rename",
        &[&session.id, "Agent again", "--generated"],
    );
    let kept: SessionRecord = ran.json();
    assert_eq!(
        (kept.title.as_str(), kept.title_source),
        ("Parser rewrite", TitleSource::Human)
    );
    // A note for the person, one line (tests/messages.rs pins it).
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
}

#[test]
fn rename_accepts_the_current_run_and_refuses_a_historical_one() {
    let env = Env::new();
    let session = env.new_session(&[]);
    let current = env.current_run(&session.id);
    let renamed: SessionRecord = env.run("lf-session-rename", &[&current, "Via run"]).json();
    assert_eq!(
        (renamed.id.as_str(), renamed.title.as_str()),
        (session.id.as_str(), "Via run")
    );
    let old = lf::ids::RunId::new().to_string();
    env.db()
        .execute(
            "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', 0)",
            [&old, &session.id],
        )
        .unwrap();
    let error = env
        .attempt("lf-session-rename", &[&old, "x"])
        .fails_with(4, "historical_run");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
}

#[test]
fn bad_titles_and_ids_change_nothing() {
    let env = Env::new();
    let session = env.new_session(&["--title", "original"]);
    let long = "x".repeat(10_000);
    for (args, code) in [
        (vec![session.id.as_str(), "bad\u{7}title"], 2),
        (vec![session.id.as_str(), long.as_str()], 2),
        (vec![session.id.as_str(), ""], 2),
        (vec!["not-an-id", "title"], 2),
        (vec!["run-../../../etc/passwd", "title"], 2),
        (vec!["ffffffffffffffffffffffffffffffff", "title"], 3),
    ] {
        env.run("lf-session-rename", &args).fails(code);
    }
    assert_eq!(env.show(&session.id).title, "original");
}
