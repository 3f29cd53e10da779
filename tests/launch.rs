use crate::util::*;
use lf::wire::{SessionRecord, SessionState};
use std::process::Stdio;

fn state_is(env: &Env, id: &str, state: SessionState) -> SessionRecord {
    wait_for(&format!("state {state:?} on {id}"), 20, || {
        let record = env.show(id);
        (record.state == state).then_some(record)
    })
}

fn launches(env: &Env) -> Vec<Vec<String>> {
    env.agent_log("launch")
        .into_iter()
        .map(|entry| serde_json::from_value(entry["argv"].clone()).unwrap())
        .collect()
}

fn tmux_name(id: &str) -> String {
    format!("lf-{}", &id[..12])
}

// A conversation from new to closed, permission prompts and a Codex
// thread resumed are tested with the real CLIs (tests/real); these tests
// keep what only the fakes can show: crashes and hangs at start, races.

#[test]
fn open_goes_to_the_running_session_and_print_does_nothing() {
    let env = Env::new();
    let record: SessionRecord = env.run("lf-session-new", &["hello"]).json();
    let printed: SessionRecord = env.run("lf-session-open", &[&record.id, "--print"]).json();
    assert_eq!(printed.id, record.id);
    let again: SessionRecord = env.run("lf-session-open", &[&record.id, "--detach"]).json();
    assert_eq!(again.terminal_ids, record.terminal_ids);
    assert_eq!(
        launches(&env).len(),
        1,
        "opening a running session launches nothing"
    );
    // Outside tmux and without a terminal, attaching explains itself.
    env.attempt("lf-session-open", &[&record.id])
        .fails_with(2, "not_a_terminal");
}

#[test]
fn concurrent_opens_of_one_session_launch_it_once() {
    let env = Env::new();
    let record = env.new_session(&["--title", "race"]);
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.command("lf-session-open")
                .args([&record.id, "--detach"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(launches(&env).len(), 1);
    let runs: i64 = env
        .db()
        .query_row(
            "SELECT count(*) FROM runs WHERE session_id = ?1",
            [&record.id],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(runs, 1);
    assert_eq!(
        state_is(&env, &record.id, SessionState::Active)
            .terminal_ids
            .len(),
        1
    );
}

#[test]
fn a_launcher_killed_mid_launch_is_relaunched_by_the_next_open() {
    let env = Env::new();
    let record = env.new_session(&["--title", "fragile"]);
    let mut open = env.command("lf-session-open");
    open.args([&record.id, "--detach"])
        .env("FAKE_AGENT_HANG_AT_START", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let opening = open.spawn().unwrap();
    // The agent hangs before confirming its session, so the launcher still
    // holds the launch lock, waiting. Kill the launcher there.
    wait_for("the hung agent", 20, || {
        (env.show(&record.id).state == SessionState::Active).then_some(())
    });
    let name = tmux_name(&record.id);
    let serve_pid: i32 = env
        .tmux(&[
            "list-panes",
            "-t",
            &format!("={name}:"),
            "-F",
            "#{pane_pid}",
        ])
        .trim()
        .parse()
        .unwrap();
    assert_eq!(env.native_id(&record.id), None);
    kill(serve_pid, Signal::KILL);
    let output = opening.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "the waiting opener reports the failed launch"
    );
    wait_for("the hung agent to end", 20, || {
        (env.show(&record.id).state != SessionState::Active).then_some(())
    });

    let reopened: SessionRecord = env.run("lf-session-open", &[&record.id, "--detach"]).json();
    assert_eq!(
        (reopened.id.as_str(), reopened.title.as_str()),
        (record.id.as_str(), "fragile")
    );
    assert_eq!(reopened.state, SessionState::Active);
    assert!(env.native_id(&record.id).is_some());
    let runs: i64 = env
        .db()
        .query_row(
            "SELECT count(*) FROM runs WHERE session_id = ?1",
            [&record.id],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(runs, 2, "one new attempt after the crash");
    assert_eq!(reopened.terminal_ids.len(), 1);
    let integrity: String = env
        .db()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}

/// An agent that says nothing at start (a login dialog the real CLIs show
/// no hook for) waits for the person: after the grace the launch counts as
/// started, the Session needs the person, and the agent is not killed.
#[test]
fn an_agent_silent_at_start_waits_for_the_person_and_is_not_killed() {
    let env = Env::new();
    let record = env.new_session(&["--title", "silent"]);
    let mut open = env.command("lf-session-open");
    open.args([&record.id, "--detach"])
        .env("FAKE_AGENT_HANG_AT_START", "1");
    let opened: SessionRecord = env.run_command(open).json();
    assert_eq!(
        (opened.state, opened.attention, opened.alive),
        (
            SessionState::Active,
            Some(lf::wire::Attention::Approve),
            true
        ),
        "{opened:#?}"
    );
    assert_eq!(env.native_id(&record.id), None);
    assert!(env.tmux_has(&tmux_name(&record.id)));
}

#[test]
fn an_agent_that_crashes_at_start_is_reported_not_started() {
    let env = Env::new();
    let mut new = env.json_errors("lf-session-new");
    new.arg("hello").env("FAKE_AGENT_CRASH_AT_START", "1");
    env.run_command(new).fails_with(1, "launch_failed");
    let sessions = env.list(&[]);
    assert_eq!(sessions.len(), 1, "the session is kept for the next open");
    assert_ne!(sessions[0].state, SessionState::Active);
    // What ran is kept beside the Run, for the person who looks into it
    // (tests/messages.rs pins what it says).
    let run = env.current_run(&sessions[0].id);
    let diagnostic: Option<String> = env
        .db()
        .query_row("SELECT diagnostic FROM runs WHERE id = ?1", [&run], |row| {
            row.get(0)
        })
        .unwrap();
    let log = env.home().join("runs").join(&run).join("serve.log");
    assert_eq!(
        std::fs::read_to_string(&log).ok(),
        diagnostic.map(|diagnostic| format!("{diagnostic}\n")),
        "{}",
        log.display()
    );
}

#[test]
fn a_missing_tmux_is_a_clear_error() {
    let env = Env::new();
    let record = env.new_session(&[]);
    let mut open = env.command("lf-session-open");
    open.args([&record.id, "--detach"]).env(
        "PATH",
        format!(
            "{}:{}",
            fakes().display(),
            bin("lf-serve").parent().unwrap().display()
        ),
    );
    open.env("LF_ERROR_FORMAT", "json");
    env.run_command(open).fails_with(1, "no_tmux");
}

#[test]
fn a_session_active_in_another_terminal_is_refused_unless_replaced() {
    let env = Env::new();
    let record = env.new_session(&[]);
    // A client outside lf's tmux session (another terminal).
    let other = Child::sleep();
    env.lf()
        .record_client(&record.id, other.id(), Some("/dev/pts/99"))
        .unwrap();
    let error = env
        .attempt("lf-session-open", &[&record.id, "--detach"])
        .fails_with(4, "unavailable");
    assert_eq!(error.arg, None, "{error:?}");
    let moved: SessionRecord = env
        .run("lf-session-open", &[&record.id, "--detach", "--replace"])
        .json();
    assert_eq!(moved.state, SessionState::Active);
    assert!(moved.terminal_ids[0].starts_with('%'));
}

#[test]
fn a_historical_run_id_is_refused_naming_the_current_run() {
    let env = Env::new();
    let record: SessionRecord = env.run("lf-session-new", &["hello"]).json();
    let first = env.current_run(&record.id);
    let pid = env.agent_pid(&record.id);
    // A crash before anything was resumable consumes the Run: kill it
    // before the hook confirms? It already confirmed, so force a new
    // attempt by forgetting the native id.
    kill(pid, Signal::KILL);
    state_is(&env, &record.id, SessionState::Interrupted);
    // lf-serve recorded the outcome; once it exits, its tmux session goes.
    let name = tmux_name(&record.id);
    wait_for("the launcher's tmux session to end", 20, || {
        (!env.tmux_has(&name)).then_some(())
    });
    env.db()
        .execute("UPDATE runs SET native_id = NULL WHERE id = ?1", [&first])
        .unwrap();
    let ran = env.run("lf-session-open", &[&first, "--detach"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let current = env.current_run(&record.id);
    assert_ne!(
        current, first,
        "a consumed launch without history gets a new Run"
    );
    let error = env
        .attempt("lf-session-open", &[&first, "--print"])
        .fails_with(4, "historical_run");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
}

/// Two terminals: panes of an outer tmux server, each of which becomes a
/// client of the test's (inner) server when it opens a session.
struct Terminals<'a> {
    env: &'a Env,
    socket: String,
}

impl<'a> Terminals<'a> {
    fn new(env: &'a Env, names: &[&str]) -> Self {
        let socket = format!("{}-outer", env.socket);
        let terminals = Terminals { env, socket };
        for name in names {
            let mut command = terminals.command(&[
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "150",
                "-y",
                "40",
                "--",
                "sh",
            ]);
            command
                .env("LF_HOME", env.home())
                .env("LF_TMUX_SOCKET", &env.socket)
                .env("FAKE_AGENT_HOME", env.dir.path().join("fake-agents"))
                .env("FAKE_AGENT_LOG", env.dir.path().join("agent.log"));
            assert!(command.status().unwrap().success());
        }
        terminals
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new("tmux");
        command
            .env_clear()
            .env("PATH", self.env.path())
            .env("HOME", self.env.dir.path())
            .env("TMUX_TMPDIR", self.env.dir.path())
            .env("TERM", "xterm-256color")
            .args(["-L", &self.socket])
            .args(args)
            .stdin(Stdio::null());
        command
    }

    fn type_line(&self, terminal: &str, text: &str) {
        let target = format!("={terminal}:");
        assert!(
            self.command(&["send-keys", "-t", &target, "-l", text])
                .status()
                .unwrap()
                .success()
        );
        assert!(
            self.command(&["send-keys", "-t", &target, "Enter"])
                .status()
                .unwrap()
                .success()
        );
    }

    fn screen(&self, terminal: &str) -> String {
        let output = self
            .command(&["capture-pane", "-p", "-t", &format!("={terminal}:")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

impl Drop for Terminals<'_> {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]).output();
    }
}

fn inner_clients(env: &Env) -> usize {
    let output = env
        .tmux_command(&["list-clients", "-F", "#{client_tty}"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).lines().count()
}

#[test]
fn move_here_stops_the_other_terminals_client_and_resumes_here() {
    let env = Env::new();
    let record = env.new_session(&["--title", "movable"]);
    let terminals = Terminals::new(&env, &["one", "two"]);

    terminals.type_line("one", &format!("env -u TMUX lf-session-open {}", record.id));
    wait_for("terminal one to show the agent", 20, || {
        terminals
            .screen("one")
            .contains("fake-claude")
            .then_some(())
    });
    assert_eq!(inner_clients(&env), 1);
    let first_agent = env.agent_pid(&record.id);

    terminals.type_line(
        "two",
        &format!("env -u TMUX lf-session-open --replace {}", record.id),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !terminals.screen("two").contains("resumed") {
        assert!(
            std::time::Instant::now() < deadline,
            "terminal two does not show the resumed conversation:\n{}\nterminal one:\n{}",
            terminals.screen("two"),
            terminals.screen("one"),
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    wait_for("terminal one to be let go", 20, || {
        (inner_clients(&env) == 1).then_some(())
    });
    assert!(
        !terminals.screen("one").contains("resumed"),
        "{}",
        terminals.screen("one")
    );
    let stat = std::fs::read_to_string(format!("/proc/{first_agent}/stat"));
    assert!(
        stat.is_err() || stat.unwrap().contains(") Z "),
        "the first agent still runs"
    );
    let record = state_is(&env, &record.id, SessionState::Active);
    assert_eq!(record.terminal_ids.len(), 1);
    assert_eq!(launches(&env).len(), 2);
    assert!(launches(&env)[1].contains(&"--resume".to_owned()));
}
