//! The real Codex CLI through lf: the happy path (new → active → reply,
//! a killed pane, resume). What Codex shows wrong is another issue's; see
//! docs/decisions.md.

use super::*;
use crate::model::{Request, Server, responses};

/// Codex's prompt box is ready for input.
const READY: &str = "for shortcuts";

fn started() -> (Server, Env, SessionRecord, String) {
    let model = responses::start();
    let env = codex_env(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let record = new_session(&env, "codex", &cwd, None);
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert!(record.alive);
    assert_eq!(record.attention, None);
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 60);
    (model, env, record, pane)
}

/// The thread a Responses request belongs to (Codex keys its prompt
/// cache by the thread id).
fn thread(request: &Request) -> String {
    request.body["prompt_cache_key"]
        .as_str()
        .expect("Codex names its thread")
        .to_owned()
}

#[test]
fn codex_new_active_then_reply_when_the_turn_completes() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Hello codex");
    model.wait_prompt("Hello codex", 30);
    let replied = wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(replied.alive);
}

#[test]
fn codex_a_killed_pane_is_interrupted_and_resumes_the_same_thread() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Remember the word puffin");
    let first = thread(&model.wait_prompt("puffin", 30));
    wait_history(
        &env.dir.path().join(".codex/sessions"),
        &["puffin", &first, "Answer"],
        30,
    );
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    env.tmux(&["kill-pane", "-t", &pane]);
    let killed = wait_record(&env, &record.id, "interrupted", 20, |record| {
        record.state == SessionState::Interrupted
    });
    assert!(!killed.alive);
    assert_eq!(killed.attention, None, "nothing is there to reply to");
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    assert_eq!(opened.state, SessionState::Active, "{opened:#?}");
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    // ("?" on its own is Codex's shortcut key: keep it out of prompts.)
    say(&env, &pane, "Which word was it");
    let resumed = model.wait_prompt("Which word was it", 30);
    assert_eq!(thread(&resumed), first, "the same thread resumed");
    assert!(
        resumed.body["input"].to_string().contains("puffin"),
        "history resumed"
    );
}
