//! Issue 20: nothing from outside runs. Each test reproduces an attack of
//! the threat model (docs/threat-model.md) with the real
//! parts — tmux, git, processes — and asserts that nothing ran, nothing
//! raw was printed, or the refusal is clear.

use crate::util::*;
use lf::wire::{SessionRecord, SessionState};
use std::path::Path;

/// Every `PWNED*` file in a folder: what a command the attack slipped in
/// would have made.
fn pwned(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("PWNED"))
        .collect()
}

/// tmux expands formats in `new-session -c`: a folder named
/// `x#(cd;touch PWNED)y` (a cloned repository may hold one) ran
/// `touch PWNED` in `$HOME` on every launch, and the agent started
/// elsewhere.
#[test]
fn a_folder_named_like_a_tmux_format_runs_nothing() {
    let env = Env::new();
    let folder = env.mkdir("x#(cd;touch PWNED)#{pane_id}y");
    let out = env.dir.path().join("pwd.out");
    let script = format!("pwd >> '{}'; exec sleep 600", out.display());
    let record: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--cwd",
                folder.to_str().unwrap(),
                "--",
                "sh",
                "-c",
                &script,
            ],
        )
        .json();
    let started = |launches: usize| {
        wait_for("the command to start", 20, || {
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            (text.lines().count() == launches).then_some(text)
        })
    };
    assert_eq!(started(1), format!("{}\n", folder.display()));
    // Again when it is launched anew (open, restore and move here all
    // start it through the same tmux call).
    env.tmux(&["kill-session", "-t", &format!("=lf-{}", &record.id[..12])]);
    wait_for("the session to be lost", 20, || {
        (env.show(&record.id).state != SessionState::Active).then_some(())
    });
    env.run("lf-session-open", &[&record.id, "--detach"]).ok();
    assert_eq!(started(2), format!("{0}\n{0}\n", folder.display()));
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
}

/// A program line for a repository's config: run through `sh -c` by git,
/// it leaves `PWNED_<what>` in `$HOME` (the sealed Env's folder).
fn marker(what: &str) -> String {
    format!("cd; touch PWNED_{what}; false")
}

/// The agent can write its worktree: a `.git` file pointing at a git
/// directory it made, whose config names an fsmonitor, ran that program
/// as the person ran `lf-session-diff` or `lf-session-complete
/// --remove-worktree` (both read `git status` there).
#[test]
fn a_worktree_whose_git_file_an_agent_rewrote_runs_nothing() {
    use crate::worktree::{git, repository, worktree_session};
    let env = Env::new();
    let repo = repository(&env);
    let record = worktree_session(&env, &repo, "fix");
    let worktree = std::path::PathBuf::from(&record.cwd);
    // The agent's gitdir: a whole repository inside the worktree.
    let evil = worktree.join(".evil");
    git(
        &env,
        &repo,
        &["clone", "-q", "--bare", ".", evil.to_str().unwrap()],
    );
    git(&env, &evil, &["config", "core.bare", "false"]);
    git(
        &env,
        &evil,
        &["config", "core.fsmonitor", &marker("FSMONITOR")],
    );
    std::fs::write(worktree.join(".git"), "gitdir: .evil\n").unwrap();
    std::fs::write(worktree.join("lib.rs"), "changed\n").unwrap();

    env.attempt("lf-session-diff", &[&record.id])
        .fails_with(1, "foreign_git_dir");
    env.attempt("lf-session-complete", &[&record.id, "--remove-worktree"])
        .fails_with(1, "foreign_git_dir");
    assert_eq!(
        env.show(&record.id).state,
        SessionState::Active,
        "not completed"
    );
    assert!(worktree.exists(), "the worktree is kept");
    // Pointing at another worktree of the same repository is refused too.
    let other = worktree_session(&env, &repo, "other");
    let other_git = std::fs::read_to_string(Path::new(&other.cwd).join(".git")).unwrap();
    std::fs::write(worktree.join(".git"), other_git).unwrap();
    env.attempt("lf-session-diff", &[&record.id])
        .fails_with(1, "foreign_git_dir");
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
}

/// The agent working in the repository itself can write its config: an
/// fsmonitor, a clean filter, a textconv and an external diff named
/// there ran when the person looked at the diff.
#[test]
fn a_repository_config_names_programs_that_lf_git_never_runs() {
    use crate::worktree::{git, repository, session_diff};
    let env = Env::new();
    let repo = repository(&env);
    let record = env.new_session(&["--cwd", repo.to_str().unwrap(), "--title", "in place"]);
    for (key, what) in [
        ("core.fsmonitor", "FSMONITOR"),
        ("filter.evil.clean", "CLEAN"),
        ("filter.evil.process", "PROCESS"),
        ("filter.we=ird.clean", "CLEAN_ODD_NAME"),
        ("diff.evil.textconv", "TEXTCONV"),
        ("diff.evil.command", "EXTERNAL"),
        ("diff.external", "DIFF_EXTERNAL"),
    ] {
        git(&env, &repo, &["config", key, &marker(what)]);
    }
    std::fs::write(
        repo.join(".git/info/attributes"),
        "* filter=evil diff=evil\nlib.rs filter=we=ird\n",
    )
    .unwrap();
    std::fs::write(repo.join("lib.rs"), "fn a() {}\n").unwrap();
    // A stat that no longer matches the index makes git read the file.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(repo.join("lib.rs"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    // What ran is asked first: a program that ran may also have made git fail.
    let patch = env.run("lf-session-diff", &[&record.id, "--patch"]);
    let diff = env.run("lf-session-diff", &[&record.id]);
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
    patch.ok();
    diff.ok();
    let diff = session_diff(&env, &record.id);
    assert!(diff.uncommitted);
    assert_eq!(
        diff.files
            .iter()
            .map(|file| file.path.as_str())
            .collect::<Vec<_>>(),
        ["lib.rs"]
    );
}

/// The agent working in the repository itself can write its hooks: git
/// runs one by itself when lf makes a worktree there (`post-checkout`,
/// `reference-transaction`) and when lf removes it and deletes its branch
/// (`reference-transaction`). lf's git runs none of them.
#[test]
fn a_repository_hook_never_runs_from_lf_git() {
    use crate::worktree::{repository, session_diff, worktree_session};
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let repo = repository(&env);
    let hooks = repo.join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in [
        "post-checkout",
        "reference-transaction",
        "post-index-change",
    ] {
        let path = hooks.join(hook);
        // It succeeds, so nothing but the marker tells that it ran.
        std::fs::write(&path, format!("#!/bin/sh\ncd; touch PWNED_{hook}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let record = worktree_session(&env, &repo, "fix");
    assert!(!session_diff(&env, &record.id).uncommitted);
    let ran = env.run("lf-session-complete", &[&record.id, "--remove-worktree"]);
    assert_eq!(ran.json::<SessionRecord>().state, SessionState::Closed);
    assert!(!Path::new(&record.cwd).exists(), "the worktree is removed");
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
}

/// Issue 34, item 15a: the agent working in the repository can write its
/// config: a smudge filter (or a filter process) named in the local or
/// worktree config, or in a file it includes, ran its program as lf made
/// the person's next worktree (`git worktree add` checks the files out).
/// None runs; the person's own filter from their global config (as
/// git-lfs sets itself up) still runs, also where the repository's config
/// names the same driver, and after the worktree is removed again.
#[test]
fn a_repository_smudge_filter_never_runs_at_worktree_add_and_the_persons_own_does() {
    use crate::worktree::{git, repository};
    let mut env = Env::new();
    let repo = repository(&env);
    std::fs::write(
        repo.join(".gitattributes"),
        "lib.rs filter=evil\nREADME.md filter=theirs\n*.txt filter=included\n*.toml filter=wt\n",
    )
    .unwrap();
    std::fs::write(repo.join("notes.txt"), "notes\n").unwrap();
    std::fs::write(repo.join("app.toml"), "[app]\n").unwrap();
    git(&env, &repo, &["add", "."]);
    git(&env, &repo, &["commit", "-q", "-m", "attributes"]);
    // The person's own driver, in their global config.
    let global = env.dir.path().join("person.gitconfig");
    std::fs::write(
        &global,
        "[filter \"theirs\"]\n\tsmudge = \"cd; touch THEIRS_SMUDGED; cat\"\n\tclean = cat\n\trequired = true\n",
    )
    .unwrap();
    env.vars
        .push(("GIT_CONFIG_GLOBAL".into(), global.display().to_string()));
    // The agent's: local, through an include, and worktree-scoped.
    let included = repo.join(".git/evil.gitconfig");
    std::fs::write(
        &included,
        format!(
            "[filter \"included\"]\n\tprocess = \"{}\"\n",
            marker("INCLUDED_PROCESS")
        ),
    )
    .unwrap();
    git(
        &env,
        &repo,
        &["config", "extensions.worktreeConfig", "true"],
    );
    for (key, what) in [
        ("filter.evil.smudge", "SMUDGE"),
        ("filter.evil.process", "PROCESS"),
        ("filter.theirs.smudge", "OVERRODE_THEIRS"),
    ] {
        git(&env, &repo, &["config", key, &marker(what)]);
    }
    git(&env, &repo, &["config", "filter.evil.required", "true"]);
    git(&env, &repo, &["config", "filter.theirs.required", "false"]);
    git(
        &env,
        &repo,
        &["config", "include.path", included.to_str().unwrap()],
    );
    git(
        &env,
        &repo,
        &[
            "config",
            "--worktree",
            "filter.wt.smudge",
            &marker("WORKTREE_SMUDGE"),
        ],
    );
    // What ran is asked first: a program that ran may also have made git fail.
    let made = env.run(
        "lf-session-new",
        &["--worktree=fix", "--cwd", repo.to_str().unwrap(), "hello"],
    );
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
    let record: SessionRecord = made.json();
    let worktree = std::path::PathBuf::from(&record.cwd);
    assert!(
        env.dir.path().join("THEIRS_SMUDGED").exists(),
        "the person's own global filter ran"
    );
    assert_eq!(
        std::fs::read_to_string(worktree.join("lib.rs")).unwrap(),
        "fn a() {}\nfn b() {}\nfn c() {}\n",
        "checked out as committed"
    );
    assert_eq!(
        std::fs::read_to_string(worktree.join("README.md")).unwrap(),
        "# app\n"
    );
    let ran = env.run("lf-session-complete", &[&record.id, "--remove-worktree"]);
    assert_eq!(ran.json::<SessionRecord>().state, SessionState::Closed);
    assert!(!worktree.exists(), "the worktree is removed");
    assert_eq!(pwned(env.dir.path()), Vec::<String>::new());
}

/// A Home its owner made read-only (0555) was made 0700 and written:
/// tightening must only take permission away.
#[test]
fn a_read_only_home_is_refused_not_made_writable() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.new_session(&["--title", "before"]);
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
    std::fs::set_permissions(env.home(), std::fs::Permissions::from_mode(0o555)).unwrap();
    env.attempt("lf-session-new", &["--no-launch", "--title", "after"])
        .fails_with(1, "home_read_only");
    assert_eq!(mode(&env.home()), 0o555, "the Home keeps its mode");
    // A wider one is still narrowed, never widened: 0755 → 0700.
    std::fs::set_permissions(env.home(), std::fs::Permissions::from_mode(0o755)).unwrap();
    env.new_session(&["--title", "after"]);
    assert_eq!(mode(&env.home()), 0o700);
    // So is a file in it: one its owner made read-only (0444) loses what
    // others may do and is never made writable (it was made 0600 by any
    // process that could open it, root among them).
    env.hook("nope", None, b"{}").ok();
    let log = env.home().join("hook.log");
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o444)).unwrap();
    env.hook("nope", None, b"{}").ok();
    assert_eq!(mode(&log) & 0o222, 0, "the hook log was made writable");
}

/// The provider argument of `lf-hook` went into `hook.log` as it was: a
/// `cat hook.log` then ran the escape sequences it held.
#[test]
fn the_hook_log_shows_no_escape_sequence_raw() {
    let env = Env::new();
    env.new_session(&["--title", "logged"]);
    env.hook("\u{1b}]2;pwned\u{7}\u{1b}[2J", None, b"{}").ok();
    let log = std::fs::read_to_string(env.home().join("hook.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log:?}");
    assert!(
        log.chars().all(|c| c == '\n' || !c.is_control()),
        "raw control characters in the hook log: {log:?}"
    );
    // tests/messages.rs pins the line, the name shown escaped.
}

/// Titles and ready summaries accepted bidirectional controls, which make
/// a terminal show text in an order that reads as something else (Trojan
/// Source).
/// Issue 34: U+200B and the marks U+200E, U+200F, U+061C, and U+FEFF,
/// were taken in titles: invisible, they make two titles look alike or
/// reorder what follows.
#[test]
fn titles_refuse_invisible_and_text_direction_marks() {
    let env = Env::new();
    let record = env.new_session(&["--title", "fine"]);
    for hidden in [
        '\u{200b}', '\u{200e}', '\u{200f}', '\u{61c}', '\u{feff}', '\u{2060}',
    ] {
        let title = format!("a{hidden}b");
        let error = env
            .attempt("lf-session-rename", &[&record.id, &title])
            .fails_with(2, "control_character");
        assert_eq!(error.arg.as_deref(), Some("title"), "{error:?}");
        assert!(
            error.message.contains(&format!("{hidden:?}")),
            "the message names it as an escape: {}",
            error.message
        );
        env.attempt("lf-session-new", &["--no-launch", "--title", &title])
            .fails_with(2, "control_character");
    }
    assert_eq!(env.show(&record.id).title, "fine");
    assert_eq!(env.list(&[]).len(), 1, "nothing was created");
}

#[test]
fn titles_and_summaries_refuse_text_direction_controls() {
    let env = Env::new();
    let record = env.new_session(&["--title", "fine"]);
    let run = env.current_run(&record.id);
    for control in ['\u{202e}', '\u{202a}', '\u{2066}', '\u{2069}'] {
        let title = format!("invoice{control}fdp.exe");
        let error = env
            .attempt("lf-session-new", &["--no-launch", "--title", &title])
            .fails_with(2, "control_character");
        assert_eq!(error.arg.as_deref(), Some("title"), "{error:?}");
        env.attempt("lf-session-rename", &[&record.id, &title])
            .fails_with(2, "control_character");
        // The agent's summary of its work, which the person reads.
        let mut ready = env.json_errors("lf-session-ready");
        ready
            .env("LF_SESSION_ID", &record.id)
            .env("LF_RUN_ID", &run)
            .arg(format!("tests pass{control} (all 12)"));
        let error = env.run_command(ready).fails_with(2, "control_character");
        assert_eq!(error.arg.as_deref(), Some("summary"), "{error:?}");
    }
    let shown = env.show(&record.id);
    assert_eq!((shown.title.as_str(), shown.ready_summary), ("fine", None));
    assert_eq!(env.list(&[]).len(), 1, "nothing was created");
    // A title lf makes from a prompt leaves them out.
    let generated = env.new_session(&["fix\u{202e}it now"]);
    assert_eq!(generated.title, "fixit now");
}
