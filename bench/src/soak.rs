//! `lf-bench-soak --bin DIR --home DIR [--hooks N] [--creates N] [--agents N] [--window N]`
//!
//! Ages a Home the way a user's really ages: every operation is a separate,
//! short-lived process, one after another — `lf-hook claude` for each hook
//! event of `--agents` conversations (turn started, permission prompt, turn
//! completed, in rotation) and `lf-session-new --no-launch` for the creates,
//! spread evenly among the hooks. A `true` process is timed beside them as
//! the floor of starting any program.
//!
//! Prints, as one JSON object, for each kind of operation the median wall
//! time of the first and the last `--window` operations and their ratio,
//! the median of `true` over the same windows, and the size of the WAL
//! sampled every `--window` operations (largest and last).

use anyhow::{Context, Result, bail};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Age a Home with separate lf processes and report how their latency
/// and the WAL changed.
#[derive(clap::Parser)]
#[command(name = "lf-bench-soak")]
struct Args {
    /// The folder holding release builds of lf-hook and lf-session-new.
    #[arg(long)]
    bin: PathBuf,
    /// The Home to age (created when missing).
    #[arg(long)]
    home: PathBuf,
    /// How many lf-hook processes.
    #[arg(long, default_value_t = 50_000)]
    hooks: usize,
    /// How many lf-session-new processes, spread among the hooks.
    #[arg(long, default_value_t = 10_000)]
    creates: usize,
    /// How many conversations the hooks speak for.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..))]
    agents: u16,
    /// The size of the first and last windows, and the WAL sampling period.
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..))]
    window: u32,
}

/// Run one process to its end and return its wall time in milliseconds.
fn timed(command: &mut Command, stdin: Option<&[u8]>) -> Result<f64> {
    let start = Instant::now();
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {command:?}"))?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes)?;
    }
    let output = child.wait_with_output()?;
    let elapsed = start.elapsed().as_secs_f64() * 1000.0;
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(elapsed)
}

fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|meta| meta.len()).unwrap_or(0)
}

/// First-vs-last windows of one kind of operation.
fn summary(name: &str, times: &[f64], window: usize) -> serde_json::Value {
    let window = window.min(times.len() / 2).max(1);
    let first = median(&times[..window.min(times.len())]);
    let last = median(&times[times.len().saturating_sub(window)..]);
    json!({
        "operation": name,
        "count": times.len(),
        "window": window,
        "first_median_ms": first,
        "last_median_ms": last,
        "last_over_first": last / first,
    })
}

fn main() -> Result<()> {
    let args = <Args as clap::Parser>::parse();
    let window = args.window as usize;
    let new = args.bin.join("lf-session-new");
    let hook = args.bin.join("lf-hook");
    let db = args.home.join("loopflow.db");
    let wal = args.home.join("loopflow.db-wal");
    // `lf-session-new` refuses a provider it cannot find; the soak never
    // launches, so any program named `claude` will do.
    let fake_path = args.home.with_extension("path");
    std::fs::create_dir_all(&fake_path)?;
    let fake = fake_path.join("claude");
    if !fake.exists() {
        std::os::unix::fs::symlink("/bin/true", &fake)?;
    }
    let path = format!(
        "{}:{}",
        fake_path.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let create = |title: String| -> Command {
        let mut command = Command::new(&new);
        command
            .env("LF_HOME", &args.home)
            .env("PATH", &path)
            .args(["--no-launch", "--provider", "claude", "--cwd", "/"])
            .arg(title);
        command
    };

    // The agents whose hooks arrive: sessions created like any other.
    for agent in 0..args.agents {
        timed(&mut create(format!("Soak agent {agent}")), None)?;
    }
    // Each agent's Run and the Claude session id lf chose for it.
    let runs: Vec<(String, String)> = {
        let conn = rusqlite::Connection::open(&db)?;
        let mut statement = conn.prepare(
            "SELECT r.id, r.chosen_native_id FROM sessions s JOIN runs r ON r.id = s.current_run_id \
             WHERE s.title LIKE 'Soak agent %' ORDER BY s.created_at DESC LIMIT ?1",
        )?;
        statement
            .query_map([i64::from(args.agents)], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?
            .collect::<rusqlite::Result<_>>()?
    };

    let events = ["UserPromptSubmit", "PermissionRequest", "Stop"];
    let payload = |native: &str, event: &str| -> Vec<u8> {
        json!({
            "hook_event_name": event,
            "session_id": native,
            "transcript_path": "/nonexistent/transcript.jsonl",
            "cwd": "/",
            "tool_name": "Bash",
        })
        .to_string()
        .into_bytes()
    };

    let total = args.hooks + args.creates;
    let create_every = total
        .checked_div(args.creates)
        .map_or(usize::MAX, |every| every.max(1));
    let mut hooks = Vec::with_capacity(args.hooks);
    let mut creates = Vec::with_capacity(args.creates);
    let mut floor = Vec::new();
    let mut wal_samples = Vec::new();
    let started = Instant::now();
    let (mut hooks_done, mut creates_done) = (0usize, 0usize);
    for op in 0..total {
        let is_create = creates_done < args.creates
            && (op % create_every == create_every - 1 || hooks_done == args.hooks);
        if is_create {
            creates.push(timed(
                &mut create(format!("Soak session {creates_done}")),
                None,
            )?);
            creates_done += 1;
        } else {
            let (run, native) = &runs[hooks_done % runs.len()];
            let event = events[(hooks_done / runs.len()) % events.len()];
            let mut command = Command::new(&hook);
            command
                .env("LF_HOME", &args.home)
                .env("LF_RUN_ID", run)
                .arg("claude");
            hooks.push(timed(&mut command, Some(&payload(native, event)))?);
            hooks_done += 1;
        }
        if op % 10 == 0 {
            floor.push(timed(&mut Command::new("true"), None)?);
        }
        if (op + 1) % window == 0 || op + 1 == total {
            let sample = json!({
                "operations": op + 1,
                "seconds": started.elapsed().as_secs_f64(),
                "wal_bytes": file_size(&wal),
                "db_bytes": file_size(&db),
            });
            eprintln!("{sample}");
            wal_samples.push(sample);
        }
    }
    let largest_wal = wal_samples
        .iter()
        .filter_map(|sample| sample["wal_bytes"].as_u64())
        .max()
        .unwrap_or(0);
    let floor_window = window / 10;
    let report = json!({
        "hooks": summary("lf-hook claude", &hooks, window),
        "creates": summary("lf-session-new --no-launch", &creates, window),
        "true": summary("true", &floor, floor_window),
        "hook_over_true": median(&hooks) / median(&floor),
        "largest_wal_bytes": largest_wal,
        "final_wal_bytes": file_size(&wal),
        "final_db_bytes": file_size(&db),
        "hook_log_bytes": file_size(&args.home.join("hook.log")),
        "seconds": started.elapsed().as_secs_f64(),
        "wal_samples": wal_samples,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
