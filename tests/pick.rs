use crate::util::*;
use lf::wire::SessionRecord;

/// Run the picker with --print in a pane of the private tmux server and
/// return the pane id and the file its choice goes to.
fn start_picker(env: &Env, args: &str) -> (String, std::path::PathBuf) {
    let out = env.dir.path().join("chosen.json");
    let script = format!(
        "lf-session-pick --print {args} > '{}'; echo exit=$? >> '{}.status'",
        out.display(),
        out.display()
    );
    let mut command = env.tmux_command(&[
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-s",
        "picker",
        "-x",
        "120",
        "-y",
        "30",
        "--",
        "sh",
        "-c",
        &script,
    ]);
    command.env("LF_HOME", env.home());
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let pane = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    wait_for("the picker to draw", 20, || {
        env.capture(&pane).contains("> ").then_some(())
    });
    (pane, out)
}

fn chosen(out: &std::path::Path) -> Option<SessionRecord> {
    let status = std::path::PathBuf::from(format!("{}.status", out.display()));
    // The status line is complete once its newline is written.
    let status = wait_for("the picker to end", 20, || {
        std::fs::read_to_string(&status)
            .ok()
            .filter(|text| text.ends_with('\n'))
    });
    let stderr = std::fs::read_to_string(format!("{}.err", out.display())).unwrap_or_default();
    assert_eq!(status.trim(), "exit=0", "stderr: {stderr}");
    let text = std::fs::read_to_string(out).unwrap();
    (!text.is_empty()).then(|| serde_json::from_str(&text).unwrap())
}

fn three(env: &Env) -> (SessionRecord, SessionRecord, SessionRecord) {
    let parser = env.new_session(&["--title", "Fix the parser"]);
    let docs = env.new_session(&["--title", "Write the docs"]);
    let review = env.new_session(&["--title", "Review the API"]);
    let mut ready = env.command("lf-session-ready");
    ready
        .env("LF_SESSION_ID", &review.id)
        .env("LF_RUN_ID", env.current_run(&review.id))
        .arg("API ready");
    env.run_command(ready).ok();
    (parser, docs, review)
}

#[test]
fn enter_picks_the_session_that_needs_attention_first() {
    let env = Env::new();
    let (_, _, review) = three(&env);
    let (pane, out) = start_picker(&env, "");
    env.tmux(&["send-keys", "-t", &pane, "Enter"]);
    assert_eq!(chosen(&out).unwrap().id, review.id);
}

#[test]
fn typing_filters_and_arrows_move() {
    let env = Env::new();
    let (parser, _, _) = three(&env);
    let (pane, out) = start_picker(&env, "");
    env.tmux(&["send-keys", "-t", &pane, "-l", "the"]);
    wait_for("the filter to show", 20, || {
        env.capture(&pane).contains("> the").then_some(())
    });
    // Newest first after attention: review, docs, parser; Down twice.
    env.tmux(&["send-keys", "-t", &pane, "Down"]);
    env.tmux(&["send-keys", "-t", &pane, "Down"]);
    env.tmux(&["send-keys", "-t", &pane, "Enter"]);
    assert_eq!(chosen(&out).unwrap().id, parser.id);

    let env2 = Env::new();
    let (_, docs, _) = three(&env2);
    let (pane, out) = start_picker(&env2, "");
    env2.tmux(&["send-keys", "-t", &pane, "-l", "write DOCS"]);
    wait_for("the filter to show", 20, || {
        env2.capture(&pane).contains("> write DOCS").then_some(())
    });
    env2.tmux(&["send-keys", "-t", &pane, "Enter"]);
    assert_eq!(chosen(&out).unwrap().id, docs.id);
}

#[test]
fn escape_leaves_without_choosing_and_an_empty_list_is_not_found() {
    let env = Env::new();
    three(&env);
    let (pane, out) = start_picker(&env, "--attention");
    env.tmux(&["send-keys", "-t", &pane, "Escape"]);
    assert!(chosen(&out).is_none());
    let empty = Env::new();
    let message = empty.run("lf-session-pick", &["--print"]).fails(3);
    assert_eq!(message, "there is no session to pick");
}
