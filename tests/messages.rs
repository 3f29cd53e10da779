//! The exact words a person reads. Elsewhere tests assert error kinds,
//! exit codes and the argument an error is about; here each sentence that
//! matters is pinned as printed, so a rewording is a visible decision.

use crate::remote::{HOSTILE, HOSTILE_SHOWN, Remote, assert_inert, problems_of};
use crate::short_ids::{FIRST, SECOND, twins};
use crate::util::{Child, Env, ErrorJson, bin, fakes};
use lf::wire::HostProblemKind;
use lf::wire::{SessionRecord, SessionState};
use std::process::Command;

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
            "a title cannot contain control, text-direction or invisible characters (found '\\u{1b}')".into(),
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

#[test]
fn a_home_folder_that_cannot_be_made_is_named_with_why() {
    let env = Env::new();
    let file = env.dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let mut command = env.command("lf-session-list");
    command.env("LF_HOME", file.join("home"));
    assert_eq!(
        env.run_command(command).fails(1),
        format!(
            "cannot create the lf Home folder {}; check that its parent exists and is writable, \
             or set LF_HOME\nCaused by: Not a directory (os error 20)",
            file.join("home").display()
        )
    );
}

/// The ids in it are the seed's (`LF_TEST_SEED`, with the Run's time
/// fixed by `LF_TEST_NOW`), so the whole line is pinned, ids and all.
#[test]
fn a_launch_that_failed_says_what_was_recorded_and_what_ran() {
    let env = Env::new();
    let mut new = env.command("lf-session-new");
    new.arg("hello")
        .env("FAKE_AGENT_CRASH_AT_START", "1")
        .env("LF_TEST_SEED", "launch")
        .env("LF_TEST_NOW", "2026-12-02T07:00:00Z");
    let message = env.run_command(new).fails(1);
    let (session, run) = (
        "37116aed5684455b83b2f031a88ad347",
        "run-01m8trv4c0nfy42b76wm000001",
    );
    assert_eq!(env.list(&[])[0].id, session);
    assert_eq!(env.current_run(session), run);
    assert_eq!(
        message,
        format!(
            "Session {session} was recorded but did not start: Run {run}: {}, cwd {}, Home {}, \
             database {}: exited with exit status: 1 before becoming resumable",
            fake_executable("claude"),
            env.work().display(),
            env.home().display(),
            env.home().join("loopflow.db").display()
        )
    );
}

/// A resume whose agent dies before confirming the conversation names the
/// conversation, what the agent said, and what the next open does
/// (tests/real drives the real CLIs to it).
#[test]
fn a_resume_that_dies_at_once_says_the_next_open_starts_anew() {
    let env = Env::new();
    let (id, run, native) = (
        "5e55104f0e1d4c2b9a3e6f7a8b9c0d1e",
        "run-01jx4q8zzzzzzzzzzzzzzzzzzz",
        "4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a",
    );
    env.seed_conversation(id, run, "Fix the parser");
    env.db()
        .execute(
            "UPDATE runs SET native_id = ?2, published = 1 WHERE id = ?1",
            [run, native],
        )
        .unwrap();
    let mut open = env.command("lf-session-open");
    open.args(["--detach", id])
        .env("FAKE_AGENT_CRASH_AT_START", "1");
    assert_eq!(
        env.run_command(open).fails(1),
        format!(
            "Run {run}: {}, cwd {}, Home {}, database {}: the resume of claude conversation \
             {native} exited with exit status: 1 before claude confirmed it; the next open starts \
             a new conversation",
            fake_executable("claude"),
            env.work().display(),
            env.home().display(),
            env.home().join("loopflow.db").display()
        )
    );
}

/// How a launch's message names a fake agent: its path and its digest.
fn fake_executable(name: &str) -> String {
    let agent = fakes().join(name);
    let digest = Command::new("sha256sum")
        .arg(&agent)
        .output()
        .unwrap()
        .stdout;
    format!(
        "executable {} (sha256 {})",
        agent.display(),
        String::from_utf8_lossy(&digest[..64])
    )
}

#[test]
fn an_open_elsewhere_and_a_historical_run_say_what_to_do() {
    let env = Env::new();
    let (id, old, current) = (
        "5e55104f0e1d4c2b9a3e6f7a8b9c0d1e",
        "run-01jx4q8z000000000000000000",
        "run-01jx4q8zzzzzzzzzzzzzzzzzzz",
    );
    env.seed_conversation(id, current, "Fix the parser");
    env.db()
        .execute(
            "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', 0)",
            [old, id],
        )
        .unwrap();
    assert_eq!(
        said(&env, "lf-session-open", &[old, "--print"], 4),
        format!("Run {old} is a historical attempt of Session {id}; its current Run is {current}")
    );
    // A client outside lf's tmux session (another terminal).
    let other = Child::sleep();
    env.lf()
        .record_client(id, other.id(), Some("/dev/pts/99"))
        .unwrap();
    assert_eq!(
        said(&env, "lf-session-open", &[id, "--detach"], 4),
        "This Session is active in another terminal; use Move here to transfer it"
    );
}

#[test]
fn a_hosts_error_text_is_shown_escaped_on_every_path() {
    let remote = Remote::new();
    let here = &remote.here;
    let fail = |program: &str| {
        let error = format!(
            r#"{{"program": "{program}", "kind": "operational", "code": 1, "message": "{HOSTILE}"}}"#
        );
        format!("printf '%s\\n' '{error}' >&2; exit 1")
    };
    remote.fake_twin(&[
        ("lf-session-open", &fail("lf-session-open")),
        ("lf-session-list", &fail("lf-session-list")),
    ]);
    let id = lf::ids::SessionId::new().to_string();

    // --host: the host's refusal, for a person and for a program.
    let ran = here.run("lf-session-open", &["--print", &id, "--host", "twin"]);
    assert_inert(&ran.stderr);
    let message = ran.fails(1);
    assert_eq!(message, format!("on host twin: {HOSTILE_SHOWN}"));
    let mut command = here.command("lf-session-open");
    command
        .env("LF_ERROR_FORMAT", "json")
        .args(["--print", &id, "--host", "twin"]);
    let ran = here.run_command(command);
    assert_inert(&ran.stderr);
    let error: ErrorJson = serde_json::from_str(ran.stderr.trim()).expect("one JSON object");
    assert_eq!((error.kind, error.code), (lf::ErrorKind::Operational, 1));
    // It named no error of its own: the refusal is named as lf's.
    assert_eq!(error.error, "remote_refused");
    assert_eq!(error.program, "lf-session-open");
    assert_inert(&error.message);
    assert!(error.message.contains(HOSTILE_SHOWN), "{error:?}");
    assert!(error.causes.is_empty(), "{error:?}");

    // The lookup through the host list: the host's problem in not-found.
    let ran = here.run("lf-session-open", &["--print", &id]);
    assert_inert(&ran.stderr);
    let message = ran.fails(3);
    assert!(
        message.contains("not found here or on any host"),
        "{message:?}"
    );
    assert!(message.contains(HOSTILE_SHOWN), "{message:?}");

    // A listing: the host's problem line.
    let ran = here.run("lf-session-list", &["--host", "twin"]);
    assert_inert(&ran.stderr);
    let problems = problems_of(&ran);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].problem, HostProblemKind::Failed);
    assert_inert(&problems[0].message);
    assert!(problems[0].message.contains(HOSTILE_SHOWN), "{problems:?}");
}

/// Told apart from a timeout by its variant (tests/remote.rs); here, its
/// words: which host, which bound, what was asked, what to check.
#[test]
fn a_host_that_floods_an_open_is_told_which_bound_it_passed() {
    let remote = Remote::new();
    remote.fake_twin(&[("lf-session-open", "exec yes")]);
    let id = "0123456789abcdef0123456789abcdef";
    assert_eq!(
        said(
            &remote.here,
            "lf-session-open",
            &["--print", id, "--host", "twin"],
            1
        ),
        "host twin sent more than 1 MiB in answer to lf-session-open, more than lf reads from a \
         host, so lf stopped reading and closed the connection; lf-session-open there prints one \
         record, far smaller than that: check what it prints on that host (a login script that \
         prints on stdout, or a program that is not lf)"
    );
}

#[test]
fn an_ambiguous_prefix_is_refused_naming_each_candidate() {
    let env = Env::new();
    twins(&env);
    let said = "\"be336cc7\" names more than one Session: be336cc70 \"Fix the parser\", \
                be336cc7a \"Add a --json flag\"; give more characters of the id";
    for (program, args) in [
        ("lf-session-open", vec!["be336cc7", "--print"]),
        ("lf-session-open", vec!["be336cc7", "--detach"]),
        ("lf-session-rename", vec!["be336cc7", "New title"]),
        ("lf-session-complete", vec!["be336cc7"]),
        ("lf-session-bind", vec!["be336cc7", "LOO-1", "--preview"]),
        ("lf-session-diff", vec!["be336cc7"]),
    ] {
        assert_eq!(env.run(program, &args).fails(2), said, "{program} {args:?}");
    }
    for id in [FIRST, SECOND] {
        let record = env.show(id);
        assert!(record.completed_at.is_none(), "nothing was done to {id}");
        assert_ne!(record.title, "New title");
    }
    // One more character tells them apart.
    let printed: SessionRecord = env.run("lf-session-open", &["be336cc7a", "--print"]).json();
    assert_eq!(printed.id, SECOND);
    assert_eq!(
        env.run("lf-session-open", &["run-01jx4q8z", "--print"])
            .fails(2),
        "\"run-01jx4q8z\" names more than one Run: run-01jx4q8z0 of Session be336cc7 \"Fix the \
         parser\", run-01jx4q8zz of Session be336cc7 \"Add a --json flag\"; give more characters \
         of the id"
    );
}

#[test]
fn a_prefix_shorter_than_six_characters_is_refused_saying_the_minimum() {
    let env = Env::new();
    twins(&env);
    for program in ["lf-session-open", "lf-session-complete"] {
        assert_eq!(
            env.run(program, &["be336"]).fails(2),
            "\"be336\" is too short to name a Session: give at least 6 characters of its id; \
             lf-session-list shows them"
        );
    }
    assert_eq!(
        env.run("lf-session-open", &["run-01jx4", "--print"])
            .fails(2),
        "\"run-01jx4\" is too short to name a Run: give at least 6 characters of its id after run-"
    );
    // A prefix that begins no id is not found (exit 3), as a whole id is.
    assert_eq!(
        env.run("lf-session-open", &["abcdef", "--print"]).fails(3),
        "Session abcdef was not found"
    );
}

#[test]
fn a_read_only_home_says_how_to_make_it_writable() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.new_session(&["--title", "before"]);
    std::fs::set_permissions(env.home(), std::fs::Permissions::from_mode(0o555)).unwrap();
    assert_eq!(
        said(
            &env,
            "lf-session-new",
            &["--no-launch", "--title", "after"],
            1
        ),
        format!(
            "the lf Home folder {0} is read-only (mode 0555) and lf writes there; make it \
             writable (chmod u+w {0}) or set LF_HOME to another folder",
            env.home().display()
        )
    );
}

/// A write on a full disk names the database and says what to do. The
/// Home lives in a 1 MiB tmpfs of a private mount namespace (as root).
#[test]
fn a_full_disk_names_the_database_and_what_to_do() {
    let env = Env::new();
    let script = r#"
        mount -t tmpfs -o size=1m,mode=0700 tmpfs "$1" || exit 90
        export LF_HOME="$1/home"
        "$2" --no-launch 'Before the disk filled' >/dev/null || exit 91
        dd if=/dev/zero of="$1/filler" bs=4096 2>/dev/null
        "$2" --no-launch 'After the disk filled'
    "#;
    let mut command = env.command("lf-session-new");
    let template_env: Vec<_> = command
        .get_envs()
        .filter_map(|(key, value)| Some((key.to_owned(), value?.to_owned())))
        .collect();
    command = Command::new("unshare");
    command
        .env_clear()
        .envs(template_env)
        .current_dir(env.work())
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(env.dir.path().join("disk"))
        .arg(bin("lf-session-new"));
    std::fs::create_dir_all(env.dir.path().join("disk")).unwrap();
    let mut ran = env.run_command(command);
    // The message is lf-session-new's, run through unshare and sh.
    ran.argv[0] = "lf-session-new".to_owned();
    let database = env.dir.path().join("disk/home/loopflow.db");
    assert_eq!(
        ran.fails(1),
        format!(
            "database {}: the disk that holds the lf Home is full; nothing was changed: free \
             some space on it and try again\nCaused by: database or disk is full (DiskFull)\n\
             Caused by: Error code 13: database or disk is full",
            database.display()
        )
    );
}

/// `hook.log` is for the person who wonders why a hook changed nothing:
/// each line says when (the caller's clock, fixed here by `LF_TEST_NOW`),
/// which provider, which Run, and why.
#[test]
fn the_hook_log_says_why_a_call_changed_nothing() {
    let mut env = Env::new();
    env.vars
        .push(("LF_TEST_NOW".into(), "2026-12-02T07:00:00Z".into()));
    let record = env.new_session(&[]);
    let run = env.current_run(&record.id);
    let stop = br#"{"hook_event_name":"Stop","session_id":"4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a"}"#;
    env.hook("claude", None, stop).ok();
    let old = "run-01jx4q8z000000000000000000";
    env.db()
        .execute(
            "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', 0)",
            [old, &record.id],
        )
        .unwrap();
    env.hook("claude", Some(old), stop).ok();
    let other = br#"{"hook_event_name":"SessionStart","session_id":"11111111-2222-4333-8444-555555555555"}"#;
    env.hook("claude", Some(&run), other).ok();
    env.hook("\u{1b}]2;pwned\u{7}\u{1b}[2J", None, b"{}").ok();
    let chosen = env.chosen_native_id(&run);
    assert_eq!(
        std::fs::read_to_string(env.home().join("hook.log")).unwrap(),
        format!(
            "2026-12-02T07:00:00.000000Z claude run=- LF_RUN_ID is not set: this is run by an \
             agent inside a session that lf launched\n\
             2026-12-02T07:00:00.000000Z claude run=\"{old}\" Run {old} is no longer its \
             Session's current Run; the hook changed nothing\n\
             2026-12-02T07:00:00.000000Z claude run=\"{run}\" claude reported native id \
             \"11111111-2222-4333-8444-555555555555\" but Run {run} has {chosen}; not adopted\n\
             2026-12-02T07:00:00.000000Z \"\\u{{1b}}]2;pwned\\u{{7}}\\u{{1b}}[2J\" run=- unknown \
             provider \"\\u{{1b}}]2;pwned\\u{{7}}\\u{{1b}}[2J\": choose claude, codex, gemini, opencode, command\n"
        )
    );
}

#[test]
fn a_completed_session_says_when_and_what_to_do_instead() {
    let env = Env::new();
    let session = env.new_session(&[]);
    env.run("lf-session-complete", &[&session.id]).ok();
    let at = env.show(&session.id).completed_at.expect("completed");
    assert_eq!(
        said(&env, "lf-session-complete", &[&session.id], 4),
        format!(
            "Session {} was completed at {at}; start a new one with lf-session-new, or see it \
             with lf-session-list --all",
            &session.id[..8]
        )
    );
}

/// Notes on stderr beside a result: what a person is told that did not fail.
#[test]
fn notes_say_what_was_done_or_kept() {
    let env = Env::new();
    assert_eq!(
        env.run("lf-session-next", &[]).ok().stderr,
        "lf-session-next: nothing needs you\n"
    );
    let session = env.new_session(&["--title", "Parser rewrite"]);
    assert_eq!(
        env.run(
            "lf-session-rename",
            &[&session.id, "Agent again", "--generated"],
        )
        .ok()
        .stderr,
        "lf-session-rename: kept the title a person chose; a generated title never replaces it\n"
    );
    let (env, session, task) = crate::session_bind::setup();
    assert_eq!(
        env.run("lf-session-bind", &[&session.id, &task.id])
            .ok()
            .stderr,
        format!(
            "Binding {} to LOO-291 (Rewrite the parser). Permanent.\n",
            session.id
        )
    );
}

/// A host's own bytes also reach lf inside a decoder's complaint (serde
/// names an unknown variant as it was sent) and in whatever its shell or
/// ssh said last: both are shown escaped, by an open and in a listing.
#[test]
fn a_hosts_unreadable_record_and_last_words_are_shown_escaped() {
    let remote = Remote::new();
    let here = &remote.here;
    let record = format!(r#"{{"state": "{HOSTILE}"}}"#);
    let print = format!("printf '%s\\n' '{record}'");
    remote.fake_twin(&[("lf-session-open", &print), ("lf-session-list", &print)]);
    let id = lf::ids::SessionId::new().to_string();
    let open = || {
        let ran = here.run("lf-session-open", &["--print", &id, "--host", "twin"]);
        assert_inert(&ran.stderr);
        ran.fails(1)
    };
    let listed = || {
        let ran = here.run("lf-session-list", &["--host", "twin"]);
        assert_inert(&ran.stderr);
        let problems = problems_of(&ran);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_inert(&problems[0].message);
        problems[0].message.clone()
    };
    let message = open();
    assert!(
        message.contains("sent a record this lf cannot read") && message.contains(HOSTILE_SHOWN),
        "{message}"
    );
    let message = listed();
    assert!(message.contains(HOSTILE_SHOWN), "{message}");

    // Not lf's JSON error: the last line its stderr held, as it was.
    let fail = "printf 'it broke \\033]2;x\\007\\033[2J \\342\\200\\256evil\\n' >&2; exit 1";
    let dir = here.dir.path().join("fake-lf");
    for name in ["lf-session-open", "lf-session-list"] {
        std::fs::write(dir.join(name), format!("#!/bin/sh\n{fail}\n")).unwrap();
    }
    let message = open();
    assert!(message.contains(HOSTILE_SHOWN), "{message}");
    let message = listed();
    assert!(message.contains(HOSTILE_SHOWN), "{message}");
}

/// An interactive bash ignores SIGTERM: the wait for it is said, with
/// its pid and command, then the SIGKILL that ends it.
#[test]
fn completing_an_agent_that_ignores_sigterm_says_what_it_waits_for() {
    let env = Env::new();
    let record: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--",
                "bash",
                "--norc",
                "--noprofile",
                "-i",
            ],
        )
        .json();
    let snapshot: lf::snapshot::LiveSnapshot = env.run("lf-session-active", &[]).json();
    let pid = snapshot.sessions[0]
        .processes
        .iter()
        .find(|process| process.command[0] == "bash")
        .unwrap_or_else(|| panic!("bash runs: {snapshot:?}"))
        .pid;
    let short = &record.id[..8];
    let done = env.run("lf-session-complete", &[&record.id, "--grace", "1"]);
    let closed: SessionRecord = done.json();
    assert_eq!(closed.state, SessionState::Closed);
    assert_eq!(
        done.stderr,
        format!(
            "lf-session-complete: Session {short}: its agent (pid {pid}, \"bash --norc --noprofile -i\") \
             still runs 0.5 s after SIGTERM (an interactive shell ignores it); waiting up to 1 s \
             in all, then SIGKILL (--grace sets the wait)\n\
             lf-session-complete: Session {short}: its agent (pid {pid}, \"bash --norc --noprofile -i\") \
             still ran 1 s after SIGTERM: killed it (SIGKILL)\n"
        )
    );
    // An agent that exits at SIGTERM is stopped without a word.
    let quiet = env.new_session(&[]);
    let mut agent = Child::sleep();
    env.lf().record_client(&quiet.id, agent.id(), None).unwrap();
    let done = env.run("lf-session-complete", &[&quiet.id]);
    done.ok();
    assert_eq!(done.stderr, "");
    agent.0.wait().unwrap();
}

#[test]
fn a_late_consumer_is_told_which_events_it_missed() {
    let mut env = Env::new();
    env.vars.push(("LF_EVENTS_KEEP".into(), "2".into()));
    let record = env.new_session(&["--title", "t0"]);
    for n in 1..=5 {
        env.run("lf-session-rename", &[&record.id, &format!("t{n}")])
            .ok();
    }
    let late = env.run("lf-session-watch", &["--since", "1", "--no-follow"]);
    assert_eq!(
        late.ok().stderr,
        "lf-session-watch: events 2 to 4 were pruned before they could be read (the Home \
         keeps the latest LF_EVENTS_KEEP events, 10000 unless set); going on with event 5\n"
    );
}

#[test]
fn removing_a_worktree_says_what_it_would_lose_and_what_it_discarded() {
    use crate::worktree::{git, repository, worktree_session, write};
    let env = Env::new();
    let repo = repository(&env);
    let record = worktree_session(&env, &repo, "spike");
    let worktree = std::path::PathBuf::from(&record.cwd);
    write(&worktree.join("new.rs"), "fn new() {}\n");
    git(&env, &worktree, &["add", "new.rs"]);
    git(&env, &worktree, &["commit", "-qm", "spike"]);
    let tip = git(&env, &worktree, &["rev-parse", "--short", "HEAD"]);
    let tip = tip.trim();
    write(&worktree.join("scratch"), "x\n");
    let id = record.id.as_str();
    assert_eq!(
        said(&env, "lf-session-complete", &[id, "--remove-worktree"], 4),
        format!(
            "removing the worktree \"{}\" of Session {id} would lose 1 untracked file and 1 \
             commit not merged into main on the branch spike; commit and merge that first, or \
             pass --force to discard it",
            worktree.display()
        )
    );
    let ran = env.run("lf-session-complete", &[id, "--remove-worktree", "--force"]);
    assert_eq!(
        ran.ok().stderr,
        format!(
            "lf-session-complete: removed the worktree {} and the branch spike; discarded 1 \
             untracked file and 1 commit not merged into main on the branch spike (its last \
             commit was {tip})\n",
            worktree.display()
        )
    );
}

/// What lf-install-shell tells a person beside its report: a file of their
/// own it kept, a MANPATH that hides the pages, and a shell that will not
/// complete lf's commands until a line is added (tests/install_shell.rs
/// checks the kinds, files and lines; here, the words).
#[test]
fn lf_install_shell_says_what_it_kept_and_what_will_not_work_yet() {
    use crate::install_shell::{BASH_COMPLETION, DEBIAN_BASHRC, User, only_warning, places_of};
    let user = User::new();
    let path = user.write(
        ".local/share/bash-completion/completions/lf-session-list",
        "complete -W '--mine' lf-session-list\n",
    );
    let (report, _) = user.install(&[]);
    assert_eq!(
        report.notes,
        [format!(
            "kept {}: it is not lf's (it has no \"{}\" line), so lf's bash completion for \
             lf-session-list is not there; move it aside and run lf-install-shell again",
            path.display(),
            lf_bins::install::MARK
        )]
    );

    let user = User::new().with("MANPATH", "/usr/share/man");
    user.write(".bashrc", DEBIAN_BASHRC);
    let (report, _) = user.install(&["--shell", "bash"]);
    assert_eq!(
        report.notes,
        [format!(
            "MANPATH is set, so man does not look beside PATH: add {} to it (or end it with a \
             colon) to read lf's man pages",
            user.home.join(".cargo/share/man").display()
        )]
    );

    let user = User::new();
    user.write(".bashrc", "# my own bash settings\nPS1='ready> '\n");
    let (report, _) = user.install(&["--shell", "bash"]);
    let bashrc = user.home.join(".bashrc").display().to_string();
    assert_eq!(
        only_warning(&report).message,
        format!(
            "bash will not complete lf's commands: bash-completion ({BASH_COMPLETION}) is \
             installed but not loaded, as no line of {bashrc} or /etc/bash.bashrc sources it; add \
             this line to {bashrc}: [ -r {BASH_COMPLETION} ] && . {BASH_COMPLETION}"
        )
    );

    let user = User::new();
    user.write(".zshrc", "# my own zsh settings\nPS1='ready> '\n");
    let (report, _) = user.install(&["--shell", "zsh"]);
    assert_eq!(
        only_warning(&report).message,
        format!(
            "zsh will not complete lf's commands: {} runs no compinit (nor oh-my-zsh, prezto, Zim, \
             antigen, zplug or zsh4humans, which run it), so zsh's completion system is off; add \
             this line at its end, after lf's block: autoload -Uz compinit && compinit",
            user.home.join(".zshrc").display()
        )
    );

    // On a system of the test's making with bash-completion nowhere: each
    // place looked in is named, and how to install it.
    let dir = tempfile::tempdir().unwrap();
    let (root, home) = (dir.path().join("root"), dir.path().join("home"));
    std::fs::create_dir_all(&home).unwrap();
    let warnings = lf_bins::install::bash_warnings(&places_of(&home), &root, |_: &str| None);
    let usual = root.join("usr/share/bash-completion/bash_completion");
    assert_eq!(
        warnings
            .iter()
            .map(|warning| &warning.message)
            .collect::<Vec<_>>(),
        [&format!(
            "bash will not complete lf's commands: bash-completion, which loads them, is not \
             installed (there is no {}, {}, {}, {}, {}); install its package (apt install \
             bash-completion, dnf install bash-completion, pacman -S bash-completion), then add \
             this line to {}: [ -r {} ] && . {}",
            usual.display(),
            root.join("usr/local/share/bash-completion/bash_completion")
                .display(),
            root.join("etc/bash_completion").display(),
            root.join("home/linuxbrew/.linuxbrew/etc/profile.d/bash_completion.sh")
                .display(),
            home.join(".nix-profile/share/bash-completion/bash_completion")
                .display(),
            home.join(".bashrc").display(),
            usual.display(),
            usual.display()
        )]
    );
}

/// An agent CLI that is not installed is named, with how to install it,
/// in one sentence (tests/real matches its variant with the real CLIs).
#[test]
fn a_provider_that_is_not_installed_is_named_with_how_to_install_it() {
    let mut env = Env::new();
    env.agents = env.dir.path().join("no-agents");
    let said = ["claude", "codex", "gemini"].map(|provider| {
        said(
            &env,
            "lf-session-new",
            &["--provider", provider, "Fix the parser"],
            1,
        )
    });
    assert_eq!(
        said,
        [
            "\"claude\" is not on PATH: install Claude Code (npm install -g \
             @anthropic-ai/claude-code) or choose another --provider",
            "\"codex\" is not on PATH: install the Codex CLI (npm install -g @openai/codex) or \
             choose another --provider",
            "\"gemini\" is not on PATH: install Gemini CLI (npm install -g @google/gemini-cli) or \
             choose another --provider"
        ]
    );
}

/// An action from afar on a Session that does not wait for it says what
/// it waits for instead, and that nothing reached its agent. The one
/// Session's id is the seed's (`LF_TEST_SEED`), so it is spelled out.
#[test]
fn a_reply_to_a_session_that_owes_none_says_what_it_waits_for() {
    use crate::session_send::{claude_hook, waiting_for_a_reply};
    let mut env = Env::new();
    env.vars.push(("LF_TEST_SEED".into(), "reply".into()));
    let (record, _) = waiting_for_a_reply(&env);
    assert_eq!(record.id, "77a1228b44c24495a6403b737d99dfea");
    claude_hook(&env, &record.id, "UserPromptSubmit");
    assert_eq!(
        said(&env, "lf-session-send", &[&record.id, "too late"], 4),
        "Session 77a1228b does not wait for a reply: its agent is working, or was answered \
         already; nothing was sent to its agent; see it and answer it there with lf-session-open \
         77a1228b"
    );
}

#[test]
fn lf_web_says_why_it_does_not_listen_and_what_to_do() {
    let env = Env::new();
    assert_eq!(
        said(&env, "lf-web", &["--listen", "0.0.0.0:7780"], 2),
        "--listen 0.0.0.0:7780 is every interface of this machine: any network it is on could \
         reach it and try the token; listen on 127.0.0.1 and reach it through an SSH tunnel, or \
         on a VPN's address with --allow-remote (see the README)"
    );
    assert_eq!(
        said(&env, "lf-web", &["--listen", "192.0.2.1:7780"], 2),
        "--listen 192.0.2.1:7780 is not a loopback address: anyone who can reach it could try the \
         token; add --allow-remote to listen there anyway (a VPN's address), or reach 127.0.0.1 \
         through an SSH tunnel (see the README)"
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let busy = said(&env, "lf-web", &["--listen", &address], 1);
    assert_eq!(
        busy.lines().next(),
        Some(
            format!(
                "cannot listen on {address}: another program listens there; choose another port \
                 with --listen"
            )
            .as_str()
        ),
        "{busy}"
    );
}
