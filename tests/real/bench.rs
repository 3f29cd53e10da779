//! The real CLIs' launch benchmark. `bench/launch.sh` runs it with
//! `LF_BENCH_ROUNDS` rounds and reports the numbers; the suite runs one
//! round of start and reply, as a test that those transitions happen at all
//! (each waits for its condition and fails when it never comes). It asserts
//! nothing about speed. For each CLI, in one run and interleaved:
//! - **start**: from spawning `lf-session-new` until the agent's prompt is
//!   on screen and `lf-session-list` says `active`, against the same CLI
//!   started directly in tmux (no lf) until its prompt is on screen;
//! - **reply**: from the model server's last byte of an answer until
//!   `lf-session-list` says `reply`, against until the answer is on the
//!   direct CLI's screen.
//!
//! - **attention** (every CLI, only in bench/launch.sh): from the
//!   permission dialog on screen until `approve`, from the answer (Enter)
//!   until `approve` is gone, from Esc on a running turn until `reply`,
//!   and from `lf-session-open` of the killed agent until it returns (a
//!   resume lf has confirmed: Claude's SessionStart, Codex's settle).
//!
//! Prints one JSON line per measurement and a summary of medians.

use super::*;
use crate::model::{Server, anthropic, chat, gemini, responses};
use std::time::{Duration, Instant};

struct Cli {
    provider: &'static str,
    /// The arguments of the direct start. Codex gets a `-c` override as
    /// lf's launch does (`-c hooks…`): with none, it starts a background
    /// app-server daemon that outlives the TUI (and the test).
    direct: &'static [&'static str],
    ready: &'static str,
    /// The CLI's permission dialog.
    dialog: &'static str,
    /// What the CLI shows while a turn runs.
    running: &'static str,
    /// On screen after a first Esc, when the CLI wants a second to
    /// interrupt (OpenCode).
    escape_again: Option<&'static str>,
    /// Where the CLI keeps its history under HOME, as text files (OpenCode
    /// keeps it in SQLite, written as the turn goes: none).
    history: Option<&'static str>,
    start: fn() -> Server,
    env: fn(&Server, &[&str]) -> Env,
}

/// OpenCode's environment takes no trusted folders (it asks no trust).
fn opencode_bench_env(model: &Server, _trusted: &[&str]) -> Env {
    opencode_env(model)
}

const CLIS: [Cli; 4] = [
    Cli {
        provider: "claude",
        direct: &[],
        ready: "for shortcuts",
        dialog: "Do you want to proceed?",
        running: "esc to interrupt",
        escape_again: None,
        history: Some(".claude"),
        start: anthropic::start,
        env: claude_env,
    },
    Cli {
        provider: "codex",
        direct: &["-c", "check_for_update_on_startup=false"],
        ready: "for shortcuts",
        dialog: "Would you like to run the following command?",
        running: "esc to interrupt",
        escape_again: None,
        history: Some(".codex"),
        start: responses::start,
        env: codex_env,
    },
    Cli {
        provider: "gemini",
        direct: &[],
        ready: "Type your message",
        dialog: "Allow execution of",
        running: "esc to cancel",
        escape_again: None,
        history: Some(".gemini"),
        start: gemini::start,
        env: gemini_env,
    },
    Cli {
        provider: "opencode",
        direct: &[],
        ready: "ctrl+p commands",
        dialog: "Permission required",
        running: "esc interrupt",
        escape_again: Some("esc again to interrupt"),
        history: None,
        start: chat::start,
        env: opencode_bench_env,
    },
];

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Poll `probe` as fast as it goes; when it first held.
fn until(what: &str, mut probe: impl FnMut() -> bool) -> Instant {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if probe() {
            return Instant::now();
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn screen_has(env: &Env, pane: &str, text: &str) -> bool {
    env.tmux_command(&["capture-pane", "-p", "-t", pane])
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains(text))
}

/// One lf launch: (start, reply) in ms.
fn through_lf(cli: &Cli, round: usize) -> (f64, f64) {
    let model = (cli.start)();
    let env = (cli.env)(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let begun = Instant::now();
    let record = new_session(&env, cli.provider, &cwd, None);
    let pane = pane(&record);
    let shown = until("the prompt through lf", || {
        screen_has(&env, &pane, cli.ready)
    });
    let listed = until("active", || {
        env.show(&record.id).state == SessionState::Active
    });
    let start = millis(shown.max(listed) - begun);
    let prompt = format!("Benchmark round {round}");
    say(&env, &pane, &prompt);
    let seen = until("reply", || {
        env.show(&record.id).attention == Some(Attention::Reply)
    });
    let answered = model.wait_prompt(&prompt, 30).answered.unwrap();
    (start, millis(seen - answered))
}

/// The same CLI started directly in tmux: (start, reply) in ms.
fn direct(cli: &Cli, round: usize) -> (f64, f64) {
    let model = (cli.start)();
    let env = (cli.env)(&model, &["repo"]);
    if cli.provider == "claude" {
        // Claude started by hand asks a person who keeps the dialogs once
        // whether to make auto mode their default; lf's launch settings
        // keep it out. The baseline is a person who answered it.
        let state = env.dir.path().join(".claude.json");
        let mut value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
        value["hasSeenAutoDefaultNudge"] = true.into();
        std::fs::write(&state, value.to_string()).unwrap();
    }
    let cwd = env.mkdir("repo");
    let begun = Instant::now();
    let cwd_text = cwd.display().to_string();
    let mut argv = vec![
        "new-session",
        "-d",
        "-s",
        "direct",
        "-c",
        &cwd_text,
        "-x",
        "200",
        "-y",
        "50",
        "--",
        cli.provider,
    ];
    argv.extend_from_slice(cli.direct);
    env.tmux(&argv);
    let pane = "=direct:";
    let shown = until("the prompt of the direct CLI", || {
        screen_has(&env, pane, cli.ready)
    });
    let start = millis(shown - begun);
    let prompt = format!("Benchmark round {round}");
    say(&env, pane, &prompt);
    let turn = model.wait_received(1, 30).len();
    let seen = until("the answer on screen", || {
        screen_has(&env, pane, &format!("Answer {turn}."))
    });
    let answered = model.wait_prompt(&prompt, 30).answered.unwrap();
    (start, millis(seen.max(answered) - answered))
}

/// Press `key` until `text` leaves the screen; when the press it left on
/// was made. A key that reaches a TUI as a prompt opens can be lost (seen
/// with Codex under load), so a press that changed nothing is repeated.
fn press_until_gone(env: &Env, pane: &str, key: &str, text: &str) -> Instant {
    (0..10)
        .find_map(|_| {
            let pressed = Instant::now();
            keys(env, pane, &[key]);
            while pressed.elapsed() < Duration::from_secs(2) {
                if !screen_has(env, pane, text) {
                    return Some(pressed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            None
        })
        .unwrap_or_else(|| panic!("{text:?} stays on screen after {key}"))
}

/// Interrupt the running turn with Esc; when the last press was made.
/// OpenCode asks for a second Esc: a first press it took late may have
/// been the second already (the turn ended), and its ask may expire (the
/// turn runs on: press again).
fn interrupt(cli: &Cli, env: &Env, pane: &str, session: &str) -> Instant {
    let mut pressed = press_until_gone(env, pane, "Escape", cli.running);
    let Some(again) = cli.escape_again else {
        return pressed;
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if screen_has(env, pane, again) {
            return press_until_gone(env, pane, "Escape", again);
        }
        if env.show(session).attention == Some(Attention::Reply) {
            return pressed;
        }
        if screen_has(env, pane, cli.running) {
            pressed = press_until_gone(env, pane, "Escape", cli.running);
        }
        assert!(Instant::now() < deadline, "Esc does not interrupt the turn");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A CLI's attention latencies through lf: (dialog → approve, answer →
/// cleared, Esc → reply, open of the killed agent → resumed) in ms.
fn attention(cli: &Cli, round: usize) -> (f64, f64, f64, f64) {
    let model = (cli.start)();
    let env = (cli.env)(&model, &["repo"]);
    let cwd = env.mkdir("repo");
    let record = new_session(&env, cli.provider, &cwd, None);
    let pane = pane(&record);
    until("the prompt", || screen_has(&env, &pane, cli.ready));
    say(
        &env,
        &pane,
        &format!("[run: touch file-{round}] Make a file"),
    );
    let dialog = until("the dialog", || screen_has(&env, &pane, cli.dialog));
    let approve = until("approve", || {
        env.show(&record.id).attention == Some(Attention::Approve)
    });
    let answered = press_until_gone(&env, &pane, "Enter", cli.dialog);
    let cleared = until("approve cleared", || {
        env.show(&record.id).attention != Some(Attention::Approve)
    });
    until("the reply", || {
        env.show(&record.id).attention == Some(Attention::Reply)
    });
    until("the prompt again", || screen_has(&env, &pane, cli.ready));
    say(&env, &pane, "[slow: 60] Think");
    until("the turn running", || screen_has(&env, &pane, cli.running));
    until("working", || env.show(&record.id).attention.is_none());
    let escaped = interrupt(cli, &env, &pane, &record.id);
    let replied = until("reply after Esc", || {
        env.show(&record.id).attention == Some(Attention::Reply)
    });
    // The agent's own history holds the exchange before it is killed
    // (`.claude`, `.codex` or `.gemini` in the sealed HOME; OpenCode's
    // SQLite is written as the turn goes).
    if let Some(history) = cli.history {
        wait_history(&env.dir.path().join(history), &["[slow: 60] Think"], 30);
    }
    env.tmux(&["kill-pane", "-t", &pane]);
    until("no live agent", || !env.show(&record.id).alive);
    let opening = Instant::now();
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", &record.id]).json();
    let resumed = Instant::now();
    assert!(opened.alive, "{opened:#?}");
    let signed = |later: Instant, earlier: Instant| match later.checked_duration_since(earlier) {
        Some(duration) => millis(duration),
        None => -millis(earlier - later),
    };
    (
        signed(approve, dialog),
        millis(cleared - answered),
        millis(replied - escaped),
        millis(resumed - opening),
    )
}

#[test]
fn bench_real_cli_launch_and_reply() {
    let benchmark: Option<usize> = std::env::var("LF_BENCH_ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok());
    let rounds = benchmark.unwrap_or(1);
    // `LF_BENCH_CLIS=gemini,codex` measures only those.
    let only = std::env::var("LF_BENCH_CLIS").ok();
    let clis: Vec<&Cli> = CLIS
        .iter()
        .filter(|cli| {
            only.as_deref()
                .is_none_or(|only| only.split(',').any(|name| name == cli.provider))
        })
        .collect();
    println!("\nreal CLI launch benchmark ({rounds} rounds each, medians, ms)");
    for cli in &clis {
        let (mut lf_start, mut lf_reply, mut raw_start, mut raw_reply) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let (start, reply) = direct(cli, round);
            raw_start.push(start);
            raw_reply.push(reply);
            let (start, reply) = through_lf(cli, round);
            lf_start.push(start);
            lf_reply.push(reply);
            println!(
                r#"{{"cli":"{}","round":{round},"direct_start_ms":{:.1},"lf_start_ms":{:.1},"direct_reply_ms":{:.1},"lf_reply_ms":{:.1}}}"#,
                cli.provider, raw_start[round], lf_start[round], raw_reply[round], lf_reply[round]
            );
        }
        let (lf_start, raw_start) = (median(&mut lf_start), median(&mut raw_start));
        let (lf_reply, raw_reply) = (median(&mut lf_reply), median(&mut raw_reply));
        println!(
            "  {:6} start: lf {lf_start:7.1} vs direct {raw_start:7.1}  (+{:.1})   reply: lf {lf_reply:6.1} vs direct {raw_reply:6.1}  (+{:.1})",
            cli.provider,
            lf_start - raw_start,
            lf_reply - raw_reply
        );
    }
    // The attention latencies are only measured by bench/launch.sh: each
    // transition is a test of its own in `real::claude`, and this scenario
    // (Esc the moment a slow turn shows) is too timing-bound to run among
    // the parallel suite.
    if benchmark.is_none() {
        return;
    }
    for cli in &clis {
        let mut measured: [Vec<f64>; 4] = Default::default();
        for round in 0..rounds {
            let (a, c, r, o) = attention(cli, round);
            println!(
                r#"{{"cli":"{}","round":{round},"dialog_to_approve_ms":{a:.1},"answer_to_cleared_ms":{c:.1},"esc_to_reply_ms":{r:.1},"open_to_resumed_ms":{o:.1}}}"#,
                cli.provider
            );
            for (values, value) in measured.iter_mut().zip([a, c, r, o]) {
                values.push(value);
            }
        }
        let [approve, cleared, replied, opened] = measured.map(|mut values| median(&mut values));
        println!(
            "  {:6} attention: dialog → approve {approve:.1}, answer → cleared {cleared:.1}, Esc → reply {replied:.1}; open → resumed {opened:.1}",
            cli.provider
        );
    }
}
