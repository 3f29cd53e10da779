use crate::util::*;
use std::io::Read;
use std::process::Stdio;

const BINARIES: [&str; 22] = [
    "lf-session-list",
    "lf-session-count",
    "lf-session-usage",
    "lf-session-next",
    "lf-session-watch",
    "lf-session-new",
    "lf-session-ready",
    "lf-session-rename",
    "lf-session-complete",
    "lf-session-diff",
    "lf-session-restore",
    "lf-session-bind",
    "lf-session-open",
    "lf-session-pick",
    "lf-session-active",
    "lf-work",
    "lf-primary",
    "lf-flow",
    "lf-handoff",
    "lf-serve",
    "lf-install-shell",
    // lf-hook answers --help and --version, but any other input exits 0
    // silently (a hook must never disturb the agent): see tests/hooks.rs.
    "lf-hook",
];

#[test]
fn every_binary_has_help_with_examples_and_a_version() {
    let env = Env::new();
    for name in BINARIES {
        let help = env.run(name, &["--help"]);
        help.ok();
        assert!(
            help.stdout.contains("Examples:"),
            "{name} --help has no examples:\n{}",
            help.stdout
        );
        assert!(
            help.stdout.contains(&format!("{name} ")),
            "{name} --help names no usage"
        );
        let version = env.run(name, &["--version"]);
        version.ok();
        assert_eq!(
            version.stdout.trim(),
            format!("{name} {}", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn unknown_flags_are_usage_errors_naming_the_program() {
    let env = Env::new();
    for name in BINARIES.iter().filter(|name| **name != "lf-hook") {
        env.attempt(name, &["--no-such-flag"])
            .fails_with(2, "command_line");
    }
    assert!(
        !env.home().join("loopflow.db").exists(),
        "a usage error wrote the database"
    );
}

#[test]
fn json_error_format_is_one_object_on_stderr() {
    let env = Env::new();
    let mut command = env.command("lf-session-complete");
    command
        .env("LF_ERROR_FORMAT", "json")
        .arg("0123456789abcdef0123456789abcdef");
    let ran = env.run_command(command);
    assert_eq!(ran.code, Some(3));
    assert!(ran.stdout.is_empty());
    let error: ErrorJson = serde_json::from_str(ran.stderr.trim()).expect("one JSON object");
    assert_eq!(error.program, "lf-session-complete");
    assert_eq!(error.error, "session_not_found");
    assert_eq!(error.arg.as_deref(), Some("id"));
    assert_eq!(error.kind, lf::ErrorKind::NotFound);
    assert_eq!(error.code, 3);
    assert!(error.causes.is_empty(), "{error:?}");

    let mut command = env.command("lf-session-list");
    command.env("LF_ERROR_FORMAT", "json").arg("--bogus");
    let ran = env.run_command(command);
    let error: ErrorJson = serde_json::from_str(ran.stderr.trim()).expect("one JSON object");
    assert_eq!((error.kind, error.code), (lf::ErrorKind::Usage, 2));
    assert_eq!((error.error.as_str(), error.arg), ("command_line", None));
}

#[test]
fn a_closed_stdout_ends_the_listing_quietly() {
    let env = Env::new();
    for index in 0..300 {
        env.new_session(&["--title", &format!("session {index}")]);
    }
    let mut child = env
        .command("lf-session-list")
        .arg("--jsonl")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then hang up, as `| head -n 1` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "", "a hang-up is not worth a word");
}

#[test]
fn a_full_disk_on_stdout_is_an_operational_error() {
    let env = Env::new();
    env.new_session(&["--title", "one"]);
    let mut command = env.json_errors("lf-session-list");
    command.stdout(std::fs::File::create("/dev/full").unwrap());
    let error = env.run_command(command).fails_with(1, "output");
    assert_eq!(error.causes, ["No space left on device (os error 28)"]);
}

#[test]
fn the_home_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.run("lf-session-list", &[]).ok();
    for dir in ["", "locks", "runs"] {
        let mode = std::fs::metadata(env.home().join(dir))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{dir}");
    }
}

#[test]
fn the_default_home_follows_xdg_state_home_then_home() {
    let env = Env::new();
    let state = env.dir.path().join("state");
    let mut command = env.command("lf-session-list");
    command.env_remove("LF_HOME").env("XDG_STATE_HOME", &state);
    env.run_command(command).ok();
    assert!(state.join("loopflow/loopflow.db").is_file());

    let mut command = env.command("lf-session-list");
    command.env_remove("LF_HOME");
    env.run_command(command).ok();
    assert!(
        env.dir
            .path()
            .join(".local/state/loopflow/loopflow.db")
            .is_file()
    );
}

#[test]
fn an_unwritable_home_is_a_clear_error() {
    let env = Env::new();
    let file = env.dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let mut command = env.json_errors("lf-session-list");
    command.env("LF_HOME", file.join("home"));
    let error = env.run_command(command).fails_with(1, "home_file");
    assert_eq!(error.causes, ["Not a directory (os error 20)"], "{error:?}");
}

/// The binaries refuse, through clap (which also shows it in --help),
/// exactly what the library's rules of flags given together refuse
/// (`lf::input::ArgumentRules`, which the plugin checks): a rule's home is
/// the library, and this holds the binaries to it.
#[test]
fn flags_given_together_follow_the_librarys_rules() {
    let env = Env::new();
    let flag = |arg: lf::Arg| -> Vec<String> {
        let name = format!("--{}", arg.flag());
        match arg {
            lf::Arg::Task => vec![name, "LOO-1".into()],
            lf::Arg::Cwd => vec![name, ".".into()],
            _ => vec![name],
        }
    };
    let missing = "0123456789abcdef0123456789abcdef";
    let refused_by_clap = |program: &str, base: &[&str], args: &[lf::Arg]| {
        let mut argv: Vec<String> = base.iter().map(|arg| arg.to_string()).collect();
        argv.extend(args.iter().flat_map(|&arg| flag(arg)));
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let ran = env.attempt(program, &argv);
        ran.code != Some(0) && ran.error_json().error == "command_line"
    };
    for (program, base, rules) in [
        ("lf-session-list", &[][..], lf::input::LISTING),
        ("lf-session-complete", &[missing][..], lf::input::COMPLETING),
    ] {
        for &(first, second) in rules.conflicts {
            assert!(
                refused_by_clap(program, base, &[first, second]),
                "{program} {first:?} {second:?}"
            );
            assert!(
                !refused_by_clap(program, base, &[first]),
                "{program} {first:?}"
            );
            assert!(
                !refused_by_clap(program, base, &[second]),
                "{program} {second:?}"
            );
        }
        for &(arg, needs) in rules.requires {
            assert!(refused_by_clap(program, base, &[arg]), "{program} {arg:?}");
            assert!(
                !refused_by_clap(program, base, &[arg, needs]),
                "{program} {arg:?} {needs:?}"
            );
        }
    }
}
