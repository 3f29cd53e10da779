use crate::util::*;
use lf::wire::SessionRecord;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn spawn_all(env: &Env, count: usize, make: impl Fn(usize) -> Command) -> Vec<Ran> {
    let children: Vec<_> = (0..count)
        .map(|index| {
            let mut command = make(index);
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            let argv: Vec<String> = std::iter::once(command.get_program())
                .chain(command.get_args())
                .map(|arg| arg.to_string_lossy().into_owned())
                .collect();
            (argv, command.spawn().unwrap())
        })
        .collect();
    let _ = env;
    children
        .into_iter()
        .map(|(argv, child)| {
            let output = child.wait_with_output().unwrap();
            Ran {
                argv,
                code: output.status.code(),
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            }
        })
        .collect()
}

fn integrity(env: &Env) -> String {
    env.db()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap()
}

#[test]
fn sixteen_concurrent_completions_have_exactly_one_winner() {
    let env = Env::new();
    let session = env.new_session(&[]);
    let agent = Child::sleep();
    env.lf()
        .record_client(&session.id, agent.id(), Some("%1"))
        .unwrap();
    let results = spawn_all(&env, 16, |_| {
        let mut command = env.json_errors("lf-session-complete");
        command.arg(&session.id);
        command
    });
    let winners: Vec<&Ran> = results.iter().filter(|ran| ran.code == Some(0)).collect();
    assert_eq!(winners.len(), 1, "{results:#?}");
    let winner: SessionRecord = winners[0].json();
    for loser in results.iter().filter(|ran| ran.code != Some(0)) {
        loser.fails_with(4, "already_complete");
    }
    assert_eq!(env.show(&session.id).completed_at, winner.completed_at);
}

#[test]
fn sixteen_concurrent_writers_never_see_a_locked_database() {
    let env = Env::new();
    env.run("lf-session-list", &[]).ok();
    let results = spawn_all(&env, 16, |index| {
        let mut command = env.command("lf-session-new");
        command.args(["--no-launch", "--title", &format!("writer {index}")]);
        command
    });
    for ran in &results {
        let _: SessionRecord = ran.json();
    }
    assert_eq!(env.list(&[]).len(), 16);
    // And renames of those different sessions, all at once.
    let ids: Vec<String> = env.list(&[]).into_iter().map(|record| record.id).collect();
    let results = spawn_all(&env, 16, |index| {
        let mut command = env.command("lf-session-rename");
        command.args([&ids[index], &format!("renamed {index}")]);
        command
    });
    for ran in &results {
        ran.ok();
    }
    assert!(
        env.list(&[])
            .iter()
            .all(|record| record.title.starts_with("renamed"))
    );
    assert_eq!(integrity(&env), "ok");
}

#[test]
fn fresh_processes_migrating_an_empty_home_at_once_all_succeed() {
    for _round in 0..8 {
        let env = Env::new();
        let results = spawn_all(&env, 4, |_| env.command("lf-session-list"));
        for ran in &results {
            let records: Vec<SessionRecord> = ran.json();
            assert!(records.is_empty());
        }
        let version: i64 = env
            .db()
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, lf::store::schema::version());
    }
}

#[test]
fn a_writer_killed_mid_transaction_leaves_a_sound_database() {
    let env = Env::new();
    let kept = env.new_session(&["--title", "kept"]);
    // A real writer holding an open write transaction, then SIGKILL.
    let mut writer = Command::new("sqlite3")
        .arg(env.home().join("loopflow.db"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sqlite3 is installed");
    let mut stdin = writer.stdin.take().unwrap();
    writeln!(
        stdin,
        "BEGIN IMMEDIATE;\n\
         UPDATE sessions SET title = 'half-written';\n\
         INSERT INTO waves VALUES ('wave-00000000000000000000000000', 'lost', '/', 0);\n\
         SELECT 'in-transaction';"
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    BufReader::new(writer.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "in-transaction");
    writer.kill().unwrap();
    writer.wait().unwrap();
    drop(stdin);

    assert_eq!(integrity(&env), "ok");
    assert_eq!(env.show(&kept.id).title, "kept");
    let waves: Vec<lf::wire::WaveRecord> = env.run("lf-work", &["wave", "list"]).json();
    assert!(waves.is_empty());
    // The lock died with the writer: the next write goes through.
    env.new_session(&["--title", "after"]);
    assert_eq!(env.list(&[]).len(), 2);
}

#[test]
fn writers_killed_at_random_moments_lose_nothing_committed() {
    let env = Env::new();
    env.run("lf-session-list", &[]).ok();
    let mut delay_us = 200u64;
    for round in 0..24 {
        let mut child = env
            .command("lf-session-new")
            .args(["--no-launch", "--title", &format!("round {round}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(delay_us));
        let _ = child.kill();
        child.wait().unwrap();
        delay_us = delay_us * 3 / 2 % 40_000 + 100;
    }
    assert_eq!(integrity(&env), "ok");
    let listed = env.list(&[]);
    let stored: i64 = env
        .db()
        .query_row("SELECT count(*) FROM sessions", [], |row| row.get(0))
        .unwrap();
    assert_eq!(listed.len() as i64, stored);
    let runs: i64 = env
        .db()
        .query_row(
            "SELECT count(*) FROM sessions s JOIN runs r ON r.id = s.current_run_id",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(runs, stored, "a session was committed without its run");
}

#[test]
fn a_newer_or_corrupt_database_is_refused_and_left_as_it_was() {
    let env = Env::new();
    env.new_session(&[]);
    env.db().pragma_update(None, "user_version", 999).unwrap();
    let before = std::fs::read(env.home().join("loopflow.db")).unwrap();
    env.attempt("lf-session-list", &[])
        .fails_with(1, "newer_schema");
    env.run("lf-session-new", &["--no-launch"]).fails(1);
    assert_eq!(
        std::fs::read(env.home().join("loopflow.db")).unwrap(),
        before
    );

    let env = Env::new();
    std::fs::create_dir_all(env.home()).unwrap();
    let garbage = b"SQLite format 2\0 not really".repeat(200);
    std::fs::write(env.home().join("loopflow.db"), &garbage).unwrap();
    env.attempt("lf-session-list", &[])
        .fails_with(1, "database");
    assert_eq!(
        std::fs::read(env.home().join("loopflow.db")).unwrap(),
        garbage
    );
}

/// A Claude hook process for `run`, its payload written to its stdin.
fn spawn_hook(env: &Env, run: &str, native: &str, event: &str) -> std::process::Child {
    let payload = serde_json::json!({
        "hook_event_name": event,
        "session_id": native,
        "notification_type": "permission_prompt",
    });
    let mut child = env
        .command("lf-hook")
        .arg("claude")
        .env("LF_RUN_ID", run)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    child
}

/// The most common Home: its Sessions were created once, and for weeks
/// only hooks write. A hook process, too, must bound the WAL as it closes
/// (it exits without unwinding, so its store must be closed first): else
/// every hook rebuilds the WAL index from a WAL that grows by every hook.
#[test]
fn hooks_alone_keep_the_wal_bounded() {
    let env = Env::new();
    let id = env.new_session(&["--title", "agent"]).id;
    let (run, native): (String, String) = env
        .db()
        .query_row(
            "SELECT r.id, r.chosen_native_id FROM sessions s \
             JOIN runs r ON r.id = s.current_run_id WHERE s.id = ?1",
            [&id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    let wal = env.home().join("loopflow.db-wal");
    let mut largest = 0;
    for step in 0..800usize {
        let event = ["PermissionRequest", "Stop"][step % 2];
        assert!(
            spawn_hook(&env, &run, &native, event)
                .wait()
                .unwrap()
                .success()
        );
        largest = largest.max(std::fs::metadata(&wal).map(|meta| meta.len()).unwrap_or(0));
    }
    assert!(
        largest <= 2 * lf::store::WAL_LIMIT,
        "800 hooks grew the WAL to {largest} bytes (limit {})",
        lf::store::WAL_LIMIT
    );
    assert_eq!(env.list(&[]).len(), 1);
}

/// Thousands of short-lived writers, one after another, as a Home really
/// ages: each process is the only one with the database open, so SQLite
/// rebuilds its WAL index from the WAL on every open. The WAL must stay
/// bounded (it grew by every commit ever made when no process checkpointed),
/// and writers killed on the way lose nothing committed.
#[test]
fn the_wal_stays_bounded_across_thousands_of_separate_writers() {
    let env = Env::new();
    for agent in 0..4 {
        env.run(
            "lf-session-new",
            &["--no-launch", "--title", &format!("agent {agent}")],
        )
        .ok();
    }
    // No connection of the test's own may stay open: it would keep the
    // WAL index alive and hide what lone processes do.
    let runs: Vec<(String, String)> = {
        let db = env.db();
        let mut statement = db
            .prepare(
                "SELECT r.id, r.chosen_native_id FROM sessions s \
                 JOIN runs r ON r.id = s.current_run_id ORDER BY s.created_at",
            )
            .unwrap();
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let wal = env.home().join("loopflow.db-wal");
    let wal_size = || std::fs::metadata(&wal).map(|meta| meta.len()).unwrap_or(0);
    let events = ["UserPromptSubmit", "PermissionRequest", "Stop"];
    let (mut largest, mut created, mut killed) = (0u64, 4usize, 0usize);
    for step in 0..1800usize {
        if step % 6 == 5 {
            env.run(
                "lf-session-new",
                &["--no-launch", "--title", &format!("session {step}")],
            )
            .ok();
            created += 1;
        } else {
            let (run, native) = &runs[step % runs.len()];
            let event = events[(step / runs.len()) % events.len()];
            let mut child = spawn_hook(&env, run, native, event);
            if step % 97 == 0 {
                std::thread::sleep(std::time::Duration::from_micros(300 + step as u64 % 4000));
                killed += usize::from(child.kill().is_ok());
            }
            child.wait().unwrap();
        }
        largest = largest.max(wal_size());
    }
    assert!(killed > 0);
    // One closing process may leave up to its own commits past the limit.
    assert!(
        largest <= 2 * lf::store::WAL_LIMIT,
        "the WAL reached {largest} bytes (limit {})",
        lf::store::WAL_LIMIT
    );
    assert_eq!(integrity(&env), "ok");
    assert_eq!(env.list(&[]).len(), created);
    assert!(
        !env.home().join("hook.log").exists(),
        "{}",
        std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default()
    );
}
