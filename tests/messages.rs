//! The exact words a person reads. Elsewhere tests assert error kinds,
//! exit codes and the argument an error is about; here each sentence that
//! matters is pinned as printed, so a rewording is a visible decision.

use crate::util::{Env, ErrorJson};

/// `lf-x: message`, without the program prefix (see `Ran::fails`).
fn said(env: &Env, program: &str, args: &[&str], code: i32) -> String {
    env.run(program, args).fails(code)
}

#[test]
fn errors_say_what_happened_to_what_and_what_to_do() {
    let env = Env::new();
    let missing = "0123456789abcdef0123456789abcdef";
    let cases: Vec<(&str, Vec<&str>, i32, String)> = vec![
        (
            "lf-session-complete",
            vec!["nothex"],
            2,
            "\"nothex\" is not a Session id (32 lowercase hexadecimal characters, or the first 6 or \
             more of them) or a Run id (run- and 26 base32 characters, or the first 6 or more of \
             them)"
                .into(),
        ),
        (
            "lf-session-complete",
            vec![missing],
            3,
            format!("Session {missing} was not found"),
        ),
        (
            "lf-session-open",
            vec!["0123"],
            2,
            "\"0123\" is too short to name a Session: give at least 6 characters of its id; \
             lf-session-list shows them"
                .into(),
        ),
        (
            "lf-host",
            vec!["add", "--", "-oProxyCommand=sh"],
            2,
            "\"-oProxyCommand=sh\" is not a host name lf passes to ssh: use letters, digits and \
             - . _ @ : [ ] %, not starting with -"
                .into(),
        ),
        (
            "lf-host",
            vec!["remove", "build-box"],
            3,
            "host \"build-box\" is not in the host list; see lf-host list, or add it with lf-host add"
                .into(),
        ),
        (
            "lf-session-list",
            vec!["--host", "build-box", "--task", "LOO-1"],
            2,
            "--task names something of this machine, so it cannot be combined with --host or \
             --hosts; remote sessions can be filtered with --attention, --state, --kind, --orphan \
             and --all"
                .into(),
        ),
        (
            "lf-session-new",
            vec!["--no-launch", "--title", "   "],
            2,
            "a title cannot be empty".into(),
        ),
        (
            "lf-session-new",
            vec!["--no-launch", "--title", "a\u{1b}b"],
            2,
            "a title cannot contain control or text-direction characters (found '\\u{1b}')".into(),
        ),
        (
            "lf-session-new",
            vec!["--no-launch", "--model=--evil"],
            2,
            "\"--evil\" is not a valid model name: use up to 100 letters, digits and . - _ : / @ [ ], \
             not starting with -"
                .into(),
        ),
        (
            "lf-session-new",
            vec!["--no-launch", "--task", "LOO-404"],
            3,
            "Task \"LOO-404\" is not registered; see lf-work task list, or register it with \
             lf-work task add"
                .into(),
        ),
        (
            "lf-session-new",
            vec!["--no-launch", "--provider", "command"],
            2,
            "the command provider needs the command to run; for example lf-session-new \
             --provider command -- htop"
                .into(),
        ),
        (
            "lf-session-list",
            vec!["--after", "42.x"],
            2,
            "\"42.x\" is not a page cursor: pass the \"next\" value of a previous page".into(),
        ),
        (
            "lf-session-ready",
            vec!["done"],
            2,
            "LF_SESSION_ID is not set: this is run by an agent inside a session that lf launched"
                .into(),
        ),
        (
            "lf-session-complete",
            vec![missing, "--grace", "9999"],
            2,
            "invalid value '9999' for '--grace <SECONDS>': --grace takes a number of seconds \
             from 0 to 3600\n\nFor more information, try '--help'."
                .into(),
        ),
        (
            "lf-handoff",
            vec![
                "open",
                "task:LOO-1",
                "--provider",
                "codex",
                "--body-generation",
                "1",
                "--reason",
                "login",
                "--env",
                "LD_PRELOAD=/tmp/x.so",
                "--",
                "tmux",
                "attach-session",
            ],
            2,
            "environment variable LD_PRELOAD cannot be given to a handoff: the dynamic loader \
             reads it and loads code of the opener's choosing into the program. The person who \
             attaches sees only the variables' names, so an opener may give only credentials, \
             named in capitals ending in _TOKEN, _KEY, _KEY_ID, _SECRET or _PASSWORD (such as \
             GH_TOKEN or OPENAI_API_KEY); put anything else in the attach command, where the \
             person sees it"
                .into(),
        ),
    ];
    for (program, args, code, expected) in cases {
        assert_eq!(
            said(&env, program, &args, code),
            expected,
            "{program} {args:?}"
        );
    }
}

#[test]
fn a_lower_level_cause_follows_the_message() {
    let env = Env::new();
    let missing = env.work().join("gone");
    let message = said(
        &env,
        "lf-session-new",
        &["--no-launch", "--cwd", missing.to_str().unwrap()],
        2,
    );
    assert_eq!(
        message,
        format!(
            "the working directory {:?} cannot be used\nCaused by: No such file or directory (os error 2)",
            missing.display().to_string()
        )
    );
}

#[test]
fn programs_get_the_message_and_its_causes_as_json() {
    let env = Env::new();
    let mut command = env.command("lf-session-new");
    command
        .env("LF_ERROR_FORMAT", "json")
        .args(["--no-launch", "--cwd", "/nonexistent/lf"]);
    let ran = env.run_command(command);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let error: ErrorJson = serde_json::from_str(ran.stderr.trim()).expect("one JSON object");
    assert_eq!(error.program, "lf-session-new");
    assert_eq!(error.error, "unusable_dir");
    assert_eq!(error.arg.as_deref(), Some("cwd"));
    assert_eq!((error.kind, error.code), (lf::ErrorKind::Usage, 2));
    assert_eq!(
        error.message,
        "the working directory \"/nonexistent/lf\" cannot be used: No such file or directory (os error 2)"
    );
    assert_eq!(error.causes, ["No such file or directory (os error 2)"]);
    assert_eq!(error.hint, None);
}

/// What to type next is the error's hint: the binaries print it after the
/// message, spelled as binaries, and give it alone as `hint` in JSON (the
/// plugin's spelling is its own: plugin/src/commands/mod.rs).
#[test]
fn a_hint_names_the_binary_to_type_after_the_message() {
    let env = Env::new();
    let args = ["--no-launch", "--task", "LOO-404"];
    let hint = "see lf-work task list, or register it with lf-work task add";
    assert_eq!(
        env.run("lf-session-new", &args).fails(3),
        format!("Task \"LOO-404\" is not registered; {hint}")
    );
    let error = env
        .attempt("lf-session-new", &args)
        .fails_with(3, "task_not_found");
    assert_eq!(error.hint.as_deref(), Some(hint));
    assert_eq!(
        error.message,
        format!("Task \"LOO-404\" is not registered; {hint}")
    );
}
