use crate::util::*;
use std::io::Write;
use std::process::Stdio;

/// Everything the hook could change, as text.
fn snapshot(env: &Env) -> String {
    let db = env.db();
    let mut rows = Vec::new();
    for sql in [
        "SELECT id, title, latest_turn, permission_pending, updated_at, current_run_id, ready_summary FROM sessions ORDER BY id",
        "SELECT id, native_id, outcome, published FROM runs ORDER BY id",
    ] {
        let mut statement = db.prepare(sql).unwrap();
        let count = statement.column_count();
        let mut query = statement.query([]).unwrap();
        while let Some(row) = query.next().unwrap() {
            let values: Vec<String> = (0..count)
                .map(|index| format!("{:?}", row.get_ref(index).unwrap()))
                .collect();
            rows.push(values.join("|"));
        }
    }
    rows.join("\n")
}

fn hook_log_lines(env: &Env) -> usize {
    std::fs::read_to_string(env.home().join("hook.log"))
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// A small deterministic generator, so a failure can be replayed.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

#[test]
fn random_and_truncated_payloads_change_nothing_and_are_logged() {
    let env = Env::new();
    let record = env.new_session(&["--title", "fuzzed"]);
    let run = env.current_run(&record.id);
    let codex = env.new_session(&["--provider", "codex", "--title", "fuzzed codex"]);
    let codex_run = env.current_run(&codex.id);
    let before = snapshot(&env);
    let valid_claude = r#"{"hook_event_name":"Stop","session_id":"4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a","transcript_path":"/x","cwd":"/"}"#;
    let valid_codex = r#"{"type":"agent-turn-complete","thread-id":"t-1","turn-id":"1","cwd":"/","input-messages":[],"last-assistant-message":"ok"}"#;
    let mut random = XorShift(0x5eed_1234_abcd_ef01);
    let mut calls = 0;
    for round in 0..40 {
        let length = (random.next() % 300) as usize;
        let mut payloads = vec![random.bytes(length)];
        let cut = (random.next() as usize) % valid_claude.len();
        payloads.push(valid_claude.as_bytes()[..cut].to_vec());
        for payload in payloads {
            let ran = env.hook("claude", Some(&run), &payload);
            assert_eq!(ran.code, Some(0), "round {round}: {ran:?}");
            assert_eq!(ran.stdout, "", "round {round}");
            calls += 1;
        }
        let cut = (random.next() as usize) % valid_codex.len();
        let ran = env.hook("codex", Some(&codex_run), &valid_codex.as_bytes()[..cut]);
        assert_eq!(
            (ran.code, ran.stdout.as_str()),
            (Some(0), ""),
            "round {round}"
        );
        calls += 1;
    }
    assert_eq!(snapshot(&env), before, "a bad payload changed the store");
    assert_eq!(
        hook_log_lines(&env),
        calls,
        "every bad call leaves one line"
    );
}

#[test]
fn hooks_without_a_run_or_for_a_superseded_run_change_nothing() {
    let env = Env::new();
    let record = env.new_session(&[]);
    let run = env.current_run(&record.id);
    let stop = br#"{"hook_event_name":"Stop","session_id":"4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a"}"#;
    let before = snapshot(&env);
    for (provider, run) in [
        ("claude", None),
        ("claude", Some("run-../../etc/passwd")),
        ("claude", Some("run-0000000000000000000000000z")),
        ("gemini", Some(run.as_str())),
        ("codex", Some(run.as_str())),
    ] {
        let ran = env.hook(provider, run, stop);
        assert_eq!(
            (ran.code, ran.stdout.as_str()),
            (Some(0), ""),
            "{provider} {run:?}"
        );
    }
    // A Run that is no longer current.
    let old = lf::ids::RunId::new().to_string();
    env.db()
        .execute(
            "INSERT INTO runs (id, session_id, provider, created_at) VALUES (?1, ?2, 'claude', 0)",
            [&old, &record.id],
        )
        .unwrap();
    let before_old = snapshot(&env);
    let ran = env.hook("claude", Some(&old), stop);
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert_eq!(snapshot(&env), before_old);
    assert!(before_old.contains(&before.lines().next().unwrap()[..40]));
    // Each call left its line (tests/messages.rs pins what they say).
    assert_eq!(hook_log_lines(&env), 6);
    // Bad arguments are logged too, and still exit 0 silently.
    let mut command = env.command("lf-hook");
    command.arg("--what");
    let ran = env.run_command(command);
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
}

#[test]
fn a_valid_hook_records_the_turn_of_its_own_run() {
    let env = Env::new();
    let record = env.new_session(&[]);
    let run = env.current_run(&record.id);
    let chosen = env.chosen_native_id(&run);
    let payload = |event: &str, extra: &str| {
        format!(r#"{{"hook_event_name":"{event}","session_id":"{chosen}","cwd":"/"{extra}}}"#)
            .into_bytes()
    };
    env.hook(
        "claude",
        Some(&run),
        &payload("SessionStart", r#","source":"startup""#),
    )
    .ok();
    env.hook(
        "claude",
        Some(&run),
        &payload("UserPromptSubmit", r#","prompt":"hi""#),
    )
    .ok();
    assert_eq!(env.show(&record.id).attention, None);
    env.hook(
        "claude",
        Some(&run),
        &payload("Notification", r#","notification_type":"idle_prompt""#),
    )
    .ok();
    assert_eq!(
        env.show(&record.id).attention,
        None,
        "idle_prompt is not a request for approval"
    );
    env.hook(
        "claude",
        Some(&run),
        &payload("PermissionRequest", r#","tool_name":"Bash""#),
    )
    .ok();
    assert_eq!(
        env.show(&record.id).attention,
        Some(lf::wire::Attention::Approve)
    );
    env.hook("claude", Some(&run), &payload("Stop", "")).ok();
    assert_eq!(
        env.show(&record.id).attention,
        Some(lf::wire::Attention::Reply)
    );
    let native: Option<String> = env
        .db()
        .query_row("SELECT native_id FROM runs WHERE id = ?1", [&run], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(native.as_deref(), Some(chosen.as_str()));
    // The person quits the agent while it waits for approval: nothing is
    // pending any more, and the Run's end is noted.
    env.hook(
        "claude",
        Some(&run),
        &payload("PermissionRequest", r#","tool_name":"Bash""#),
    )
    .ok();
    assert_eq!(
        env.show(&record.id).attention,
        Some(lf::wire::Attention::Approve)
    );
    env.hook(
        "claude",
        Some(&run),
        &payload("SessionEnd", r#","reason":"prompt_input_exit""#),
    )
    .ok();
    assert_eq!(
        env.show(&record.id).attention,
        Some(lf::wire::Attention::Reply)
    );
    let ended: Option<i64> = env
        .db()
        .query_row("SELECT ended_at FROM runs WHERE id = ?1", [&run], |row| {
            row.get(0)
        })
        .unwrap();
    assert!(ended.is_some());
    // Another id is logged, never adopted.
    let other = br#"{"hook_event_name":"SessionStart","session_id":"11111111-2222-4333-8444-555555555555"}"#;
    let (native, logged) = (env.native_id(&record.id), hook_log_lines(&env));
    env.hook("claude", Some(&run), other).ok();
    assert_eq!(env.native_id(&record.id), native, "not adopted");
    assert_eq!(hook_log_lines(&env), logged + 1, "logged");
}

/// Once a provider is named, every argument is the provider's: a hook
/// prints nothing and exits 0 even when its payload looks like a flag.
#[test]
fn a_hook_prints_nothing_whatever_its_argv() {
    let env = Env::new();
    for args in [
        &["codex", "--version"][..],
        &["claude", "-h"],
        &["claude", "--help"],
        &["codex", "-V", "{}"],
        &["claude", "--bogus"],
    ] {
        let ran = env.run("lf-hook", args);
        assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""), "{args:?}");
        assert_eq!(ran.stderr, "", "{args:?}");
    }
    assert_eq!(hook_log_lines(&env), 5);
    // A person asking lf-hook itself still gets its help.
    let help = env.run("lf-hook", &["--help"]);
    assert!(help.ok().stdout.contains("Examples:"), "{}", help.stdout);
}

/// Codex's own hooks (JSON on stdin): the thread its first SessionStart
/// names is the conversation; a turn of any other thread (the title
/// thread's notification, say) is not counted; `/new` and `/clear` move the
/// Run to the thread the person has now.
#[test]
fn codex_hooks_count_only_the_conversations_thread() {
    let env = Env::new();
    let record = env.new_session(&["--provider", "codex", "--title", "codex hooks"]);
    let run = env.current_run(&record.id);
    const THREAD: &str = "01a2315a-05c6-74e0-ad45-23f4feeebf7f";
    const TITLE: &str = "01a2315a-501c-7b30-9641-07b4023f55d5";
    const NEW: &str = "01a2315e-83e4-7301-9cf6-caaba80728e4";
    let hook = |payload: String| {
        let mut command = env.command("lf-hook");
        command
            .arg("codex")
            .env("LF_RUN_ID", &run)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!((output.status.code(), output.stdout.len()), (Some(0), 0));
    };
    let event = |thread: &str, event: &str, extra: &str| {
        format!(
            r#"{{"session_id":"{thread}","transcript_path":"/h/.codex/sessions/rollout-2026-12-01T11-25-13-{thread}.jsonl","cwd":"/w","hook_event_name":"{event}","model":"gpt"{extra}}}"#
        )
    };
    let native = || -> (Option<String>, Option<String>) {
        env.db()
            .query_row(
                "SELECT native_id, transcript_path FROM runs WHERE id = ?1",
                [&run],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap()
    };
    hook(event(THREAD, "SessionStart", r#","source":"startup""#));
    hook(event(THREAD, "UserPromptSubmit", r#","prompt":"hi""#));
    assert_eq!(native().0.as_deref(), Some(THREAD));
    assert!(native().1.unwrap().ends_with(&format!("{THREAD}.jsonl")));
    // The title thread finishes first: not the conversation.
    let title = format!(
        r#"{{"type":"agent-turn-complete","thread-id":"{TITLE}","turn-id":"1","cwd":"/w","input-messages":["Generate a concise, single-line task title"],"last-assistant-message":"A title"}}"#
    );
    env.hook("codex", Some(&run), title.as_bytes()).ok();
    hook(event(TITLE, "Stop", ""));
    assert_eq!(env.show(&record.id).attention, None, "the turn still runs");
    assert_eq!(native().0.as_deref(), Some(THREAD));
    hook(event(THREAD, "PermissionRequest", r#","tool_name":"Bash""#));
    assert_eq!(
        env.show(&record.id).attention,
        Some(lf::wire::Attention::Approve)
    );
    hook(event(THREAD, "PostToolUse", r#","tool_name":"Bash""#));
    assert_eq!(env.show(&record.id).attention, None);
    hook(event(THREAD, "Stop", r#","stop_hook_active":false"#));
    assert_eq!(
        env.show(&record.id).attention,
        Some(lf::wire::Attention::Reply)
    );
    // `/new`: the agent's next thread is the conversation now.
    hook(event(NEW, "SessionStart", r#","source":"startup""#));
    hook(event(NEW, "UserPromptSubmit", r#","prompt":"again""#));
    assert_eq!(env.show(&record.id).attention, None);
    let (moved, transcript) = native();
    assert_eq!(moved.as_deref(), Some(NEW));
    assert!(transcript.unwrap().ends_with(&format!("{NEW}.jsonl")));
    let log = std::fs::read_to_string(env.home().join("hook.log")).unwrap();
    assert_eq!(log.matches("not counted").count(), 2, "{log}");
}
