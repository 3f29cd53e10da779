//! Remote Homes over a real OpenSSH: an `sshd` of the test's own on
//! 127.0.0.1 (its port, host key and user key made in the test's temp
//! dir) serves "the other machine", a second Home with its own tmux
//! server. ssh runs through a wrapper on PATH that only adds `-F` with the
//! test's client config (ssh reads `~/.ssh/config` from the passwd entry,
//! not from `$HOME`), so the user's own ssh setup is never read or touched.

use crate::util::{Env, ErrorJson, Ran, bin, wait_for};
use lf::wire::{HostEntry, HostProblem, HostProblemKind, SessionPage, SessionRecord};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// This machine, the other one behind a real sshd, and two hosts that
/// fail: `down` (an sshd that was stopped) and `hang` (accepts and never
/// answers).
pub(crate) struct Remote {
    pub(crate) here: Env,
    other: Env,
    ssh_dir: PathBuf,
    sshd: Child,
    _hang: TcpListener,
}

impl Drop for Remote {
    fn drop(&mut self) {
        // Close the masters lf opened, so no ssh outlives the test.
        for host in ["other", "down", "hang", "twin"] {
            let _ = Command::new(self.ssh_dir.join("bin/ssh"))
                .args([
                    "-o",
                    &format!("ControlPath={}/%C", self.here.home().join("ssh").display()),
                ])
                .args(["-O", "exit", "--", host])
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.sshd.kill();
        let _ = self.sshd.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(path)
        .status()
        .expect("ssh-keygen runs (scripts/test installs openssh-server)");
    assert!(status.success());
}

/// Start an sshd for the other machine on `port`; returns once it accepts.
fn start_sshd(dir: &Path, other: &Env, port: u16) -> Child {
    std::fs::create_dir_all("/run/sshd").unwrap();
    let config = dir.join(format!("sshd_config.{port}"));
    std::fs::write(
        &config,
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {dir}/host_key\n\
             AuthorizedKeysFile {dir}/user_key.pub\nPermitRootLogin prohibit-password\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nStrictModes no\n\
             UsePAM no\nPidFile {dir}/sshd.{port}.pid\n\
             SetEnv LF_TMUX_SOCKET={socket} TMUX_TMPDIR={tmp}\n",
            dir = dir.display(),
            socket = other.socket,
            tmp = other.dir.path().display(),
        ),
    )
    .unwrap();
    let child = Command::new("/usr/sbin/sshd")
        .arg("-D")
        .arg("-f")
        .arg(&config)
        .arg("-E")
        .arg(dir.join(format!("sshd.{port}.log")))
        .spawn()
        .expect("sshd runs (scripts/test installs openssh-server)");
    wait_for("sshd to accept connections", 10, || {
        std::net::TcpStream::connect(("127.0.0.1", port)).ok()
    });
    child
}

impl Remote {
    pub(crate) fn new() -> Self {
        let mut here = Env::new();
        let other = Env::new();
        let ssh_dir = here.dir.path().join("ssh-test");
        std::fs::create_dir_all(ssh_dir.join("bin")).unwrap();
        keygen(&ssh_dir.join("host_key"));
        keygen(&ssh_dir.join("user_key"));
        let port = free_port();
        let sshd = start_sshd(&ssh_dir, &other, port);
        // A stopped sshd: it ran, and is gone.
        let stopped = free_port();
        let mut down = start_sshd(&ssh_dir, &other, stopped);
        down.kill().unwrap();
        down.wait().unwrap();
        // A host that accepts and never answers.
        let hang = TcpListener::bind("127.0.0.1:0").unwrap();
        let hang_port = hang.local_addr().unwrap().port();
        let mut config = String::new();
        for (alias, port) in [
            ("other", port),
            ("twin", port),
            ("down", stopped),
            ("hang", hang_port),
        ] {
            config += &format!(
                "Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  \
                 IdentityFile {dir}/user_key\n  IdentitiesOnly yes\n  \
                 StrictHostKeyChecking no\n  UserKnownHostsFile {dir}/known_hosts\n  \
                 LogLevel ERROR\n",
                dir = ssh_dir.display()
            );
        }
        std::fs::write(ssh_dir.join("ssh_config"), config).unwrap();
        let wrapper = ssh_dir.join("bin/ssh");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexec /usr/bin/ssh -F {} \"$@\"\n",
                ssh_dir.join("ssh_config").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", ssh_dir.join("bin").display(), here.path());
        here.vars.push(("PATH".into(), path));
        Remote {
            here,
            other,
            ssh_dir,
            sshd,
            _hang: hang,
        }
    }

    /// The folder of the built binaries, as "installed" on the other machine.
    fn bin_dir() -> String {
        bin("lf-session-list")
            .parent()
            .unwrap()
            .display()
            .to_string()
    }

    /// Add a host to this machine's list, as the other machine's Home.
    fn add(&self, host: &str) -> HostEntry {
        let home = self.other.home().display().to_string();
        self.here
            .run(
                "lf-host",
                &["add", host, "--home", &home, "--bin", &Self::bin_dir()],
            )
            .json()
    }

    /// Run one of lf's binaries on the other machine, through ssh.
    fn run_there(&self, program: &str, args: &[&str]) -> Ran {
        let mut line = format!(
            "env LF_HOME='{}' '{}/{program}'",
            self.other.home().display(),
            Self::bin_dir()
        );
        for arg in args {
            line += &format!(" '{arg}'");
        }
        let mut command = Command::new(self.ssh_dir.join("bin/ssh"));
        command.args(["-T", "-o", "BatchMode=yes", "--", "other", &line]);
        self.here.run_command(command)
    }

    /// A conversation created on the other machine (recorded, not launched).
    fn new_there(&self, title: &str) -> SessionRecord {
        self.launch_there(&["--no-launch", "--title", title])
    }

    /// A `sleep` Session launched on the other machine, in its tmux server
    /// (unless `before`, the flags before `--`, says `--no-launch`).
    fn launch_there(&self, before: &[&str]) -> SessionRecord {
        let cwd = self.other.mkdir("there").display().to_string();
        let mut args = vec!["--provider", "command", "--cwd", &cwd];
        args.extend_from_slice(before);
        args.extend(["--", "sleep", "300"]);
        self.run_there("lf-session-new", &args).json()
    }

    /// Run one of lf's binaries in a terminal inside this machine's tmux (a
    /// new tmux session `name`, with this Home), kept open after it exits;
    /// the pane's id.
    fn in_tmux(&self, name: &str, program: &str, args: &[&str]) -> String {
        let mut script = format!("'{}'", bin(program).display());
        for arg in args {
            script += &format!(" '{arg}'");
        }
        script += "; sleep 60";
        let home = format!("LF_HOME={}", self.here.home().display());
        let argv = [
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-s",
            name,
            "-x",
            "120",
            "-y",
            "30",
            "-e",
            &home,
            "--",
            "sh",
            "-c",
            &script,
        ];
        self.here.tmux(&argv).trim().to_owned()
    }

    /// Whether a client is attached to this tmux session of the other machine.
    fn attached(&self, name: &str) -> bool {
        let clients = self.other.tmux(&["list-clients", "-F", "#{session_name}"]);
        clients.lines().any(|line| line == name)
    }

    fn list(&self, args: &[&str]) -> (Vec<SessionRecord>, Vec<HostProblem>) {
        let ran = self.here.run("lf-session-list", args);
        let records: Vec<SessionRecord> = ran.json();
        (records, problems_of(&ran))
    }
}

pub(crate) fn problems_of(ran: &Ran) -> Vec<HostProblem> {
    ran.stderr
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("stderr line is not a problem ({error}): {line}"))
        })
        .collect()
}

fn remote_of(record: &SessionRecord) -> Option<&str> {
    record.workspace.as_ref()?.home_id.as_deref()
}

#[test]
fn hosts_are_added_checked_listed_and_removed() {
    let env = Env::new();
    let added: HostEntry = env
        .run(
            "lf-host",
            &["add", "me@build-box", "--bin", "~/.cargo/bin/"],
        )
        .json();
    assert_eq!(added.bin.as_deref(), Some("~/.cargo/bin"));
    assert!(added.control_master);
    env.run("lf-host", &["add", "gpu", "--no-control-master"])
        .ok();
    let hosts: Vec<HostEntry> = env.run("lf-host", &["list"]).json();
    assert_eq!(
        hosts.iter().map(|h| h.host.as_str()).collect::<Vec<_>>(),
        ["me@build-box", "gpu"]
    );
    assert!(!hosts[1].control_master);
    let mode = std::fs::metadata(env.home().join("hosts.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    env.attempt("lf-host", &["add", "gpu"])
        .fails_with(4, "host_exists");
    for bad in ["-oProxyCommand=touch /tmp/x", "a b", "x;y"] {
        env.attempt("lf-host", &["add", "--", bad])
            .fails_with(2, "bad_host");
    }
    env.attempt("lf-host", &["add", "vm", "--home", "/srv/it's"])
        .fails_with(2, "bad_remote_path");
    // A host named on the command line is checked the same way, before ssh.
    env.attempt("lf-session-list", &["--host=-oProxyCommand=x"])
        .fails_with(2, "bad_host");

    let removed: HostEntry = env.run("lf-host", &["remove", "gpu"]).json();
    assert_eq!(removed.host, "gpu");
    env.run("lf-host", &["remove", "gpu"]).fails(3);
    let hosts: Vec<HostEntry> = env.run("lf-host", &["list"]).json();
    assert_eq!(hosts.len(), 1);

    std::fs::write(
        env.home().join("hosts.json"),
        "{\"hosts\": [{\"host\": \"-x\"}]}",
    )
    .unwrap();
    env.attempt("lf-session-list", &["--hosts"])
        .fails_with(1, "bad_host_list");
    // A local listing does not read the host list.
    env.run("lf-session-list", &[]).ok();
}

#[test]
fn remote_sessions_are_merged_in_order_with_their_workspace_and_open_argv() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    let first = here.new_session(&[
        "--provider",
        "command",
        "--title",
        "here first",
        "--",
        "true",
    ]);
    let there = remote.new_there("there second");
    let last = here.new_session(&[
        "--provider",
        "command",
        "--title",
        "here third",
        "--",
        "true",
    ]);
    let ready = remote.new_there("there fourth, ready");
    // Its agent (on the other machine) marks it ready.
    remote.other.ready(&ready.id, "done").ok();

    let (records, problems) = remote.list(&["--hosts"]);
    assert!(problems.is_empty(), "{problems:?}");
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, [&ready.id, &last.id, &there.id, &first.id]);
    let remote_record = &records[2];
    assert_eq!(remote_of(remote_record), Some("other"));
    let workspace = remote_record.workspace.as_ref().unwrap();
    assert_eq!(
        workspace.unavailable.as_deref(),
        Some("Checkout resolution is unavailable on this remote Home")
    );
    assert!(remote_record.terminal_ids.is_empty());
    let argv = &remote_record.open_argv;
    assert_eq!(
        argv[0],
        remote.ssh_dir.join("bin/ssh").display().to_string()
    );
    assert_eq!(argv[1], "-t");
    let dashes = argv.iter().position(|arg| arg == "--").unwrap();
    assert_eq!(argv[dashes + 1], "other");
    assert_eq!(
        argv[dashes + 2],
        format!(
            "'env' LF_HOME='{}' '{}/lf-session-open' '{}'",
            remote.other.home().display(),
            Remote::bin_dir(),
            there.id
        )
    );
    let schema = crate::schema::read_json("schema/session-record.schema.json");
    let raw: Vec<serde_json::Value> = here.run("lf-session-list", &["--hosts"]).json();
    for record in &raw {
        crate::schema::validate(&schema, &schema, record, "").unwrap();
    }
    let hosts = crate::schema::read_json("schema/host.schema.json");
    let entries: serde_json::Value = here.run("lf-host", &["list"]).json();
    crate::schema::validate(&hosts, &hosts, &entries, "").unwrap();
    assert_eq!(remote_of(&records[1]), None, "a local record stays local");
    assert_eq!(records[1].workspace, None);

    // Filters are applied there: only the matching row crossed.
    let (attention, _) = remote.list(&["--hosts", "--attention"]);
    assert_eq!(
        attention.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        [ready.id.as_str()]
    );
    // --host names one host of the list (with its entry's Home), alone.
    let (named, _) = remote.list(&["--host", "other", "--state", "unknown"]);
    assert_eq!(
        named
            .iter()
            .map(|r| (r.id.as_str(), remote_of(r)))
            .collect::<Vec<_>>(),
        [
            (last.id.as_str(), None),
            (there.id.as_str(), Some("other")),
            (first.id.as_str(), None)
        ]
    );

    // Pages across the hosts: every record once, in the same order.
    let mut paged = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut args = vec!["--hosts", "--page", "--limit", "1"];
        if let Some(cursor) = &after {
            args.extend(["--after", cursor]);
        }
        let page: SessionPage = here.run("lf-session-list", &args).json();
        paged.extend(page.entries.into_iter().map(|r| r.id));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(paged, ids);

    // The ControlMaster socket lives in a private folder of the Home.
    let sockets = here.home().join("ssh");
    let mode = std::fs::metadata(&sockets).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    let entries: Vec<_> = std::fs::read_dir(&sockets).unwrap().flatten().collect();
    assert_eq!(
        entries.len(),
        1,
        "one socket for 127.0.0.1 as root: {entries:?}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(entries[0].file_type().unwrap().is_socket());

    // --task and --cwd name this machine's things.
    here.attempt("lf-session-list", &["--hosts", "--here"])
        .fails_with(2, "local_only_filter");
}

#[test]
fn hosts_that_are_down_hang_or_are_incompatible_are_reported_while_the_list_prints() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    here.run("lf-host", &["add", "down"]).ok();
    here.run("lf-host", &["add", "hang"]).ok();
    let missing = remote.here.dir.path().join("nowhere");
    let missing = missing.display().to_string();
    here.run("lf-host", &["add", "twin", "--bin", &missing])
        .ok();
    let mine = here.new_session(&["--provider", "command", "--", "true"]);
    let there = remote.new_there("there");

    let ran = here.run("lf-session-list", &["--hosts", "--host-timeout", "2"]);
    let records: Vec<SessionRecord> = ran.json();
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, [there.id.as_str(), mine.id.as_str()]);
    let mut problems = problems_of(&ran);
    problems.sort_by(|a, b| a.host.cmp(&b.host));
    let kinds: Vec<(&str, HostProblemKind)> = problems
        .iter()
        .map(|p| (p.host.as_str(), p.problem))
        .collect();
    assert_eq!(
        kinds,
        [
            ("down", HostProblemKind::Unreachable),
            ("hang", HostProblemKind::Timeout),
            ("twin", HostProblemKind::NotInstalled),
        ],
        "{problems:?}"
    );
    let schema = crate::schema::read_json("schema/host.schema.json");
    let problem = crate::schema::def(&schema, "HostProblem");
    for line in ran.stderr.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        crate::schema::validate(&schema, problem, &value, "").unwrap();
    }

    // An lf there that speaks another wire is incompatible, not guessed at.
    let old = remote.here.dir.path().join("old-lf");
    std::fs::create_dir_all(&old).unwrap();
    let fake = old.join("lf-session-list");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho '{\"id\": \"0123\", \"title\": \"old\"}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    here.run("lf-host", &["remove", "twin"]).ok();
    let old = old.display().to_string();
    here.run("lf-host", &["add", "twin", "--bin", &old]).ok();
    let ran = here.run("lf-session-list", &["--host", "twin"]);
    let records: Vec<SessionRecord> = ran.json();
    assert_eq!(records.len(), 1, "the local one");
    let problems = problems_of(&ran);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].problem, HostProblemKind::Incompatible);
}

#[test]
fn a_remote_session_is_opened_there_through_ssh() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    let launched = remote.launch_there(&[]);
    let name = format!("lf-{}", &launched.id[..12]);
    assert!(
        remote.other.tmux_has(&name),
        "it runs in the other machine's tmux"
    );

    // --print asks the host; an id it does not have is its own not-found.
    let printed: SessionRecord = here
        .run(
            "lf-session-open",
            &["--print", &launched.id, "--host", "other"],
        )
        .json();
    assert_eq!(remote_of(&printed), Some("other"));
    let unknown = lf::ids::SessionId::new().to_string();
    // The host's lf named its error, and the refusal carries the name.
    here.attempt("lf-session-open", &["--print", &unknown, "--host", "other"])
        .fails_with(3, "session_not_found");
    let error = here
        .attempt("lf-session-open", &["--print", &unknown])
        .fails_with(3, "nowhere_found");
    assert_eq!(error.arg.as_deref(), Some("id"));

    // The record's open_argv, run in a terminal of this machine's tmux,
    // attaches a client to the session over there.
    let (records, _) = remote.list(&["--hosts"]);
    let record = records.iter().find(|r| r.id == launched.id).unwrap();
    let mut args = vec![
        "new-session",
        "-d",
        "-s",
        "viewer",
        "-x",
        "100",
        "-y",
        "30",
        "--",
    ];
    args.extend(record.open_argv.iter().map(String::as_str));
    here.tmux(&args);
    let attached = || remote.attached(&name).then_some(());
    wait_for("a client of the remote session", 20, attached);
    here.tmux(&["kill-session", "-t", "=viewer"]);
    wait_for("the client to leave", 20, || {
        (!remote.attached(&name)).then_some(())
    });

    // lf-session-open of the id inside tmux, with no --host: found on the
    // host of the list, opened in a new window of the person's session.
    remote.in_tmux("person", "lf-session-open", &[&launched.id]);
    wait_for("a client of the remote session", 20, attached);
    let windows = here.tmux(&["list-windows", "-t", "=person", "-F", "#{window_index}"]);
    assert_eq!(windows.lines().count(), 2, "a new window runs the ssh");
}

#[test]
fn the_plugin_lists_remote_sessions_with_their_host() {
    let nu = std::env::var_os("LF_TEST_NU")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../.tools/nu/node_modules/@nushell/linux-x64/bin/nu")
        });
    assert!(
        nu.is_file(),
        "nu 0.115.1 is missing at {}: run scripts/test (or set LF_TEST_NU)",
        nu.display()
    );
    let plugin = crate::util::built_beside("nu_plugin_lf", "nu_plugin_lf");
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    here.run("lf-host", &["add", "down"]).ok();
    let mine = here.new_session(&["--provider", "command", "--", "true"]);
    let there = remote.new_there("there");

    let nu_run = |script: &str| {
        let command = here.command("lf-session-list");
        let mut nu_command = Command::new(&nu);
        nu_command
            .env_clear()
            .envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .current_dir(here.work())
            .stdin(Stdio::null())
            .args(["-n", "--no-std-lib", "--plugins"])
            .arg(&plugin)
            .args(["-c", script]);
        here.run_command(nu_command)
    };
    let ran = nu_run(
        "lf sessions --hosts --host-timeout 3sec | select id workspace created_at \
         | each {|r| {id: $r.id, workspace: $r.workspace, created: ($r.created_at | describe)}} \
         | to json -r",
    );
    #[derive(serde::Deserialize)]
    struct Row {
        id: String,
        workspace: Option<lf::wire::Workspace>,
        created: String,
    }
    let rows: Vec<Row> = ran.json();
    assert_eq!(
        rows.iter().map(|row| row.id.as_str()).collect::<Vec<_>>(),
        [there.id.as_str(), mine.id.as_str()]
    );
    assert_eq!(
        rows[0]
            .workspace
            .as_ref()
            .and_then(|w| w.home_id.as_deref()),
        Some("other")
    );
    assert!(rows[1].workspace.is_none());
    assert_eq!(rows[0].created, "datetime");
    let problems = problems_of(&ran);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].host, "down");
    assert_eq!(problems[0].problem, HostProblemKind::Unreachable);

    // `lf session open` finds a Session that is not here on a host.
    let host: String = nu_run(&format!(
        "(lf session open --print {}).workspace.home_id | to json -r",
        there.id
    ))
    .json();
    assert_eq!(host, "other");
}

#[test]
fn next_and_the_picker_take_their_turn_on_the_other_machine() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    let there = remote.launch_there(&["--title", "remote review"]);
    let name = format!("lf-{}", &there.id[..12]);

    remote.other.ready(&there.id, "done").ok();
    let mine = here.new_session(&[
        "--provider",
        "command",
        "--title",
        "local review",
        "--",
        "true",
    ]);
    here.ready(&mine.id, "done").ok();

    // The remote review has waited longest: next goes there first.
    let next: SessionRecord = here.run("lf-session-next", &["--print"]).json();
    assert_eq!(next.id, there.id);
    assert_eq!(remote_of(&next), Some("other"));

    // The picker lists it beside this machine's; Enter on it opens it there.
    let pane = remote.in_tmux("picker", "lf-session-pick", &[]);
    wait_for("the picker to list both", 20, || {
        let screen = here.tmux(&["capture-pane", "-p", "-t", &pane]);
        (screen.contains("remote review") && screen.contains("local review")).then_some(())
    });
    here.type_line(&pane, "remote");
    wait_for("a client of the remote session", 20, || {
        remote.attached(&name).then_some(())
    });
}

// ----- issue 20: everything a host says is untrusted

/// What a hostile host puts in its error: a title change (OSC 2 … BEL),
/// a screen clear (CSI 2J) and a right-to-left override, as JSON escapes
/// (JSON strings cannot hold them raw), so they decode to the raw bytes.
pub(crate) const HOSTILE: &str = r"it broke \u001b]2;x\u0007\u001b[2J \u202eevil";

/// How lf must show it: each of them escaped, as `{:?}` escapes them.
pub(crate) const HOSTILE_SHOWN: &str = r"it broke \u{1b}]2;x\u{7}\u{1b}[2J \u{202e}evil";

impl Remote {
    /// Put host `twin` (the same sshd) in the list with fake lf programs,
    /// each a shell script, as its folder of lf's binaries.
    pub(crate) fn fake_twin(&self, programs: &[(&str, &str)]) {
        let dir = self.here.dir.path().join("fake-lf");
        std::fs::create_dir_all(&dir).unwrap();
        for (name, script) in programs {
            let path = dir.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let dir = dir.display().to_string();
        self.here
            .run("lf-host", &["add", "twin", "--bin", &dir])
            .ok();
    }
}

/// Text lf printed holds nothing that acts on a terminal.
pub(crate) fn assert_inert(text: &str) {
    for c in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!text.contains(c), "{c:?} reached the output: {text:?}");
    }
}

/// The peak resident memory of a process of ours, from its
/// `/proc/PID/status` (`VmHWM`, a high-water mark), in KiB.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_host_that_floods_an_open_is_cut_off_at_one_record() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.fake_twin(&[("lf-session-open", "exec yes")]);
    let id = lf::ids::SessionId::new().to_string();
    let mut command = here.json_errors("lf-session-open");
    command
        .args(["--print", &id, "--host", "twin", "--host-timeout", "30"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    // Its pipes are read on threads, so it never waits for us.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(&mut out).unwrap());
    let err = std::thread::spawn(move || std::io::read_to_string(&mut err).unwrap());
    // The high-water mark, read until it exits (a flood that is read whole
    // would grow it by gigabytes: it is stopped at 256 MiB to spare the
    // machine).
    let mut peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak = peak.max(peak_kib(child.id()).unwrap_or(0));
        if peak > 256 * 1024 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("lf-session-open took {peak} KiB reading a flood");
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stdout.is_empty(), "{stdout:.200}");
    // Cut off at the bound, not timed out (its words: tests/messages.rs).
    let error: ErrorJson = serde_json::from_str(stderr.trim())
        .unwrap_or_else(|error| panic!("{error}: {stderr:.2000}"));
    assert_eq!(
        (error.program.as_str(), error.error.as_str(), error.code),
        ("lf-session-open", "host_sent_too_much", 1)
    );
    assert!(peak < 32 * 1024, "lf-session-open peaked at {peak} KiB");
}

#[test]
fn a_listing_host_with_more_rows_than_the_cap_is_a_problem() {
    let remote = Remote::new();
    let here = &remote.here;
    // A real record of the other machine, sent 100,001 times.
    remote.new_there("one of very many");
    let listed = remote.run_there("lf-session-list", &["--jsonl"]);
    let record: SessionRecord = serde_json::from_str(listed.ok().stdout.trim()).unwrap();
    let line = serde_json::to_string(&record).unwrap();
    let file = here.dir.path().join("record.jsonl");
    std::fs::write(&file, &line).unwrap();
    let script = format!("yes \"$(cat '{}')\" | head -n 100001", file.display());
    remote.fake_twin(&[("lf-session-list", &script)]);

    let ran = here.run(
        "lf-session-list",
        &["--host", "twin", "--host-timeout", "60"],
    );
    let records: Vec<SessionRecord> = ran.json();
    assert!(records.is_empty(), "no Session here, none taken there");
    let problems = problems_of(&ran);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].host, "twin");
    assert_eq!(problems[0].problem, HostProblemKind::Failed);
}

/// Issue 20: a record's other texts (its summary, its folder) reached the
/// person's terminal through `jq -r` and the picker as the host sent them.
#[test]
fn a_host_record_holding_terminal_controls_is_left_out() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.new_there("looks harmless");
    let listed = remote.run_there("lf-session-list", &["--jsonl"]);
    let mut record: SessionRecord = serde_json::from_str(listed.ok().stdout.trim()).unwrap();
    record.ready_summary = Some("done\n\u{1b}]2;pwned\u{7}".to_owned());
    let file = here.dir.path().join("record.jsonl");
    std::fs::write(&file, serde_json::to_string(&record).unwrap()).unwrap();
    let script = format!("cat '{}'", file.display());
    remote.fake_twin(&[("lf-session-list", &script)]);

    let ran = here.run("lf-session-list", &["--host", "twin"]);
    assert_inert(&ran.stdout);
    assert_inert(&ran.stderr);
    let records: Vec<SessionRecord> = ran.json();
    assert!(records.is_empty(), "{records:?}");
    let problems = problems_of(&ran);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].problem, HostProblemKind::Incompatible);
}

#[test]
fn a_prefix_is_pinned_by_the_host_that_has_the_session() {
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    let there = remote.new_there("Far away");
    let short = &there.id[..8];
    // Not here: every host of the list is asked with the prefix as typed.
    let printed: SessionRecord = here.run("lf-session-open", &["--print", short]).json();
    assert_eq!(
        (printed.id.as_str(), remote_of(&printed)),
        (there.id.as_str(), Some("other"))
    );
    let printed: SessionRecord = here
        .run("lf-session-open", &["--print", short, "--host", "other"])
        .json();
    assert_eq!(printed.id, there.id);
    // The same Home listed twice has the same Session twice: one Session.
    remote.add("twin");
    let printed: SessionRecord = here.run("lf-session-open", &["--print", short]).json();
    assert_eq!(
        (printed.id.as_str(), remote_of(&printed)),
        (there.id.as_str(), Some("other"))
    );
    // A prefix the host finds ambiguous is its refusal, exit 2, with or
    // without --host.
    remote.other.seed_conversation(
        "be336cc70f1e4a2b9c3d5e6f7a8b9c0d",
        "run-01jx4q8z000000000000000000",
        "Fix the parser",
    );
    remote.other.seed_conversation(
        "be336cc7a1b2c3d4e5f60718293a4b5c",
        "run-01jx4q8zzzzzzzzzzzzzzzzzzz",
        "Add a flag",
    );
    for args in [
        vec!["--print", "be336cc7"],
        vec!["--print", "be336cc7", "--host", "other"],
    ] {
        here.attempt("lf-session-open", &args)
            .fails_with(2, "ambiguous_prefix");
    }
}

/// Issue 25: `lf-session-usage --hosts` sums each host's Sessions there
/// (its own transcripts, read by its own lf) and prints its rows beside
/// this Home's, named by host; a host that fails is a problem on stderr.
#[test]
fn usage_is_summed_on_each_host_and_named_by_it() {
    use crate::usage::{append, assistant, claude_session, prompt};
    let remote = Remote::new();
    let here = &remote.here;
    remote.add("other");
    here.run("lf-host", &["add", "down"]).ok();
    let at = "2026-12-01T10:00:00Z";
    for (env, input) in [(here, 10), (&remote.other, 1000)] {
        let (_, _, transcript) = claude_session(env);
        append(
            &transcript,
            &format!(
                "{}\n{}\n",
                prompt(at, "Go"),
                assistant(
                    "msg_1",
                    "2026-12-01T10:00:04Z",
                    "claude-fake",
                    [input, 2, 3, 4]
                )
            ),
        );
    }
    let ran = here.run(
        "lf-session-usage",
        &[
            "--hosts",
            "--by",
            "provider",
            "--json",
            "--host-timeout",
            "5",
        ],
    );
    let rows: Vec<lf::wire::UsageRow> = ran.json();
    let mut summed: Vec<(Option<&str>, &str, u64)> = rows
        .iter()
        .map(|row| {
            (
                row.host.as_deref(),
                row.key.as_str(),
                row.usage.tokens.input,
            )
        })
        .collect();
    summed.sort();
    assert_eq!(
        summed,
        [(None, "claude", 10), (Some("other"), "claude", 1000)]
    );
    let problems = problems_of(&ran);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        (problems[0].host.as_str(), problems[0].problem),
        ("down", HostProblemKind::Unreachable)
    );
    // The table names the host of each row.
    let table = here.run("lf-session-usage", &["--host", "other", "--by", "provider"]);
    table.ok();
    assert!(
        table
            .stdout
            .lines()
            .any(|line| line.contains("other") && line.contains("1000")),
        "{}",
        table.stdout
    );
}
