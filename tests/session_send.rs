//! lf-session-send and lf-session-answer without a real agent: every
//! refusal (exit 4, nothing sent), with the fake Claude in a private tmux
//! server where a live agent is needed. What the real CLIs do with a reply
//! or an answer is tests/real's.

use crate::util::*;
use lf::wire::{Attention, EventKind, SessionRecord, SessionState};

/// The fake Claude, launched in `cwd` with a first prompt it echoes: the
/// Session then waits for a reply. Its pane, and its record.
pub(crate) fn waiting_for_a_reply(env: &Env) -> (SessionRecord, String) {
    let cwd = env.mkdir("repo");
    let record: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "claude",
                "--cwd",
                cwd.to_str().unwrap(),
                "first",
            ],
        )
        .json();
    let record = wait_for("the first turn to end", 20, || {
        let shown = env.show(&record.id);
        (shown.attention == Some(Attention::Reply)).then_some(shown)
    });
    let pane = record.terminal_ids[0].clone();
    (record, pane)
}

/// What the fake agent was told, in order: its turns' prompts.
pub(crate) fn prompts(env: &Env) -> Vec<String> {
    env.agent_log("hook")
        .into_iter()
        .filter(|hook| hook["event"] == "UserPromptSubmit")
        .map(|hook| hook["payload"]["prompt"].as_str().unwrap().to_owned())
        .collect()
}

/// A Claude hook for a Session's current Run, as its agent would send it.
pub(crate) fn claude_hook(env: &Env, session: &str, event: &str) {
    let run = env.current_run(session);
    let chosen = env.chosen_native_id(&run);
    let payload = format!(r#"{{"hook_event_name":"{event}","session_id":"{chosen}","cwd":"/"}}"#);
    env.hook("claude", Some(&run), payload.as_bytes()).ok();
}

#[test]
fn a_reply_is_typed_literally_when_one_is_owed_and_told_as_answered() {
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    // Text a shell or tmux would read as something else reaches the agent
    // as it is.
    let text = "-l Enter; $(touch x) #{pane_id} C-c 'q'";
    let after: SessionRecord = env.run("lf-session-send", &[&record.id, text]).json();
    assert_eq!(after.id, record.id);
    wait_for("the reply to reach the agent", 20, || {
        (prompts(&env).last().map(String::as_str) == Some(text)).then_some(())
    });
    assert_eq!(prompts(&env), ["first", text]);
    let events = crate::watch::all_events(&env);
    let answered: Vec<_> = events
        .iter()
        .filter(|event| event.kind == EventKind::Answered)
        .collect();
    assert_eq!(answered.len(), 1, "{events:#?}");
    assert_eq!(
        (answered[0].from.as_deref(), answered[0].to.as_deref()),
        (Some("reply"), Some("sent"))
    );
    assert!(answered[0].by.as_deref().is_some_and(|by| !by.is_empty()));
    assert!(
        events
            .iter()
            .all(|event| (event.kind == EventKind::Answered) == event.by.is_some()),
        "by names who answered, and only there"
    );
}

#[test]
fn nothing_is_sent_to_an_agent_that_is_working_or_waits_for_something_else() {
    let env = Env::new();
    let (record, pane) = waiting_for_a_reply(&env);
    // The person started a turn at the terminal: the agent works.
    claude_hook(&env, &record.id, "UserPromptSubmit");
    assert_eq!(env.show(&record.id).attention, None);
    let refused = env
        .attempt("lf-session-send", &[&record.id, "too late"])
        .fails_with(4, "not_waiting_for");
    // Refused for what it owes now, nothing (its words: tests/messages.rs).
    assert!(
        refused
            .hint
            .is_some_and(|hint| hint.contains("lf-session-open"))
    );
    // A permission prompt waits: a reply is not what it needs, and an
    // answer needs the dialog on screen (the fake shows none: as a prompt
    // the person already answered at the terminal).
    claude_hook(&env, &record.id, "PermissionRequest");
    assert_eq!(env.show(&record.id).attention, Some(Attention::Approve));
    env.attempt("lf-session-send", &[&record.id, "hello"])
        .fails_with(4, "not_waiting_for");
    let screen = env.capture_visible(&pane);
    env.attempt("lf-session-answer", &[&record.id, "allow"])
        .fails_with(4, "no_prompt_on_screen");
    env.attempt("lf-session-answer", &[&record.id, "deny"])
        .fails_with(4, "no_prompt_on_screen");
    assert_eq!(env.capture_visible(&pane), screen, "no key was pressed");
    assert_eq!(env.show(&record.id).attention, Some(Attention::Approve));
    // A reply is owed, not an answer.
    claude_hook(&env, &record.id, "Stop");
    assert_eq!(env.show(&record.id).attention, Some(Attention::Reply));
    env.attempt("lf-session-answer", &[&record.id, "allow"])
        .fails_with(4, "not_waiting_for");
    assert_eq!(prompts(&env), ["first"], "nothing reached the agent");
    assert!(
        crate::watch::all_events(&env)
            .iter()
            .all(|event| event.kind != EventKind::Answered)
    );
}

#[test]
fn a_completed_session_one_without_a_live_agent_and_a_command_are_refused() {
    let env = Env::new();
    // No live client: never launched.
    let idle = env.new_session(&["--title", "idle"]);
    let refused = env
        .attempt("lf-session-send", &[&idle.id, "hello"])
        .fails_with(4, "not_live");
    assert!(
        refused
            .hint
            .is_some_and(|hint| hint.contains("lf-session-open"))
    );
    env.attempt("lf-session-answer", &[&idle.id, "allow"])
        .fails_with(4, "not_live");
    // Completed.
    env.run("lf-session-complete", &[&idle.id]).ok();
    env.attempt("lf-session-send", &[&idle.id, "hello"])
        .fails_with(4, "already_complete");
    // The command provider: no agent to answer.
    let command: SessionRecord = env
        .run(
            "lf-session-new",
            &["--provider", "command", "--", "sleep", "300"],
        )
        .json();
    assert_eq!(command.state, SessionState::Active);
    env.attempt("lf-session-send", &[&command.id, "hello"])
        .fails_with(4, "no_agent_to_answer");
    env.attempt("lf-session-answer", &[&command.id, "deny"])
        .fails_with(4, "no_agent_to_answer");
    // Unknown.
    env.attempt(
        "lf-session-send",
        &["0123456789abcdef0123456789abcdef", "x"],
    )
    .fails_with(3, "session_not_found");
}

#[test]
fn a_reply_is_one_bounded_line_without_control_characters() {
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    for (text, error) in [
        ("two\nlines", "control_character"),
        ("escape \u{1b}[2J", "control_character"),
        ("tab\there", "control_character"),
        ("   ", "empty_text"),
    ] {
        let refused = env
            .attempt("lf-session-send", &[&record.id, text])
            .fails_with(2, error);
        assert_eq!(refused.arg.as_deref(), Some("text"), "{text:?}");
    }
    let long = "x".repeat(10_001);
    env.attempt("lf-session-send", &[&record.id, &long])
        .fails_with(2, "text_too_long");
    env.attempt("lf-session-answer", &[&record.id, "deny", "--always"])
        .fails_with(2, "always_only_allows");
    assert_eq!(prompts(&env), ["first"], "nothing reached the agent");
    assert_eq!(env.show(&record.id).attention, Some(Attention::Reply));
}

/// An agent lf launched may not answer for the person: not its own
/// prompt, not another agent's.
#[test]
fn an_agent_cannot_answer_for_the_person() {
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    let run = env.current_run(&record.id);
    for (binary, args) in [
        ("lf-session-send", vec![record.id.as_str(), "yes"]),
        ("lf-session-answer", vec![record.id.as_str(), "allow"]),
    ] {
        let mut command = env.json_errors(binary);
        command.args(&args).env("LF_RUN_ID", &run);
        env.run_command(command)
            .fails_with(2, "agent_acts_for_person");
    }
    assert_eq!(prompts(&env), ["first"], "nothing reached the agent");
}
