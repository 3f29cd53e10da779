//! End-to-end tests of the plugin in the real `nu` 0.115.1 (installed by
//! `scripts/test` into `.tools/nu`), run as
//! `nu -n --no-std-lib --plugins <nu_plugin_lf> -c SCRIPT` so no user
//! configuration is read. Each test gets a sealed environment: its own Home
//! (seeded through the library), HOME, tmux socket and a cleared
//! environment. Output is decoded from `to json -r` into the library's wire
//! types, never grepped.

// The flow review and handoff commands, against the helpers below.
#[path = "nu/flows_handoffs.rs"]
mod flows_handoffs;

// `lf active`, the live-process snapshot, against a fake live client.
#[path = "nu/active.rs"]
mod active;
// `lf session diff`, against a worktree of a real repository.
#[path = "nu/diff.rs"]
mod diff;
// The words a person reads in Nushell, pinned as rendered.
#[path = "nu/messages.rs"]
mod messages;

use lf::session::Turn;
use lf::wire::{Attention, SessionRecord, SessionState};
use lf::{Home, Lf, NewConversation};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `nu` binary: `$LF_TEST_NU`, else where `scripts/test` installs it.
/// A missing `nu` fails the test: these tests are the plugin's proof.
fn nu() -> PathBuf {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools/nu/node_modules/@nushell/linux-x64/bin/nu");
    let path = std::env::var_os("LF_TEST_NU")
        .map(PathBuf::from)
        .unwrap_or(installed);
    assert!(
        path.is_file(),
        "nu 0.115.1 is missing at {}: run scripts/test, which installs it into .tools/nu \
         (or set LF_TEST_NU to a nu 0.115.1 binary)",
        path.display()
    );
    path
}

fn plugin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nu_plugin_lf"))
}

/// A binary of the lf-bins package, built into the same target folder.
fn binary(name: &str) -> PathBuf {
    let path = plugin().with_file_name(name);
    assert!(
        path.is_file(),
        "{} is missing: build the binaries first (cargo build -p lf-bins; scripts/test does)",
        path.display()
    );
    path
}

/// What a finished process did.
#[derive(Debug)]
struct Ran {
    argv: Vec<String>,
    cwd: PathBuf,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn describe(&self) -> String {
        format!(
            "argv: {:?}\ncwd: {}\nexit: {:?}\nstdout:\n{}\nstderr:\n{}",
            self.argv,
            self.cwd.display(),
            self.code,
            self.stdout,
            self.stderr
        )
    }

    fn ok(&self) -> &Self {
        assert_eq!(self.code, Some(0), "command failed\n{}", self.describe());
        self
    }

    fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        self.ok();
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not the expected JSON: {error}\n{}",
                self.describe()
            )
        })
    }
}

/// One sealed environment: a temp dir with the Home, a work folder and a
/// private tmux server (killed on drop).
struct Env {
    dir: tempfile::TempDir,
    socket: String,
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .env("TMUX_TMPDIR", self.dir.path())
            .env_remove("TMUX")
            .output();
    }
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let socket = format!("lf-plugin-{}", lf::ids::SessionId::new());
        let env = Env { dir, socket };
        std::fs::create_dir_all(env.work()).unwrap();
        env
    }

    fn root(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn mkdir(&self, relative: &str) -> PathBuf {
        let path = self.work().join(relative);
        std::fs::create_dir_all(&path).unwrap();
        std::fs::canonicalize(path).unwrap()
    }

    fn lf(&self) -> Lf {
        Lf::at(Home::at(self.home()), lf::Caller::default())
    }

    /// Record a conversation through the library (no launch).
    fn session(&self, title: &str, cwd: &Path) -> String {
        self.lf()
            .create(NewConversation {
                provider: lf::provider::Provider::Claude,
                model: None,
                title: Some(title.into()),
                cwd: Some(cwd.into()),
                task: None,
                prompt: None,
                argv: Vec::new(),
                launch: false,
                worktree: None,
            })
            .unwrap()
            .id
    }

    fn run_of(&self, id: &str) -> String {
        self.lf()
            .store()
            .unwrap()
            .session_row(&lf::ids::SessionId::parse(id).unwrap())
            .unwrap()
            .unwrap()
            .current_run_id
    }

    fn command(&self, program: &Path, cwd: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root())
            .env("XDG_CONFIG_HOME", self.root().join("config"))
            .env("XDG_DATA_HOME", self.root().join("data"))
            .env("LF_HOME", self.home())
            .env("LF_TMUX_SOCKET", &self.socket)
            .env("TMUX_TMPDIR", self.root())
            .current_dir(cwd)
            .stdin(Stdio::null());
        command
    }

    fn run(&self, mut command: Command, cwd: &Path) -> Ran {
        let argv = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        let output = command.output().expect("spawn");
        Ran {
            argv,
            cwd: cwd.to_path_buf(),
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Run a Nushell script with the plugin, from the work folder.
    fn nu(&self, script: &str) -> Ran {
        self.nu_in(&self.work(), script)
    }

    fn nu_in(&self, cwd: &Path, script: &str) -> Ran {
        let mut command = self.command(&nu(), cwd);
        command.args(["-n", "--no-std-lib", "--plugins"]);
        command.arg(plugin()).arg("-c").arg(script);
        self.run(command, cwd)
    }

    fn binary_in(&self, cwd: &Path, name: &str, args: &[&str]) -> Ran {
        let mut command = self.command(&binary(name), cwd);
        command.args(args);
        self.run(command, cwd)
    }
}

/// A seeded Home: one session for each kind of attention, two that need
/// nothing, one closed; returns their ids by role.
struct Seeded {
    review: String,
    reply: String,
    approve: String,
    quiet: Vec<String>,
    closed: String,
}

fn seed(env: &Env) -> Seeded {
    let work = env.mkdir("repo");
    let lf = env.lf();
    let store = lf.store().unwrap();
    let now = lf::clock::now_micros;
    let closed = env.session("Closed one", &work);
    store.complete_session(&closed, now()).unwrap();
    let review = env.session("Ready for review", &work);
    store
        .mark_ready(&review, &env.run_of(&review), "All done", now())
        .unwrap();
    let quiet_a = env.session("Nothing yet", &work);
    let reply = env.session("Turn finished", &work);
    store
        .record_turn(&env.run_of(&reply), Turn::Completed, now())
        .unwrap();
    let approve = env.session("Blocked on a prompt", &work);
    store
        .record_permission_prompt(&env.run_of(&approve), now(), None)
        .unwrap();
    let quiet_b = env.session("Still nothing", &work);
    Seeded {
        review,
        reply,
        approve,
        quiet: vec![quiet_a, quiet_b],
        closed,
    }
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

#[test]
fn where_attention_not_null_returns_exactly_the_sessions_needing_attention() {
    let env = Env::new();
    let seeded = seed(&env);
    let records: Vec<SessionRecord> = env
        .nu("lf sessions | where attention != null | to json -r")
        .json();
    let ids: Vec<String> = records.iter().map(|record| record.id.clone()).collect();
    assert_eq!(
        sorted(ids),
        sorted(vec![
            seeded.review.clone(),
            seeded.reply.clone(),
            seeded.approve.clone()
        ])
    );
    for record in &records {
        let expected = if record.id == seeded.review {
            Attention::Review
        } else if record.id == seeded.reply {
            Attention::Reply
        } else {
            Attention::Approve
        };
        assert_eq!(record.attention, Some(expected), "{}", record.title);
    }
    // And the complement: the others have null, not an empty string; a
    // closed session needs nothing.
    let quiet: Vec<SessionRecord> = env
        .nu("lf sessions --all | where attention == null | to json -r")
        .json();
    let ids: Vec<String> = quiet.into_iter().map(|record| record.id).collect();
    let mut expected = seeded.quiet.clone();
    expected.push(seeded.closed.clone());
    assert_eq!(sorted(ids), sorted(expected));
}

#[test]
fn sort_by_updated_at_sorts_by_time_because_it_is_a_datetime() {
    let env = Env::new();
    let work = env.mkdir("repo");
    let ids: Vec<String> = ["first", "second", "third"]
        .iter()
        .map(|title| env.session(title, &work))
        .collect();
    // Touch the oldest last, a second after the newest was made, so update
    // order differs from creation order: a time given, not waited for.
    let lf = env.lf();
    let later = lf.get(&ids[2]).unwrap().updated_at.micros() + 1_000_000;
    let renamed = lf
        .store()
        .unwrap()
        .rename_session(
            &ids[0],
            "first, renamed",
            lf::wire::TitleSource::Human,
            later,
        )
        .unwrap();
    assert!(renamed);
    let sorted: Vec<String> = env
        .nu("lf sessions | sort-by updated_at | get id | to json -r")
        .json();
    assert_eq!(sorted, vec![ids[1].clone(), ids[2].clone(), ids[0].clone()]);
    // Date arithmetic only works on datetimes, not on RFC 3339 strings.
    let recent: Vec<String> = env
        .nu("lf sessions | where updated_at > ((date now) - 1hr) | get id | to json -r")
        .json();
    assert_eq!(recent.len(), 3);
    let types: Vec<String> = env
        .nu("lf sessions --all | each {|s| [($s.created_at | describe) ($s.updated_at | describe)] } | flatten | uniq | to json -r")
        .json();
    assert_eq!(types, vec!["datetime"]);
}

#[test]
fn describe_shows_the_column_types() {
    let env = Env::new();
    seed(&env);
    let ran = env.nu("lf sessions --all | describe");
    ran.ok();
    let described = ran.stdout.trim();
    assert!(
        described.starts_with("table<id: string, title: string, title_source: string"),
        "{described}"
    );
    for column in [
        "interactive: bool",
        "actions: table<kind: string, label: string, help: string, unavailable_reason:",
        "task_ids: list<",
        "open_argv: list<string>",
        "flow_membership: record<kind: string>",
        "created_at: datetime",
        "updated_at: datetime",
    ] {
        assert!(described.contains(column), "no {column:?} in {described}");
    }
    // Per value: attention is a string or nothing, completed_at a datetime
    // or nothing, never a placeholder string.
    let kinds: Vec<Vec<String>> = env
        .nu("lf sessions --all | each {|s| [($s.attention | describe) ($s.completed_at | describe) ($s.work | describe)] } | uniq | sort | to json -r")
        .json();
    for [attention, completed_at, work] in kinds
        .iter()
        .map(|row| <[String; 3]>::try_from(row.clone()).unwrap())
    {
        assert!(
            ["string", "nothing"].contains(&attention.as_str()),
            "{kinds:?}"
        );
        assert!(
            ["datetime", "nothing"].contains(&completed_at.as_str()),
            "{kinds:?}"
        );
        assert_eq!(work, "nothing", "{kinds:?}");
    }
    assert!(kinds.iter().any(|row| row[1] == "datetime"), "{kinds:?}");
}

#[test]
fn piping_ids_into_complete_closes_them() {
    let env = Env::new();
    let seeded = seed(&env);
    let closed: Vec<SessionRecord> = env
        .nu("lf sessions | where state == ready | lf session complete | to json -r")
        .json();
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].id, seeded.review);
    assert_eq!(closed[0].state, SessionState::Closed);
    assert_eq!(closed[0].ready_summary.as_deref(), Some("All done"));
    // Strings and a list of strings work too. Quoted: a bare hex id such
    // as 6a96…0b would parse as a file size.
    let script = format!(
        "['{}' '{}'] | lf session complete | get state | to json -r",
        seeded.reply, seeded.approve
    );
    let states: Vec<SessionState> = env.nu(&script).json();
    assert_eq!(states, vec![SessionState::Closed, SessionState::Closed]);
    let one: SessionRecord = env
        .nu(&format!(
            "'{}' | lf session complete | to json -r",
            seeded.quiet[0]
        ))
        .json();
    assert_eq!(one.state, SessionState::Closed);
    let lf = env.lf();
    for id in [
        &seeded.review,
        &seeded.reply,
        &seeded.approve,
        &seeded.quiet[0],
    ] {
        assert!(lf.get(id).unwrap().completed_at.is_some(), "{id} is open");
    }
    assert!(lf.get(&seeded.quiet[1]).unwrap().completed_at.is_none());
}

/// Record a conversation with ids the test chooses, through the store.
fn seed_with_id(env: &Env, id: &str, run: &str, title: &str) {
    use lf::ids::{RunId, SessionId};
    use lf::store::{NewRun, NewSessionRow};
    let session = NewSessionRow {
        id: SessionId::parse(id).unwrap(),
        kind: lf::wire::SessionKind::Conversation,
        title: title.into(),
        title_source: lf::wire::TitleSource::Human,
        interactive: true,
        cwd: env.work().display().to_string(),
        provider: "claude".into(),
        model: None,
        task_id: None,
        wave_id: None,
        primary_scope: None,
        independent: true,
    };
    let run = NewRun {
        id: RunId::parse(run).unwrap(),
        chosen_native_id: None,
        provider: "claude".into(),
        model: None,
        argv: Vec::new(),
        prompt: None,
    };
    let lf = env.lf();
    lf.store()
        .unwrap()
        .insert_session(&session, &run, lf::clock::now_micros())
        .unwrap();
}

#[test]
fn a_short_id_names_a_session_and_an_ambiguous_one_is_labelled() {
    let env = Env::new();
    let seeded = seed(&env);
    let id = &seeded.quiet[0];
    let short = &id[..8];
    let printed: SessionRecord = env
        .nu(&format!("lf session open --print {short} | to json -r"))
        .json();
    assert_eq!(&printed.id, id);
    let renamed: SessionRecord = env
        .nu(&format!(
            "lf session rename {short} 'Renamed by prefix' | to json -r"
        ))
        .json();
    assert_eq!(
        (renamed.id.as_str(), renamed.title.as_str()),
        (id.as_str(), "Renamed by prefix")
    );
    let states: Vec<SessionState> = env
        .nu(&format!(
            "['{short}'] | lf session complete | get state | to json -r"
        ))
        .json();
    assert_eq!(states, [SessionState::Closed]);
    assert!(env.lf().get(id).unwrap().completed_at.is_some());

    seed_with_id(
        &env,
        "be336cc70f1e4a2b9c3d5e6f7a8b9c0d",
        "run-01jx4q8z000000000000000000",
        "Fix the parser",
    );
    seed_with_id(
        &env,
        "be336cc7a1b2c3d4e5f60718293a4b5c",
        "run-01jx4q8zzzzzzzzzzzzzzzzzzz",
        "Add a flag",
    );
    let error = caught(&env, "lf session open --print be336cc7");
    assert_eq!(error.code.as_deref(), Some("lf::usage"));
    assert_eq!(error.labels[0].source, "be336cc7");
    let error = caught(&env, "lf session complete be336");
    assert_eq!(error.code.as_deref(), Some("lf::usage"));
    assert_eq!(error.labels[0].source, "be336");
    // The words are the library's, as the binaries print them (pinned in
    // tests/messages.rs).
    binary_says_the_same(&env, "lf-session-complete", &["be336"], &error);
}

/// What `try { } catch` sees of an error: its message, code, help (what
/// to type next), and the source text under each label.
#[derive(Debug, Deserialize)]
struct Caught {
    msg: String,
    code: Option<String>,
    help: Option<String>,
    labels: Vec<Label>,
}

impl Caught {
    /// Whether the error shows `text` in its message or a label's text
    /// (not the sources under the labels, which are what the user typed).
    fn shows(&self, text: &str) -> bool {
        self.msg.contains(text) || self.labels.iter().any(|label| label.text.contains(text))
    }
}

/// The binary refuses the same arguments with the plugin's message; what
/// to type next follows it in the binary's own words (the plugin gives it
/// as the error's help).
fn binary_says_the_same(env: &Env, program: &str, args: &[&str], error: &Caught) {
    let binary = env.binary_in(&env.work(), program, args);
    let said = binary
        .stderr
        .trim()
        .strip_prefix(program)
        .and_then(|rest| rest.strip_prefix(": "))
        .and_then(|rest| rest.strip_prefix(error.msg.as_str()));
    assert!(
        said.is_some_and(|hint| hint.is_empty() || hint.starts_with("; ")),
        "{}",
        binary.describe()
    );
}

#[derive(Debug, Deserialize)]
struct Label {
    text: String,
    source: String,
}

fn caught(env: &Env, call: &str) -> Caught {
    let script = format!(
        "try {{ {call} }} catch {{|e| {{msg: $e.details.msg, code: $e.details.code, help: $e.details.help?, labels: ($e.details.labels | each {{|l| {{text: $l.text, source: (view span $l.span.start $l.span.end)}} }})}} | to json -r }}"
    );
    env.nu(&script).json()
}

/// Acting from afar on a Session with no live agent is refused as the
/// binaries refuse it, labelled under the id; a reply with a newline under
/// the text.
#[test]
fn send_and_answer_refuse_as_the_binaries_do() {
    let env = Env::new();
    let seeded = seed(&env);
    let error = caught(&env, &format!("lf session send {} 'Go on'", seeded.reply));
    assert_eq!(error.code.as_deref(), Some("lf::conflict"), "{error:?}");
    assert_eq!(error.labels[0].source, seeded.reply);
    binary_says_the_same(&env, "lf-session-send", &[&seeded.reply, "Go on"], &error);
    let error = caught(&env, &format!("lf session answer {} allow", seeded.approve));
    assert_eq!(error.code.as_deref(), Some("lf::conflict"), "{error:?}");
    binary_says_the_same(
        &env,
        "lf-session-answer",
        &[&seeded.approve, "allow"],
        &error,
    );
    let error = caught(&env, &format!("lf session send {} \"a\\nb\"", seeded.reply));
    assert_eq!(error.code.as_deref(), Some("lf::usage"), "{error:?}");
    assert_eq!(error.labels[0].source, "\"a\\nb\"");
}

#[test]
fn a_bad_id_is_a_labeled_error_pointing_at_the_argument() {
    let env = Env::new();
    seed(&env);
    let error = caught(&env, "lf session complete nothex");
    assert_eq!(error.code.as_deref(), Some("lf::usage"));
    assert_eq!(error.labels.len(), 1, "{error:?}");
    assert_eq!(error.labels[0].source, "nothex");

    let missing = "0123456789abcdef0123456789abcdef";
    let error = caught(&env, &format!("lf session open {missing}"));
    assert_eq!(error.code.as_deref(), Some("lf::not_found"));
    assert_eq!(error.labels[0].text, "not found");
    assert_eq!(error.labels[0].source, missing);

    // The same message as the binary's.
    let error = caught(&env, "lf session complete nothex");
    binary_says_the_same(&env, "lf-session-complete", &["nothex"], &error);

    // A bad filter value points at the flag's value, and nothing streams.
    let error = caught(&env, "lf sessions --task NOPE-1");
    assert_eq!(error.code.as_deref(), Some("lf::not_found"));
    assert_eq!(error.labels[0].source, "NOPE-1");
}

#[test]
fn help_lf_sessions_shows_examples_with_results() {
    let env = Env::new();
    let ran = env.nu("help lf sessions");
    ran.ok();
    assert!(ran.stdout.contains("Examples:"), "{}", ran.describe());
    assert!(
        ran.stdout.contains("(lf sessions --attention).title"),
        "{}",
        ran.describe()
    );
    assert!(
        ran.stdout.contains("Rewrite the parser"),
        "{}",
        ran.describe()
    );
    let commands: Vec<String> = env
        .nu("help commands | where name starts-with 'lf' | get name | sort | to json -r")
        .json();
    assert_eq!(
        commands,
        [
            "lf active",
            "lf count",
            "lf flow advance",
            "lf flow finish",
            "lf flow review",
            "lf flow wait",
            "lf handoff attach",
            "lf handoff claim-wake",
            "lf handoff finish",
            "lf handoff open",
            "lf handoff show",
            "lf handoffs",
            "lf session answer",
            "lf session bind",
            "lf session complete",
            "lf session diff",
            "lf session new",
            "lf session open",
            "lf session ready",
            "lf session rename",
            "lf session send",
            "lf sessions",
            "lf usage",
            "lf watch",
            "lf work task add",
            "lf work task finish",
            "lf work task list",
            "lf work wave add",
            "lf work wave list",
        ],
        "no bare `lf` command"
    );
}

#[test]
fn the_plugin_and_lf_session_list_return_the_same_sessions_in_the_same_order() {
    let env = Env::new();
    seed(&env);
    let repo = env.mkdir("repo");
    let worktree = env.mkdir("repo-loo-1");
    let nested = env.mkdir("repo-loo-1/src");
    let lf = env.lf();
    lf.add_wave("product", &repo).unwrap();
    lf.add_task(lf::work::NewTask {
        identifier: "LOO-1",
        title: "The first task",
        worktree: Some(&worktree),
        wave: Some("product"),
    })
    .unwrap();
    let in_worktree = env.session("In the worktree", &nested);
    let bound = env.session("Bound by hand", &repo);
    lf.bind(&bound, "LOO-1").unwrap();
    lf.rename(
        &in_worktree,
        "In the worktree, renamed",
        lf::wire::TitleSource::Human,
    )
    .unwrap();
    let filters: &[&[&str]] = &[
        &[],
        &["--all"],
        &["--attention"],
        &["--state", "ready"],
        &["--state", "unknown"],
        &["--kind", "conversation", "--all"],
        &["--task", "LOO-1"],
        &["--orphan"],
        &["--cwd", "repo-loo-1"],
        &["--here"],
        &["--limit", "2"],
        &["--all", "--limit", "3"],
    ];
    for &filter in filters {
        for cwd in [env.work(), worktree.clone()] {
            if filter.contains(&"--cwd") && cwd != env.work() {
                continue;
            }
            let binary = env.binary_in(&cwd, "lf-session-list", filter);
            let expected: Vec<SessionRecord> = binary.json();
            let script = format!("lf sessions {} | to json -r", filter.join(" "));
            let got: Vec<SessionRecord> = env.nu_in(&cwd, &script).json();
            assert_eq!(
                got.iter().map(|record| &record.id).collect::<Vec<_>>(),
                expected.iter().map(|record| &record.id).collect::<Vec<_>>(),
                "order differs for {filter:?} in {}",
                cwd.display()
            );
            for (got, expected) in got.iter().zip(&expected) {
                assert_eq!(got, expected, "{filter:?} in {}", cwd.display());
            }
        }
    }
    // Paging: the plugin's cursor continues where the binary's would.
    #[derive(Deserialize)]
    struct Page {
        entries: Vec<SessionRecord>,
        next: Option<String>,
    }
    let binary: Page = env
        .binary_in(&env.work(), "lf-session-list", &["--limit", "2", "--page"])
        .json();
    let plugin: Page = env.nu("lf sessions --limit 2 --page | to json -r").json();
    assert_eq!(plugin.next, binary.next);
    assert_eq!(plugin.entries.len(), binary.entries.len());
    let next = binary.next.expect("a next page");
    let binary: Vec<SessionRecord> = env
        .binary_in(&env.work(), "lf-session-list", &["--after", &next])
        .json();
    let plugin: Vec<SessionRecord> = env
        .nu(&format!("lf sessions --after '{next}' | to json -r"))
        .json();
    // Times decode as instants, whatever text Nushell wrote them as.
    assert_eq!(plugin, binary);
}

#[test]
fn the_home_and_the_current_directory_come_from_the_engine() {
    let env = Env::new();
    let other = env.root().join("other-home");
    let elsewhere = env.mkdir("elsewhere");
    // The plugin starts (and inherits its environment) at the first call;
    // what the engine says later must still win.
    let script = format!(
        "lf sessions | ignore; $env.LF_HOME = '{}'; cd '{}'; lf session new --no-launch 'Here' | to json -r",
        other.display(),
        elsewhere.display()
    );
    let record: SessionRecord = env.nu(&script).json();
    assert_eq!(record.cwd, elsewhere.display().to_string());
    assert_eq!(
        record.open_argv[1],
        format!("LF_HOME={}", other.display()),
        "the record names the engine's Home"
    );
    let in_other = Lf::at(Home::at(&other), lf::Caller::default());
    assert_eq!(in_other.get(&record.id).unwrap().title, "Here");
    assert!(
        env.lf().get(&record.id).is_err(),
        "written to the wrong Home"
    );
    // --here and a relative --cwd are the engine's directory too.
    let script = format!(
        "cd '{}'; [(lf sessions --here | length) (lf sessions --cwd . | length) (lf sessions | length)] | to json -r",
        elsewhere.display()
    );
    let mut command = env.command(&nu(), &env.work());
    command
        .env("LF_HOME", &other)
        .args(["-n", "--no-std-lib", "--plugins"])
        .arg(plugin())
        .arg("-c")
        .arg(&script);
    let counts: Vec<usize> = env.run(command, &env.work()).json();
    assert_eq!(counts, vec![1, 1, 1]);
}

#[test]
fn new_launches_in_tmux_and_open_outside_tmux_returns_the_record() {
    let env = Env::new();
    let work = env.mkdir("repo");
    let launched: SessionRecord = env
        .nu_in(
            &work,
            "lf session new --provider command --argv [sleep 600] | to json -r",
        )
        .json();
    assert_eq!(launched.state, SessionState::Active, "{launched:?}");
    assert_eq!(launched.title, "sleep in repo");
    let opened = env.nu_in(
        &work,
        &format!("lf session open {} | to json -r", launched.id),
    );
    let record: SessionRecord = opened.json();
    assert_eq!(record.id, launched.id);
    assert_eq!(record.state, SessionState::Active);
    // It says how to attach (its words: nu/messages.rs), and nothing else.
    assert_eq!(opened.stderr.lines().count(), 1, "{}", opened.describe());
    // Inside tmux (the ENGINE's $env.TMUX, set after the plugin started)
    // it switches the client; this server has no client attached, so tmux
    // says so.
    let switch = format!(
        "lf sessions | ignore; $env.TMUX = '{}/{},1,0'; lf session open {}",
        env.root().display(),
        env.socket,
        launched.id
    );
    let error = caught(&env, &switch);
    assert_eq!(error.code.as_deref(), Some("lf::operational"), "{error:?}");
    let closed: SessionRecord = env
        .nu_in(
            &work,
            &format!("lf session complete {} --grace 1 | to json -r", launched.id),
        )
        .json();
    assert_eq!(closed.state, SessionState::Closed);
}

#[test]
fn the_plugin_uses_the_engines_tmux_socket_not_its_own() {
    let env = Env::new();
    let work = env.mkdir("repo");
    // The plugin process starts with the test's socket in its environment
    // (the first command starts it); the person then points the engine at
    // another server. Sessions must start there.
    let engine_socket = format!("lf-engine-{}", lf::ids::SessionId::new());
    let script = format!(
        "lf sessions | ignore; $env.LF_TMUX_SOCKET = '{engine_socket}'; \
         lf session new --provider command --argv [sleep 600] | to json -r"
    );
    let launched: SessionRecord = env.nu_in(&work, &script).json();
    let name = format!("={}", tmux_name(&launched.id));
    let has = |socket: &str| {
        Command::new("tmux")
            .args(["-L", socket, "has-session", "-t", &name])
            .env("TMUX_TMPDIR", env.root())
            .env_remove("TMUX")
            // No server there is the expected answer, not a message for
            // the test's output (issue 26: "error connecting to …").
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    let on_engine = has(&engine_socket);
    let on_process = has(&env.socket);
    let _ = Command::new("tmux")
        .args(["-L", &engine_socket, "kill-server"])
        .env("TMUX_TMPDIR", env.root())
        .env_remove("TMUX")
        .output();
    assert!(on_engine, "the session runs on the engine's tmux server");
    assert!(!on_process, "not on the plugin process's own server");
    assert_eq!(launched.state, SessionState::Active, "{launched:?}");
}

fn tmux_name(id: &str) -> String {
    format!("lf-{}", &id[..12])
}

/// `lf watch` follows in a real Nushell: a pipeline that waits for the
/// next approval gets it as a typed record the moment it is recorded, and
/// `first` ends the stream (and the follower) there.
#[test]
fn lf_watch_streams_an_approval_to_a_waiting_pipeline() {
    let env = Env::new();
    let work = env.mkdir("repo");
    let quiet = env.session("Quiet", &work);
    let blocked = env.session("Blocked", &work);
    let mut command = env.command(&nu(), &env.work());
    command
        .args(["-n", "--no-std-lib", "--plugins"])
        .arg(plugin())
        .arg("-c")
        .arg(
            "lf watch --since 0 --attention | first 1 | each { |e| \
             {seq: $e.seq, session: $e.session_id, to: $e.to, title: $e.record.title, \
             at: ($e.at | describe), since: ($e.record.attention_since | describe)} } \
             | to json -r",
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().unwrap();
    // Only title and creation events so far: nothing for the pipeline yet.
    let store = env.lf();
    let store = store.store().unwrap();
    store
        .rename_session(&quiet, "Still quiet", lf::wire::TitleSource::Human, 1)
        .unwrap();
    store
        .record_permission_prompt(&env.run_of(&blocked), lf::clock::now_micros(), None)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    #[derive(Debug, PartialEq, Deserialize)]
    struct Got {
        seq: u64,
        session: String,
        to: String,
        title: String,
        at: String,
        since: String,
    }
    let got: Vec<Got> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        got,
        [Got {
            seq: 4,
            session: blocked,
            to: "approve".into(),
            title: "Blocked".into(),
            at: "datetime".into(),
            since: "datetime".into(),
        }]
    );
}
