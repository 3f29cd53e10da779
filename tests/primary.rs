use crate::util::*;
use lf::wire::{SessionRecord, SessionState};

fn repo(env: &Env) -> std::path::PathBuf {
    let repo = env.mkdir("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    repo
}

fn primary(env: &Env, dir: &std::path::Path, args: &[&str]) -> Ran {
    let mut command = env.json_errors("lf-primary");
    command.args(args).current_dir(dir);
    env.run_command(command)
}

fn launches(env: &Env) -> usize {
    env.agent_log("launch").len()
}

#[test]
fn ensure_finds_the_same_conversation_and_launches_once() {
    let env = Env::new();
    let repo = repo(&env);
    let first: SessionRecord = primary(&env, &repo, &["ensure"]).json();
    let second: SessionRecord = primary(&env, &repo.join("src/deep"), &["ensure"]).json();
    assert_eq!(first.id, second.id);
    assert_eq!(
        first.primary_scope,
        Some(format!("repository:{}", repo.display()))
    );
    assert_eq!(first.title, "repo");
    assert_eq!(first.cwd, repo.to_str().unwrap());
    assert_eq!(second.state, SessionState::Active);
    assert_eq!(launches(&env), 1);
    // Its agent is told it is primary: readiness has no caller.
    let argv: Vec<String> =
        serde_json::from_value(env.agent_log("launch")[0]["argv"].clone()).unwrap();
    assert!(
        argv.iter()
            .any(|arg| arg.contains("do not run lf-session-ready")),
        "{argv:?}"
    );
}

#[test]
fn concurrent_ensures_make_one_session_and_one_launch() {
    let env = Env::new();
    let repo = repo(&env);
    let children: Vec<_> = (0..6)
        .map(|_| {
            let mut command = env.command("lf-primary");
            command
                .arg("ensure")
                .current_dir(&repo)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            command.spawn().unwrap()
        })
        .collect();
    let ids: Vec<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_slice::<SessionRecord>(&output.stdout)
                .unwrap()
                .id
        })
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    assert_eq!(env.list(&[]).len(), 1);
    assert_eq!(launches(&env), 1);
}

#[test]
fn a_failed_start_keeps_the_session_for_the_next_ensure() {
    let env = Env::new();
    let repo = repo(&env);
    let mut command = env.command("lf-primary");
    command
        .arg("ensure")
        .current_dir(&repo)
        .env("FAKE_AGENT_CRASH_AT_START", "1");
    command.env("LF_ERROR_FORMAT", "json");
    env.run_command(command).fails_with(1, "launch_failed");
    let admitted = env.list(&[]);
    assert_eq!(admitted.len(), 1);
    // The crash is asked of the agent through the tmux server's global
    // environment, which the first ensure's server keeps: the retry gets a
    // server of its own, as a person's next try after a crash would.
    let _ = env.tmux_command(&["kill-server"]).output();
    let retried: SessionRecord = primary(&env, &repo, &["ensure"]).json();
    assert_eq!(retried.id, admitted[0].id);
    assert_eq!(retried.state, SessionState::Active);
}

#[test]
fn replace_stops_the_predecessor_and_repeats_to_the_same_successor() {
    let env = Env::new();
    let repo = repo(&env);
    let first: SessionRecord = primary(&env, &repo, &["ensure"]).json();
    let successor: SessionRecord = primary(&env, &repo, &["replace", &first.id]).json();
    assert_ne!(successor.id, first.id);
    assert_eq!(successor.primary_scope, first.primary_scope);
    assert_eq!(successor.state, SessionState::Active);
    let predecessor = env.show(&first.id);
    assert_eq!(predecessor.state, SessionState::Closed);
    assert!(
        !env.tmux_has(&format!("lf-{}", &first.id[..12])),
        "the predecessor's agent still runs"
    );
    let again: SessionRecord = primary(&env, &repo, &["replace", &first.id]).json();
    assert_eq!(again.id, successor.id);
    let ensured: SessionRecord = primary(&env, &repo, &["ensure"]).json();
    assert_eq!(ensured.id, successor.id);
}

#[test]
fn a_wave_has_its_own_primary_conversation() {
    let env = Env::new();
    let repo = repo(&env);
    let wave: lf::wire::WaveRecord = env
        .run(
            "lf-work",
            &[
                "wave",
                "add",
                "infrastructure",
                "--repo",
                repo.to_str().unwrap(),
            ],
        )
        .json();
    let repository: SessionRecord = primary(&env, &repo, &["ensure"]).json();
    let waved: SessionRecord = primary(&env, &repo, &["ensure", "--wave", "infrastructure"]).json();
    assert_ne!(waved.id, repository.id);
    assert_eq!(waved.primary_scope, Some(format!("wave:{}", wave.id)));
    assert_eq!(waved.wave_id, Some(wave.id.clone()));
    assert_eq!(waved.work_path.as_deref(), Some("infrastructure"));
    let again: SessionRecord = primary(&env, &repo, &["ensure", "--wave", &wave.id]).json();
    assert_eq!(again.id, waved.id);
}

#[test]
fn replacing_an_ordinary_conversation_is_refused() {
    let env = Env::new();
    let ordinary = env.new_session(&[]);
    let error = env
        .attempt("lf-primary", &["replace", &ordinary.id])
        .fails_with(4, "not_primary");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    primary(&env, &env.work(), &["ensure"]).fails_with(2, "not_in_repository");
}
