//! lf-session-usage: what Sessions used, read from the agents' own records
//! as they append to them. Transcripts here are written by the test in
//! the providers' shapes; tests/real checks the same sums against what the
//! real CLIs wrote for answers of known usage.

use crate::schema::{assert_keys_match, def, fixture, read_json, round_trip, validate};
use crate::util::Env;
use lf::wire::{TokenCounts, UsageBy, UsageRow};
use std::io::Write;
use std::path::Path;

/// `lf-session-usage ARGS --json`, checked against its schema, decoded.
pub fn usage_rows(env: &Env, args: &[&str]) -> Vec<UsageRow> {
    let mut all = args.to_vec();
    all.push("--json");
    let ran = env.run("lf-session-usage", &all);
    ran.ok();
    let value: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap_or_else(|error| {
        panic!(
            "lf-session-usage printed no JSON ({error}):\n{}",
            ran.stdout
        )
    });
    let schema = read_json("schema/usage.schema.json");
    validate(&schema, &schema, &value, "").unwrap();
    for row in value.as_array().unwrap() {
        assert_keys_match("a usage row", row, def(&schema, "UsageRow"));
        assert_keys_match("a usage", &row["usage"], def(&schema, "Usage"));
    }
    serde_json::from_value(value).unwrap()
}

/// The usage row of one Session.
pub fn session_usage(env: &Env, id: &str) -> Option<UsageRow> {
    usage_rows(env, &["--by", "session"])
        .into_iter()
        .find(|row| row.key == id)
}

#[test]
fn the_fixture_round_trips_and_the_schema_is_the_types() {
    let value = fixture("usage.json");
    let rows = round_trip::<Vec<UsageRow>>("usage.json", &value);
    let schema = read_json("schema/usage.schema.json");
    validate(&schema, &schema, &value, "").unwrap();
    for row in value.as_array().unwrap() {
        assert_keys_match("UsageRow", row, def(&schema, "UsageRow"));
        assert_keys_match("Usage", &row["usage"], def(&schema, "Usage"));
        assert_keys_match(
            "TokenCounts",
            &row["usage"]["tokens"],
            def(&schema, "TokenCounts"),
        );
        for model in row["usage"]["models"].as_array().unwrap() {
            assert_keys_match("ModelUsage", model, def(&schema, "ModelUsage"));
        }
    }
    let groupings: Vec<serde_json::Value> = UsageBy::ALL
        .iter()
        .map(|by| serde_json::to_value(by).unwrap())
        .collect();
    assert_eq!(
        def(&schema, "UsageRow")["properties"]["by"]["enum"]
            .as_array()
            .unwrap(),
        &groupings
    );
    assert_eq!(rows[1].usage.cost, None, "an unpriced model has no cost");
}

/// A Claude assistant line: one content block of message `id`.
pub(crate) fn assistant(id: &str, at: &str, model: &str, usage: [u64; 4]) -> String {
    let [input, output, creation, read] = usage;
    format!(
        r#"{{"type":"assistant","timestamp":"{at}","requestId":"req_{id}","message":{{"id":"{id}","model":"{model}","role":"assistant","content":[{{"type":"text","text":"hi"}}],"usage":{{"input_tokens":{input},"output_tokens":{output},"cache_creation_input_tokens":{creation},"cache_read_input_tokens":{read}}}}}}}"#
    )
}

pub(crate) fn prompt(at: &str, text: &str) -> String {
    format!(
        r#"{{"type":"user","timestamp":"{at}","message":{{"role":"user","content":"{text}"}}}}"#
    )
}

pub(crate) fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// A Session whose Run's hooks named its conversation's transcript (a
/// file named after the conversation, as Claude's is), and that file.
pub(crate) fn claude_session(env: &Env) -> (String, String, std::path::PathBuf) {
    let record = env.new_session(&[]);
    let run = env.current_run(&record.id);
    let chosen = env.chosen_native_id(&run);
    let transcript = env.dir.path().join(format!("{chosen}.jsonl"));
    append(&transcript, "");
    env.hook(
        "claude",
        Some(&run),
        format!(
            r#"{{"hook_event_name":"SessionStart","session_id":"{chosen}","source":"startup","transcript_path":"{}"}}"#,
            transcript.display()
        )
        .as_bytes(),
    )
    .ok();
    (record.id, run, transcript)
}

fn tokens(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> TokenCounts {
    TokenCounts {
        input,
        output,
        cache_creation,
        cache_read,
        total: input + output + cache_creation + cache_read,
    }
}

/// Claude writes a line per content block, each with the message's usage
/// (the later ones complete): a message counts once, as its last line
/// says; only complete lines are read, and each read starts where the last
/// one ended; a `/clear`'s new transcript adds to the same Session.
#[test]
fn a_claude_message_counts_once_across_reads_and_a_clear() {
    let env = Env::new();
    let (id, run, transcript) = claude_session(&env);
    let model = "claude-sonnet-4-5-20250929";
    append(
        &transcript,
        &format!(
            "{}\n{}\n{}\n",
            prompt("2026-12-01T10:00:00Z", "Fix it"),
            assistant("msg_1", "2026-12-01T10:00:05Z", model, [100, 1, 20, 300]),
            assistant("msg_1", "2026-12-01T10:00:09Z", model, [100, 50, 20, 300]),
        ),
    );
    let first = session_usage(&env, &id).expect("the session's usage");
    assert_eq!(first.usage.tokens, tokens(100, 50, 20, 300));
    assert_eq!((first.usage.requests, first.usage.turns), (1, 1));
    assert_eq!(first.usage.working.0, 9);
    // The same message's next block, read by the next run; and half a
    // line, not read until it is whole.
    let second = assistant("msg_2", "2026-12-01T10:01:09Z", model, [7, 8, 0, 9]);
    let (head, tail) = second.split_at(40);
    append(
        &transcript,
        &format!(
            "{}\n{}\n{head}",
            assistant("msg_1", "2026-12-01T10:00:10Z", model, [100, 60, 20, 300]),
            prompt("2026-12-01T10:01:00Z", "And then"),
        ),
    );
    let again = session_usage(&env, &id).unwrap();
    assert_eq!(again.usage.tokens, tokens(100, 60, 20, 300));
    assert_eq!(again.usage.turns, 2);
    assert_eq!(again.usage.waiting.0, 50, "10:00:10 to 10:01:00");
    append(&transcript, &format!("{tail}\n"));
    let whole = session_usage(&env, &id).unwrap();
    assert_eq!(whole.usage.tokens, tokens(107, 68, 20, 309));
    assert_eq!(whole.usage.requests, 2);
    // Reading again without anything appended changes nothing.
    assert_eq!(session_usage(&env, &id).unwrap(), whole);

    // `/clear`: a new conversation and transcript for the same Run.
    let new_id = "11111111-2222-4333-8444-555555555555";
    let cleared = env.dir.path().join(format!("{new_id}.jsonl"));
    append(
        &cleared,
        &format!(
            "{}\n{}\n",
            prompt("2026-12-02T09:00:00Z", "Fresh start"),
            assistant("msg_3", "2026-12-02T09:00:02Z", "claude-fake", [1, 2, 3, 4]),
        ),
    );
    env.hook(
        "claude",
        Some(&run),
        format!(
            r#"{{"hook_event_name":"SessionStart","session_id":"{new_id}","source":"clear","transcript_path":"{}"}}"#,
            cleared.display()
        )
        .as_bytes(),
    )
    .ok();
    let both = session_usage(&env, &id).unwrap();
    assert_eq!(both.usage.tokens, tokens(108, 70, 23, 313));
    assert_eq!(both.usage.turns, 3);
    assert_eq!(both.usage.cost, None, "claude-fake has no price");
    assert_eq!(both.usage.unpriced, ["claude-fake"]);
    let models: Vec<(&str, u64)> = both
        .usage
        .models
        .iter()
        .map(|model| (model.model.as_str(), model.requests))
        .collect();
    assert_eq!(models, [(model, 2), ("claude-fake", 1)]);
    assert!(both.usage.models[0].cost.is_some());

    // By day (UTC), and from a day on.
    let days: Vec<(String, u64)> = usage_rows(&env, &[])
        .into_iter()
        .map(|row| (row.key, row.usage.tokens.total))
        .collect();
    assert_eq!(
        days,
        [
            ("2026-12-01".to_owned(), 107 + 68 + 20 + 309),
            ("2026-12-02".to_owned(), 10)
        ]
    );
    let since: Vec<String> = usage_rows(&env, &["--since", "2026-12-02"])
        .into_iter()
        .map(|row| row.key)
        .collect();
    assert_eq!(since, ["2026-12-02"]);
    let table = env.run("lf-session-usage", &["--by", "provider"]);
    table.ok();
    assert!(table.stdout.contains("price unknown"), "{}", table.stdout);
}

/// Codex repeats a `token_count` with the same cumulative total (a rate
/// limit update, a resumed rollout's replay): it counts once; its input
/// holds the cached tokens, which lf counts as cache reads.
#[test]
fn a_codex_total_repeated_counts_once() {
    let env = Env::new();
    let record = env.new_session(&["--provider", "codex"]);
    let run = env.current_run(&record.id);
    let thread = "11111111-2222-4333-8444-555555555555";
    let rollout = env
        .dir
        .path()
        .join(format!("rollout-2026-12-01T10-00-00-{thread}.jsonl"));
    let count = |at: &str, total: [u64; 3], last: [u64; 3]| {
        let usage = |[input, cached, output]: [u64; 3]| {
            format!(
                r#"{{"input_tokens":{input},"cached_input_tokens":{cached},"output_tokens":{output},"reasoning_output_tokens":0,"total_tokens":{}}}"#,
                input + output
            )
        };
        format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"model_context_window":1000}},"rate_limits":null}}}}"#,
            usage(total),
            usage(last)
        )
    };
    let lines = [
        r#"{"timestamp":"2026-12-01T10:00:00Z","type":"turn_context","payload":{"cwd":"/","model":"gpt-5-codex"}}"#.to_owned(),
        r#"{"timestamp":"2026-12-01T10:00:00Z","type":"event_msg","payload":{"type":"task_started"}}"#.to_owned(),
        count("2026-12-01T10:00:03Z", [100, 40, 10], [100, 40, 10]),
        count("2026-12-01T10:00:03Z", [100, 40, 10], [100, 40, 10]),
        count("2026-12-01T10:00:06Z", [250, 90, 30], [150, 50, 20]),
        r#"{"timestamp":"2026-12-01T10:00:07Z","type":"event_msg","payload":{"type":"task_complete"}}"#.to_owned(),
    ];
    append(&rollout, &(lines.join("\n") + "\n"));
    env.hook(
        "codex",
        Some(&run),
        format!(
            r#"{{"hook_event_name":"SessionStart","session_id":"{thread}","source":"startup","transcript_path":"{}"}}"#,
            rollout.display()
        )
        .as_bytes(),
    )
    .ok();
    let row = session_usage(&env, &record.id).expect("the session's usage");
    assert_eq!(row.usage.tokens, tokens(160, 30, 0, 90));
    assert_eq!((row.usage.requests, row.usage.turns), (2, 1));
    assert_eq!(row.usage.working.0, 7);
    assert_eq!(row.usage.models[0].model, "gpt-5-codex");
    assert!(row.usage.cost.is_some());
}

#[test]
fn a_day_that_is_not_one_is_refused() {
    let env = Env::new();
    let refused = env
        .attempt("lf-session-usage", &["--since", "2026-13-01"])
        .fails_with(2, "bad_token");
    assert_eq!(refused.arg.as_deref(), Some("since"));
}

/// A Claude subagent writes its own transcript beside its conversation's
/// (`<conversation>/subagents/agent-*.jsonl`, every line `isSidechain`):
/// its requests count for the Session, its prompt is no turn of the
/// person's, and a notice Claude sends itself when it ends is no turn
/// either.
#[test]
fn a_claude_subagents_requests_count_and_its_prompts_are_no_turns() {
    let env = Env::new();
    let (id, _run, transcript) = claude_session(&env);
    let model = "claude-sonnet-4-5-20250929";
    append(
        &transcript,
        &format!(
            "{}\n{}\n{}\n",
            prompt("2026-12-01T10:00:00Z", "Delegate it"),
            assistant("msg_1", "2026-12-01T10:00:01Z", model, [1, 1, 1, 1]),
            r#"{"type":"user","timestamp":"2026-12-01T10:00:30Z","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>a1</task-id>"}}"#,
        ),
    );
    let subagents = transcript.with_extension("").join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let sidechain = |line: String| line.replacen("{", r#"{"isSidechain":true,"#, 1);
    append(
        &subagents.join("agent-a1.jsonl"),
        &format!(
            "{}\n{}\n",
            sidechain(prompt("2026-12-01T10:00:02Z", "Count the files")),
            sidechain(assistant(
                "msg_2",
                "2026-12-01T10:00:20Z",
                model,
                [10, 10, 10, 10]
            )),
        ),
    );
    let row = session_usage(&env, &id).unwrap();
    assert_eq!(row.usage.tokens, tokens(11, 11, 11, 11));
    assert_eq!((row.usage.requests, row.usage.turns), (2, 1));
    assert_eq!(row.usage.working.0, 30, "to the subagent's notice");
    // The subagent's file grows: read from where it was.
    append(
        &subagents.join("agent-a1.jsonl"),
        &format!(
            "{}\n",
            sidechain(assistant(
                "msg_3",
                "2026-12-01T10:00:25Z",
                model,
                [5, 0, 0, 0]
            ))
        ),
    );
    assert_eq!(
        session_usage(&env, &id).unwrap().usage.tokens,
        tokens(16, 11, 11, 11)
    );
}

/// A model's name is the agent's text: the table shows its terminal
/// controls escaped, never acted on.
#[test]
fn a_models_terminal_controls_are_shown_escaped() {
    let env = Env::new();
    let (_, _, transcript) = claude_session(&env);
    append(
        &transcript,
        &format!(
            "{}\n",
            assistant(
                "msg_1",
                "2026-12-01T10:00:01Z",
                r"evil\u001b[2J",
                [1, 1, 1, 1]
            )
        ),
    );
    let table = env.run("lf-session-usage", &[]);
    table.ok();
    assert!(!table.stdout.contains('\u{1b}'), "{:?}", table.stdout);
    assert!(table.stdout.contains(r"evil\u{1b}[2J"), "{}", table.stdout);
}

/// Issue 34, item 15b: two transcript lines with `input_tokens:
/// i64::MAX` and `output_tokens: -5000000000000` made a negative cost,
/// and the sums' overflow made every later read fail until the
/// transcript changed. Such a line is not counted (and noted), the others
/// are, and every call succeeds with no negative number.
#[test]
fn hostile_token_counts_are_not_counted_and_usage_still_reads() {
    let env = Env::new();
    let (id, _, transcript) = claude_session(&env);
    let hostile = |message: &str, input: &str, output: &str| {
        format!(
            r#"{{"type":"assistant","timestamp":"2026-12-01T10:00:01Z","requestId":"req_{message}","message":{{"id":"{message}","model":"claude-sonnet-4-5","role":"assistant","content":[],"usage":{{"input_tokens":{input},"output_tokens":{output},"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}}"#
        )
    };
    append(
        &transcript,
        &format!(
            "{}\n{}\n{}\n",
            hostile("msg_1", "9223372036854775807", "1"),
            hostile("msg_2", "1", "-5000000000000"),
            assistant(
                "msg_3",
                "2026-12-01T10:00:02Z",
                "claude-sonnet-4-5",
                [1_000_000, 0, 0, 0]
            ),
        ),
    );
    let call = || {
        let ran = env.run("lf-session-usage", &["--by", "session", "--json"]);
        ran.ok();
        let rows: Vec<UsageRow> = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|error| panic!("{error}: {}", ran.stdout));
        let row = rows
            .into_iter()
            .find(|row| row.key == id)
            .expect("the Session's row");
        (row, ran.stderr)
    };
    let (first, noted) = call();
    assert!(
        noted.contains("2 model request(s) not counted"),
        "the refused lines are noted: {noted}"
    );
    assert_eq!(first.usage.tokens, tokens(1_000_000, 0, 0, 0));
    assert_eq!(first.usage.requests, 1);
    let cost = first.usage.cost.expect("priced");
    assert!((cost - 3.0).abs() < 1e-9, "{cost}");
    // Again, and after more is appended: every call reads.
    let (again, _) = call();
    assert_eq!(again.usage, first.usage);
    append(
        &transcript,
        &format!(
            "{}\n",
            assistant(
                "msg_4",
                "2026-12-01T10:00:03Z",
                "claude-sonnet-4-5",
                [0, 1_000_000, 0, 0]
            )
        ),
    );
    let (later, _) = call();
    assert_eq!(later.usage.tokens, tokens(1_000_000, 1_000_000, 0, 0));
    assert!(
        later
            .usage
            .cost
            .is_some_and(|cost| cost >= 0.0 && (cost - 18.0).abs() < 1e-9)
    );
}
