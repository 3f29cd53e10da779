//! The real Codex CLI through lf: every transition a person sees, and a
//! test per defect of the Codex issue the real CLI showed (the title
//! thread adopted, a turn start never heard, approvals invisible, an agent
//! never told about lf-session-ready, a resume that dies reported as a
//! success), for a conversation, a flow review and a primary Session.

use super::*;
use crate::model::{Request, Server, responses};

/// Codex's prompt box is ready for input.
const READY: &str = "for shortcuts";
/// Codex's own words (on its stderr, which lf relays) when the
/// conversation a resume names is gone.
const CODEX_SAYS_NO_SESSION: &str = "No saved session found";
/// Codex's approval prompt for a command.
const DIALOG: &str = "Would you like to run the following command?";

/// A trusted repository with Codex started in it by `lf-session-new`, its
/// prompt on screen.
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

/// Codex's title request for the conversation's first prompt, once
/// answered.
fn title_answered(model: &Server, prompt: &str) -> Request {
    model.wait_answered_where("the title request", 30, |request| {
        responses::is_title(&request.body) && request.body.to_string().contains(prompt)
    })
}

/// Poll lf's record while the real turn of `prompt` stalls in the model:
/// until the model answered it, the Session never reads `reply`. The
/// record is read before the model is asked, so a `reply` that the real
/// answer caused is never mistaken for an early one.
fn no_reply_until_answered(env: &Env, model: &Server, id: &str, prompt: &str) {
    loop {
        let record = env.show(id);
        let answered = model.answered_prompt(prompt);
        assert!(
            record.attention != Some(Attention::Reply) || answered,
            "reply before the real turn was answered: {record:#?}"
        );
        assert_eq!(record.state, SessionState::Active, "{record:#?}");
        if answered {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Wait until Codex's own history holds `texts` (it writes its rollout
/// behind the screen), before a test kills the agent.
fn wait_rollout(env: &Env, texts: &[&str]) {
    wait_history(&env.dir.path().join(".codex/sessions"), texts, 30);
}

/// `lf-session-ready` as lf's instructions name it to Codex: its absolute
/// path (Codex runs commands in a login shell, whose PATH is the
/// profile's, here without lf's binaries).
fn ready_command() -> String {
    format!("'{}'", crate::util::bin("lf-session-ready").display())
}

/// Once broke: the title thread answers first and was taken for the conversation. lf hears only the
/// conversation's thread, reads `reply` only when its turn completed, and
/// a resume brings back that thread with its history.
#[test]
fn codex_title_thread_taken_for_the_conversation() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "[slow: 4] Remember the word puffin");
    let title = title_answered(&model, "puffin");
    no_reply_until_answered(&env, &model, &record.id, "puffin");
    let first = model.wait_prompt("puffin", 30);
    assert!(
        title.answered.unwrap() < first.answered.unwrap(),
        "the title thread finished before the real turn"
    );
    assert_ne!(
        thread(&title),
        thread(&first),
        "the title is its own thread"
    );
    let replied = wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    assert!(replied.alive);
    wait_rollout(&env, &["puffin", &thread(&first), "task_complete"]);
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 60);
    // ("?" on its own is Codex's shortcut key: keep it out of prompts.)
    say(&env, &pane, "Which word was it");
    let resumed = model.wait_prompt("Which word was it", 30);
    assert_eq!(
        thread(&resumed),
        thread(&first),
        "the conversation's thread"
    );
    assert!(
        resumed.body["input"].to_string().contains("puffin"),
        "history resumed: {:#}",
        resumed.body["input"]
    );
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let log = std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default();
    assert!(log.is_empty(), "lf-hook refused or noted payloads:\n{log}");
}

/// Once broke: a turn start went unheard and Esc went unseen. A second turn needs nothing from the
/// person while it runs; Esc interrupting it (no hook fires) reads `reply`;
/// killing the agent itself then reads `interrupted`.
#[test]
fn codex_turn_start_unheard_and_esc_interrupt_unseen() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Hello codex");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    model.wait_prompt("Hello codex", 5);
    say_until(&env, &pane, "[slow: 120] Think for a long time", || {
        model.received_prompt("Think for a long time")
    });
    // The turn runs: its first words are on screen (the status line with
    // "esc to interrupt" can lag far behind under load).
    wait_screen(&env, &pane, "Thinking slowly", 30);
    let working = wait_for_state(&env, &record.id, SessionState::Active, None, 10);
    assert!(working.alive);
    // Esc interrupts the running turn; a press the busy TUI dropped is
    // pressed again.
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

/// Once broke: Codex's approval prompt did not read `approve`. It does (its PermissionRequest
/// hook), and approving clears it as the tool ran (PostToolUse), while the
/// agent goes on working.
#[test]
fn codex_approval_prompt_not_read_as_approve() {
    let (_model, env, record, pane) = started();
    say(
        &env,
        &pane,
        "[run: touch approved.txt] [then-slow: 120] Make a file",
    );
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    answer(&env, &pane, DIALOG, "Enter");
    wait_file(&env.mkdir("repo").join("approved.txt"), 20);
    wait_for_state(&env, &record.id, SessionState::Active, None, 10);
}

/// Refusing the approval (Esc) fires no hook; Codex writes the aborted
/// turn to its rollout, which lf-serve reads: the agent waits for the
/// person.
#[test]
fn codex_a_refused_approval_clears_approve_and_asks_for_a_reply() {
    let (_model, env, record, pane) = started();
    say(&env, &pane, "[run: touch refused.txt] Make a file");
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
    refuse(&env, &pane);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        10,
    );
    assert!(!env.mkdir("repo").join("refused.txt").exists());
}

/// Refuse the dialog as a person does, with Esc. Twice, in fresh-clone
/// CI runs under load (never here), Codex 0.171.0 kept its dialog up for
/// a minute of Esc pressed every 2 s, drawing nothing new: after 20 s of
/// that, what runs in the pane is printed and the same refusal is chosen
/// from the list instead ("3. No, …", two rows down), so the test still
/// shows lf's reading of a refusal.
fn refuse(env: &Env, pane: &str) {
    wait_screen(env, pane, DIALOG, 30);
    if pressed_until(env, pane, "Escape", 2, 20, || {
        !env.capture_visible(pane).contains(DIALOG)
    }) {
        return;
    }
    let ps = std::process::Command::new("ps")
        .args(["-e", "-o", "pid,ppid,stat,wchan:24,etime,args"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    eprintln!(
        "Esc did not close Codex's dialog in 20 s; its processes:\n{}",
        ps.lines()
            .filter(|line| line.contains("codex") || line.contains("lf-"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    keys(env, pane, &["Down", "Down"]);
    answer(env, pane, DIALOG, "Enter");
}

/// Once broke: Codex was not told to run lf-session-ready. It is told, for this launch,
/// and doing so (Codex asks the person first: it writes outside the
/// workspace) makes the Session ready for review; the person's next
/// prompt supersedes that readiness.
#[test]
fn codex_never_told_to_run_lf_session_ready() {
    let (model, env, record, pane) = started();
    // The model runs what lf told it to run.
    let ready = ready_command();
    say(
        &env,
        &pane,
        &format!("[run: {ready} 'Parser fixed; see tests/parser.rs'] Finish"),
    );
    let asked = model.wait_received(1, 30).remove(0);
    let told = asked.body.to_string();
    assert!(
        told.contains("run `lf-session-ready") && told.contains(&ready),
        "the launch carries lf's instructions: {:#}",
        asked.body
    );
    wait_screen(&env, &pane, DIALOG, 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        10,
    );
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
    assert!(ready.alive, "a ready Session still shows its live agent");
    model.wait_answered(2, 30);
    wait_screen(&env, &pane, READY, 30);
    say(&env, &pane, "[slow: 120] One more thing");
    wait_record(&env, &record.id, "a reply in progress", 20, |record| {
        record.attention.is_none() && record.state == SessionState::Active
    });
}

/// A resume of a thread Codex no longer has (the person deleted it) exits
/// at once: the open fails with Codex's own message, and the next open
/// starts a new conversation instead of repeating it.
#[test]
fn codex_a_resume_that_dies_at_once_fails_with_codexs_message_and_is_not_repeated() {
    let (model, env, record, pane) = started();
    say(&env, &pane, "Hello");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let native = thread(&model.wait_prompt("Hello", 5));
    wait_rollout(&env, &["Hello", &native, "task_complete"]);
    env.tmux(&["kill-pane", "-t", &pane]);
    wait_record(&env, &record.id, "no live agent", 20, |record| {
        !record.alive
    });
    agent_cli(&env, "codex", None, &["delete", "--force", &native]);
    // Refused as a launch that failed (lf's words: tests/messages.rs),
    // saying what Codex said, and recorded so the next open does not
    // resume it again.
    let failed = env.attempt("lf-session-open", &["--detach", &record.id]);
    let error = failed.fails_with(1, "launch_failed");
    assert!(error.message.contains(CODEX_SAYS_NO_SESSION), "{error:?}");
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
    assert_ne!(thread(&model.wait_prompt("Start again", 30)), native);
}

/// The same for a flow review run by Codex: launched with its
/// instructions, its own thread adopted (the title thread answers first),
/// ready after the agent runs lf-session-ready, and its feedback returned.
#[test]
fn codex_a_flow_review_marks_itself_ready_and_resumes_its_own_thread() {
    let model = responses::start();
    let env = codex_env(&model, &["loo-291"]);
    let worktree = env.mkdir("loo-291");
    env.run(
        "lf-work",
        &[
            "task",
            "add",
            "LOO-291",
            "--title",
            "Parser",
            "--worktree",
            worktree.to_str().unwrap(),
        ],
    )
    .ok();
    let record: SessionRecord = env
        .run(
            "lf-flow",
            &[
                "review",
                "--task",
                "LOO-291",
                "--invocation",
                "inv-1",
                "--flow",
                "feature",
                "--node",
                "2",
                "--step",
                "review-design",
                "--provider",
                "codex",
                "--prompt",
                "[slow: 3] Review the parser: remember the word kestrel",
            ],
        )
        .json();
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert_eq!(record.attention, Some(Attention::Review));
    let pane = pane(&record);
    let title = title_answered(&model, "kestrel");
    let first = model.wait_prompt("kestrel", 30);
    assert!(title.answered.unwrap() < first.answered.unwrap());
    assert!(
        first.body.to_string().contains("run `lf-session-ready"),
        "the review's instructions reach Codex"
    );
    wait_rollout(&env, &["kestrel", &thread(&first), "task_complete"]);
    wait_screen(&env, &pane, READY, 30);
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 60);
    say(
        &env,
        &pane,
        &format!("[run: {} 'Design agreed'] Done", ready_command()),
    );
    let resumed = model.wait_prompt("Design agreed", 30);
    assert_eq!(thread(&resumed), thread(&first), "the review's own thread");
    assert!(resumed.body["input"].to_string().contains("kestrel"));
    wait_screen(&env, &pane, DIALOG, 30);
    answer(&env, &pane, DIALOG, "Enter");
    let ready = wait_record(&env, &record.id, "ready", 30, |record| {
        record.state == SessionState::Ready
    });
    assert_eq!(ready.attention, Some(Attention::Review));
    assert_eq!(ready.ready_summary.as_deref(), Some("Design agreed"));
    let closed: SessionRecord = env.run("lf-session-complete", &[&record.id]).json();
    assert_eq!(closed.state, SessionState::Closed);
    let feedback: lf::flow::ReviewFeedback = env
        .run("lf-flow", &["wait", &record.id, "--timeout", "10"])
        .json();
    assert_eq!(feedback.feedback.as_deref(), Some("Design agreed"));
}

/// The same for a primary Session run by Codex: told it is the primary
/// conversation (not to run lf-session-ready), its own thread adopted,
/// and resumed with its history after a kill.
#[test]
fn codex_a_primary_session_hears_its_own_thread_and_resumes_it() {
    let model = responses::start();
    let env = codex_env(&model, &["app"]);
    let repo = env.mkdir("app");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let mut ensure = env.command("lf-primary");
    ensure
        .args(["ensure", "--provider", "codex"])
        .current_dir(&repo);
    let record: SessionRecord = env.run_command(ensure).json();
    assert_eq!(record.state, SessionState::Active, "{record:#?}");
    assert!(record.primary_scope.is_some());
    let pane = pane(&record);
    wait_screen(&env, &pane, READY, 60);
    say(&env, &pane, "[slow: 3] Remember the word heron");
    let title = title_answered(&model, "heron");
    no_reply_until_answered(&env, &model, &record.id, "heron");
    let first = model.wait_prompt("heron", 30);
    assert!(title.answered.unwrap() < first.answered.unwrap());
    let body = first.body.to_string();
    assert!(
        body.contains("do not run lf-session-ready"),
        "a primary Session's instructions: {body}"
    );
    assert!(!body.contains("run `lf-session-ready"), "{body}");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    wait_rollout(&env, &["heron", &thread(&first), "task_complete"]);
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 60);
    say(&env, &pane, "Which bird was it");
    let resumed = model.wait_prompt("Which bird was it", 30);
    assert_eq!(thread(&resumed), thread(&first));
    assert!(resumed.body["input"].to_string().contains("heron"));
}

/// Issue 20: a first prompt that starts with `-` is the agent's prompt,
/// not its flags (before any `--`, Codex read `-m…` as its model).
#[test]
fn codex_a_prompt_that_starts_with_a_dash_is_a_prompt() {
    let model = responses::start();
    let env = codex_env(&model, &["repo"]);
    a_prompt_after_dashes_reaches_the_model(&env, &model, "codex", "-m is the wrong flag");
}

/// Issue 21: a turn whose model request fails (a bad request, a rate
/// limit, a failing server, a connection lost mid-answer, once Codex's
/// retries are spent)
/// ends without `Stop`; Codex shows the error and waits for the person.
#[test]
fn codex_a_turn_whose_model_request_fails_asks_for_a_reply() {
    let (model, env, record, pane) = started();
    for prompt in [
        "[fail: 400] a bad request",
        "[fail: 429] a rate limit",
        "[fail: 500] a server error",
        "[drop] a lost connection",
        "all good again",
    ] {
        turn_ends_in_reply(&env, &model, &record, &pane, prompt);
        wait_screen(&env, &pane, READY, 30);
    }
}

/// Issue 25: lf's usage of a Session is exactly what the model reported
/// for the conversation's answers, across a resume (the rollout appended
/// to), a `/compact` and a `/new`. The title thread is not the
/// conversation: its usage is not counted (docs/decisions/0030-usage.md).
#[test]
fn codex_usage_is_what_the_model_reported() {
    let (model, env, record, pane) = started();
    let turn = |pane: &str, prompt: &str| {
        // Under load Codex's composer can drop the Enter (seen after /new).
        say_until(&env, pane, prompt, || model.received_prompt(prompt));
        model.wait_prompt(prompt, 60);
        wait_usage_is_the_models(&env, &model, &record.id)
    };
    let first = turn(&pane, "Usage one");
    assert_eq!(
        (first.usage.turns, first.usage.requests),
        (1, 1),
        "{first:#?}"
    );
    turn(&pane, "Usage two");
    wait_rollout(&env, &["Usage two", "Answer"]);
    let pane = kill_and_reopen(&env, &record.id, &pane, READY, 60);
    let resumed = turn(&pane, "Usage after the resume");
    assert_eq!(resumed.usage.turns, 3, "{resumed:#?}");
    say(&env, &pane, "/compact");
    wait_screen(&env, &pane, READY, 60);
    turn(&pane, "Usage after the compact");
    say(&env, &pane, "/new");
    wait_screen(&env, &pane, READY, 60);
    let last = turn(&pane, "Usage of a new thread");
    assert_eq!(last.usage.models.len(), 1, "{last:#?}");
    assert_eq!(last.usage.cost, None, "the fake model has no price");
    // Codex records its compaction's usage in the rollout: counted.
    assert!(
        model
            .conversation()
            .iter()
            .any(|request| request.prompt.contains("CONTEXT CHECKPOINT COMPACTION")),
        "no compaction was asked"
    );
    // Six turns (the compaction is one of Codex's), a request each.
    assert_eq!((last.usage.turns, last.usage.requests), (6, 6), "{last:#?}");
}
