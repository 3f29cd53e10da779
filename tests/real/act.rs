//! Acting from afar on the real Claude Code and Codex: a permission prompt
//! answered by `lf-session-answer` runs the tool (or does not), a second
//! answer is refused, a reply typed by `lf-session-send` is the model's
//! next user turn, and nothing is sent to an agent that works. Queued
//! dialogs (two parallel shell calls) are tested with all four CLIs.

use super::*;
use crate::model::{Server, anthropic, chat, gemini, responses};
use lf::wire::EventKind;

/// The permission dialog of each CLI's shell tool: its question.
fn dialog(provider: &str) -> &'static str {
    match provider {
        "claude" => "Do you want to proceed?",
        "codex" => "Would you like to run the following command?",
        "gemini" => "Allow execution of",
        "opencode" => "Permission required",
        other => panic!("no dialog known for {other}"),
    }
}

/// What each CLI shows once its prompt is ready for input.
fn ready(provider: &str) -> &'static str {
    match provider {
        "gemini" => "Type your message",
        "opencode" => "ctrl+p commands",
        _ => "for shortcuts",
    }
}

/// A trusted repository with the real `provider` started in it by
/// `lf-session-new`, its prompt on screen.
pub(super) fn started(provider: &str) -> (Server, Env, SessionRecord, String) {
    started_with(provider, |_| {})
}

/// As `started`, with `prepare` run on the environment before the launch.
fn started_with(provider: &str, prepare: impl Fn(&Env)) -> (Server, Env, SessionRecord, String) {
    let (model, env) = match provider {
        "claude" => {
            let model = anthropic::start();
            let env = claude_env(&model, &["repo"]);
            (model, env)
        }
        "codex" => {
            let model = responses::start();
            let env = codex_env(&model, &["repo"]);
            (model, env)
        }
        "gemini" => {
            let model = gemini::start();
            let env = gemini_env(&model, &["repo"]);
            (model, env)
        }
        "opencode" => {
            let model = chat::start();
            let env = opencode_env(&model);
            (model, env)
        }
        other => panic!("no real CLI {other}"),
    };
    prepare(&env);
    let cwd = env.mkdir("repo");
    let record = new_session(&env, provider, &cwd, None);
    let pane = pane(&record);
    wait_screen(&env, &pane, ready(provider), 90);
    if provider == "gemini" {
        // Its prompt is drawn before its `SessionStart` (it relaunches
        // itself): a start-up dialog lf assumed meanwhile is cleared then
        // (as `real::gemini`'s `start_in`).
        wait_for_state(&env, &record.id, SessionState::Active, None, 30);
    }
    (model, env, record, pane)
}

/// Prompt the agent to run `command` through its shell tool, and wait
/// until lf says the Session waits for its permission.
pub(super) fn ask_permission(
    env: &Env,
    model: &Server,
    record: &SessionRecord,
    pane: &str,
    prompt: &str,
) {
    say_until(env, pane, prompt, || model.received_prompt(prompt));
    wait_screen(env, pane, dialog(record.provider.as_deref().unwrap()), 30);
    wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        30,
    );
}

/// The `answered` events of a Session: `(from, to)`, each naming who.
pub(super) fn answered(env: &Env, id: &str) -> Vec<(String, String)> {
    crate::watch::all_events(env)
        .into_iter()
        .filter(|event| event.session_id == id && event.kind == EventKind::Answered)
        .map(|event| {
            assert!(event.by.is_some(), "{event:#?}");
            (event.from.unwrap(), event.to.unwrap())
        })
        .collect()
}

fn allowed_runs_the_tool_once(provider: &str) {
    let (model, env, record, pane) = started(provider);
    ask_permission(
        &env,
        &model,
        &record,
        &pane,
        "[run: touch allowed.txt] [then-slow: 120] Make a file",
    );
    let after: SessionRecord = env.run("lf-session-answer", &[&record.id, "allow"]).json();
    assert_eq!(after.attention, None, "{after:#?}");
    wait_file(&env.mkdir("repo").join("allowed.txt"), 20);
    // Answered already, before any hook and after: refused, nothing sent.
    // (lf's words for a Session that owes nothing: tests/messages.rs.)
    env.attempt("lf-session-answer", &[&record.id, "allow"])
        .fails_with(4, "not_waiting_for");
    // The agent works on (the model stalls after the tool): a reply is
    // refused too.
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    env.attempt("lf-session-send", &[&record.id, "are you there?"])
        .fails_with(4, "not_waiting_for");
    assert!(!model.received_prompt("are you there?"));
    assert_eq!(
        answered(&env, &record.id),
        [("approve".to_owned(), "allowed".to_owned())]
    );
}

fn allowed_always_runs_the_tool(provider: &str) {
    let (model, env, record, pane) = started(provider);
    ask_permission(
        &env,
        &model,
        &record,
        &pane,
        "[run: touch always.txt] [then-slow: 120] Make a file",
    );
    env.run("lf-session-answer", &[&record.id, "allow", "--always"])
        .ok();
    wait_file(&env.mkdir("repo").join("always.txt"), 20);
    assert_eq!(
        answered(&env, &record.id),
        [("approve".to_owned(), "allowed_always".to_owned())]
    );
}

fn denied_runs_nothing(provider: &str) {
    let (model, env, record, pane) = started(provider);
    ask_permission(
        &env,
        &model,
        &record,
        &pane,
        "[run: touch denied.txt] Make a file",
    );
    env.run("lf-session-answer", &[&record.id, "deny"]).ok();
    // Refusing ends the turn; the agent waits for the person.
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        20,
    );
    env.attempt("lf-session-answer", &[&record.id, "deny"])
        .fails_with(4, "not_waiting_for");
    assert!(!env.mkdir("repo").join("denied.txt").exists());
    assert_eq!(
        answered(&env, &record.id),
        [("approve".to_owned(), "denied".to_owned())]
    );
}

fn a_reply_is_the_next_user_turn(provider: &str) {
    a_reply_is_the_next_user_turn_of(started(provider));
}

fn a_reply_is_the_next_user_turn_of(
    (model, env, record, pane): (Server, Env, SessionRecord, String),
) {
    say_until(&env, &pane, "Hello there", || {
        model.received_prompt("Hello there")
    });
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    // A reply the model stalls on: the agent then works.
    let reply = "Second question, typed from afar [slow: 120]";
    let after: SessionRecord = env.run("lf-session-send", &[&record.id, reply]).json();
    assert_eq!(after.attention, None, "{after:#?}");
    model.wait_received_prompt("Second question, typed from afar", 30);
    let last = model
        .conversation()
        .into_iter()
        .next_back()
        .expect("a conversation request");
    assert!(last.prompt.contains(reply), "{:?}", last.prompt);
    // Sent once: while the agent works a second reply is refused.
    env.attempt("lf-session-send", &[&record.id, "and another"])
        .fails_with(4, "not_waiting_for");
    assert!(!model.received_prompt("and another"));
    assert_eq!(
        answered(&env, &record.id),
        [("reply".to_owned(), "sent".to_owned())]
    );
}

#[test]
fn claude_a_prompt_allowed_from_afar_runs_the_tool_once() {
    allowed_runs_the_tool_once("claude");
}

#[test]
fn codex_a_prompt_allowed_from_afar_runs_the_tool_once() {
    allowed_runs_the_tool_once("codex");
}

#[test]
fn claude_a_prompt_denied_from_afar_runs_nothing() {
    denied_runs_nothing("claude");
}

#[test]
fn codex_a_prompt_denied_from_afar_runs_nothing() {
    denied_runs_nothing("codex");
}

#[test]
fn claude_a_reply_sent_from_afar_is_the_next_user_turn() {
    a_reply_is_the_next_user_turn("claude");
}

#[test]
fn codex_a_reply_sent_from_afar_is_the_next_user_turn() {
    a_reply_is_the_next_user_turn("codex");
}

#[test]
fn claude_a_prompt_allowed_always_from_afar_runs_the_tool() {
    allowed_always_runs_the_tool("claude");
}

#[test]
fn codex_a_prompt_allowed_always_from_afar_runs_the_tool() {
    allowed_always_runs_the_tool("codex");
}

/// Codex as a person runs it: its paste-burst detection on (the tests'
/// environment turns it off), which takes text typed at once as a paste
/// and an Enter right after it as a new line. The reply is submitted all
/// the same: Enter is pressed once the text is on screen.
#[test]
fn codex_a_reply_sent_from_afar_is_submitted_with_paste_bursts_detected() {
    a_reply_is_the_next_user_turn_of(started_with("codex", |env| {
        let config = env.work().parent().unwrap().join(".codex/config.toml");
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.contains("disable_paste_burst = true\n"), "{text}");
        std::fs::write(&config, text.replace("disable_paste_burst = true\n", "")).unwrap();
    }));
}

/// Whether a screen shows the dialog (its `question`) for `command`: the
/// command within a few lines of the question (Codex puts blank lines between).
fn shows_dialog(screen: &str, question: &str, command: &str) -> bool {
    let lines: Vec<&str> = screen.lines().collect();
    lines
        .iter()
        .rposition(|line| line.contains(question))
        .is_some_and(|at| {
            lines[at.saturating_sub(6)..(at + 10).min(lines.len())]
                .iter()
                .any(|line| line.contains(command))
        })
}

/// Wait until the dialog (its `question`) for `command` is on the screen.
fn wait_dialog(env: &Env, pane: &str, question: &str, command: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let shown = env.capture_visible(pane);
        if shows_dialog(&shown, question, command) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no dialog for {command:?}:\n{shown}"
        );
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

/// The requests a Session waits on, oldest first, as the store keeps them
/// (the wire names the first; Codex asks for a batch at once).
fn queued(env: &Env, id: &str) -> Vec<lf::wire::AttentionRequest> {
    let db = env.db();
    let mut statement = db
        .prepare(
            "SELECT id, tool, input, since FROM requests WHERE session_id = ?1 AND ended_at IS NULL \
             ORDER BY since, rowid",
        )
        .unwrap();
    statement
        .query_map([id], |row| {
            Ok(lf::wire::AttentionRequest {
                id: row.get(0)?,
                tool: row.get(1)?,
                input: row.get(2)?,
                cwd: String::new(),
                since: lf::clock::Timestamp(row.get(3)?),
            })
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The request a Session waits on, once it is the one for `input`.
fn wait_request(env: &Env, id: &str, input: &str) -> lf::wire::AttentionRequest {
    let record = wait_record(env, id, &format!("a request for {input:?}"), 30, |record| {
        record
            .attention_request
            .as_ref()
            .is_some_and(|request| request.input.as_deref() == Some(input))
    });
    assert_eq!(record.attention, Some(Attention::Approve), "{record:#?}");
    record.attention_request.unwrap()
}

/// Issue 34: two parallel tool calls are two dialogs, one after the other
/// (Claude draws the second about 0.1 s after the first is answered;
/// Codex runs its calls one after the other, each behind its approval;
/// Gemini CLI and OpenCode ask for both at once and show one dialog at a
/// time). One allow approves exactly the first; the second is then a
/// request of its own; an answer naming the first is refused with nothing
/// pressed; a deny refuses exactly the second.
fn queued_dialogs_are_answered_one_request_at_a_time(provider: &str) {
    // Gemini CLI runs a batch's calls only once every one of them is
    // answered (docs/agents/gemini.md, "Queued dialogs").
    let runs_when_allowed = provider != "gemini";
    let (model, env, record, pane) = started(provider);
    let repo = env.mkdir("repo");
    ask_permission(
        &env,
        &model,
        &record,
        &pane,
        "[run: touch one.txt || touch two.txt] Make two files",
    );
    // Claude asks in the batch's order, one at a time; Codex and Gemini
    // ask for both at once, their hooks in either order, and show one
    // (OpenCode too, in order): the person answers the one they see.
    wait_record(&env, &record.id, "a request", 30, |record| {
        record.attention_request.is_some()
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let shown = loop {
        let screen = env.capture_visible(&pane);
        let found = ["touch one.txt", "touch two.txt"]
            .into_iter()
            .find(|command| shows_dialog(&screen, dialog(provider), command));
        if let Some(found) = found {
            break found;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no dialog for either:\n{screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(25));
    };
    let first = queued(&env, &record.id)
        .into_iter()
        .find(|request| request.input.as_deref() == Some(shown))
        .unwrap_or_else(|| panic!("no request for {shown:?} queued"));
    let input = first.input.clone().unwrap();
    let (made, other) = match input.as_str() {
        "touch one.txt" => ("one.txt", "touch two.txt"),
        _ => ("two.txt", "touch one.txt"),
    };
    let kept = if made == "one.txt" {
        "two.txt"
    } else {
        "one.txt"
    };
    assert!(first.tool.is_some(), "{first:?}");
    env.run(
        "lf-session-answer",
        &[&record.id, "allow", "--request", &first.id],
    )
    .ok();
    if runs_when_allowed {
        wait_file(&repo.join(made), 20);
    }
    let second = wait_request(&env, &record.id, other);
    assert_ne!(second.id, first.id);
    wait_dialog(&env, &pane, dialog(provider), other);
    assert!(!repo.join(kept).exists(), "the second was approved too");
    // A stale answer (the page or terminal that still showed the first).
    env.attempt(
        "lf-session-answer",
        &[&record.id, "allow", "--request", &first.id],
    )
    .fails_with(4, "request_not_up");
    wait_dialog(&env, &pane, dialog(provider), other);
    env.run(
        "lf-session-answer",
        &[&record.id, "deny", "--request", &second.id],
    )
    .ok();
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    // The first ran, allowed once; the second never did.
    wait_file(&repo.join(made), 20);
    assert!(!repo.join(kept).exists());
    assert_eq!(
        answered(&env, &record.id),
        [
            ("approve".to_owned(), "allowed".to_owned()),
            ("approve".to_owned(), "denied".to_owned())
        ]
    );
}

#[test]
fn claude_queued_dialogs_are_answered_one_request_at_a_time() {
    queued_dialogs_are_answered_one_request_at_a_time("claude");
}

#[test]
fn codex_queued_dialogs_are_answered_one_request_at_a_time() {
    queued_dialogs_are_answered_one_request_at_a_time("codex");
}

#[test]
fn gemini_queued_dialogs_are_answered_one_request_at_a_time() {
    queued_dialogs_are_answered_one_request_at_a_time("gemini");
}

#[test]
fn opencode_queued_dialogs_are_answered_one_request_at_a_time() {
    queued_dialogs_are_answered_one_request_at_a_time("opencode");
}

/// Issue 34: the request answered at the terminal first: an answer
/// naming it (a stale page, a second tap) is refused, nothing pressed,
/// even while the next dialog reads the same to a glance.
#[test]
fn claude_a_request_answered_at_the_terminal_is_not_answered_again() {
    let (model, env, record, pane) = started("claude");
    let repo = env.mkdir("repo");
    ask_permission(
        &env,
        &model,
        &record,
        &pane,
        "[run: echo one > one.txt || rm -f keep.txt] Two commands",
    );
    std::fs::write(repo.join("keep.txt"), "important").unwrap();
    let first = wait_request(&env, &record.id, "echo one > one.txt");
    // The person presses 1 at the terminal, again only until the first
    // command ran (a key after that would be the second dialog's).
    wait_screen(&env, &pane, "Do you want to proceed?", 20);
    press_until(&env, &pane, "1", 2, 30, "the first command running", || {
        repo.join("one.txt").exists()
    });
    wait_dialog(&env, &pane, dialog("claude"), "rm -f keep.txt");
    let refused = env.attempt(
        "lf-session-answer",
        &[&record.id, "allow", "--request", &first.id],
    );
    let error = refused.error_json().error;
    assert!(
        refused.code == Some(4)
            && ["request_not_up", "request_not_on_screen"].contains(&error.as_str()),
        "{}",
        refused.describe()
    );
    assert!(
        repo.join("keep.txt").exists(),
        "the next request was approved"
    );
    let second = wait_request(&env, &record.id, "rm -f keep.txt");
    env.run(
        "lf-session-answer",
        &[&record.id, "deny", "--request", &second.id],
    )
    .ok();
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        20,
    );
    assert!(repo.join("keep.txt").exists());
}
