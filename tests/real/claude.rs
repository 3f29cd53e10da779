//! The real Claude Code through lf: every transition a person sees, and a
//! test per defect of issue 12 that the real CLI showed.

use super::*;
use crate::model::{Server, anthropic};

/// The permission dialog of Claude's Bash tool.
const DIALOG: &str = "Do you want to proceed?";
/// Claude's prompt box is ready for input.
const READY: &str = "for shortcuts";

/// A trusted repository with Claude started in it by `lf-session-new`,
/// its prompt on screen.
fn started() -> (Server, Env, SessionRecord, String) {
    let model = anthropic::start();
    let env = claude_env(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let record = new_session(&env, "claude", &cwd, None);
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert!(record.alive, "{record:#?}");
    assert_eq!(record.attention, None, "{record:#?}");
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 60);
    (model, env, record, pane)
}

/// Wait until Claude's own transcript of a conversation holds `text` and
/// an answer. Claude writes it behind the screen, and an agent killed at
/// once after a reply may not have written the exchange yet.
fn wait_transcript(env: &Env, native: &str, text: &str) {
    let projects = env.dir.path().join(".claude/projects");
    wait_history(&projects, &[text, native, "\"assistant\""], 30);
}

/// `lf-session-ready` as lf's instructions name it to Claude: the
/// absolute path of the one beside lf-hook.
fn ready_program() -> String {
    crate::util::bin("lf-session-ready").display().to_string()
}

/// Ask for a tool call that needs permission and wait for its dialog.
fn ask_permission(env: &Env, pane: &str, prompt: &str) {
    say(env, pane, prompt);
    wait_screen(env, pane, DIALOG, 30);
}

#[test]
fn claude_new_active_then_reply_when_the_turn_completes() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Hello there");
    let replied = wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(replied.alive);
    let request = model.wait_prompt("Hello there", 5);
    let native = anthropic::session_id(&request).expect("Claude names its session");
    assert_eq!(native.len(), 36, "{native}");
}

/// The whole life of a conversation: the prompt given to lf-session-new
/// reaches Claude, the turn completes, the agent marks itself ready, and
/// completing it stops the agent. Every real hook payload was accepted.
#[test]
fn claude_a_conversation_from_new_to_closed() {
    let model = anthropic::start();
    let env = claude_env(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let record = new_session(&env, "claude", &cwd, Some("Fix the parser"));
    assert_eq!(record.state, SessionState::Active);
    assert_eq!(record.title, "Fix the parser");
    let pane = pane(&record);
    assert!(pane.starts_with('%'), "{pane}");
    model.wait_prompt("Fix the parser", 60);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    wait_screen(&env, &pane, READY, 30);
    say(
        &env,
        &pane,
        &format!("[run: {} 'Parser fixed'] Done", ready_program()),
    );
    wait_for_state(
        &env,
        &record.id,
        SessionState::Ready,
        Some(Attention::Review),
        30,
    );
    let closed: SessionRecord = env.run("lf-session-complete", &[&record.id]).json();
    assert_eq!(
        (closed.state, closed.attention),
        (SessionState::Closed, None)
    );
    assert_eq!(closed.ready_summary.as_deref(), Some("Parser fixed"));
    let name = format!("lf-{}", &record.id[..12]);
    wait_for("the agent to stop", 20, || {
        (!env.tmux_has(&name)).then_some(())
    });
    assert!(!env.show(&record.id).alive);
    let log = std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default();
    assert!(log.is_empty(), "lf-hook refused or noted payloads:\n{log}");
    // The real hooks' changes are the change stream: created, the reply
    // owed, then the review, and the completion that ends it.
    let events = crate::watch::all_events(&env);
    assert!(events.iter().all(|event| event.session_id == record.id));
    assert_eq!(events[0].kind, lf::wire::EventKind::Created);
    let owed: Vec<Option<&str>> = events
        .iter()
        .filter(|event| event.kind == lf::wire::EventKind::Attention)
        .map(|event| event.to.as_deref())
        .collect();
    let reply = owed.iter().position(|to| *to == Some("reply"));
    let review = owed.iter().rposition(|to| *to == Some("review"));
    assert!(
        reply.is_some() && reply < review && owed.last() == Some(&None),
        "{owed:?}"
    );
    let completed = events.last().unwrap();
    assert_eq!(
        (completed.kind, completed.from.as_deref()),
        (lf::wire::EventKind::Attention, Some("review"))
    );
    assert!(events.iter().any(|event| {
        event.kind == lf::wire::EventKind::Completed && event.from.as_deref() == Some("ready")
    }));
}

/// Once broke: `approve` came ~6 s after the dialog (Notification) and stayed until the
/// turn ended minutes later. It comes within a second of the dialog
/// (PermissionRequest) and clears when the approved tool ran (PostToolUse).
#[test]
fn claude_approve_came_late_and_stayed_until_the_turn_ended() {
    let (_model, env, record, pane) = started();
    ask_permission(
        &env,
        &pane,
        "[run: touch approved.txt] [then-slow: 120] Make a file",
    );
    // Claude's own Notification comes ~6 s after the dialog; only the
    // PermissionRequest hook meets this failure limit.
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        3,
    );
    answer(&env, &pane, DIALOG, "Enter");
    wait_file(&env.mkdir("repo").join("approved.txt"), 20);
    // The agent keeps working for two minutes after the tool: no attention.
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
}

/// Once broke: refusing the permission fires no hook, and `approve` stayed. lf-serve reads the
/// refusal from the transcript and the agent waits for the person.
#[test]
fn claude_refused_permission_left_approve_showing() {
    let (_model, env, record, pane) = started();
    ask_permission(&env, &pane, "[run: touch refused.txt] Make a file");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    // "3. No, and tell Claude what to do differently" (4 since 2.1.3xx).
    let no = option_key(&env, &pane, "No");
    answer(&env, &pane, DIALOG, &no);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        10,
    );
    assert!(!env.mkdir("repo").join("refused.txt").exists());
}

/// Once broke, as `claude_refused_permission_left_approve_showing`, with Esc on the dialog.
#[test]
fn claude_esc_on_the_dialog_left_approve_showing() {
    let (_model, env, record, pane) = started();
    ask_permission(&env, &pane, "[run: touch escaped.txt] Make a file");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    answer(&env, &pane, DIALOG, "Escape");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        10,
    );
}

/// Once broke: Esc interrupts a turn without any hook, and lf kept it working. The agent waits for
/// the person, so lf says `reply`.
#[test]
fn claude_esc_interrupting_a_turn_left_it_working() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "[slow: 120] Think for a long time");
    model.wait_received(1, 30);
    wait_screen(&env, &pane, "esc to interrupt", 10);
    wait_for_state(&env, &record.id, SessionState::Active, None, 5);
    keys(&env, &pane, &["Escape"]);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        10,
    );
}

/// Once broke: marking itself ready took a dialog. The agent marks itself ready without asking the person, and
/// a ready Session still shows its agent alive; the person's next prompt
/// is a reply in progress, not a pending review.
#[test]
fn claude_marking_itself_ready_asked_the_person_first() {
    let (model, env, record, pane) = started();
    say(
        &env,
        &pane,
        &format!(
            "[run: {} 'Parser fixed; see tests/parser.rs'] Finish",
            ready_program()
        ),
    );
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
    assert!(ready.alive, "a ready Session still shows its live agent");
    assert!(!env.capture(&pane).contains(DIALOG));
    // lf-session-ready ran inside the turn; the next prompt must come
    // after it ended (Claude folds text typed during a turn into it), and
    // `ready` hides the reply: wait for Claude's record of its Stop hook.
    let native = anthropic::session_id(&model.wait_prompt("Parser fixed", 30)).unwrap();
    wait_transcript(&env, &native, "stop_hook_summary");
    say(&env, &pane, "[slow: 120] One more thing");
    let working = wait_record(&env, &record.id, "a reply in progress", 20, |record| {
        record.attention.is_none() && record.state == SessionState::Active
    });
    assert!(working.alive);
}

/// Issue 34, item 7: lf's no-dialog rule named `lf-session-ready` by its
/// bare name, so whatever came first on the agent's PATH ran unasked. A
/// program of that name earlier on PATH now asks (and is refused here);
/// only the one beside lf-hook, by its absolute path, runs without asking.
#[test]
fn claude_a_bare_lf_session_ready_first_on_path_is_not_pre_allowed() {
    use std::os::unix::fs::PermissionsExt;
    let model = anthropic::start();
    let mut env = claude_env(&model, &["repo"]);
    let impostor = env.dir.path().join("impostor");
    std::fs::create_dir(&impostor).unwrap();
    let program = impostor.join("lf-session-ready");
    std::fs::write(&program, "#!/bin/sh\ntouch \"$0.ran\"\n").unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", impostor.display(), env.path());
    env.vars.push(("PATH".into(), path));
    let cwd = env.mkdir("repo");
    let record = new_session(&env, "claude", &cwd, None);
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 60);
    ask_permission(&env, &pane, "[run: lf-session-ready 'Not me'] Finish");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        20,
    );
    let ran = impostor.join("lf-session-ready.ran");
    assert!(!ran.exists(), "the program first on PATH ran unasked");
    env.run("lf-session-answer", &[&record.id, "deny"]).ok();
    let refused = wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(!ran.exists());
    assert_eq!(refused.ready_summary, None);
}

/// Once broke: killing the pane kills lf-serve with SIGHUP, which then recorded nothing. It must still
/// record what happened: the agent did not end by itself, its terminal
/// went away (lost, so that lf-session-restore brings it back).
#[test]
fn claude_killed_pane_recorded_nothing_under_sighup() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Remember the word pelican");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let native = anthropic::session_id(&model.wait_prompt("pelican", 5)).unwrap();
    wait_transcript(&env, &native, "pelican");
    env.tmux(&["kill-pane", "-t", &pane]);
    // Lost as the pane goes; its agent, told of the hang-up, ends soon after.
    let killed = wait_record(&env, &record.id, "lost, its agent ended", 20, |record| {
        record.state == SessionState::Lost && !record.alive
    });
    assert_eq!(killed.lost, Some(lf::wire::LostReason::Terminal));
    assert_eq!(
        killed.attention,
        Some(Attention::Reply),
        "the conversation still waits for the person"
    );
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    assert_eq!(opened.state, SessionState::Active, "{opened:#?}");
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "Which word?");
    let last = &model.wait_prompt("Which word?", 30);
    assert_eq!(
        anthropic::session_id(last).as_deref(),
        Some(native.as_str())
    );
    assert!(
        last.body["messages"].to_string().contains("pelican"),
        "history resumed: {:#}",
        last.body["messages"]
    );
}

/// Killing the agent itself (not the pane) is interrupted as well.
#[test]
fn claude_a_killed_agent_is_interrupted() {
    let (_model, env, record, _pane) = started();
    let pid = env.agent_pid(&record.id);
    crate::util::kill(pid, crate::util::Signal::KILL);
    let killed = wait_record(&env, &record.id, "interrupted", 20, |record| {
        record.state == SessionState::Interrupted
    });
    assert!(!killed.alive);
}

/// Once broke: `/clear` starts a new native conversation, and a later resume brought back the one
/// before the clear. It brings back the current one.
#[test]
fn claude_resume_after_clear_brought_back_the_old_conversation() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Before the clear: albatross");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let before = anthropic::session_id(&model.wait_prompt("albatross", 5)).unwrap();
    say(&env, &pane, "/clear");
    wait_screen(&env, &pane, READY, 20);
    say(&env, &pane, "After the clear: cormorant");
    let after = anthropic::session_id(&model.wait_prompt("cormorant", 30)).unwrap();
    assert_ne!(before, after, "/clear starts a new conversation");
    wait_transcript(&env, &after, "cormorant");
    let live = wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(live.alive, "{live:#?}");

    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 20, |record| {
        !record.alive
    });
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "Which bird?");
    let resumed = &model.wait_prompt("Which bird?", 30);
    assert_eq!(
        anthropic::session_id(resumed).as_deref(),
        Some(after.as_str())
    );
    let history = resumed.body.to_string();
    assert!(history.contains("cormorant") && !history.contains("albatross"));
}

/// `/compact` keeps the conversation (the same native id in 2.1.197): a
/// resume after it brings back the compacted conversation.
#[test]
fn claude_after_compact_the_resume_brings_back_the_same_conversation() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Remember the word heron");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let native = anthropic::session_id(&model.wait_prompt("heron", 5)).unwrap();
    // Claude compacts only a conversation of some length.
    for turn in ["Second turn", "Third turn", "Fourth turn"] {
        say(&env, &pane, turn);
        model.wait_prompt(turn, 30);
        wait_for_state(
            &env,
            &record.id,
            SessionState::Active,
            Some(Attention::Reply),
            30,
        );
    }
    say(&env, &pane, "/compact");
    // Claude asks the model for the summary, then writes its boundary.
    model.wait_prompt("Respond with TEXT ONLY", 60);
    wait_transcript(&env, &native, "compact_boundary");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 20, |record| {
        !record.alive
    });
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "Which word?");
    assert_eq!(
        anthropic::session_id(&model.wait_prompt("Which word?", 30)).as_deref(),
        Some(native.as_str())
    );
}

/// Once broke: a resume that dies at once was reported as success. It fails, and
/// is not repeated: the next open starts a new conversation.
#[test]
fn claude_resume_dying_at_once_reported_as_success() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Hello");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let native = anthropic::session_id(&model.wait_prompt("Hello", 5)).unwrap();
    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 20, |record| {
        !record.alive
    });
    // Claude's history of the conversation is gone.
    std::fs::remove_dir_all(env.dir.path().join(".claude/projects")).unwrap();
    // Refused as a launch that failed (its words: tests/messages.rs), and
    // recorded so the next open does not resume it again.
    env.attempt("lf-session-open", &["--detach", &record.id])
        .fails_with(1, "launch_failed");
    // The failed resume was of that conversation.
    assert!(env.resume_failed(&record.id));
    assert_eq!(env.native_id(&record.id).as_deref(), Some(native.as_str()));
    // The failed launcher recorded why, then exits; its tmux session goes
    // with it (an open before that would go to the dying session).
    let name = format!("lf-{}", &record.id[..12]);
    crate::util::wait_for("the failed launcher's tmux session to end", 20, || {
        (!env.tmux_has(&name)).then_some(())
    });
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    assert_eq!(opened.state, SessionState::Active);
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "Start again");
    assert_ne!(
        anthropic::session_id(&model.wait_prompt("Start again", 30)).as_deref(),
        Some(native.as_str())
    );
}

/// Once broke: in a folder Claude has not trusted yet it shows its trust
/// dialog and fires no hook until the person answers, and the launch failed. It waits
/// for the person instead; answering completes it.
#[test]
fn claude_untrusted_folder_launch_failed_at_the_trust_dialog() {
    let model = anthropic::start();
    let env = claude_env(&model, &[]);
    let cwd = env.mkdir("new-repo");
    let record = new_session(&env, "claude", &cwd, None);
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert_eq!(record.attention, Some(Attention::Approve), "{record:#?}");
    let pane = pane(&record);
    choose(&env, &pane, "trust", "Yes");
    wait_screen(&env, &pane, READY, 30);
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    say(&env, &pane, "Hello");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
}

/// Once broke: a provider that is not installed was recorded before it was refused. It is refused before anything
/// is recorded, in one sentence.
#[test]
fn missing_provider_executable_recorded_a_session_first() {
    let model = anthropic::start();
    let mut env = claude_env(&model, &["repo"]);
    env.agents = env.dir.path().join("no-agents");
    let cwd = env.mkdir("repo");
    for provider in ["claude", "codex"] {
        let failed = env.attempt(
            "lf-session-new",
            &[
                "--provider",
                provider,
                "--cwd",
                cwd.to_str().unwrap(),
                "Fix the parser",
            ],
        );
        // Its words, one sentence: tests/messages.rs.
        let error = failed.fails_with(1, "not_on_path");
        assert_eq!(error.arg.as_deref(), Some("provider"));
    }
    assert!(env.list(&["--all"]).is_empty());
}

/// Once broke, as `claude_untrusted_folder_launch_failed_at_the_trust_dialog`, as a person starts it: `lf-session-new --attach` in a
/// terminal takes them to Claude's trust dialog at once (their terminal
/// becomes a client of lf's tmux session while the dialog waits).
#[test]
fn claude_attach_in_an_untrusted_folder_did_not_reach_the_dialog() {
    let model = anthropic::start();
    let env = claude_env(&model, &[]);
    let cwd = env.mkdir("fresh-repo");
    let outer = format!("{}-outer", env.socket);
    let terminal = |args: &[&str]| {
        let mut command = std::process::Command::new("tmux");
        command
            .env_clear()
            .env("PATH", env.path())
            .env("HOME", env.dir.path())
            .env("TMUX_TMPDIR", env.dir.path())
            .env("TERM", "xterm-256color")
            .env("LF_HOME", env.home())
            .env("LF_TMUX_SOCKET", &env.socket)
            .envs(env.vars.iter().map(|(key, value)| (key, value)))
            .args(["-L", &outer])
            .args(args)
            .stdin(std::process::Stdio::null());
        assert!(command.status().unwrap().success(), "tmux {args:?}");
    };
    terminal(&[
        "new-session",
        "-d",
        "-s",
        "person",
        "-x",
        "150",
        "-y",
        "40",
        "--",
        "sh",
    ]);
    // (Outside tmux as far as lf can tell: the terminal is a pane of the
    // test's outer server only to be able to run a real client.)
    let command = format!(
        "env -u TMUX lf-session-new --attach --cwd '{}'",
        cwd.display()
    );
    terminal(&["send-keys", "-t", "=person:", "-l", &command]);
    terminal(&["send-keys", "-t", "=person:", "Enter"]);
    let record = wait_for("the recorded Session", 30, || env.list(&[]).pop());
    let name = format!("lf-{}", &record.id[..12]);
    wait_for("the person's terminal on the Session", 30, || {
        let clients = env
            .tmux_command(&["list-clients", "-F", "#{client_session}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&clients.stdout)
            .lines()
            .any(|session| session == name)
            .then_some(())
    });
    let waiting = env.show(&record.id);
    assert_eq!(
        (waiting.state, waiting.attention),
        (SessionState::Active, Some(Attention::Approve)),
        "{waiting:#?}"
    );
    let pane = pane(&waiting);
    choose(&env, &pane, "trust", "Yes");
    wait_for_state(&env, &record.id, SessionState::Active, None, 30);
    terminal(&["kill-server"]);
}

/// Issue 20: a first prompt that starts with `-` is the agent's prompt,
/// not its flags (it went to Claude before any `--`, and Claude refused
/// it as an unknown option or ran in print mode).
#[test]
fn claude_a_prompt_that_starts_with_a_dash_is_a_prompt() {
    let model = anthropic::start();
    let env = claude_env(&model, &["repo"]);
    a_prompt_after_dashes_reaches_the_model(&env, &model, "claude", "-p --help is broken");
}

/// Issue 21: a turn whose model request fails ends without `Stop`: Claude
/// prints `API Error: …` and waits at its prompt, and fires `StopFailure`.
/// The Session read `active` with no attention, forever. Every kind of
/// failure once Claude's retries are spent (one retry here, so the test
/// is short): a bad request, a rate limit, an overloaded or failing
/// server, and a connection lost mid-answer.
#[test]
fn claude_a_turn_whose_model_request_fails_asks_for_a_reply() {
    let model = anthropic::start();
    let mut env = claude_env(&model, &["repo"]);
    env.vars
        .push(("CLAUDE_CODE_MAX_RETRIES".into(), "1".into()));
    let cwd = env.mkdir("repo");
    let record = new_session(&env, "claude", &cwd, None);
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 60);
    for prompt in [
        "[fail: 400] a bad request",
        "[fail: 429] a rate limit",
        "[fail: 529] overloaded",
        "[fail: 500] a server error",
        "[drop] a lost connection",
        // Not a failure: the model declines (`stop_reason: refusal`).
        "[refuse] something it will not do",
    ] {
        turn_ends_in_reply(&env, &model, &record, &pane, prompt);
        wait_screen(&env, &pane, READY, 30);
    }
    // A working turn afterwards is heard as ever.
    turn_ends_in_reply(&env, &model, &record, &pane, "all good again");
    let log = std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default();
    assert!(log.is_empty(), "lf-hook refused or noted payloads:\n{log}");
}

/// Issue 21: a subagent ending is not the turn ending. The main turn goes
/// on after its subagent's last answer (`SubagentStop`), and needs nothing
/// from the person until it ends itself.
#[test]
fn claude_a_subagent_ending_while_the_turn_goes_on_owes_nothing() {
    let (model, env, record, pane) = started();
    say(
        &env,
        &pane,
        "[agent: count the files][then-slow: 5] delegate it",
    );
    // The main turn's request after the subagent's result: the subagent
    // has ended, the turn has not.
    wait_for("the turn to go on after its subagent", 60, || {
        model
            .conversation()
            .iter()
            .any(|request| {
                request.prompt.contains("delegate it")
                    && crate::model::anthropic::latest_user_input(&request.body).1
            })
            .then_some(())
    });
    let during = env.show(&record.id);
    assert_eq!(
        (during.state, during.attention),
        (SessionState::Active, None),
        "{during:#?}"
    );
    assert!(
        model
            .conversation()
            .iter()
            .any(|request| request.prompt.contains("count the files")),
        "the subagent asked the model"
    );
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
}

/// Say `prompt`, whose answer is a dialog showing `shown`; the Session
/// reads `approve` while it is up, Enter answers it (again while Claude
/// ignores it; the record says when, as the dialog's text stays in the
/// conversation), and the turn then ends in `reply`.
fn a_dialog_reads_approve_until_answered(
    env: &Env,
    record: &SessionRecord,
    pane: &str,
    prompt: &str,
    shown: &str,
) {
    say(env, pane, prompt);
    wait_screen(env, pane, shown, 30);
    wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    press_until(env, pane, "Enter", 1, 30, "the dialog answered", || {
        env.show(&record.id).attention != Some(Attention::Approve)
    });
    wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
}

/// Issue 21: a question to the person (the model's `AskUserQuestion`)
/// waits for them as a permission dialog does; Enter picks "Yes" (and
/// submits, where Claude shows a review step).
#[test]
fn claude_a_question_to_the_person_reads_approve_until_answered() {
    let (_model, env, record, pane) = started();
    let prompt = "[ask: Ship the fix now?] decide with me";
    a_dialog_reads_approve_until_answered(&env, &record, &pane, prompt, "Ship the fix now?");
}

/// Issue 21: a plan presented for approval (plan mode's `ExitPlanMode`)
/// waits for the person until approved.
#[test]
fn claude_a_plan_to_approve_reads_approve_until_approved() {
    let (_model, env, record, pane) = started();
    // Shift+Tab cycles the permission modes; plan mode is one of them.
    press_until(&env, &pane, "BTab", 1, 30, "plan mode", || {
        env.capture_visible(&pane).contains("plan mode on")
    });
    let prompt = "[plan: First fix the parser, then its tests] plan it";
    a_dialog_reads_approve_until_answered(&env, &record, &pane, prompt, "First fix the parser");
}

/// Issue 25: lf's usage of a Session is exactly what the model reported
/// for the conversation's answers: a turn with a tool (two requests), a
/// subagent (its own transcript), a `/compact`, a `/clear` (a new
/// transcript) and a resume (the same one appended) included. Claude's title requests are in no transcript and
/// are not counted (docs/decisions/0030-usage.md).
#[test]
fn claude_usage_is_what_the_model_reported() {
    let (model, env, record, pane) = started();
    let turn = |prompt: &str| {
        say(&env, &pane, prompt);
        model.wait_prompt(prompt, 30);
        wait_for_state(
            &env,
            &record.id,
            SessionState::Active,
            Some(Attention::Reply),
            30,
        );
    };
    turn("Usage one");
    // lf-serve keeps the Session's usage current as the transcript grows:
    // the sums are stored before anyone asks lf-session-usage.
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
    assert_eq!((first.usage.turns, first.usage.requests), (1, 1));
    // A command Claude runs without asking: the tool's call, then its
    // result answered, two requests of one turn.
    say(&env, &pane, "[run: true] Usage two");
    model.wait_answered(3, 30);
    let tool = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(tool.usage.turns, 2);
    for prompt in ["Usage three", "Usage four"] {
        turn(prompt);
    }
    say(&env, &pane, "/compact");
    model.wait_prompt(crate::model::COMPACTION, 60);
    let native = anthropic::session_id(&model.wait_prompt("Usage one", 5)).unwrap();
    wait_transcript(&env, &native, "compact_boundary");
    wait_screen(&env, &pane, READY, 30);
    // The summary's usage is in no record of Claude's: not counted.
    let compacted = wait_usage_is_the_models(&env, &model, &record.id);
    assert!(
        model
            .conversation()
            .iter()
            .any(|request| request.is_compaction() && request.usage.is_some()),
        "{compacted:#?}"
    );
    say(&env, &pane, "/clear");
    wait_screen(&env, &pane, READY, 20);
    turn("Usage after the clear");
    wait_usage_is_the_models(&env, &model, &record.id);
    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 20, |record| {
        !record.alive
    });
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "Usage after the resume");
    model.wait_prompt("Usage after the resume", 30);
    let resumed = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(resumed.usage.turns, 6, "{resumed:#?}");
    // A subagent (last: Claude's footer then tells of it, not of
    // shortcuts): its requests are in its own transcript, beside.
    say(&env, &pane, "[agent: Say hi] Usage of a subagent");
    wait_for("the subagent's answer", 30, || {
        model
            .conversation()
            .iter()
            .any(|request| request.prompt == "Say hi" && request.usage.is_some())
            .then_some(())
    });
    let delegated = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(delegated.usage.turns, 7, "{delegated:#?}");
    assert_eq!(delegated.usage.models.len(), 1, "{delegated:#?}");
    assert_eq!(delegated.usage.cost, None, "the fake model has no price");
}
