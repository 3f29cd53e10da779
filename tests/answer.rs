//! Exact answers (issue 34) with the stand-in Claude, which shows queued
//! permission dialogs the way the real CLI's timing hides: the next drawn
//! at once, a first key dropped, a dialog that fires no hook. Each test
//! pins one way an answer reached a request the person never saw.

use crate::session_send::waiting_for_a_reply;
use crate::util::*;
use lf::wire::{Attention, AttentionRequest, SessionRecord};

/// The request the Session waits on, once it is the one for `input`.
pub(crate) fn wait_request(env: &Env, id: &str, input: &str) -> AttentionRequest {
    wait_for(&format!("a request for {input:?}"), 20, || {
        let record = env.show(id);
        let approve = record.attention == Some(Attention::Approve);
        record
            .attention_request
            .filter(|request| approve && request.input.as_deref() == Some(input))
    })
}

/// The keys the stand-in took, a dialog each: `(command, key)`.
pub(crate) fn keys_taken(env: &Env) -> Vec<(String, String)> {
    env.agent_log("dialog")
        .into_iter()
        .map(|dialog| {
            (
                dialog["command"].as_str().unwrap().to_owned(),
                dialog["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Issue 34, item 1: `answer_prompt` pressed again every second while any
/// dialog was up; with the first key dropped and the next dialog drawn at
/// once, the press again approved the second (a dialog never seen).
#[test]
fn r34_one_allow_approves_exactly_one_of_two_queued_dialogs() {
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    let work = env.mkdir("repo");
    env.run(
        "lf-session-send",
        &[
            &record.id,
            "[dialogs-drop-first: touch one.txt || touch two.txt] two calls",
        ],
    )
    .ok();
    let first = wait_request(&env, &record.id, "touch one.txt");
    let after: SessionRecord = env.run("lf-session-answer", &[&record.id, "allow"]).json();
    assert!(work.join("one.txt").exists());
    // The second dialog is up at once, a request of its own.
    let second = wait_request(&env, &record.id, "touch two.txt");
    assert_ne!(second.id, first.id);
    assert!(
        after
            .attention_request
            .as_ref()
            .is_none_or(|up| up.id == second.id),
        "{after:#?}"
    );
    assert!(
        !work.join("two.txt").exists(),
        "the second was approved too"
    );
    assert_eq!(keys_taken(&env), [("touch one.txt".into(), "1".into())]);
    env.run(
        "lf-session-answer",
        &[&record.id, "deny", "--request", &second.id],
    )
    .ok();
    wait_for("the turn to end", 20, || {
        (env.show(&record.id).attention == Some(Attention::Reply)).then_some(())
    });
    assert!(!work.join("two.txt").exists());
    assert_eq!(
        keys_taken(&env),
        [
            ("touch one.txt".into(), "1".into()),
            ("touch two.txt".into(), "esc".into())
        ]
    );
}

/// Issue 34, item 3: an answer naming a request (the page's, a second
/// tap) reaches that request or nothing.
#[test]
fn r34_an_answer_to_a_request_answered_already_presses_nothing() {
    let env = Env::new();
    let (record, pane) = waiting_for_a_reply(&env);
    let work = env.mkdir("repo");
    env.run(
        "lf-session-send",
        &[
            &record.id,
            "[dialogs: echo one > one.txt || touch rm.txt] two",
        ],
    )
    .ok();
    let first = wait_request(&env, &record.id, "echo one > one.txt");
    // The person answers at the terminal.
    env.tmux(&["send-keys", "-t", &pane, "1"]);
    let second = wait_request(&env, &record.id, "touch rm.txt");
    // The page still showing the first sends its Allow: refused.
    env.attempt(
        "lf-session-answer",
        &[&record.id, "allow", "--request", &first.id],
    )
    .fails_with(4, "request_not_up");
    // A request that is not one: refused as such.
    env.attempt(
        "lf-session-answer",
        &[&record.id, "allow", "--request", "req-nope"],
    )
    .fails_with(2, "bad_id");
    assert!(work.join("one.txt").exists());
    assert!(!work.join("rm.txt").exists());
    assert_eq!(
        keys_taken(&env),
        [("echo one > one.txt".into(), "1".into())]
    );
    env.run(
        "lf-session-answer",
        &[&record.id, "deny", "--request", &second.id],
    )
    .ok();
}

/// Issue 34, item 5: the turn ended (attention reply), then a dialog came
/// with no hook; a reply typed then answered it ("1 thing first…" is the
/// key 1). It is refused, and the Session waits on that dialog.
#[test]
fn r34_a_reply_is_never_typed_into_a_dialog() {
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    let work = env.mkdir("repo");
    env.run(
        "lf-session-send",
        &[&record.id, "[dialog-after: touch pushed.txt] then ask"],
    )
    .ok();
    wait_for("the late dialog", 20, || {
        let record = env.show(&record.id);
        let screen = env.capture(&record.terminal_ids[0]);
        (record.attention == Some(Attention::Reply) && screen.contains("Do you want to proceed?"))
            .then_some(())
    });
    env.attempt(
        "lf-session-send",
        &[&record.id, "1 thing first: do not push yet"],
    )
    .fails_with(4, "dialog_up");
    assert!(!work.join("pushed.txt").exists());
    assert!(keys_taken(&env).is_empty());
    let now = env.show(&record.id);
    assert_eq!(now.attention, Some(Attention::Approve), "{now:#?}");
    let request = now.attention_request.expect("the dialog is a request");
    assert_eq!(request.input, None, "no hook said what it is for");
    env.run(
        "lf-session-answer",
        &[&record.id, "deny", "--request", &request.id],
    )
    .ok();
    assert_eq!(
        keys_taken(&env),
        [("touch pushed.txt".into(), "esc".into())]
    );
}

/// Issue 34, item 6: a process of the Session's own agent, or one in its
/// tmux pane, answered its dialog once lf's variables were unset.
#[test]
fn r34_nothing_from_a_sessions_own_terminal_answers_it() {
    let env = Env::new();
    let (record, pane) = waiting_for_a_reply(&env);
    let work = env.mkdir("repo");
    // The agent's own tool: in a second, with lf's variables gone, it
    // answers the dialog that follows it.
    let answer = bin("lf-session-answer");
    let sneaky = format!(
        "(sleep 1; env -u LF_RUN_ID -u LF_SESSION_ID -u TMUX_PANE -u TMUX {} {} allow; echo $? > code.txt) > /dev/null 2>&1 &",
        answer.display(),
        record.id
    );
    env.run(
        "lf-session-send",
        &[
            &record.id,
            &format!("[dialogs: {sneaky} || touch pwned.txt] go"),
        ],
    )
    .ok();
    let first = wait_request(&env, &record.id, &sneaky);
    env.run(
        "lf-session-answer",
        &[&record.id, "allow", "--request", &first.id],
    )
    .ok();
    wait_request(&env, &record.id, "touch pwned.txt");
    let code = wait_for("the agent's own answer to end", 20, || {
        std::fs::read_to_string(work.join("code.txt")).ok()
    });
    assert_eq!(code.trim(), "2", "refused as a usage error");
    assert!(!work.join("pwned.txt").exists());
    // From its tmux pane, with none of lf's variables.
    let mut command = env.json_errors("lf-session-answer");
    command.args([&record.id, "allow"]).env("TMUX_PANE", &pane);
    env.run_command(command)
        .fails_with(2, "from_sessions_own_terminal");
    assert!(!work.join("pwned.txt").exists());
    env.run("lf-session-answer", &[&record.id, "deny"]).ok();
}

/// The real `nu` with the plugin, in this environment.
fn nu(env: &Env, script: &str) -> Ran {
    let nu = std::env::var_os("LF_TEST_NU")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../.tools/nu/node_modules/@nushell/linux-x64/bin/nu")
        });
    assert!(
        nu.is_file(),
        "nu 0.115.1 is missing at {}: run scripts/test (or set LF_TEST_NU)",
        nu.display()
    );
    let mut command = env.program(nu);
    command
        .args(["-n", "--no-std-lib", "--plugins"])
        .arg(built_beside("nu_plugin_lf", "nu_plugin_lf"))
        .args(["-c", script]);
    env.run_command(command)
}

/// Issue 34 in Nushell: `lf sessions` carries the request whole, and `lf
/// session answer --request` answers exactly it; a stale one is refused
/// as the binary refuses it.
#[test]
fn r34_the_plugin_answers_exactly_the_request_it_listed() {
    let env = Env::new();
    let (record, _pane) = waiting_for_a_reply(&env);
    let work = env.mkdir("repo");
    env.run(
        "lf-session-send",
        &[
            &record.id,
            "[dialogs-drop-first: touch one.txt || touch two.txt] two",
        ],
    )
    .ok();
    let first = wait_request(&env, &record.id, "touch one.txt");
    #[derive(Debug, serde::Deserialize)]
    struct Listed {
        id: String,
        tool: String,
        input: String,
        since: String,
    }
    let listed: Listed = serde_json::from_str(
        &nu(
            &env,
            "lf sessions | where attention == approve | first | get attention_request \
             | {id: $in.id, tool: $in.tool, input: $in.input, since: ($in.since | describe)} | to json -r",
        )
        .ok()
        .stdout,
    )
    .unwrap();
    assert_eq!(
        (
            listed.id.as_str(),
            listed.tool.as_str(),
            listed.input.as_str()
        ),
        (first.id.as_str(), "Bash", "touch one.txt")
    );
    assert_eq!(listed.since, "datetime");
    nu(
        &env,
        "lf sessions | where attention == approve | each { |s| lf session answer $s.id allow --request $s.attention_request.id } | ignore",
    )
    .ok();
    assert!(work.join("one.txt").exists());
    let second = wait_request(&env, &record.id, "touch two.txt");
    assert!(
        !work.join("two.txt").exists(),
        "the second was approved too"
    );
    let stale = nu(
        &env,
        &format!(
            "try {{ lf session answer {} allow --request {} }} catch {{|e| $e.details.code }}",
            record.id, first.id
        ),
    );
    assert_eq!(stale.ok().stdout.trim(), "lf::conflict");
    env.run(
        "lf-session-answer",
        &[&record.id, "deny", "--request", &second.id],
    )
    .ok();
    assert_eq!(
        keys_taken(&env),
        [
            ("touch one.txt".into(), "1".into()),
            ("touch two.txt".into(), "esc".into())
        ]
    );
}
