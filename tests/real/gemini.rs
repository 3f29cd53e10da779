//! The real Gemini CLI through lf, against the fake Gemini API server:
//! every transition a person sees (docs/agents/gemini.md has the table of
//! every way a turn ends), answering from afar, readiness without a
//! dialog, and exact resumes, two conversations in one folder included.

use super::*;
use crate::model::{Request, Server, gemini};

/// Gemini's prompt box is ready for input.
const READY: &str = "Type your message";
/// Gemini's permission dialog for a shell command.
const DIALOG: &str = "Allow execution of";
/// Gemini's own words (on its stderr, which lf relays) when the
/// conversation a resume names is gone.
const GEMINI_SAYS_NO_SESSION: &str = "Error resuming session";

/// A trusted repository with Gemini started in it by `lf-session-new`,
/// its prompt on screen.
fn started() -> (Server, Env, SessionRecord, String) {
    let model = gemini::start();
    let env = gemini_env(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let (record, pane) = start_in(&env, &cwd);
    (model, env, record, pane)
}

/// Start Gemini in `cwd` and wait for its prompt and its id confirmed.
fn start_in(env: &Env, cwd: &Path) -> (SessionRecord, String) {
    let record = new_session(env, "gemini", cwd, None);
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert!(record.alive);
    let pane = pane(&record);
    wait_screen(env, &pane, READY, 60);
    // Gemini CLI takes seconds to start (it relaunches itself), more than
    // lf's grace for a hook under load: a start-up dialog may have been
    // assumed meanwhile, which its `SessionStart` clears.
    let record = wait_for_state(env, &record.id, SessionState::Active, None, 30);
    (record, pane)
}

/// The permission dialog reads `approve`; `lf-session-answer deny`
/// refuses it and the turn ends in `reply`. The record that read
/// `approve`.
fn approve_then_deny(env: &Env, record: &SessionRecord) -> SessionRecord {
    let asked = wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    env.run("lf-session-answer", &[&record.id, "deny"]).ok();
    wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        20,
    );
    asked
}

/// What lf-hook refused or noted: nothing, for every call of a test.
fn assert_hook_log_empty(env: &Env) {
    let log = std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default();
    assert!(log.is_empty(), "lf-hook refused or noted payloads:\n{log}");
}

/// Wait until Gemini's own history holds `texts` (it writes its chat
/// files behind the screen), before a test kills the agent.
fn wait_chats(env: &Env, texts: &[&str]) {
    wait_history(&env.dir.path().join(".gemini/tmp"), texts, 30);
}

/// Start Gemini in `cwd` and have it remember `word`: the turn answered
/// and in Gemini's own history.
fn start_remembering(env: &Env, cwd: &Path, word: &str) -> (SessionRecord, String) {
    let (record, pane) = start_in(env, cwd);
    say(env, &pane, &format!("Remember the word {word}"));
    wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    wait_chats(env, &[word, "Answer"]);
    (record, pane)
}

/// `lf-session-ready` as lf's instructions name it to Gemini: its
/// absolute path.
fn ready_command() -> String {
    crate::util::bin("lf-session-ready").display().to_string()
}

/// Type a prompt into a Gemini that has just resumed or cleared (it drops
/// keys typed while it still loads the conversation: typed again until
/// shown) and submit it (Enter pressed again until the model got it).
fn say_after_resume(env: &Env, model: &Server, pane: &str, text: &str) {
    let shown = || {
        env.capture_visible(pane)
            .contains(&text[..text.len().min(20)])
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !shown() {
        assert!(
            std::time::Instant::now() < deadline,
            "{text:?} never showed in pane {pane}:\n{}",
            env.capture_visible(pane)
        );
        env.tmux(&["send-keys", "-t", pane, "-l", text]);
        let typed = std::time::Instant::now();
        while !shown() && typed.elapsed() < std::time::Duration::from_secs(3) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    press_until(
        env,
        pane,
        "Enter",
        3,
        20,
        &format!("{text:?} reaching the model"),
        || model.received_prompt(text),
    );
}

/// The conversation a request carries, every turn.
fn history(request: &Request) -> String {
    gemini::history(&request.body)
}

/// A new conversation is active at once; its id is the one Gemini's
/// `SessionStart` names (its chat file's), adopted; its turn ends in
/// `reply`.
#[test]
fn gemini_new_active_then_reply_when_the_turn_completes() {
    let (model, env, record, pane) = started();
    // lf-session-new lets the person in as Gemini runs; its SessionStart
    // names the conversation a moment later.
    let chosen = wait_for("SessionStart to name the conversation", 30, || {
        env.native_id(&record.id)
    });
    assert!(
        lf::provider::is_uuid(&chosen),
        "Gemini's session ids are UUIDs: {chosen}"
    );
    say(&env, &pane, "Hello gemini");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    model.wait_prompt("Hello gemini", 5);
    wait_chats(&env, &["Hello gemini", &chosen[..8]]);
    assert_eq!(env.native_id(&record.id), Some(chosen));
    // The next turn needs nothing from the person while it runs.
    say_until(&env, &pane, "[slow: 120] Think for a long time", || {
        model.received_prompt("Think for a long time")
    });
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    assert_hook_log_empty(&env);
}

/// A permission dialog reads `approve`; `lf-session-answer allow` runs the
/// tool and clears it as the agent goes on working.
#[test]
fn gemini_approve_then_allowed_through_lf_session_answer() {
    let (_model, env, record, pane) = started();
    say(
        &env,
        &pane,
        "[run: touch allowed.txt] [then-slow: 120] Make a file",
    );
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    let after: SessionRecord = env.run("lf-session-answer", &[&record.id, "allow"]).json();
    assert_eq!(after.attention, None, "{after:#?}");
    wait_file(&env.mkdir("repo").join("allowed.txt"), 20);
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    env.attempt("lf-session-answer", &[&record.id, "allow"])
        .fails_with(4, "not_waiting_for");
    assert_hook_log_empty(&env);
}

/// "Allow for this session" is Gemini's "always": `lf-session-answer
/// allow --always` picks it.
#[test]
fn gemini_allowed_always_through_lf_session_answer() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "[run: touch always.txt] Make a file");
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    env.run("lf-session-answer", &[&record.id, "allow", "--always"])
        .ok();
    wait_file(&env.mkdir("repo").join("always.txt"), 20);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    // The same command again runs with no dialog, for this session.
    // Typed as the turn's hooks still run: pressed again until it arrived.
    say_until(&env, &pane, "[run: touch always.txt] Again", || {
        model.received_prompt("Again")
    });
    model.wait_prompt("Again", 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(!env.capture_visible(&pane).contains(DIALOG));
}

/// Refusing the permission (`lf-session-answer deny`: Esc) fires no hook;
/// Gemini writes "Request cancelled." to its transcript, which lf-serve
/// reads: the agent waits for the person.
#[test]
fn gemini_a_refused_permission_asks_for_a_reply() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "[run: touch refused.txt] Make a file");
    wait_screen(&env, &pane, DIALOG, 30);
    approve_then_deny(&env, &record);
    assert!(!env.mkdir("repo").join("refused.txt").exists());
    // Refused by the person at the dialog itself (3: "No, suggest
    // changes"), the same.
    say_until(
        &env,
        &pane,
        "[run: touch refused-again.txt] Once more",
        || model.received_prompt("Once more"),
    );
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        30,
    );
    answer(&env, &pane, DIALOG, "3");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        20,
    );
    assert!(!env.mkdir("repo").join("refused-again.txt").exists());
    assert_hook_log_empty(&env);
}

/// Esc interrupting a running turn reads `reply`; killing the agent
/// itself then reads `interrupted`.
#[test]
fn gemini_esc_interrupting_a_turn_asks_for_a_reply() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "[slow: 120] Think for a long time");
    model.wait_received_prompt("Think for a long time", 30);
    wait_screen(&env, &pane, "Thinking slowly", 30);
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    press_until(&env, &pane, "Escape", 3, 30, "the turn interrupted", || {
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

/// A turn whose model request fails (a bad request, a server error once
/// the attempts are spent, a connection lost mid-answer) ends in `reply`.
#[test]
fn gemini_a_turn_whose_model_request_fails_asks_for_a_reply() {
    let (model, env, record, pane) = started();
    for prompt in [
        "[fail: 400] a bad request",
        "[drop] a lost connection",
        "all good again",
    ] {
        // As `turn_ends_in_reply`, the prompt pressed again until it
        // arrived: Gemini announces the turn's end (`AfterAgent`) while it
        // still runs that hook, and an Enter in that moment is lost.
        let before = env.show(&record.id).attention_since;
        say_until(&env, &pane, prompt, || model.received_prompt(prompt));
        wait_record(
            &env,
            &record.id,
            &format!("reply after {prompt:?}"),
            60,
            |now| {
                now.state == SessionState::Active
                    && now.attention == Some(Attention::Reply)
                    && now.attention_since > before
            },
        );
        wait_screen(&env, &pane, READY, 30);
    }
}

/// lf tells Gemini to run lf-session-ready (its first turn), and lf's
/// policy lets it run with no dialog: the Session is ready for review;
/// lf-session-complete closes it.
#[test]
fn gemini_told_to_run_lf_session_ready_runs_it_without_a_dialog() {
    let (model, env, record, pane) = started();
    let ready = ready_command();
    say(
        &env,
        &pane,
        &format!("[run: {ready} 'Parser fixed; see tests/parser.rs'] Finish"),
    );
    let asked = model.wait_received(1, 30).remove(0);
    let told = history(&asked);
    assert!(
        told.contains("run `lf-session-ready") && told.contains(&ready),
        "the launch carries lf's instructions: {told}"
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
    assert!(
        !env.capture(&pane).contains(DIALOG),
        "no dialog asked for lf-session-ready"
    );
    // The person reviewed it: lf-session-complete closes the Session.
    let closed: SessionRecord = env.run("lf-session-complete", &[&record.id]).json();
    assert_eq!(closed.state, SessionState::Closed);
    assert_eq!(closed.attention, None);
    assert_hook_log_empty(&env);
}

/// lf's policy allows `lf-session-ready` and nothing with it: a command
/// that starts with it and runs another (after `;`, `&&`, in a `$( )`)
/// still asks the person, and nothing of it runs before they answer
/// (Gemini checks each part of a shell command against the rules).
#[test]
fn gemini_lf_session_ready_carries_no_other_command_past_the_dialog() {
    let (model, env, record, pane) = started();
    let ready = ready_command();
    let repo = env.mkdir("repo");
    let smuggled = [
        (
            format!("{ready} 'Done'; touch after-semicolon"),
            "after-semicolon",
        ),
        (format!("{ready} 'Done' && touch after-and"), "after-and"),
        (
            format!("{ready} \"$(touch in-substitution)\""),
            "in-substitution",
        ),
    ];
    for (turn, (command, file)) in smuggled.iter().enumerate() {
        let prompt = format!("Smuggle {turn}");
        say_until(&env, &pane, &format!("[run: {command}] {prompt}"), || {
            model.received_prompt(&prompt)
        });
        wait_screen(&env, &pane, DIALOG, 30);
        let asked = approve_then_deny(&env, &record);
        assert!(asked.ready_summary.is_none(), "{command}: {asked:#?}");
        assert!(!repo.join(file).exists(), "{command} ran past the dialog");
    }
    assert_hook_log_empty(&env);
}

/// Killed (its pane gone) and opened again, the Session resumes exactly
/// its conversation: the resumed request carries the earlier turns.
#[test]
fn gemini_killed_then_resumed_with_its_history() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Remember the word puffin");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let native = env.native_id(&record.id).unwrap();
    wait_chats(&env, &["puffin", "Answer"]);
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 60);
    say_after_resume(&env, &model, &pane, "Which word was it");
    let resumed = model.wait_prompt("Which word was it", 30);
    assert!(
        history(&resumed).contains("puffin"),
        "{}",
        history(&resumed)
    );
    assert_eq!(env.native_id(&record.id), Some(native));
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert_hook_log_empty(&env);
}

/// Two Sessions in one folder each resume their own conversation. (Each
/// has its first turn before the next starts: Gemini CLI 0.61.0's own
/// session cleanup, run as a CLI starts, deletes a conversation of the
/// same folder that has no turn yet; docs/agents/gemini.md.)
#[test]
fn gemini_two_sessions_in_one_folder_resume_their_own_conversations() {
    let model = gemini::start();
    let env = gemini_env(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let mut started = Vec::new();
    for word in ["heron", "kestrel"] {
        let (record, pane) = start_remembering(&env, &cwd, word);
        started.push((record, pane));
    }
    let [(first, first_pane), (second, second_pane)] = &started[..] else {
        unreachable!()
    };
    assert_ne!(env.native_id(&first.id), env.native_id(&second.id));
    for (record, pane, mine, other) in [
        (first, first_pane, "heron", "kestrel"),
        (second, second_pane, "kestrel", "heron"),
    ] {
        let pane = kill_and_reopen(&env, &record.id, pane, READY, 60);
        let question = format!("Which word was it for {}", &record.id[..8]);
        say_after_resume(&env, &model, &pane, &question);
        let resumed = history(&model.wait_prompt(&question, 30));
        assert!(resumed.contains(mine), "{resumed}");
        assert!(!resumed.contains(other), "{resumed}");
    }
}

/// A resume of a conversation Gemini no longer has (the person deleted
/// it) exits at once: the open fails with Gemini's own message, and the
/// next open starts a new conversation instead of repeating it.
#[test]
fn gemini_a_resume_that_fails_is_reported_with_geminis_message() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Hello");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let native = env.native_id(&record.id).unwrap();
    wait_chats(&env, &["Hello", &native]);
    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 20, |record| {
        !record.alive
    });
    // The person deletes the conversation's chat files.
    remove_chats(&env.dir.path().join(".gemini/tmp"), &native);
    let failed = env.attempt("lf-session-open", &["--detach", &record.id]);
    let error = failed.fails_with(1, "launch_failed");
    assert!(error.message.contains(GEMINI_SAYS_NO_SESSION), "{error:?}");
    assert!(env.resume_failed(&record.id));
    let name = format!("lf-{}", &record.id[..12]);
    crate::util::wait_for("the failed launcher's tmux session to end", 20, || {
        (!env.tmux_has(&name)).then_some(())
    });
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    assert_eq!(opened.state, SessionState::Active);
    let pane = crate::real::pane(&opened);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "Start again");
    assert!(!history(&model.wait_prompt("Start again", 30)).contains("Hello"));
    assert_ne!(env.native_id(&record.id), Some(native));
}

/// Remove every chat file under `dir` that names the conversation `id`.
fn remove_chats(dir: &Path, id: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            remove_chats(&path, id);
        } else if std::fs::read_to_string(&path).is_ok_and(|text| text.contains(id)) {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

/// A folder Gemini does not trust yet: its trust dialog is predicted at
/// start (`approve`), and answered the agent starts.
#[test]
fn gemini_an_untrusted_folder_reads_approve_until_trusted() {
    let model = gemini::start();
    let env = gemini_env(&model, &[]);
    let cwd = env.mkdir("new-repo");
    let record = new_session(&env, "gemini", &cwd, None);
    assert_eq!(record.attention, Some(Attention::Approve), "{record:#?}");
    let pane = pane(&record);
    // Pressed once: the dialog stays up while Gemini restarts itself to
    // apply the trust, and a key pressed again then reaches the new one.
    wait_screen(&env, &pane, "Do you trust the files in this folder?", 30);
    std::thread::sleep(std::time::Duration::from_secs(1));
    keys(&env, &pane, &["1"]);
    wait_screen(&env, &pane, "restarting to apply the trust changes", 30);
    wait_for_state(&env, &record.id, SessionState::Active, None, 30);
    // The restarted CLI can drop an Enter pressed as it starts (CI once
    // showed "> Hello" left in its composer).
    say_until(&env, &pane, "Hello", || model.received_prompt("Hello"));
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
}

/// Issue 20: a first prompt that starts with `-` is the agent's prompt.
#[test]
fn gemini_a_prompt_that_starts_with_a_dash_is_a_prompt() {
    let model = gemini::start();
    let env = gemini_env(&model, &["repo"]);
    a_prompt_after_dashes_reaches_the_model(&env, &model, "gemini", "-m is the wrong flag");
}

/// `lf-session-active` attributes each Session's Gemini to it: the
/// process lf started and the child Gemini relaunches itself as, for two
/// Sessions in one folder, none claimed by both. After the tmux server is
/// killed, both read `lost`, and lf-session-restore resumes each
/// Session's own conversation (`--resume` with its id), with its history.
#[test]
fn gemini_active_attribution_and_restore_resume_each_conversation() {
    use super::restore::{restore, runs_with};
    use lf::wire::{LostReason, RestoreResult};
    let model = gemini::start();
    let env = gemini_env(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let mut sessions = Vec::new();
    for word in ["otter", "lynx"] {
        let (record, _) = start_remembering(&env, &cwd, word);
        let native = env.native_id(&record.id).expect("adopted");
        sessions.push((word, record, native));
    }
    let snapshot: lf::snapshot::LiveSnapshot = env.run("lf-session-active", &[]).json();
    let mut claimed = Vec::new();
    for (_, record, _) in &sessions {
        let agent = env.agent_pid(&record.id) as u32;
        let session = snapshot
            .sessions
            .iter()
            .find(|session| session.id == record.id)
            .unwrap_or_else(|| panic!("{} not in {snapshot:#?}", record.id));
        let process = |pid: u32| session.processes.iter().find(|p| p.pid == pid);
        let started = process(agent).unwrap_or_else(|| panic!("{agent} in {session:#?}"));
        assert_eq!(started.provider, "gemini");
        assert!(
            started.command.iter().any(|arg| arg.ends_with("gemini")),
            "{started:#?}"
        );
        assert!(
            session
                .processes
                .iter()
                .any(|p| p.ppid == agent && p.command.iter().any(|arg| arg.ends_with("gemini"))),
            "the relaunched Gemini beneath {agent}: {session:#?}"
        );
        claimed.extend(session.processes.iter().map(|p| p.pid));
    }
    let mut unique = claimed.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        claimed.len(),
        "a process claimed twice: {snapshot:#?}"
    );
    env.tmux(&["kill-server"]);
    for (_, record, _) in &sessions {
        let lost = wait_record(&env, &record.id, "lost", 30, |record| {
            record.state == SessionState::Lost
        });
        assert_eq!(lost.lost, Some(LostReason::Terminal), "{lost:#?}");
    }
    let lines = restore(&env);
    for (_, record, native) in &sessions {
        let line = &lines[&record.id];
        assert_eq!(line.result, RestoreResult::Resumed, "{line:#?}");
        assert_eq!(line.native_id.as_ref(), Some(native));
        assert!(runs_with(&env, &record.id, &["--resume", native]));
    }
    for (word, record, _) in &sessions {
        let pane = pane(&env.show(&record.id));
        wait_screen(&env, &pane, READY, 60);
        let question = format!("Which word was it for {}", &record.id[..8]);
        say_after_resume(&env, &model, &pane, &question);
        let resumed = history(&model.wait_prompt(&question, 30));
        let other = if *word == "otter" { "lynx" } else { "otter" };
        assert!(resumed.contains(word), "{resumed}");
        assert!(!resumed.contains(other), "{resumed}");
    }
    assert_hook_log_empty(&env);
}

/// Issue 25: lf's usage of a Session is exactly what the model reported
/// for the conversation's requests, read from Gemini's chat files, through
/// a tool's turn, `/compress` (its two summary requests are side requests,
/// in no chat file: reported by the model, not counted), `/clear` (a new
/// conversation and file) and a resume in a later minute than the file's
/// (the CLI then starts a file of its own beside the one it resumes into),
/// and a subagent (its requests in its own chat file, beside;
/// docs/agents/gemini.md, "Usage").
#[test]
fn gemini_usage_is_what_the_model_reported() {
    let (model, env, record, pane) = started();
    let turn = |pane: &str, prompt: &str| {
        say_until(&env, pane, prompt, || model.received_prompt(prompt));
        model.wait_prompt(prompt, 30);
        wait_for_state(
            &env,
            &record.id,
            SessionState::Active,
            Some(Attention::Reply),
            30,
        );
    };
    turn(&pane, "Usage one");
    let first = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(
        (first.usage.turns, first.usage.requests),
        (1, 1),
        "lf's instructions (a hook's context) are no turn: {first:#?}"
    );
    // A command Gemini runs without asking (`true` reads nothing): the
    // tool's call, then its result answered, two requests of one turn.
    say_until(&env, &pane, "[run: true] Usage two", || {
        model.received_prompt("Usage two")
    });
    model.wait_answered(3, 30);
    let tool = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!((tool.usage.turns, tool.usage.requests), (2, 3), "{tool:#?}");
    turn(&pane, "Usage three");
    let summaries = || {
        model
            .requests()
            .into_iter()
            .filter(|request| {
                request.body["systemInstruction"]
                    .to_string()
                    .contains("state_snapshot")
            })
            .collect::<Vec<_>>()
    };
    // An Enter pressed as the turn's end is recorded may be lost by the
    // CLI (docs/agents/gemini.md): pressed again until it compresses.
    say_until(&env, &pane, "/compress", || !summaries().is_empty());
    wait_for("Gemini's compression requests answered", 60, || {
        let answered = summaries()
            .iter()
            .filter(|request| request.usage.is_some())
            .count();
        (answered >= 2).then_some(())
    });
    assert!(
        summaries().iter().all(|request| !request.conversation),
        "the summary requests are side requests"
    );
    wait_screen(&env, &pane, READY, 30);
    turn(&pane, "Usage after the compression");
    let compressed = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(
        (compressed.usage.turns, compressed.usage.requests),
        (4, 5),
        "{compressed:#?}"
    );
    // `/clear` starts a new conversation, whose `SessionStart` names it.
    let cleared = env.native_id(&record.id);
    say_until(&env, &pane, "/clear", || {
        env.native_id(&record.id) != cleared
    });
    // The screen is drawn anew meanwhile: typed until shown.
    say_after_resume(&env, &model, &pane, "Usage after the clear");
    model.wait_prompt("Usage after the clear", 30);
    wait_usage_is_the_models(&env, &model, &record.id);
    // A chat file is named by the minute it started: resumed in a later
    // minute, the CLI starts a file of its own before it resumes.
    let chats = env.dir.path().join(".gemini/tmp/repo/chats");
    let files = || std::fs::read_dir(&chats).map_or(0, |entries| entries.count());
    let before = files();
    let minute = lf::clock::rfc3339(lf::clock::now_micros())[..16].to_owned();
    wait_for("the next minute", 70, || {
        (lf::clock::rfc3339(lf::clock::now_micros())[..16] != minute).then_some(())
    });
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 60);
    say_after_resume(&env, &model, &pane, "Usage after the resume");
    model.wait_prompt("Usage after the resume", 30);
    let resumed = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(files(), before + 1, "the resume's own chat file");
    assert_eq!(
        (resumed.usage.turns, resumed.usage.requests),
        (6, 7),
        "{resumed:#?}"
    );
    // A subagent: its requests are in its own chat file, beside.
    say_until(&env, &pane, "[agent: Say hi] Usage of a subagent", || {
        model.received_prompt("Usage of a subagent")
    });
    wait_for("the subagent's answer", 60, || {
        model
            .requests()
            .iter()
            .any(|request| {
                request.usage.is_some() && gemini::offers(&request.body, gemini::COMPLETE_TASK)
            })
            .then_some(())
    });
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let delegated = wait_usage_is_the_models(&env, &model, &record.id);
    assert_eq!(delegated.usage.turns, 7, "{delegated:#?}");
    assert_eq!(delegated.usage.models.len(), 1, "{delegated:#?}");
    assert_eq!(delegated.usage.cost, None, "the fake model has no price");
    assert_hook_log_empty(&env);
}

/// Issue 34, item 14: the person's own `GEMINI_CLI_HOME` (whose settings
/// exclude the shell tool) and `GEMINI_CLI_TRUSTED_FOLDERS_PATH` (which
/// trusts the folder), exported in the shell that runs `lf-session-new`
/// with a tmux server already running, still hold under lf: no trust
/// dialog is predicted or shown, and the model is not offered the shell.
/// lf read `~/.gemini` and its trust file instead.
#[test]
fn gemini_the_persons_own_gemini_home_and_trust_file_hold_under_lf() {
    let model = gemini::start();
    let env = gemini_env(&model, &[]);
    tmux_server_already_running(&env);
    let cwd = env.mkdir("repo");
    let theirs = env.dir.path().join("their-gemini-home");
    std::fs::create_dir_all(theirs.join(".gemini")).unwrap();
    let settings = serde_json::json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"maxAttempts": 1, "enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
        "tools": {"exclude": [gemini::SHELL_TOOL]},
    });
    std::fs::write(theirs.join(".gemini/settings.json"), settings.to_string()).unwrap();
    let trust = env.dir.path().join("their-trusted-folders.json");
    std::fs::write(
        &trust,
        serde_json::json!({cwd.display().to_string(): "TRUST_FOLDER"}).to_string(),
    )
    .unwrap();
    let mut command = env.command("lf-session-new");
    command
        .args(["--provider", "gemini", "--cwd", cwd.to_str().unwrap()])
        .env("GEMINI_CLI_HOME", &theirs)
        .env("GEMINI_CLI_TRUSTED_FOLDERS_PATH", &trust);
    let record: SessionRecord = env.run_command(command).json();
    assert_ne!(
        record.attention,
        Some(Attention::Approve),
        "their trust file trusts the folder: no dialog predicted\n{record:#?}"
    );
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 60);
    let record = wait_for_state(&env, &record.id, SessionState::Active, None, 30);
    say_until(&env, &pane, "Hello gemini", || {
        model.received_prompt("Hello gemini")
    });
    let asked = model.wait_prompt("Hello gemini", 30);
    assert!(gemini::is_conversation(&asked.body));
    assert!(
        !gemini::offers(&asked.body, gemini::SHELL_TOOL),
        "their settings exclude the shell tool: {}",
        asked.body["tools"]
    );
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(!env.capture(&pane).contains("Do you trust"));
    assert!(
        std::fs::read_dir(theirs.join(".gemini/tmp"))
            .is_ok_and(|mut entries| entries.next().is_some()),
        "the conversation is kept in their own .gemini"
    );
    assert_hook_log_empty(&env);
}
