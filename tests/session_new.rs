use crate::util::*;
use lf::wire::{FlowMembership, SessionKind, SessionState, TitleSource, WorkRef};

#[test]
fn a_new_conversation_is_recorded_with_a_prepared_run() {
    let env = Env::new();
    let cwd = env.mkdir("repo");
    let record = env.new_session(&[
        "--provider",
        "codex",
        "--model",
        "gpt-5.1-codex",
        "--cwd",
        cwd.to_str().unwrap(),
        "Fix the flaky parser test\nIt fails on CI.",
    ]);
    assert_eq!(record.id.len(), 32);
    assert_eq!(record.kind, SessionKind::Conversation);
    assert_eq!(record.title, "Fix the flaky parser test");
    assert_eq!(record.title_source, TitleSource::Generated);
    assert_eq!(record.provider.as_deref(), Some("codex"));
    assert_eq!(record.detail, "codex:gpt-5.1-codex");
    assert_eq!(record.cwd, cwd.to_str().unwrap());
    assert_eq!(record.state, SessionState::Unknown);
    assert_eq!(record.attention, None);
    assert_eq!(record.flow_membership, FlowMembership::Independent);
    assert!(record.interactive);
    assert_eq!(
        record.open_argv,
        vec![
            "/usr/bin/env".to_owned(),
            format!("LF_HOME={}", env.home().display()),
            bin("lf-session-list")
                .with_file_name("lf-session-open")
                .display()
                .to_string(),
            record.id.clone(),
        ]
    );
    let db = env.db();
    let (run, prepared, published, prompt): (String, bool, bool, String) = db
        .query_row(
            "SELECT r.id, r.prepared, r.published, r.prompt FROM runs r JOIN sessions s ON s.current_run_id = r.id WHERE s.id = ?1",
            [&record.id],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
        )
        .unwrap();
    assert!(lf::ids::RunId::parse(&run).is_ok(), "{run}");
    assert!(prepared && !published);
    assert_eq!(prompt, "Fix the flaky parser test\nIt fails on CI.");
    // The wire never names a Run.
    let raw = env.run("lf-session-list", &[]).stdout;
    assert!(!raw.contains(&run) && !raw.contains("run_id"));
}

#[test]
fn a_human_title_and_a_task_are_kept() {
    let env = Env::new();
    let worktree = env.mkdir("loo-291");
    env.run(
        "lf-work",
        &[
            "wave",
            "add",
            "product",
            "--repo",
            env.work().to_str().unwrap(),
        ],
    )
    .ok();
    let task: lf::wire::TaskRecord = env
        .run(
            "lf-work",
            &[
                "task",
                "add",
                "LOO-291",
                "--title",
                "Parser",
                "--worktree",
                worktree.to_str().unwrap(),
                "--wave",
                "product",
            ],
        )
        .json();
    let record = env.new_session(&["--task", "LOO-291", "--title", "  Review the parser  "]);
    assert_eq!(record.title, "Review the parser");
    assert_eq!(record.title_source, TitleSource::Human);
    assert_eq!(
        record.cwd,
        worktree.to_str().unwrap(),
        "a Task's session works in its worktree"
    );
    assert_eq!(record.work, Some(WorkRef::Task(task.id.clone())));
    assert_eq!(record.wave_id, task.wave_id);
    assert_eq!(record.work_path.as_deref(), Some("product / LOO-291"));
    assert_eq!(record.task_ids, vec![task.id]);
}

#[test]
fn the_command_provider_records_its_argv() {
    let env = Env::new();
    let record = env.new_session(&["--provider", "command", "--", "htop", "-d", "10"]);
    assert_eq!(record.provider.as_deref(), Some("command"));
    assert_eq!(record.title, "htop in work");
    let argv: String = env
        .db()
        .query_row(
            "SELECT argv FROM runs WHERE session_id = ?1",
            [&record.id],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&argv).unwrap(),
        ["htop", "-d", "10"]
    );
}

fn session_count(env: &Env) -> i64 {
    if !env.home().join("loopflow.db").exists() {
        return 0;
    }
    env.db()
        .query_row("SELECT count(*) FROM sessions", [], |row| row.get(0))
        .unwrap()
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let env = Env::new();
    let long_title = "x".repeat(10_000);
    let missing = env.work().join("missing");
    // (arguments, exit code, variant, the argument it is about)
    let cases: Vec<(Vec<&str>, i32, &str, Option<&str>)> = vec![
        (
            vec!["--title", "bad\u{1b}[2Jtitle"],
            2,
            "control_character",
            Some("title"),
        ),
        (
            vec!["--title", &long_title],
            2,
            "text_too_long",
            Some("title"),
        ),
        (vec!["--title", "   "], 2, "empty_text", Some("title")),
        (
            vec!["--cwd", missing.to_str().unwrap()],
            2,
            "unusable_dir",
            Some("cwd"),
        ),
        (vec!["--provider", "aider"], 2, "command_line", None),
        (vec!["--model=--evil"], 2, "bad_token", Some("model")),
        (vec!["--model", "a;rm -rf"], 2, "bad_token", Some("model")),
        (
            vec!["--provider", "command"],
            2,
            "bad_command",
            Some("argv"),
        ),
        (
            vec!["--provider", "command", "prompt", "--", "ls"],
            2,
            "bad_command",
            Some("argv"),
        ),
        (
            vec!["--", "ls", "-l"],
            2,
            "argv_not_for_agent",
            Some("argv"),
        ),
        (vec!["--task", "LOO-404"], 3, "task_not_found", Some("task")),
    ];
    for (args, code, variant, arg) in cases {
        let mut all = vec!["--no-launch"];
        all.extend(args.iter());
        let error = env
            .attempt("lf-session-new", &all)
            .fails_with(code, variant);
        assert_eq!(error.arg.as_deref(), arg, "{args:?}: {error:?}");
    }
    assert_eq!(session_count(&env), 0);
}

#[test]
fn a_cwd_given_through_a_symlink_is_stored_resolved() {
    let env = Env::new();
    let real = env.mkdir("real");
    let link = env.work().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let record = env.new_session(&["--cwd", link.to_str().unwrap()]);
    assert_eq!(record.cwd, real.to_str().unwrap());
}
