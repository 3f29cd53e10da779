//! The real OpenCode through lf (issue 24): every way a turn ends, the
//! permission prompt answered from afar, lf-session-ready, and exact
//! resumes of each conversation, against the fake Chat Completions server.

use super::*;
use crate::model::{Request, Server, chat};

/// OpenCode's footer once its TUI is drawn (home screen and conversation).
const READY: &str = "ctrl+p commands";
/// OpenCode's permission prompt.
const DIALOG: &str = "Permission required";
/// OpenCode's own words (on its stderr, which lf relays) when the
/// conversation a resume names is gone.
const OPENCODE_SAYS_NO_SESSION: &str = "Session not found";

/// A repository with OpenCode started in it by `lf-session-new`, drawn.
fn started() -> (Server, Env, SessionRecord, String) {
    let model = chat::start();
    let env = opencode_env(&model);
    let (record, pane) = start_in(&env, "repo");
    (model, env, record, pane)
}

fn start_in(env: &Env, folder: &str) -> (SessionRecord, String) {
    let cwd = env.mkdir(folder);
    let record = new_session(env, "opencode", &cwd, None);
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert!(record.alive);
    assert_eq!(record.attention, None);
    let pane = pane(&record);
    wait_screen(env, &pane, READY, 90);
    (record, pane)
}

/// The system prompt of a conversation request.
fn system(request: &Request) -> String {
    chat::content_text(&request.body["messages"][0]["content"])
}

/// The whole conversation a request carries, as text.
fn history(request: &Request) -> String {
    request.body["messages"].to_string()
}

/// `lf-session-ready` as lf's instructions name it.
fn ready_command() -> String {
    format!("'{}'", crate::util::bin("lf-session-ready").display())
}

fn hook_log(env: &Env) -> String {
    std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default()
}

/// A turn reads `reply` when it ends, its conversation (named only by the
/// first prompt) is the Run's, and lf's instructions reach the model.
#[test]
fn opencode_a_turn_ends_in_reply_and_its_session_is_adopted() {
    let (model, env, record, pane) = started();
    turn_ends_in_reply(&env, &model, &record, &pane, "Hello opencode");
    let asked = model.wait_prompt("Hello opencode", 5);
    assert!(
        system(&asked).contains("run `lf-session-ready"),
        "lf's instructions reach OpenCode: {}",
        system(&asked)
    );
    let native = env.native_id(&record.id).expect("the conversation adopted");
    assert!(native.starts_with("ses_"), "{native}");
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}

/// The permission prompt reads `approve`; `lf-session-answer allow` runs
/// the command, `deny` refuses it, and either way the turn ends in `reply`.
#[test]
fn opencode_permission_allowed_and_denied_through_lf_session_answer() {
    let (model, env, record, pane) = started();
    let repo = env.mkdir("repo");
    for (prompt, answer, file) in [
        (
            "[run: touch allowed.txt] Make a file",
            "allow",
            "allowed.txt",
        ),
        (
            "[run: touch refused.txt] Make another",
            "deny",
            "refused.txt",
        ),
    ] {
        let before = env.show(&record.id).attention_since;
        say_until(&env, &pane, prompt, || model.received_prompt(prompt));
        wait_screen(&env, &pane, DIALOG, 30);
        wait_for_state(
            &env,
            &record.id,
            SessionState::Active,
            Some(Attention::Approve),
            20,
        );
        let answered: SessionRecord = env.run("lf-session-answer", &[&record.id, answer]).json();
        assert_ne!(
            answered.attention,
            Some(Attention::Approve),
            "{answered:#?}"
        );
        wait_record(
            &env,
            &record.id,
            &format!("reply after {answer}"),
            60,
            |now| now.attention == Some(Attention::Reply) && now.attention_since > before,
        );
        assert_eq!(repo.join(file).exists(), answer == "allow", "{file}");
    }
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}

/// Esc (twice: OpenCode asks "esc again to interrupt") ends a running turn
/// in `reply`; killing the agent itself then reads `interrupted`.
#[test]
fn opencode_esc_interrupt_reads_reply_and_a_kill_reads_interrupted() {
    let (model, env, record, pane) = started();
    say_until(&env, &pane, "[slow: 120] Think for a long time", || {
        model.received_prompt("Think for a long time")
    });
    wait_screen(&env, &pane, "Thinking slowly", 30);
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    press_until(&env, &pane, "Escape", 1, 30, "the turn interrupted", || {
        env.show(&record.id).attention == Some(Attention::Reply)
    });
    let pid = env.agent_pid(&record.id);
    crate::util::kill(pid, crate::util::Signal::KILL);
    let killed = wait_record(&env, &record.id, "interrupted", 20, |record| {
        record.state == SessionState::Interrupted
    });
    assert!(!killed.alive);
    assert_eq!(killed.attention, None, "nothing is there to reply to");
}

/// A model request that fails (a bad request OpenCode does not retry)
/// ends the turn in `reply`; the next turn works.
#[test]
fn opencode_a_turn_whose_model_request_fails_asks_for_a_reply() {
    let (model, env, record, pane) = started();
    for prompt in ["[fail: 400] a bad request", "all good again"] {
        turn_ends_in_reply(&env, &model, &record, &pane, prompt);
    }
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}

/// Two Sessions in one folder each resume their own conversation, with its
/// history, after their panes are killed.
#[test]
fn opencode_two_sessions_in_one_folder_resume_their_own_conversations() {
    let model = chat::start();
    let env = opencode_env(&model);
    let (first, first_pane) = start_in(&env, "repo");
    let (second, second_pane) = start_in(&env, "repo");
    turn_ends_in_reply(
        &env,
        &model,
        &first,
        &first_pane,
        "Remember the word puffin",
    );
    turn_ends_in_reply(
        &env,
        &model,
        &second,
        &second_pane,
        "Remember the word heron",
    );
    let (one, two) = (env.native_id(&first.id), env.native_id(&second.id));
    assert!(
        one.is_some() && two.is_some() && one != two,
        "{one:?} {two:?}"
    );
    for (record, pane, word, other) in [
        (&first, &first_pane, "puffin", "heron"),
        (&second, &second_pane, "heron", "puffin"),
    ] {
        let pane = kill_and_reopen(&env, &record.id, pane, READY, 90);
        let prompt = format!("Which word was it, {word} session");
        turn_ends_in_reply(&env, &model, record, &pane, &prompt);
        let resumed = model.wait_prompt(&prompt, 5);
        assert!(history(&resumed).contains(word), "{:#}", resumed.body);
        assert!(!history(&resumed).contains(other), "{:#}", resumed.body);
    }
    assert_eq!(env.native_id(&first.id), one, "the same conversation");
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}

/// A resume of a conversation OpenCode no longer has exits at once: the
/// open fails with OpenCode's own message, and the next open starts a new
/// conversation instead of repeating it.
#[test]
fn opencode_a_resume_that_fails_says_why_and_is_not_repeated() {
    let (model, env, record, pane) = started();
    turn_ends_in_reply(&env, &model, &record, &pane, "Hello");
    let native = env.native_id(&record.id).unwrap();
    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 30, |record| {
        !record.alive
    });
    // The person deletes the conversation with OpenCode's own command.
    agent_cli(
        &env,
        "opencode",
        Some(&env.mkdir("repo")),
        &["session", "delete", &native],
    );
    let failed = env.attempt("lf-session-open", &["--detach", &record.id]);
    let error = failed.fails_with(1, "launch_failed");
    assert!(
        error.message.contains(OPENCODE_SAYS_NO_SESSION),
        "{error:?}"
    );
    assert!(env.resume_failed(&record.id));
    assert_eq!(env.native_id(&record.id).as_deref(), Some(native.as_str()));
    let name = format!("lf-{}", &record.id[..12]);
    crate::util::wait_for("the failed launcher's tmux session to end", 20, || {
        (!env.tmux_has(&name)).then_some(())
    });
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    assert_eq!(opened.state, SessionState::Active);
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 90);
    turn_ends_in_reply(&env, &model, &opened, &pane, "Start again");
    assert_ne!(env.native_id(&record.id), Some(native));
}

/// The agent runs lf-session-ready as told (the person allows the command:
/// these tests' config makes every shell command ask): the Session is
/// ready for review; lf-session-complete closes it.
#[test]
fn opencode_lf_session_ready_marks_it_ready_and_it_completes() {
    let (model, env, record, pane) = started();
    let prompt = format!(
        "[run: {} 'Parser fixed; see tests/parser.rs'] Finish",
        ready_command()
    );
    say_until(&env, &pane, &prompt, || model.received_prompt("Finish"));
    wait_screen(&env, &pane, DIALOG, 30);
    answer(&env, &pane, DIALOG, "Enter");
    let ready = wait_for_state(
        &env,
        &record.id,
        SessionState::Ready,
        Some(Attention::Review),
        30,
    );
    assert_eq!(
        ready.ready_summary.as_deref(),
        Some("Parser fixed; see tests/parser.rs")
    );
    assert!(ready.alive);
    let closed: SessionRecord = env.run("lf-session-complete", &[&record.id]).json();
    assert_eq!(closed.state, SessionState::Closed);
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}

/// `lf-session-answer allow --always` takes OpenCode's second step
/// ("Allow always", then "Confirm"): the command runs, and the next one
/// like it runs without asking.
#[test]
fn opencode_allow_always_through_lf_session_answer_asks_no_more() {
    let (model, env, record, pane) = started();
    let repo = env.mkdir("repo");
    let prompt = "[run: touch always-1.txt] Make a file";
    say_until(&env, &pane, prompt, || model.received_prompt(prompt));
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        20,
    );
    env.run("lf-session-answer", &[&record.id, "allow", "--always"])
        .ok();
    wait_file(&repo.join("always-1.txt"), 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    // The same command with another file: no prompt, no approve.
    let before = env.show(&record.id).attention_since;
    let prompt = "[run: touch always-2.txt] Make another";
    say_until(&env, &pane, prompt, || model.received_prompt(prompt));
    wait_record(&env, &record.id, "reply without a prompt", 60, |now| {
        assert_ne!(now.attention, Some(Attention::Approve), "{now:#?}");
        now.attention == Some(Attention::Reply) && now.attention_since > before
    });
    assert!(repo.join("always-2.txt").exists());
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}

/// lf-session-active attributes each live OpenCode to its Session; after
/// the tmux server is killed, lf-session-restore resumes each Session's
/// own conversation (`--session` with its id, read from the agents' argv),
/// with its history.
#[test]
fn opencode_active_attribution_and_restore_resume_each_conversation() {
    use super::restore::{restore, runs_with};
    use lf::wire::{LostReason, RestoreResult};
    let model = chat::start();
    let env = opencode_env(&model);
    let sessions = [
        ("otter", start_in(&env, "a")),
        ("lynx", start_in(&env, "b")),
    ];
    let mut natives = Vec::new();
    for (word, (record, pane)) in &sessions {
        turn_ends_in_reply(
            &env,
            &model,
            record,
            pane,
            &format!("Remember the word {word}"),
        );
        natives.push(env.native_id(&record.id).expect("adopted"));
    }
    let snapshot: lf::snapshot::LiveSnapshot = env.run("lf-session-active", &[]).json();
    for (_, (record, _)) in &sessions {
        let live = snapshot
            .sessions
            .iter()
            .find(|session| session.id == record.id)
            .unwrap_or_else(|| panic!("{} not active: {snapshot:#?}", record.id));
        assert!(
            live.processes
                .iter()
                .any(|process| process.provider == "opencode"
                    && process.command.iter().any(|arg| arg.ends_with("opencode"))),
            "{live:#?}"
        );
    }
    env.tmux(&["kill-server"]);
    for (_, (record, _)) in &sessions {
        let lost = wait_record(&env, &record.id, "lost", 30, |record| {
            record.state == SessionState::Lost
        });
        assert_eq!(lost.lost, Some(LostReason::Terminal), "{lost:#?}");
    }
    let lines = restore(&env);
    for ((word, (record, _)), native) in sessions.iter().zip(&natives) {
        let line = &lines[&record.id];
        assert_eq!(line.result, RestoreResult::Resumed, "{line:#?}");
        assert_eq!(line.native_id.as_ref(), Some(native));
        assert!(runs_with(&env, &record.id, &["--session", native]));
        let pane = pane(&env.show(&record.id));
        wait_screen(&env, &pane, READY, 90);
        let prompt = format!("Which word was it, {word} session");
        turn_ends_in_reply(&env, &model, record, &pane, &prompt);
        assert!(history(&model.wait_prompt(&prompt, 5)).contains(word));
    }
}

/// Issue 20: a first prompt that starts with `-` is the agent's prompt
/// (`--prompt=TEXT`, one argument), submitted at start.
#[test]
fn opencode_a_prompt_that_starts_with_a_dash_is_a_prompt() {
    let model = chat::start();
    let env = opencode_env(&model);
    a_prompt_after_dashes_reaches_the_model(&env, &model, "opencode", "-m is the wrong flag");
}

/// What lf counts of an OpenCode Session's usage is exactly what the model
/// reported for the conversation's answers, read from OpenCode's database
/// (it writes no transcript): a turn with a tool (two requests), a resume
/// and a `/compact` (its summary request is recorded: counted). OpenCode's
/// title request is recorded nowhere: not counted
/// (docs/decisions/0030-usage.md).
#[test]
fn opencode_usage_is_what_the_model_reported() {
    let (model, env, record, pane) = started();
    let turn = |pane: &str, prompt: &str| {
        turn_ends_in_reply(&env, &model, &record, pane, prompt);
        wait_usage_is_the_models(&env, &model, &record.id)
    };
    turn_ends_in_reply(&env, &model, &record, &pane, "Usage one");
    // lf-serve reads the Session's usage as OpenCode's hooks come: the
    // sums are stored before anyone asks lf-session-usage.
    wait_for("lf-serve to read the turn's usage", 30, || {
        let stored: i64 = env
            .db()
            .query_row(
                "SELECT COALESCE(SUM(input), 0) FROM usage_models WHERE session_id = ?1",
                [&record.id],
                |row| row.get(0),
            )
            .unwrap();
        (stored as u64 == model.conversation_usage().input && stored > 0).then_some(())
    });
    let first = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(
        (first.usage.turns, first.usage.requests),
        (1, 1),
        "{first:#?}"
    );
    // OpenCode's title request was answered with usage of its own, which
    // it records nowhere (no message row; not in its session's sums): not
    // counted.
    assert!(
        model
            .requests()
            .iter()
            .any(|request| chat::is_title(&request.body) && request.usage.is_some()),
        "no title request was answered"
    );
    // A command (asked for, allowed): the tool's call, then its result
    // answered, two requests of one turn.
    let before = env.show(&record.id).attention_since;
    say_until(&env, &pane, "[run: true] Usage two", || {
        model.received_prompt("[run: true] Usage two")
    });
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        20,
    );
    let _: SessionRecord = env.run("lf-session-answer", &[&record.id, "allow"]).json();
    wait_record(&env, &record.id, "reply after the tool", 60, |now| {
        now.attention == Some(Attention::Reply) && now.attention_since > before
    });
    let tool = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!((tool.usage.turns, tool.usage.requests), (2, 3), "{tool:#?}");
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 90);
    let resumed = turn(&pane, "Usage after the resume");
    assert_eq!(
        (resumed.usage.turns, resumed.usage.requests),
        (3, 4),
        "{resumed:#?}"
    );
    say(&env, &pane, "/compact");
    model.wait_prompt(chat::COMPACTION, 60);
    // Its summary is an answer of the conversation's, recorded: counted.
    let summarized = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(summarized.usage.requests, 5, "{summarized:#?}");
    wait_screen(&env, &pane, READY, 60);
    turn(&pane, "Usage after the compact");
    // A sub-agent (OpenCode's `task` tool): its conversation is its own
    // session under this one; its requests count, its prompt is no turn.
    let before = model.conversation().len();
    let agent = turn(&pane, "[agent: Say hi] Usage of a sub-agent");
    let requests = model.conversation();
    assert!(
        requests.len() >= before + 3 && requests.iter().any(|request| request.prompt == "Say hi"),
        "the parent's call, the sub-agent's answer, the parent's answer: {requests:#?}"
    );
    assert_eq!(agent.usage.models.len(), 1, "{agent:#?}");
    assert_eq!(agent.usage.cost, None, "the fake model has no price");
    // Every conversation request was answered with usage, and counted.
    assert!(
        requests.iter().all(|request| request.usage.is_some()),
        "{requests:#?}"
    );
    assert_eq!(agent.usage.requests, requests.len() as u64, "{agent:#?}");
    // The person's six messages (`/compact`'s is one), not the sub-agent's.
    assert_eq!(agent.usage.turns, 6, "{agent:#?}");
}

/// Issue 34, item 14: the person's own `OPENCODE_CONFIG_CONTENT`
/// (`"bash": "deny"`), exported in the shell that runs `lf-session-new`
/// with a tmux server already running, still holds under lf: the shell
/// tool is not offered and the command is refused without a dialog, as
/// OpenCode alone refuses it. lf's inline config replaced it (and the
/// person's global `"ask"` showed a dialog).
#[test]
fn opencode_the_persons_own_deny_rule_holds_under_lf() {
    let model = chat::start();
    let env = opencode_env(&model);
    tmux_server_already_running(&env);
    let cwd = env.mkdir("repo");
    let mut command = env.command("lf-session-new");
    command
        .args(["--provider", "opencode", "--cwd", cwd.to_str().unwrap()])
        .env(
            "OPENCODE_CONFIG_CONTENT",
            r#"{"permission":{"bash":"deny"}}"#,
        );
    let record: SessionRecord = env.run_command(command).json();
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 90);
    let prompt = "[run: touch MARKER] Make a file";
    say_until(&env, &pane, prompt, || model.received_prompt(prompt));
    // The refusal is the tool's result, sent to the model; a dialog on the
    // screen is the person's rule lost.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let refused = loop {
        let screen = env.capture_visible(&pane);
        assert!(
            !screen.contains(DIALOG),
            "the person's deny rule was lost: OpenCode asks\n{screen}"
        );
        let result = model.requests().into_iter().find(|request| {
            request.conversation
                && request.prompt.contains(prompt)
                && chat::latest_input(&request.body).1
        });
        if let Some(result) = result {
            break result;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no tool result reached the model; the pane shows:\n{screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let told = refused.body["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .map(|message| chat::content_text(&message["content"]))
        .unwrap_or_default();
    // OpenCode takes a tool its rules deny out of what the model is
    // offered: the fake model's call of it is refused as unavailable.
    let offered: Vec<&str> = refused.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert!(
        !offered.is_empty() && !offered.contains(&"bash"),
        "{offered:?}"
    );
    assert!(
        told.contains("unavailable tool 'bash'"),
        "the tool's result: {told}"
    );
    wait_record(&env, &record.id, "reply after the refusal", 60, |now| {
        now.attention == Some(Attention::Reply)
    });
    assert!(!cwd.join("MARKER").exists());
    assert!(!env.capture(&pane).contains(DIALOG));
    assert!(hook_log(&env).is_empty(), "hook.log:\n{}", hook_log(&env));
}
