//! lf-install-shell, proved with the real shells: a sealed HOME (a temp
//! folder, a cleared environment) gets the binaries where `cargo install`
//! puts them (`~/.cargo/bin`), the installer runs from there, and then
//! `man`, bash (through bash-completion's own loader), zsh (a real Tab in a
//! tmux pane, through the user's `compinit`), fish (`complete -C`) and
//! Nushell (its own start-up autoload) must each offer `--attention` for
//! `lf-session-list --att`. A missing shell fails its test: scripts/test
//! installs them all.

use crate::util::*;
use lf_bins::generated::Target;
use lf_bins::install::{Action, MARK, Places, Report, Warning, WarningKind};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What bash-completion's users source from `~/.bashrc` (Debian's skel).
pub(crate) const BASH_COMPLETION: &str = "/usr/share/bash-completion/bash_completion";

/// How Debian's and Ubuntu's default `~/.bashrc` (`/etc/skel/.bashrc`)
/// loads bash-completion.
pub(crate) const DEBIAN_BASHRC: &str = "# ~/.bashrc: executed by bash(1) for non-login shells.
case $- in
    *i*) ;;
      *) return;;
esac
if ! shopt -oq posix; then
  if [ -f /usr/share/bash-completion/bash_completion ]; then
    . /usr/share/bash-completion/bash_completion
  elif [ -f /etc/bash_completion ]; then
    . /etc/bash_completion
  fi
fi
";

/// A person's zsh set-up: the completion system on, and a prompt to wait for.
const USER_ZSHRC: &str =
    "# my own zsh settings\nautoload -Uz compinit && compinit\nPS1='ready> '\n";

/// One user: a HOME of their own with lf installed in `~/.cargo/bin`.
pub(crate) struct User {
    /// The temp folder, and the private tmux server (killed when dropped).
    env: Env,
    pub(crate) home: PathBuf,
    /// More environment for every command (XDG variables, ZDOTDIR).
    vars: Vec<(String, String)>,
}

impl User {
    pub(crate) fn new() -> Self {
        let env = Env::new();
        let home = env.dir.path().join("user");
        let cargo_bin = home.join(".cargo/bin");
        std::fs::create_dir_all(&cargo_bin).unwrap();
        for name in ["lf-install-shell", "lf-session-list"] {
            // As `cargo install` leaves them: real files in ~/.cargo/bin
            // (the installer finds its folder from its own path; fish
            // completes only commands that exist).
            let target = cargo_bin.join(name);
            if std::fs::hard_link(bin(name), &target).is_err() {
                std::fs::copy(bin(name), &target).unwrap();
            }
        }
        User {
            env,
            home,
            vars: Vec::new(),
        }
    }

    pub(crate) fn with(mut self, name: &str, value: impl AsRef<Path>) -> Self {
        self.vars
            .push((name.to_owned(), value.as_ref().display().to_string()));
        self
    }

    fn bin(&self) -> PathBuf {
        self.home.join(".cargo/bin")
    }

    /// The user's PATH: the cargo bin folder, Nushell's, the system.
    fn path(&self) -> String {
        format!(
            "{}:{}:/usr/bin:/bin",
            self.bin().display(),
            nu().parent().unwrap().display()
        )
    }

    /// A program run as this user, with nothing else in its environment.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", self.path())
            .envs(self.vars.iter().map(|(key, value)| (key, value)))
            .current_dir(&self.home)
            .stdin(Stdio::null());
        command
    }

    fn run(&self, command: Command) -> Ran {
        self.env.run_command(command)
    }

    /// Run the installed lf-install-shell with `--json`; decode its report.
    pub(crate) fn install(&self, args: &[&str]) -> (Report, Ran) {
        let mut command = self.command(self.bin().join("lf-install-shell"));
        command.arg("--json").args(args);
        let ran = self.run(command);
        (ran.json(), ran)
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.home.join(relative)).unwrap_or_else(|error| {
            panic!("read {relative}: {error}");
        })
    }

    pub(crate) fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.home.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `man -w lf-session-list`: the file man would show, found as man-db
    /// finds it for this user (MANPATH unset), and the page as text.
    fn man(&self) -> (PathBuf, String) {
        let mut command = self.command("man");
        command.args(["-w", "lf-session-list"]);
        let ran = self.run(command);
        ran.ok();
        let mut command = self.command("man");
        command
            .args(["-P", "cat", "lf-session-list"])
            .env("MANWIDTH", "200");
        let page = self.run(command);
        page.ok();
        (PathBuf::from(ran.stdout.trim()), page.stdout)
    }

    /// What bash offers for `lf-session-list --att<TAB>`: bash-completion
    /// loads the compspec as bash does on the first Tab (its `complete -D`
    /// loader), then the completion function runs with bash's COMP_*
    /// variables. The first line is the compspec, then one line per offer.
    fn bash_offers(&self) -> (String, Vec<String>) {
        assert!(
            Path::new(BASH_COMPLETION).is_file(),
            "{BASH_COMPLETION} is missing: run scripts/test, which installs bash-completion"
        );
        let script = format!(
            r#"source {BASH_COMPLETION}
_completion_loader lf-session-list
spec=$(complete -p lf-session-list) || exit 3
printf '%s\n' "$spec"
function=${{spec##* -F }}; function=${{function%% *}}
COMP_LINE='lf-session-list --att'; COMP_POINT=${{#COMP_LINE}}
COMP_WORDS=(lf-session-list --att); COMP_CWORD=1; COMP_TYPE=9; COMP_KEY=9
"$function" lf-session-list --att lf-session-list
printf '%s\n' "${{COMPREPLY[@]}}"
"#
        );
        let mut command = self.command("bash");
        command.args(["--norc", "--noprofile", "-c", &script]);
        let ran = self.run(command);
        ran.ok();
        let mut lines = ran.stdout.lines().map(str::to_owned);
        let spec = lines.next().unwrap_or_default();
        (spec, lines.collect())
    }

    /// What an interactive bash of this user (reading `~/.bashrc` and the
    /// system's bashrc, as a terminal's does) offers on Tab after
    /// `lf-session-list --att`: the command's compspec if it has one, else
    /// the default one (`complete -D`, bash-completion's loader) run as bash
    /// runs it, then the compspec it loaded. `None`: bash has no completion
    /// to run, so Tab does nothing.
    fn interactive_bash_offers(&self) -> Option<Vec<String>> {
        let script = r#"
if ! spec=$(complete -p lf-session-list 2>/dev/null); then
    default=$(complete -p -D 2>/dev/null) || { echo 'no completion'; exit 0; }
    loader=${default##* -F }; loader=${loader%% *}
    "$loader" lf-session-list --att lf-session-list
    spec=$(complete -p lf-session-list 2>/dev/null) || { echo 'no completion'; exit 0; }
fi
function=${spec##* -F }; function=${function%% *}
COMP_LINE='lf-session-list --att'; COMP_POINT=${#COMP_LINE}
COMP_WORDS=(lf-session-list --att); COMP_CWORD=1; COMP_TYPE=9; COMP_KEY=9
"$function" lf-session-list --att lf-session-list
printf '%s\n' "${COMPREPLY[@]}"
"#;
        let mut command = self.command("bash");
        command.args(["-i", "-c", script]);
        let ran = self.run(command);
        ran.ok();
        if ran.stdout.trim() == "no completion" {
            return None;
        }
        Some(ran.stdout.lines().map(str::to_owned).collect())
    }

    /// Whether an interactive zsh of this user (its `.zshrc` read) has its
    /// completion system on: `compdef` exists once `compinit` has run.
    fn zsh_completion_is_on(&self) -> bool {
        let mut command = self.command("zsh");
        command.args([
            "-i",
            "-c",
            "(( $+functions[compdef] )) && print on || print off",
        ]);
        let ran = self.run(command);
        ran.ok();
        match ran.stdout.trim().lines().last() {
            Some("on") => true,
            Some("off") => false,
            _ => panic!("zsh said neither on nor off: {ran:?}"),
        }
    }

    /// Add a line at the end of a file of the user's.
    fn append(&self, relative: &str, line: &str) {
        let path = self.home.join(relative);
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str(line);
        text.push('\n');
        std::fs::write(path, text).unwrap();
    }

    /// What fish's own completion engine offers (`complete -C`), the
    /// offered words without their descriptions.
    fn fish_offers(&self) -> Vec<String> {
        let mut command = self.command("fish");
        command.args(["-c", "complete -C 'lf-session-list --att'"]);
        let ran = self.run(command);
        ran.ok();
        ran.stdout
            .lines()
            .map(|line| line.split('\t').next().unwrap_or_default().to_owned())
            .collect()
    }

    /// The flags Nushell knows for `lf-session-list` after its own
    /// interactive start-up (config and vendor autoload: `nu -e`), read
    /// from `scope commands` and saved as JSON.
    fn nushell_flags(&self) -> Vec<String> {
        let out = self.env.dir.path().join("nu-flags.json");
        let script = format!(
            "scope commands | where name == 'lf-session-list' | get signatures | each {{ values }} \
             | flatten | flatten | where parameter_type in [switch named] | get parameter_name \
             | to json -r | save -f '{}'; exit",
            out.display()
        );
        let mut command = self.command("timeout");
        command.arg("120").arg(nu()).args(["-e", &script]);
        let ran = self.run(command);
        ran.ok();
        let text = std::fs::read_to_string(&out)
            .unwrap_or_else(|error| panic!("nu saved no flags ({error}): {ran:?}"));
        serde_json::from_str(&text).unwrap()
    }

    /// Press Tab after `lf-session-list --att` in an interactive zsh (in a
    /// pane of the private tmux server, started as this user) and return
    /// the screen once it shows `--attention`.
    fn zsh_tab(&self) -> String {
        let mut argv: Vec<String> = vec![
            "/usr/bin/env".into(),
            "-i".into(),
            format!("HOME={}", self.home.display()),
            format!("PATH={}", self.path()),
            "TERM=screen".into(),
        ];
        argv.extend(
            self.vars
                .iter()
                .map(|(key, value)| format!("{key}={value}")),
        );
        argv.extend(["zsh".into(), "-i".into()]);
        let mut args: Vec<&str> = vec![
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-x",
            "150",
            "-y",
            "40",
            "--",
        ];
        args.extend(argv.iter().map(String::as_str));
        let pane = self.env.tmux(&args).trim().to_owned();
        self.wait_for_screen(&pane, "the zsh prompt", "ready>");
        self.env
            .tmux(&["send-keys", "-t", &pane, "-l", "lf-session-list --att"]);
        self.env.tmux(&["send-keys", "-t", &pane, "Tab"]);
        self.wait_for_screen(&pane, "zsh to complete --attention", "--attention")
    }

    /// The pane's screen once it shows `text`; on a time-out, fail showing it.
    fn wait_for_screen(&self, pane: &str, what: &str, text: &str) -> String {
        let mut screen = String::new();
        let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            wait_for(what, 60, || {
                screen = self.env.capture(pane);
                screen.contains(text).then_some(())
            })
        }));
        assert!(
            found.is_ok(),
            "timed out waiting for {what}; the screen:\n{screen}"
        );
        screen
    }

    /// Every file and folder under HOME: mode, size, modification time and
    /// content, to compare before and after.
    fn snapshot(&self) -> BTreeMap<PathBuf, (u32, i64, i64, Vec<u8>)> {
        fn walk(dir: &Path, root: &Path, into: &mut BTreeMap<PathBuf, (u32, i64, i64, Vec<u8>)>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                let content = if meta.is_file() {
                    std::fs::read(&path).unwrap()
                } else {
                    Vec::new()
                };
                into.insert(
                    path.strip_prefix(root).unwrap().to_owned(),
                    (meta.mode(), meta.mtime(), meta.mtime_nsec(), content),
                );
                if meta.is_dir() {
                    walk(&path, root, into);
                }
            }
        }
        let mut files = BTreeMap::new();
        walk(&self.home, &self.home, &mut files);
        files
    }
}

/// Assert that the report says `action` for this file under HOME.
fn assert_did(user: &User, report: &Report, target: Target, action: Action, relative: &str) {
    let path = user.home.join(relative);
    assert!(
        paths_of(report, target, action).contains(&path),
        "{action:?} {} is not in the report: {:?}",
        path.display(),
        report.changes
    );
}

fn paths_of(report: &Report, target: Target, action: Action) -> Vec<PathBuf> {
    report
        .changes
        .iter()
        .filter(|change| change.target == target && change.action == action)
        .map(|change| change.path.clone())
        .collect()
}

#[test]
fn after_the_install_man_finds_the_page() {
    let user = User::new();
    let (report, _) = user.install(&[]);
    let page = user.home.join(".cargo/share/man/man1/lf-session-list.1");
    assert_did(
        &user,
        &report,
        Target::Man,
        Action::Created,
        ".cargo/share/man/man1/lf-session-list.1",
    );
    let (found, text) = user.man();
    assert_eq!(found, page);
    assert!(
        text.contains("--attention"),
        "the page as man shows it:\n{text}"
    );
    // Every subcommand has its page too.
    assert!(
        user.home
            .join(".cargo/share/man/man1/lf-work-wave-add.1")
            .is_file()
    );
}

#[test]
fn after_the_install_bash_completes_attention() {
    let user = User::new();
    let (report, _) = user.install(&[]);
    assert_did(
        &user,
        &report,
        Target::Bash,
        Action::Created,
        ".local/share/bash-completion/completions/lf-session-list",
    );
    let (spec, offers) = user.bash_offers();
    assert!(spec.starts_with("complete "), "no compspec: {spec:?}");
    assert!(spec.ends_with(" lf-session-list"), "{spec:?}");
    assert_eq!(offers, ["--attention"], "compspec {spec:?}");
}

#[test]
fn after_the_install_zsh_completes_attention_on_tab() {
    let user = User::new();
    user.write(".zshrc", USER_ZSHRC);
    let (report, _) = user.install(&[]);
    assert_did(&user, &report, Target::Zsh, Action::Updated, ".zshrc");
    assert!(
        report
            .warnings
            .iter()
            .all(|warning| warning.target != Target::Zsh),
        "this .zshrc runs compinit: {:?}",
        report.warnings
    );
    // lf's block is first (before the person's compinit), the rest is theirs.
    let text = user.read(".zshrc");
    let block = lf_bins::install::zshrc_block(&user.home.join(".local/share/zsh/site-functions"));
    assert_eq!(text, format!("{block}{USER_ZSHRC}"));
    let screen = user.zsh_tab();
    assert!(
        screen.contains("lf-session-list --attention"),
        "the unique match was not inserted:\n{screen}"
    );
}

#[test]
fn after_the_install_fish_completes_attention() {
    let user = User::new();
    let (report, _) = user.install(&[]);
    assert_did(
        &user,
        &report,
        Target::Fish,
        Action::Created,
        ".local/share/fish/vendor_completions.d/lf-session-list.fish",
    );
    assert_eq!(user.fish_offers(), ["--attention"]);
}

#[test]
fn after_the_install_nushell_knows_the_flags_of_the_externs() {
    let user = User::new();
    let (report, _) = user.install(&[]);
    assert_did(
        &user,
        &report,
        Target::Nushell,
        Action::Created,
        ".local/share/nushell/vendor/autoload/lf-session-list.nu",
    );
    let flags = user.nushell_flags();
    assert!(
        flags.iter().any(|flag| flag == "attention"),
        "flags: {flags:?}"
    );
}

#[test]
fn installing_twice_changes_nothing() {
    let user = User::new();
    user.write(".zshrc", USER_ZSHRC);
    let (first, _) = user.install(&[]);
    assert!(
        first
            .changes
            .iter()
            .all(|change| change.action != Action::Unchanged)
    );
    let before = user.snapshot();
    let (second, _) = user.install(&[]);
    let after = user.snapshot();
    assert_eq!(before, after, "the second install changed files");
    assert_eq!(first.changes.len(), second.changes.len());
    for change in &second.changes {
        assert_eq!(change.action, Action::Unchanged, "{change:?}");
    }
}

#[test]
fn files_are_writable_by_their_owner_only_whatever_the_umask() {
    let user = User::new();
    let mut command = user.command("sh");
    command
        .args(["-c", "umask 000 && exec \"$0\" \"$@\""])
        .arg(user.bin().join("lf-install-shell"))
        .arg("--json");
    let report: Report = user.run(command).json();
    assert!(!report.changes.is_empty());
    for (path, (mode, ..)) in user.snapshot() {
        if path.starts_with(".cargo/bin") {
            continue;
        }
        assert_eq!(
            mode & 0o022,
            0,
            "{} has mode {:o}",
            path.display(),
            mode & 0o7777
        );
    }
    let page = user.home.join(".cargo/share/man/man1/lf-session-list.1");
    assert_eq!(std::fs::metadata(page).unwrap().mode() & 0o777, 0o644);
}

#[test]
fn a_file_of_the_users_own_is_kept_and_said() {
    let user = User::new();
    let mine = "complete -W '--mine' lf-session-list\n";
    let path = user.write(
        ".local/share/bash-completion/completions/lf-session-list",
        mine,
    );
    let (report, ran) = user.install(&[]);
    assert_eq!(
        paths_of(&report, Target::Bash, Action::Kept),
        std::slice::from_ref(&path)
    );
    assert_eq!(
        user.read(".local/share/bash-completion/completions/lf-session-list"),
        mine
    );
    // One note, said to the person (its words: tests/messages.rs).
    assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
    assert_eq!(ran.stderr, told(&report));
    // Everything else was installed.
    assert!(
        user.home
            .join(".local/share/bash-completion/completions/lf-work")
            .is_file()
    );
}

#[test]
fn xdg_folders_and_a_zdotdir_set_in_zshenv_are_honoured() {
    let user = User::new();
    let data = user.home.join("xdg-data");
    let bash_dir = user.home.join("bash-completions-of-mine");
    let user = user
        .with("XDG_DATA_HOME", &data)
        .with("BASH_COMPLETION_USER_DIR", &bash_dir);
    // A common set-up: ~/.zshenv moves the rest of zsh's files.
    user.write(".zshenv", "export ZDOTDIR=\"$HOME/.config/zsh\"\n");
    user.write(".config/zsh/.zshrc", USER_ZSHRC);
    let (report, _) = user.install(&[]);
    let dirs: Vec<(Target, PathBuf)> = report
        .changes
        .iter()
        .map(|change| (change.target, change.path.parent().unwrap().to_owned()))
        .collect();
    for expected in [
        (Target::Bash, bash_dir.join("completions")),
        (Target::Zsh, data.join("zsh/site-functions")),
        (Target::Zsh, user.home.join(".config/zsh")),
        (Target::Fish, data.join("fish/vendor_completions.d")),
        (Target::Nushell, data.join("nushell/vendor/autoload")),
        (Target::Tmux, data.join("loopflow/tmux")),
    ] {
        assert!(
            dirs.contains(&expected),
            "nothing in {expected:?}: {dirs:?}"
        );
    }
    assert!(
        !user.home.join(".zshrc").exists(),
        "zsh never reads ~/.zshrc here"
    );
    assert!(!user.home.join(".local/share").exists());
    let (_, offers) = user.bash_offers();
    assert_eq!(offers, ["--attention"]);
    assert_eq!(user.fish_offers(), ["--attention"]);
    assert!(user.nushell_flags().iter().any(|flag| flag == "attention"));
    user.zsh_tab();
}

#[test]
fn uninstall_removes_lfs_files_and_block_and_nothing_else() {
    let user = User::new();
    user.write(".zshrc", USER_ZSHRC);
    let mine = user.write(
        ".local/share/fish/vendor_completions.d/lf-work.fish",
        "# mine\n",
    );
    let (installed, _) = user.install(&[]);
    let (removed, _) = user.install(&["--uninstall"]);
    let ours: Vec<&PathBuf> = installed
        .changes
        .iter()
        .filter(|change| change.action == Action::Created)
        .map(|change| &change.path)
        .collect();
    for path in &ours {
        assert!(!path.exists(), "{} is still there", path.display());
    }
    assert_eq!(
        removed
            .changes
            .iter()
            .filter(|change| change.action == Action::Removed)
            .count(),
        ours.len()
    );
    assert_eq!(
        user.read(".zshrc"),
        USER_ZSHRC,
        "the person's .zshrc, as it was"
    );
    assert_eq!(std::fs::read_to_string(mine).unwrap(), "# mine\n");
    // Nothing of lf's is left anywhere under HOME but the binaries.
    for (path, (.., content)) in user.snapshot() {
        if path.starts_with(".cargo/bin") {
            continue;
        }
        assert!(
            !String::from_utf8_lossy(&content).contains(MARK),
            "{} is lf's",
            path.display()
        );
    }
}

#[test]
fn an_install_removes_the_files_of_commands_that_no_longer_exist() {
    let user = User::new();
    user.install(&["--shell", "zsh"]);
    let dir = user.home.join(".local/share/zsh/site-functions");
    // As an older lf left it: a marked file of a binary that is gone.
    std::fs::copy(dir.join("_lf-work"), dir.join("_lf-gone")).unwrap();
    let unmarked = user.write(
        ".local/share/zsh/site-functions/_lf-mine",
        "#compdef lf-mine\n",
    );
    let (report, _) = user.install(&["--shell", "zsh"]);
    assert_eq!(
        paths_of(&report, Target::Zsh, Action::Removed),
        [dir.join("_lf-gone")]
    );
    assert!(!dir.join("_lf-gone").exists());
    assert!(unmarked.exists());
}

#[test]
fn a_named_shell_is_the_only_one_installed() {
    let user = User::new();
    let (report, _) = user.install(&["--shell", "fish"]);
    let mut targets: Vec<Target> = report.changes.iter().map(|change| change.target).collect();
    targets.dedup();
    assert_eq!(targets, [Target::Man, Target::Fish, Target::Tmux]);
    assert!(!user.home.join(".zshrc").exists());
    assert_eq!(user.fish_offers(), ["--attention"]);
}

#[test]
fn the_default_output_says_where_everything_went() {
    let user = User::new();
    user.write(".bashrc", DEBIAN_BASHRC);
    let mut command = user.command(user.bin().join("lf-install-shell"));
    command.args(["--shell", "bash"]);
    let ran = user.run(command);
    ran.ok();
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "man: {}: {} created",
                user.home.join(".cargo/share/man/man1").display(),
                lf_bins::generated::render_all()
                    .iter()
                    .filter(|file| file.target == Target::Man)
                    .count()
            ),
            format!(
                "bash: {}: {} created",
                user.home
                    .join(".local/share/bash-completion/completions")
                    .display(),
                lf_bins::commands().len()
            ),
            format!(
                "tmux: {}: 1 created",
                user.home.join(".local/share/loopflow/tmux").display()
            ),
        ]
    );
    assert_eq!(ran.stderr, "", "nothing to warn about");
}

#[test]
fn a_manpath_that_hides_the_pages_is_said() {
    let user = User::new().with("MANPATH", "/usr/share/man");
    user.write(".bashrc", DEBIAN_BASHRC);
    let (report, ran) = user.install(&["--shell", "bash"]);
    // One note, said to the person (its words: tests/messages.rs).
    assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
    assert_eq!(ran.stderr, told(&report));
    // An empty part keeps man's own search: nothing to say.
    let user = User::new().with("MANPATH", "/usr/share/man:");
    let (report, _) = user.install(&["--shell", "bash"]);
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    let (found, _) = user.man();
    assert_eq!(
        found,
        user.home.join(".cargo/share/man/man1/lf-session-list.1")
    );
}

#[test]
fn the_zsh_block_is_one_fpath_line_that_tolerates_quotes() {
    let block =
        lf_bins::install::zshrc_block(Path::new("/home/o'neil/.local/share/zsh/site-functions"));
    let fpath: Vec<&str> = block
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert_eq!(
        fpath,
        [
            r"fpath=('/home/o'\''neil/.local/share/zsh/site-functions' ${fpath:#'/home/o'\''neil/.local/share/zsh/site-functions'})"
        ]
    );
    // zsh itself reads it as one folder, first, once even when sourced twice.
    let script = format!("fpath=(/a /b)\n{block}{block}print -rl -- $fpath");
    let output = Command::new("zsh")
        .args(["-f", "-c", &script])
        .env_clear()
        .output()
        .expect("zsh runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "/home/o'neil/.local/share/zsh/site-functions\n/a\n/b\n"
    );
}

/// What lf-install-shell says on stderr: its report's notes, then its
/// warnings' messages, a line each, and nothing else (their words are
/// pinned in tests/messages.rs).
fn told(report: &Report) -> String {
    let notes = report.notes.iter();
    let warnings = report.warnings.iter().map(|warning| &warning.message);
    notes
        .chain(warnings)
        .map(|said| format!("lf-install-shell: {said}\n"))
        .collect()
}

/// The one warning of a report.
pub(crate) fn only_warning(report: &Report) -> &Warning {
    match report.warnings.as_slice() {
        [warning] => warning,
        other => panic!("not one warning: {other:?}"),
    }
}

#[test]
fn a_bashrc_that_loads_no_bash_completion_is_said_with_the_line_that_makes_tab_work() {
    let user = User::new();
    user.write(".bashrc", "# my own bash settings\nPS1='ready> '\n");
    // As this person's terminals have it: Tab does nothing.
    assert_eq!(user.interactive_bash_offers(), None);
    let (report, ran) = user.install(&["--shell", "bash"]);
    let warning = only_warning(&report);
    let bashrc = user.home.join(".bashrc");
    let line = format!("[ -r {BASH_COMPLETION} ] && . {BASH_COMPLETION}");
    assert_eq!(
        (
            warning.kind,
            warning.target,
            &warning.file,
            warning.add.as_deref()
        ),
        (
            WarningKind::BashCompletionNotLoaded,
            Target::Bash,
            &bashrc,
            Some(line.as_str())
        )
    );
    // Said to the person, and nothing else (its words: tests/messages.rs).
    assert_eq!(ran.stderr, told(&report));
    // The files are installed all the same.
    assert_did(
        &user,
        &report,
        Target::Bash,
        Action::Created,
        ".local/share/bash-completion/completions/lf-session-list",
    );
    // The line it names is what was missing.
    user.append(".bashrc", warning.add.as_deref().unwrap());
    let (report, ran) = user.install(&["--shell", "bash"]);
    assert_eq!(report.warnings, [], "{}", ran.stderr);
    assert_eq!(ran.stderr, "");
    assert_eq!(
        user.interactive_bash_offers(),
        Some(vec!["--attention".to_owned()])
    );
}

#[test]
fn debians_default_bashrc_loads_bash_completion_and_nothing_is_said() {
    let user = User::new();
    user.write(".bashrc", DEBIAN_BASHRC);
    let (report, ran) = user.install(&["--shell", "bash"]);
    assert_eq!(report.warnings, []);
    assert_eq!(ran.stderr, "");
    assert_eq!(
        user.interactive_bash_offers(),
        Some(vec!["--attention".to_owned()])
    );
}

/// Places for a user whose home is `home`, as lf-install-shell finds them.
pub(crate) fn places_of(home: &Path) -> Places {
    let home = home.display().to_string();
    Places::for_user(
        |name| (name == "HOME").then(|| home.clone()),
        Path::new("/nowhere/bin"),
        None,
    )
    .unwrap()
}

/// The rule, on a system of the test's making (a root folder): where
/// bash-completion is, and which system file loads it.
#[test]
fn bash_completion_missing_or_loaded_by_the_system_is_read_from_the_usual_places() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let places = places_of(&home);
    let no_vars = |_: &str| None;
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let kinds = |root: &Path| -> Vec<(WarningKind, Option<String>)> {
        lf_bins::install::bash_warnings(&places, root, no_vars)
            .into_iter()
            .map(|warning| (warning.kind, warning.add))
            .collect()
    };
    let usual = root.join("usr/share/bash-completion/bash_completion");
    let line = format!("[ -r {} ] && . {}", usual.display(), usual.display());
    // Not installed anywhere: say so, and name the line for after.
    let warnings = lf_bins::install::bash_warnings(&places, &root, no_vars);
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].kind, WarningKind::BashCompletionMissing);
    assert_eq!(warnings[0].add.as_deref(), Some(line.as_str()));
    // Its words, naming each place looked in: tests/messages.rs.
    // Installed where an older system has it, and loaded by nothing.
    let old = root.join("etc/bash_completion");
    write(&old, "");
    assert_eq!(
        kinds(&root),
        [(
            WarningKind::BashCompletionNotLoaded,
            Some(format!("[ -r {} ] && . {}", old.display(), old.display()))
        )]
    );
    // A comment does not load it; Arch's /etc/bash.bashrc line does.
    write(
        &root.join("etc/bash.bashrc"),
        "#. /usr/share/bash-completion/bash_completion\n",
    );
    assert_eq!(kinds(&root).len(), 1);
    write(
        &root.join("etc/bash.bashrc"),
        "[[ -r /usr/share/bash-completion/bash_completion ]] && . /usr/share/bash-completion/bash_completion\n",
    );
    assert_eq!(kinds(&root), []);
    // Fedora: /etc/bashrc sources /etc/profile.d, where the package puts its file.
    std::fs::remove_file(root.join("etc/bash.bashrc")).unwrap();
    write(
        &root.join("etc/bashrc"),
        "    for i in /etc/profile.d/*.sh; do\n        . \"$i\"\n    done\n",
    );
    assert_eq!(kinds(&root).len(), 1, "no bash_completion.sh there yet");
    write(&root.join("etc/profile.d/bash_completion.sh"), "");
    assert_eq!(kinds(&root), []);
    // Loaded, but the script is gone: install it, nothing to add.
    std::fs::remove_file(&old).unwrap();
    assert_eq!(kinds(&root), [(WarningKind::BashCompletionMissing, None)]);
}

#[test]
fn a_zshrc_without_compinit_is_said_with_the_line_that_makes_tab_work() {
    let user = User::new();
    user.write(".zshrc", "# my own zsh settings\nPS1='ready> '\n");
    let (report, ran) = user.install(&["--shell", "zsh"]);
    let warning = only_warning(&report);
    let zshrc = user.home.join(".zshrc");
    assert_eq!(
        (
            warning.kind,
            warning.target,
            &warning.file,
            warning.add.as_deref()
        ),
        (
            WarningKind::ZshCompinitMissing,
            Target::Zsh,
            &zshrc,
            Some("autoload -Uz compinit && compinit")
        )
    );
    // Said to the person, and nothing else (its words: tests/messages.rs).
    assert_eq!(ran.stderr, told(&report));
    assert!(!user.zsh_completion_is_on(), "as the person's zsh has it");
    // The line it names turns it on, and Tab completes.
    user.append(".zshrc", warning.add.as_deref().unwrap());
    let (report, ran) = user.install(&["--shell", "zsh"]);
    assert_eq!(report.warnings, [], "{}", ran.stderr);
    assert!(user.zsh_completion_is_on());
    let screen = user.zsh_tab();
    assert!(
        screen.contains("lf-session-list --attention"),
        "the unique match was not inserted:\n{screen}"
    );
}

#[test]
fn a_zshrc_with_compinit_or_a_framework_that_runs_it_is_not_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let places = places_of(dir.path());
    let said = |zshrc: &str| -> Vec<WarningKind> {
        std::fs::write(&places.zshrc, zshrc).unwrap();
        lf_bins::install::zsh_warnings(&places)
            .into_iter()
            .map(|warning| warning.kind)
            .collect()
    };
    for quiet in [
        "autoload -Uz compinit\ncompinit -C\n",
        "autoload -Uz compinit && compinit\n",
        "export ZSH=\"$HOME/.oh-my-zsh\"\nsource $ZSH/oh-my-zsh.sh\n",
        "source \"${ZDOTDIR:-$HOME}/.zprezto/init.zsh\"\n",
        "source ${ZIM_HOME}/init.zsh\n",
        "source ~/antigen.zsh\nantigen apply\n",
        "source ~/.zplug/init.zsh\nzplug load\n",
        "z4h init || return\n",
        "zinit light zsh-users/zsh-completions\nzicompinit\n",
    ] {
        assert_eq!(said(quiet), [], "{quiet:?}");
    }
    for warned in [
        "",
        "PS1='> '\n",
        "# autoload -Uz compinit && compinit\n",
        "skip_global_compinit=1\n",
        "source ~/.local/share/zinit/zinit.git/zinit.zsh\n",
    ] {
        assert_eq!(
            said(warned),
            [WarningKind::ZshCompinitMissing],
            "{warned:?}"
        );
    }
    // No .zshrc at all: zsh runs no compinit either.
    std::fs::remove_file(&places.zshrc).unwrap();
    assert_eq!(
        lf_bins::install::zsh_warnings(&places).len(),
        1,
        "a missing .zshrc"
    );
}

#[test]
fn the_tmux_kit_is_installed_as_a_program_of_its_owner_replaced_and_removed() {
    let user = User::new();
    let mut command = user.command("sh");
    command
        .args(["-c", "umask 000 && exec \"$0\" \"$@\""])
        .arg(user.bin().join("lf-install-shell"))
        .args(["--json", "--shell", "fish"]);
    let report: Report = user.run(command).json();
    let relative = ".local/share/loopflow/tmux/lf.tmux";
    assert_did(&user, &report, Target::Tmux, Action::Created, relative);
    let kit = user.home.join(relative);
    assert_eq!(
        std::fs::metadata(&kit).unwrap().mode() & 0o7777,
        0o755,
        "run-shell runs it; only its owner writes it"
    );
    // The repository's kit, with lf's mark after its #! line.
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../share/tmux/lf.tmux"),
    )
    .unwrap();
    let installed = user.read(relative);
    let (shebang, rest) = source.split_once('\n').unwrap();
    let (first, after) = installed.split_once('\n').unwrap();
    let (mark, body) = after.split_once('\n').unwrap();
    assert_eq!((first, body), (shebang, rest));
    assert!(mark.starts_with("# ") && mark.contains(MARK), "{mark}");
    // An upgrade replaces what an older lf installed.
    std::fs::write(&kit, format!("#!/bin/sh\n{mark}\nexit 0\n")).unwrap();
    let (report, _) = user.install(&["--shell", "fish"]);
    assert_did(&user, &report, Target::Tmux, Action::Updated, relative);
    assert_eq!(user.read(relative), installed);
    // --uninstall removes it and lf's folder, and nothing of the person's.
    let (report, _) = user.install(&["--uninstall"]);
    assert_did(&user, &report, Target::Tmux, Action::Removed, relative);
    assert!(!kit.exists());
    assert!(!user.home.join(".local/share/loopflow").exists());
    assert!(user.home.join(".local/share").is_dir());
}
