//! lf-handoff: every scenario of the original design of interactive
//! handoffs, run through the built binary (each call a new process, so
//! every repeat is also a restart), a real race between processes, and the
//! JSON contract of its records (fixtures, schema).

use crate::schema::*;
use crate::util::*;
use lf::wire::{
    HandoffListRow, HandoffOpened, HandoffOutcome, HandoffParentKind, HandoffRecord, HandoffStatus,
    TaskRecord, WaveRecord,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A sealed environment with a Wave (repository `repo`) and a Task in it
/// (worktree `loo-1`).
struct Setup {
    env: Env,
    wave: WaveRecord,
    task: TaskRecord,
    repo: PathBuf,
    worktree: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let env = Env::new();
        let repo = env.mkdir("repo");
        let worktree = env.mkdir("loo-1");
        let wave: WaveRecord = env
            .run(
                "lf-work",
                &["wave", "add", "product", "--repo", repo.to_str().unwrap()],
            )
            .json();
        let task: TaskRecord = env
            .run(
                "lf-work",
                &[
                    "task",
                    "add",
                    "LOO-1",
                    "--title",
                    "Hand interactive work to a human",
                    "--worktree",
                    worktree.to_str().unwrap(),
                    "--wave",
                    "product",
                ],
            )
            .json();
        Setup {
            env,
            wave,
            task,
            repo,
            worktree,
        }
    }

    fn run(&self, args: &[&str]) -> Ran {
        self.env.run("lf-handoff", args)
    }

    /// `lf-handoff ARGS`, its errors as JSON (for `Ran::fails_with`).
    fn attempt(&self, args: &[&str]) -> Ran {
        self.env.attempt("lf-handoff", args)
    }

    /// `lf-handoff open` for the Task at body generation 4, with `extra`
    /// flags before the attach argv.
    fn open_task(&self, extra: &[&str]) -> Ran {
        self.run(&self.open_task_args(extra))
    }

    /// `open_task`, its errors as JSON (for `Ran::fails_with`).
    fn open_task_json(&self, extra: &[&str]) -> Ran {
        self.attempt(&self.open_task_args(extra))
    }

    fn open_task_args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec![
            "open",
            "task:LOO-1",
            "--cwd",
            self.worktree.to_str().unwrap(),
            "--provider",
            "codex",
            "--provider-session-id",
            "task-thread",
            "--body-generation",
            "4",
            "--reason",
            "OAuth login requires a human",
            "--env",
            "OPENAI_API_KEY=hunter2-key",
            "--env",
            "GH_TOKEN=hunter2-secret",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "tmux", "attach-session", "-t", "lf-task-interactive"]);
        args
    }

    fn opened(&self) -> HandoffRecord {
        let opened: HandoffOpened = self.open_task(&[]).json();
        opened.handoff
    }

    fn show(&self, id: &str) -> HandoffRecord {
        self.run(&["show", id]).json()
    }

    fn list(&self, args: &[&str]) -> Vec<HandoffListRow> {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        self.run(&all).json()
    }
}

// ---------------------------------------------------------------------------
// The scenarios of the original design.

#[test]
fn open_is_idempotent_on_replay() {
    let setup = Setup::new();
    let first: HandoffOpened = setup.open_task(&[]).json();
    assert!(first.created);
    let handoff = &first.handoff;
    assert!(handoff.id.starts_with("handoff-"));
    assert_eq!(handoff.status, HandoffStatus::Waiting);
    assert_eq!(handoff.parent_kind, HandoffParentKind::Task);
    assert_eq!(handoff.parent_id, setup.task.id);
    assert_eq!(handoff.wave_id.as_deref(), Some(setup.wave.id.as_str()));
    assert_eq!(handoff.cwd, setup.worktree.to_str().unwrap());
    assert_eq!(handoff.provider_session_id.as_deref(), Some("task-thread"));
    assert_eq!(handoff.body_generation, 4);
    assert_eq!(handoff.environment_names, ["GH_TOKEN", "OPENAI_API_KEY"]);
    assert_eq!(
        handoff.attach_argv,
        ["tmux", "attach-session", "-t", "lf-task-interactive"]
    );
    assert_eq!(handoff.home, setup.env.home().to_str().unwrap());

    let ran = setup.open_task(&[]);
    assert!(!ran.shows("hunter2"), "an environment value was printed");
    let replayed: HandoffOpened = ran.json();
    assert!(!replayed.created);
    assert_eq!(replayed.handoff, first.handoff);

    // The same generation with a different request is not a replay.
    let refused = setup.open_task_json(&["--env", "EXTRA_TOKEN=hunter2-other"]);
    let error = refused.fails_with(4, "replay_differs");
    assert_eq!(error.arg.as_deref(), Some("parent"), "{error:?}");
    assert!(!refused.shows("hunter2"), "a value was shown: {error:?}");
    assert_eq!(setup.list(&[]).len(), 1);
}

#[test]
fn a_cwd_that_is_not_the_parents_checkout_is_refused() {
    let setup = Setup::new();
    let elsewhere = setup.env.mkdir("some-other-task");
    let error = setup
        .attempt(&[
            "open",
            "task:LOO-1",
            "--cwd",
            elsewhere.to_str().unwrap(),
            "--provider",
            "codex",
            "--body-generation",
            "4",
            "--reason",
            "login",
            "--",
            "true",
        ])
        .fails_with(2, "handoff_elsewhere");
    assert_eq!(error.arg.as_deref(), Some("cwd"), "{error:?}");
    // The default is the current directory, which is not the worktree.
    let error = setup
        .attempt(&[
            "open",
            "wave:product",
            "--provider",
            "claude",
            "--body-generation",
            "1",
            "--reason",
            "login",
            "--",
            "true",
        ])
        .fails_with(2, "handoff_elsewhere");
    assert_eq!(error.arg.as_deref(), Some("cwd"), "{error:?}");
    assert!(setup.list(&[]).is_empty(), "a refused open wrote a handoff");
}

#[test]
fn attach_is_stable_across_repeats_and_restarts() {
    let setup = Setup::new();
    let opened = setup.opened();
    let attached: HandoffRecord = setup.run(&["attach", &opened.id]).json();
    assert_eq!(attached.status, HandoffStatus::Attached);
    assert!(attached.attached_at.is_some());
    assert_eq!(attached.attach_argv, opened.attach_argv);
    // Every run is a new process with a new store handle: a restart.
    for _ in 0..3 {
        let again: HandoffRecord = setup.run(&["attach", &opened.id]).json();
        assert_eq!(again, attached, "a repeated attach changed the handoff");
    }
    assert_eq!(setup.show(&opened.id), attached);
    // Opening again (a replayed open) keeps the attach.
    let replayed: HandoffOpened = setup.open_task(&[]).json();
    assert_eq!(replayed.handoff, attached);
}

#[test]
fn the_first_outcome_wins_and_repeating_it_returns_it() {
    let setup = Setup::new();
    let id = setup.opened().id;
    setup.run(&["attach", &id]).ok();
    let back: HandoffRecord = setup
        .run(&[
            "finish",
            &id,
            "--handed-back",
            "Finish the review fixes headlessly",
        ])
        .json();
    assert_eq!(back.status, HandoffStatus::HandedBack);
    assert_eq!(
        back.outcome,
        Some(HandoffOutcome::HandedBack {
            summary: "Finish the review fixes headlessly".to_owned()
        })
    );
    assert!(back.finished_at.is_some());
    let repeated: HandoffRecord = setup
        .run(&[
            "finish",
            &id,
            "--handed-back",
            "  Finish the review fixes headlessly\n",
        ])
        .json();
    assert_eq!(repeated, back, "repeating the outcome changed the handoff");
    for other in [
        ["--completed", "Human finished the work"],
        ["--failed", "interactive body disappeared"],
        ["--handed-back", "A different summary"],
    ] {
        let error = setup
            .attempt(&["finish", &id, other[0], other[1]])
            .fails_with(4, "outcome_stands");
        assert_eq!(error.arg.as_deref(), Some("outcome"), "{error:?}");
        assert_eq!(setup.show(&id).outcome, back.outcome, "{error:?}");
    }
    setup
        .attempt(&["attach", &id])
        .fails_with(4, "handoff_ended");
    assert_eq!(setup.show(&id), back);
    assert_eq!(setup.list(&["--active"]), []);
}

#[test]
fn a_wake_is_refused_before_the_outcome_then_claimed_once() {
    let setup = Setup::new();
    let id = setup.opened().id;
    setup
        .attempt(&["claim-wake", &id, "--generation", "5"])
        .fails_with(4, "no_outcome_yet");
    setup
        .run(&[
            "finish",
            &id,
            "--failed",
            "tmux session exited before completion",
        ])
        .ok();
    let first: bool = setup.run(&["claim-wake", &id, "--generation", "5"]).json();
    assert!(first);
    for generation in ["6", "5"] {
        let later: bool = setup
            .run(&["claim-wake", &id, "--generation", generation])
            .json();
        assert!(!later, "a later claim by generation {generation} won");
    }
    let record = setup.show(&id);
    assert_eq!(record.wake_claimed_by_generation, Some(5));
    assert_eq!(record.status, HandoffStatus::Failed);
}

#[test]
fn list_rows_carry_the_census_fields_and_active_drops_finished() {
    let setup = Setup::new();
    let task_handoff = setup.opened();
    let wave_opened: HandoffOpened = setup
        .run(&[
            "open",
            &format!("wave:{}", setup.wave.id),
            "--cwd",
            setup.repo.to_str().unwrap(),
            "--provider",
            "claude",
            "--body-generation",
            "1",
            "--reason",
            "Choose between two designs",
            "--",
            "tmux",
            "attach-session",
            "-t",
            "lf-product",
        ])
        .json();
    let wave_handoff = wave_opened.handoff;
    assert_eq!(wave_handoff.provider_session_id, None);
    assert!(wave_handoff.environment_names.is_empty());

    let rows = setup.list(&[]);
    let home = setup.env.home().to_str().unwrap().to_owned();
    assert_eq!(
        rows.iter().map(|row| row.id.as_str()).collect::<Vec<_>>(),
        [wave_handoff.id.as_str(), task_handoff.id.as_str()],
        "newest first"
    );
    let (wave_row, task_row) = (&rows[0], &rows[1]);
    assert_eq!(task_row.parent_kind, HandoffParentKind::Task);
    assert_eq!(task_row.parent_id, setup.task.id);
    assert_eq!(task_row.wave_id.as_deref(), Some(setup.wave.id.as_str()));
    assert_eq!(task_row.status, HandoffStatus::Waiting);
    assert_eq!(task_row.home, home);
    assert_eq!(task_row.provider, "codex");
    assert!(task_row.age_secs < lf::clock::Seconds(600));
    assert_eq!(wave_row.parent_kind, HandoffParentKind::Wave);
    assert_eq!(wave_row.parent_id, setup.wave.id);
    assert_eq!(wave_row.wave_id.as_deref(), Some(setup.wave.id.as_str()));
    assert_eq!(wave_row.provider, "claude");
    assert_eq!(setup.list(&["--active"]), rows);

    setup.run(&["attach", &wave_handoff.id]).ok();
    setup
        .run(&["finish", &task_handoff.id, "--completed", "human logged in"])
        .ok();
    let active = setup.list(&["--active"]);
    assert_eq!(active.len(), 1);
    assert_eq!(active[0].id, wave_handoff.id);
    assert_eq!(active[0].status, HandoffStatus::Attached);
    let all = setup.list(&[]);
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].status, HandoffStatus::Completed);
}

/// The pids of `children` that have the database open.
fn with_database_open(children: &[std::process::Child]) -> usize {
    children
        .iter()
        .filter(|child| {
            std::fs::read_dir(format!("/proc/{}/fd", child.id()))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .any(|target| target.ends_with("loopflow.db"))
        })
        .count()
}

#[test]
fn eight_processes_finishing_at_once_have_exactly_one_winner() {
    let setup = Setup::new();
    let id = setup.opened().id;
    let outcomes: Vec<(String, String)> = (0..8)
        .map(|index| {
            let flag = ["--handed-back", "--completed", "--failed"][index % 3];
            (flag.to_owned(), format!("outcome of finisher {index}"))
        })
        .collect();
    // Build the race: hold the write lock while all eight start, so each
    // has read the handoff and waits for the lock when it is released.
    let gate = setup.env.db();
    gate.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut argvs = vec![];
    let children: Vec<std::process::Child> = outcomes
        .iter()
        .map(|(flag, text)| {
            let mut command = setup.env.json_errors("lf-handoff");
            command
                .args(["finish", &id, flag, text])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            argvs.push(argv_of(&command));
            command.spawn().unwrap()
        })
        .collect();
    wait_for("every finisher to open the database", 8, || {
        (with_database_open(&children) == children.len()).then_some(())
    });
    gate.execute_batch("ROLLBACK").unwrap();
    let results: Vec<Ran> = children
        .into_iter()
        .zip(argvs)
        .map(|(child, argv)| {
            let output = child.wait_with_output().unwrap();
            Ran {
                argv,
                code: output.status.code(),
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            }
        })
        .collect();
    let winners: Vec<(usize, &Ran)> = results
        .iter()
        .enumerate()
        .filter(|(_, ran)| ran.code == Some(0))
        .collect();
    assert_eq!(winners.len(), 1, "{results:#?}");
    let (index, winner) = winners[0];
    let won: HandoffRecord = winner.json();
    let outcome = won.outcome.clone().expect("the winner has an outcome");
    assert_eq!(outcome.text(), outcomes[index].1);
    for loser in results.iter().filter(|ran| ran.code != Some(0)) {
        let error = loser.fails_with(4, "outcome_stands");
        assert_eq!(error.arg.as_deref(), Some("outcome"), "{error:?}");
    }
    assert_eq!(setup.show(&id).outcome, Some(outcome));
    let integrity: String = setup
        .env
        .db()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}

fn argv_of(command: &Command) -> Vec<String> {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn attach_exec_runs_the_argv_with_the_stored_environment() {
    let setup = Setup::new();
    let opened: HandoffOpened = setup
        .run(&[
            "open",
            "task:LOO-1",
            "--cwd",
            setup.worktree.to_str().unwrap(),
            "--provider",
            "command",
            "--body-generation",
            "1",
            "--reason",
            "a person must run this",
            "--env",
            "PROBE_TOKEN=x",
            "--",
            "sh",
            "-c",
            "echo \"$PROBE_TOKEN\" > probe",
        ])
        .json();
    let ran = setup.run(&["attach", &opened.handoff.id, "--exec"]);
    ran.ok();
    assert_eq!(ran.stdout, "", "--exec leaves the terminal to the command");
    // The command runs in the handoff's working directory.
    let probe = setup.worktree.join("probe");
    assert_eq!(std::fs::read_to_string(&probe).unwrap(), "x\n");
    let record = setup.show(&opened.handoff.id);
    assert_eq!(record.status, HandoffStatus::Attached);

    // A program that cannot run is an operational error naming the handoff.
    setup
        .run(&["finish", &record.id, "--failed", "probe done"])
        .ok();
    let broken: HandoffOpened = setup
        .run(&[
            "open",
            "task:LOO-1",
            "--cwd",
            setup.worktree.to_str().unwrap(),
            "--provider",
            "command",
            "--body-generation",
            "2",
            "--reason",
            "broken",
            "--",
            "/nonexistent/attach",
        ])
        .json();
    let error = setup
        .attempt(&["attach", &broken.handoff.id, "--exec"])
        .fails_with(1, "attach_program_missing");
    assert_eq!(error.arg, None, "{error:?}");
}

// ---------------------------------------------------------------------------
// What an opener may hand a person (issue 20): the opener is an autonomous
// agent, the person who attaches runs what it stored, so nothing hidden may
// change which program runs or what it loads.

/// The argv of `lf-handoff open` for the Task with `--provider command`,
/// these `--env` entries and this attach argv.
fn open_args<'a>(
    setup: &'a Setup,
    generation: &'a str,
    env: &[&'a str],
    argv: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "open",
        "task:LOO-1",
        "--cwd",
        setup.worktree.to_str().unwrap(),
        "--provider",
        "command",
        "--body-generation",
        generation,
        "--reason",
        "a person must log in",
    ];
    for entry in env {
        args.extend_from_slice(&["--env", entry]);
    }
    args.push("--");
    args.extend_from_slice(argv);
    args
}

/// An executable script `dir/name` that appends `word` to the file `out`.
fn marker(dir: &Path, name: &str, word: &str, out: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho {word} >> '{}'\n", out.display()),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Run `lf-handoff` with `dir` first on its PATH.
fn with_path_first(setup: &Setup, dir: &Path, args: &[&str]) -> Ran {
    let mut command = setup.env.command("lf-handoff");
    command
        .env("PATH", format!("{}:{}", dir.display(), setup.env.path()))
        .args(args);
    setup.env.run_command(command)
}

#[test]
fn an_opener_cannot_choose_the_path_and_nothing_is_stored() {
    let setup = Setup::new();
    let evil = setup.env.mkdir("evil");
    let entry = format!("PATH={}", evil.display());
    let args = open_args(
        &setup,
        "1",
        &[&entry],
        &["tmux", "attach-session", "-t", "lf-loo-1"],
    );
    let refused = setup.attempt(&args);
    let error = refused.fails_with(2, "forbidden_variable");
    assert_eq!(error.arg.as_deref(), Some("env"), "{error:?}");
    assert!(
        !refused.shows(evil.to_str().unwrap()),
        "a value was shown: {error:?}"
    );
    assert!(
        setup.list(&[]).is_empty(),
        "a refused open stored a handoff"
    );
}

#[test]
fn an_opener_cannot_preload_a_library() {
    let setup = Setup::new();
    let args = open_args(
        &setup,
        "1",
        &["GH_TOKEN=hunter2", "LD_PRELOAD=/tmp/x.so"],
        &["tmux", "attach-session", "-t", "lf-loo-1"],
    );
    let refused = setup.attempt(&args);
    let error = refused.fails_with(2, "forbidden_variable");
    assert_eq!(error.arg.as_deref(), Some("env"), "{error:?}");
    assert!(
        !refused.shows("hunter2") && !refused.shows("x.so"),
        "a value was shown: {error:?}"
    );
    assert!(
        setup.list(&[]).is_empty(),
        "a refused open stored a handoff"
    );
}

#[test]
fn an_opener_may_set_only_credentials() {
    let setup = Setup::new();
    for name in [
        "DYLD_INSERT_LIBRARIES",
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "PROMPT_COMMAND",
        "IFS",
        "CDPATH",
        "NODE_OPTIONS",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PERL5OPT",
        "RUBYOPT",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS_TOKEN",
        "TMUX",
        "TMUX_TMPDIR",
        "LF_HOME",
        "LF_TMUX_SOCKET",
        "HOME",
        "XDG_CONFIG_HOME",
        "SSH_AUTH_SOCK",
        "SSH_ASKPASS",
        "EDITOR",
        "PAGER",
        "LANG",
        "gh_token",
        "HANDOFF_NOTE",
    ] {
        let entry = format!("{name}=hunter2");
        let args = open_args(&setup, "1", &[&entry], &["true"]);
        let refused = setup.attempt(&args);
        let error = refused.fails_with(2, "forbidden_variable");
        assert_eq!(error.arg.as_deref(), Some("env"), "{name}: {error:?}");
        assert!(!refused.shows("hunter2"), "a value was shown: {error:?}");
    }
    assert!(
        setup.list(&[]).is_empty(),
        "a refused open stored a handoff"
    );
    let allowed = [
        "GH_TOKEN=a",
        "OPENAI_API_KEY=b",
        "AWS_ACCESS_KEY_ID=c",
        "AWS_SECRET_ACCESS_KEY=d",
        "DEPLOY_SECRET=e",
        "DB_PASSWORD=f",
    ];
    let opened: HandoffOpened = setup
        .run(&open_args(&setup, "1", &allowed, &["true"]))
        .json();
    assert_eq!(
        opened.handoff.environment_names,
        [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "DEPLOY_SECRET",
            "GH_TOKEN",
            "OPENAI_API_KEY"
        ]
    );
}

#[test]
fn a_stored_forbidden_variable_is_refused_at_attach_and_nothing_runs() {
    let setup = Setup::new();
    let evil = setup.env.mkdir("evil");
    let ran = setup.env.work().join("ran");
    marker(&evil, "tmux", "evil", &ran);
    let args = open_args(
        &setup,
        "1",
        &["GH_TOKEN=hunter2"],
        &["tmux", "attach-session", "-t", "lf-loo-1"],
    );
    let opened: HandoffOpened = setup.run(&args).json();
    let id = opened.handoff.id;
    // A Home from before openers were checked: the row carries what an
    // opener can no longer give.
    let environment = serde_json::json!({
        "GH_TOKEN": "hunter2",
        "LD_PRELOAD": "/nonexistent/x.so",
        "PATH": evil,
    })
    .to_string();
    let changed = setup
        .env
        .db()
        .execute(
            "UPDATE handoffs SET environment = ?1 WHERE id = ?2",
            [&environment, &id],
        )
        .unwrap();
    assert_eq!(changed, 1);
    for args in [&["attach", &id, "--exec"][..], &["attach", &id]] {
        let refused = setup.attempt(args);
        let error = refused.fails_with(4, "forbidden_stored_variables");
        assert_eq!(error.arg.as_deref(), Some("id"), "{args:?}: {error:?}");
        assert!(
            !refused.shows("hunter2") && !refused.shows("x.so"),
            "a value was shown: {error:?}"
        );
    }
    assert!(!ran.exists(), "the attach command ran");
    assert_eq!(
        setup.show(&id).status,
        HandoffStatus::Waiting,
        "a refused attach was recorded"
    );
}

#[test]
fn attach_exec_runs_the_program_found_on_the_attachers_path() {
    let setup = Setup::new();
    let ran = setup.env.work().join("ran");
    let agent_bin = setup.env.mkdir("agent-bin");
    let person_bin = setup.env.mkdir("person-bin");
    marker(&agent_bin, "lf-probe-attach", "agent", &ran);
    let persons = marker(&person_bin, "lf-probe-attach", "person", &ran);
    // The agent opens with its own PATH, whose lf-probe-attach is another.
    let args = open_args(&setup, "1", &[], &["lf-probe-attach", "--now"]);
    let opened: HandoffOpened = with_path_first(&setup, &agent_bin, &args).json();
    let id = opened.handoff.id;
    let attached: HandoffRecord = with_path_first(&setup, &person_bin, &["attach", &id]).json();
    assert_eq!(attached.attach_program.as_deref(), persons.to_str());
    let exec = with_path_first(&setup, &person_bin, &["attach", &id, "--exec"]);
    exec.ok();
    assert_eq!(
        std::fs::read_to_string(&ran).unwrap(),
        "person\n",
        "the program on the attaching process's PATH ran, and only it"
    );
}

#[test]
fn show_names_the_program_that_would_run() {
    let setup = Setup::new();
    let ran = setup.env.work().join("ran");
    let person_bin = setup.env.mkdir("person-bin");
    let persons = marker(&person_bin, "lf-probe-attach", "person", &ran);
    let args = open_args(
        &setup,
        "1",
        &["GH_TOKEN=hunter2"],
        &["lf-probe-attach", "-t", "lf-loo-1"],
    );
    let opened: HandoffOpened = setup.run(&args).json();
    let id = opened.handoff.id;
    let ran_show = with_path_first(&setup, &person_bin, &["show", &id]);
    assert!(!ran_show.shows("hunter2"), "a value was shown");
    let shown: HandoffRecord = ran_show.json();
    // What runs: this program, with this argv, there, with these variables.
    assert_eq!(shown.attach_program.as_deref(), persons.to_str());
    assert_eq!(shown.attach_argv, ["lf-probe-attach", "-t", "lf-loo-1"]);
    assert_eq!(shown.cwd, setup.worktree.to_str().unwrap());
    assert_eq!(shown.environment_names, ["GH_TOKEN"]);
    // Not on this caller's PATH: shown as null, and --exec runs nothing.
    let elsewhere: HandoffRecord = setup.run(&["show", &id]).json();
    assert_eq!(elsewhere.attach_program, None);
    let error = setup
        .attempt(&["attach", &id, "--exec"])
        .fails_with(1, "attach_program_missing");
    assert_eq!(error.arg, None, "{error:?}");
    assert!(!ran.exists(), "something ran");
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let env = Env::new();
    let database = env.home().join("loopflow.db");
    // Malformed ids: refused before the database is even created.
    for args in [
        &["attach", "handoff-nope"][..],
        &["attach", "../../etc/passwd", "--exec"],
        &[
            "finish",
            "HANDOFF-01KQQ0C3J8W6F5R2N9T4B7X1ZD",
            "--failed",
            "x",
        ],
        &[
            "claim-wake",
            "task-01kqpt849vf8y8dfxm5see3ewd",
            "--generation",
            "1",
        ],
        &["show", ""],
    ] {
        let error = env.attempt("lf-handoff", args).fails_with(2, "bad_id");
        assert_eq!(error.arg.as_deref(), Some("id"), "{args:?}: {error:?}");
    }
    // Usage errors from the arguments themselves.
    for args in [
        &["finish", "handoff-01kqq0c3j8w6f5r2n9t4b7x1zd"][..],
        &[
            "finish",
            "handoff-01kqq0c3j8w6f5r2n9t4b7x1zd",
            "--failed",
            "a",
            "--completed",
            "b",
        ],
        &[
            "claim-wake",
            "handoff-01kqq0c3j8w6f5r2n9t4b7x1zd",
            "--generation",
            "-1",
        ],
        &[
            "open",
            "task:LOO-1",
            "--provider",
            "codex",
            "--body-generation",
            "1",
            "--reason",
            "r",
        ],
    ] {
        env.run("lf-handoff", args).fails(2);
    }
    assert!(!database.exists(), "a refused command created the database");

    let setup = Setup::new();
    let worktree = setup.worktree.to_str().unwrap().to_owned();
    let open = |parent: &str, env_entry: &str, provider: &str| {
        setup.attempt(&[
            "open",
            parent,
            "--cwd",
            &worktree,
            "--provider",
            provider,
            "--body-generation",
            "1",
            "--reason",
            "login",
            "--env",
            env_entry,
            "--",
            "true",
        ])
    };
    for (entry, variant) in [
        ("1TOKEN=hunter2", "bad_variable_name"),
        ("TOK-EN=hunter2", "bad_variable_name"),
        ("=hunter2", "bad_variable_name"),
        ("hunter2", "not_a_variable"),
    ] {
        let refused = open("task:LOO-1", entry, "codex");
        let error = refused.fails_with(2, variant);
        assert_eq!(error.arg.as_deref(), Some("env"), "{entry}: {error:?}");
        assert!(!refused.shows("hunter2"), "a value was shown: {error:?}");
    }
    let error = open("task:LOO-404", "A_TOKEN=hunter2", "codex").fails_with(3, "task_not_found");
    assert_eq!(error.arg.as_deref(), Some("parent"));
    let error = open("wave:nope", "A_TOKEN=hunter2", "codex").fails_with(3, "wave_not_found");
    assert_eq!(error.arg.as_deref(), Some("parent"));
    open("flow:x", "A_TOKEN=hunter2", "codex").fails_with(2, "bad_parent");
    open("task:LOO-1", "A_TOKEN=hunter2", "vim").fails_with(2, "command_line");
    assert!(setup.list(&[]).is_empty(), "a refused open wrote a handoff");

    let missing = "handoff-01kqq0c3j8w6f5r2n9t4b7x1zd";
    for args in [
        &["attach", missing][..],
        &["finish", missing, "--completed", "done"],
        &["claim-wake", missing, "--generation", "1"],
        &["show", missing],
    ] {
        let error = setup.attempt(args).fails_with(3, "handoff_not_found");
        assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    }
    let id = setup.opened().id;
    setup
        .attempt(&["finish", &id, "--completed", " \n "])
        .fails_with(2, "empty_text");
    assert_eq!(setup.show(&id).status, HandoffStatus::Waiting);
}

#[test]
fn help_has_examples_and_a_version() {
    let env = Env::new();
    let help = env.run("lf-handoff", &["--help"]);
    help.ok();
    assert!(help.stdout.contains("Examples:"), "{}", help.stdout);
    for sub in ["open", "attach", "finish", "claim-wake", "list"] {
        assert!(help.stdout.contains(sub), "--help does not list {sub}");
        env.run("lf-handoff", &[sub, "--help"]).ok();
    }
    let version = env.run("lf-handoff", &["--version"]);
    assert_eq!(
        version.stdout.trim(),
        format!("lf-handoff {}", env!("CARGO_PKG_VERSION"))
    );
}

// ---------------------------------------------------------------------------
// The JSON contract: fixtures round-trip, the schema agrees with the types,
// and what the binary prints is valid by the schema.

fn schema() -> Value {
    read_json("schema/handoff.schema.json")
}

fn every_outcome() -> Vec<HandoffOutcome> {
    let all = vec![
        HandoffOutcome::HandedBack {
            summary: "s".to_owned(),
        },
        HandoffOutcome::Completed {
            summary: "s".to_owned(),
        },
        HandoffOutcome::Failed {
            reason: "r".to_owned(),
        },
    ];
    for outcome in &all {
        // A new variant stops this compiling, and so reaches the schema.
        match outcome {
            HandoffOutcome::HandedBack { .. }
            | HandoffOutcome::Completed { .. }
            | HandoffOutcome::Failed { .. } => {}
        }
    }
    all
}

#[test]
fn handoff_fixtures_round_trip_exactly() {
    let record = round_trip::<HandoffRecord>("handoff.json", &fixture("handoff.json"));
    assert!(record.outcome.is_some() && record.wake_claimed_by_generation.is_some());
    let opened =
        round_trip::<HandoffOpened>("handoff_opened.json", &fixture("handoff_opened.json"));
    assert!(!opened.created && opened.handoff.outcome.is_none());
    let rows =
        round_trip::<Vec<HandoffListRow>>("handoff_list.json", &fixture("handoff_list.json"));
    let statuses: BTreeSet<_> = rows.iter().map(|row| row.status.as_str()).collect();
    assert!(
        statuses.len() >= 3,
        "the list fixture shows several statuses"
    );
    assert!(rows.iter().any(|row| row.wave_id.is_none()));
}

#[test]
fn handoff_decoding_fails_without_a_required_key() {
    let record = fixture("handoff.json");
    for key in keys(&record) {
        let mut without = record.clone();
        without.as_object_mut().unwrap().remove(&key);
        assert!(
            serde_json::from_value::<HandoffRecord>(without).is_err(),
            "a handoff without {key} decoded"
        );
    }
    let row = fixture("handoff_list.json")[0].clone();
    for key in keys(&row) {
        let mut without = row.clone();
        without.as_object_mut().unwrap().remove(&key);
        assert!(
            serde_json::from_value::<HandoffListRow>(without).is_err(),
            "a list row without {key} decoded"
        );
    }
    let mut untagged = record.clone();
    untagged["outcome"] = serde_json::json!({"summary": "x"});
    assert!(serde_json::from_value::<HandoffRecord>(untagged).is_err());
}

#[test]
fn the_handoff_schema_lists_exactly_the_serialised_keys_and_values() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_keys_match("HandoffRecord", &fixture("handoff.json"), &schema);
    assert_keys_match(
        "HandoffOpened",
        &fixture("handoff_opened.json"),
        def(&schema, "HandoffOpened"),
    );
    assert_keys_match(
        "HandoffListRow",
        &fixture("handoff_list.json")[0],
        def(&schema, "HandoffListRow"),
    );
    let branches = def(&schema, "HandoffOutcome")["oneOf"].as_array().unwrap();
    assert_eq!(branches.len(), every_outcome().len());
    for outcome in every_outcome() {
        let value = to_value(&outcome);
        let branch = branches
            .iter()
            .find(|branch| branch["properties"]["kind"]["const"] == value["kind"])
            .unwrap_or_else(|| panic!("no schema branch for {value}"));
        assert_keys_match(&format!("HandoffOutcome {}", value["kind"]), &value, branch);
    }
    assert_eq!(
        def(&schema, "HandoffStatus")["enum"],
        to_value(&HandoffStatus::ALL),
        "HandoffStatus: the schema's enum (left) and the type's values (right)"
    );
    assert_eq!(
        def(&schema, "HandoffParentKind")["enum"],
        to_value(&HandoffParentKind::ALL)
    );
    for status in HandoffStatus::ALL {
        assert_eq!(to_value(&status), status.as_str());
    }
}

#[test]
fn fixtures_and_printed_handoffs_are_valid_by_the_schema() {
    let schema = schema();
    let check = |name: &str, value: &Value, at: &Value| {
        if let Err(error) = validate(&schema, at, value, "") {
            panic!("{name} is not valid by the schema: {error}");
        }
    };
    let row_schema = def(&schema, "HandoffListRow");
    check("handoff.json", &fixture("handoff.json"), &schema);
    check(
        "handoff_opened.json",
        &fixture("handoff_opened.json"),
        def(&schema, "HandoffOpened"),
    );
    for (index, row) in fixture("handoff_list.json")
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        check(&format!("handoff_list.json[{index}]"), row, row_schema);
    }

    // What the binary prints, at every status.
    let setup = Setup::new();
    let printed = |ran: Ran| -> Value { ran.json() };
    let opened = printed(setup.open_task(&[]));
    check("lf-handoff open", &opened, def(&schema, "HandoffOpened"));
    let id = opened["handoff"]["id"].as_str().unwrap().to_owned();
    check(
        "lf-handoff attach",
        &printed(setup.run(&["attach", &id])),
        &schema,
    );
    let finished = printed(setup.run(&["finish", &id, "--handed-back", "done"]));
    check("lf-handoff finish", &finished, &schema);
    setup.run(&["claim-wake", &id, "--generation", "5"]).ok();
    check(
        "lf-handoff show",
        &printed(setup.run(&["show", &id])),
        &schema,
    );
    for row in printed(setup.run(&["list"])).as_array().unwrap() {
        check("lf-handoff list", row, row_schema);
    }

    // And the schema refuses what the contract forbids.
    let record = fixture("handoff.json");
    let broken: Vec<(&str, Value)> = vec![
        (
            "an unknown status",
            serde_json::json!({"status": "sleeping"}),
        ),
        (
            "an uppercase id",
            serde_json::json!({"id": "handoff-01KQQ0C3J8W6F5R2N9T4B7X1ZD"}),
        ),
        (
            "a session id",
            serde_json::json!({"id": "0123456789abcdef0123456789abcdef"}),
        ),
        ("a flow parent", serde_json::json!({"parent_kind": "flow"})),
        (
            "an untagged outcome",
            serde_json::json!({"outcome": {"summary": "x"}}),
        ),
        (
            "a failure with a summary",
            serde_json::json!({"outcome": {"kind": "failed", "summary": "x"}}),
        ),
        (
            "an environment value",
            serde_json::json!({"environment": {"GH_TOKEN": "x"}}),
        ),
        (
            "a bad variable name",
            serde_json::json!({"environment_names": ["GH-TOKEN"]}),
        ),
        (
            "an empty attach argv",
            serde_json::json!({"attach_argv": []}),
        ),
        (
            "a negative generation",
            serde_json::json!({"body_generation": -1}),
        ),
        (
            "a time without microseconds",
            serde_json::json!({"created_at": "2026-11-29T23:26:59Z"}),
        ),
    ];
    for (what, change) in broken {
        let mut value = record.clone();
        for (key, new) in object(&change) {
            value[key] = new.clone();
        }
        assert!(
            validate(&schema, &schema, &value, "").is_err(),
            "the schema accepts a handoff with {what}"
        );
    }
}

// A small JSON Schema validator: just the keywords handoff.schema.json
// uses; any other keyword is an error, so the schema cannot grow a
// constraint no test checks. Each `pattern` is checked by the library's own
// parser where it has one.
