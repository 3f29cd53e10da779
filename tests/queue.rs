//! lf-session-count and lf-session-next: the Sessions that wait for the
//! person, counted for a status line and taken one after the other.

use crate::util::Env;
use lf::state::Turn;
use lf::wire::{AttentionCounts, SessionRecord};

/// Sessions that owe each kind of attention, created in this order: an
/// older reply, a review, an approval, a newer reply, and one that owes
/// nothing.
fn waiting(env: &Env) -> [String; 4] {
    let store = || env.lf();
    let new = |title: &str| env.new_session(&["--title", title]).id;
    let old_reply = new("old reply");
    store()
        .store()
        .unwrap()
        .record_turn(&env.current_run(&old_reply), Turn::Completed, 100)
        .unwrap();
    let review = new("review");
    store()
        .store()
        .unwrap()
        .mark_ready(&review, &env.current_run(&review), "done", 200)
        .unwrap();
    let approve = new("approve");
    store()
        .store()
        .unwrap()
        .record_permission_prompt(&env.current_run(&approve), 300, None)
        .unwrap();
    let new_reply = new("new reply");
    store()
        .store()
        .unwrap()
        .record_turn(&env.current_run(&new_reply), Turn::Completed, 400)
        .unwrap();
    new("nothing");
    [approve, old_reply, new_reply, review]
}

#[test]
fn counts_come_short_formatted_or_as_json() {
    let env = Env::new();
    let empty = env.run("lf-session-count", &[]);
    // Issue 26: it printed a bare newline, a blank in a status line.
    assert_eq!((empty.code, empty.stdout.as_str()), (Some(0), ""));
    assert!(
        !env.home().join("loopflow.db").exists(),
        "counting creates no database"
    );
    waiting(&env);
    assert_eq!(
        env.run("lf-session-count", &[]).stdout,
        "1 approve 2 reply 1 review\n"
    );
    let counts: AttentionCounts = env.run("lf-session-count", &["--json"]).json();
    assert_eq!(
        counts,
        AttentionCounts {
            review: 1,
            approve: 1,
            reply: 2,
            total: 4
        }
    );
    let formatted = env.run(
        "lf-session-count",
        &[
            "--format",
            "#[fg=red]{approve}#[default] {reply}/{review} of {total}",
        ],
    );
    assert_eq!(formatted.stdout, "#[fg=red]1#[default] 2/1 of 4\n");
    // The same sessions as the listing's --attention.
    let listed: Vec<SessionRecord> = env.list(&["--attention"]);
    assert_eq!(listed.len() as u64, counts.total);
}

#[test]
fn next_takes_approvals_then_replies_then_reviews_longest_waiting_first() {
    let env = Env::new();
    let nothing = env.run("lf-session-next", &[]);
    assert_eq!(nothing.code, Some(0), "nothing waiting is no error");
    assert!(nothing.stdout.is_empty(), "{nothing:?}");
    let [approve, old_reply, _, _] = waiting(&env);
    let first: SessionRecord = env.run("lf-session-next", &["--print"]).json();
    assert_eq!(first.id, approve);
    // Once the approval is answered, the longest-waiting reply is next.
    env.lf()
        .store()
        .unwrap()
        .record_tool_finished(&env.current_run(&approve), 500, None)
        .unwrap();
    let second: SessionRecord = env.run("lf-session-next", &["--print"]).json();
    assert_eq!(second.id, old_reply);
    assert_eq!(
        second.attention_since,
        Some(lf::clock::Timestamp(100)),
        "a reply waits since its turn completed"
    );
}

/// The tmux kit, loaded into a real private server with a real client (a
/// pane of another server attached to it): its keys go to the sessions
/// that need the person, in turn, and the status line counts them. It runs
/// from where lf-install-shell installs it (no clone of the repository
/// needed); its binaries are found through `@lf-bin-dir`, a folder whose
/// name holds what a shell or tmux would read as code (issue 20: the kit
/// put the value into its commands unquoted).
#[test]
fn the_tmux_kit_binds_next_and_the_picker_and_counts_in_the_status_line() {
    let env = Env::new();
    let launch = |title: &str| -> SessionRecord {
        env.run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--title",
                title,
                "--",
                "sleep",
                "600",
            ],
        )
        .json()
    };
    let first = launch("approve me");
    let second = launch("reply to me");
    let store = env.lf();
    let store = store.store().unwrap();
    store
        .record_permission_prompt(&env.current_run(&first.id), 100, None)
        .unwrap();
    store
        .record_turn(&env.current_run(&second.id), Turn::Completed, 200)
        .unwrap();
    env.tmux(&["new-session", "-d", "-s", "home", "--", "sleep", "600"]);
    env.tmux(&["set-option", "-g", "@lf-status", "on"]);
    env.tmux(&["set-option", "-g", "@lf-next-key", "J"]);
    let bin_dir = env.mkdir("it's a #{session_name} $HOME; bin");
    for name in ["lf-session-next", "lf-session-count", "lf-session-pick"] {
        std::os::unix::fs::symlink(crate::util::bin(name), bin_dir.join(name)).unwrap();
    }
    env.tmux(&["set-option", "-g", "@lf-bin-dir", bin_dir.to_str().unwrap()]);
    // The kit where lf-install-shell puts it, run by the README's line.
    env.install_shell(&["--shell", "fish"]).ok();
    env.tmux(&["run-shell", "~/.local/share/loopflow/tmux/lf.tmux"]);
    let keys = env.tmux(&["list-keys", "-T", "prefix"]);
    let keys = keys.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        keys.contains("prefix J run-shell -b") && keys.contains("bin/lf-session-next"),
        "the overridden key: {keys}"
    );
    assert!(
        keys.contains("prefix a display-popup -E"),
        "the picker: {keys}"
    );
    assert!(
        !keys.contains("prefix N run-shell"),
        "the default key was overridden"
    );

    // A client of the private server: a pane of another server attached to
    // it (killed however the test ends).
    let outer = format!("{}-client", env.socket);
    struct Server<'a>(&'a str, &'a std::path::Path);
    impl Drop for Server<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("tmux")
                .args(["-L", self.0, "kill-server"])
                .env("TMUX_TMPDIR", self.1)
                .env_remove("TMUX")
                .output();
        }
    }
    let _outer = Server(&outer, env.dir.path());
    let client = |args: &[&str]| {
        let output = std::process::Command::new("tmux")
            .args(["-L", &outer])
            .args(args)
            .env("TMUX_TMPDIR", env.dir.path())
            .env_remove("TMUX")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let attach = format!("tmux -L {} attach -t =home", env.socket);
    client(&[
        "new-session",
        "-d",
        "-s",
        "terminal",
        "-x",
        "120",
        "-y",
        "30",
        "--",
        "sh",
        "-c",
        &attach,
    ]);
    let shown = || {
        env.tmux(&["list-clients", "-F", "#{client_session}"])
            .trim()
            .to_owned()
    };
    crate::util::wait_for("the client to attach", 10, || {
        (shown() == "home").then_some(())
    });
    let session_of = |record: &SessionRecord| format!("lf-{}", &record.id[..12]);
    // Approvals first, then replies; the one the person is in is skipped.
    for expected in [&first, &second, &first] {
        client(&["send-keys", "-t", "terminal", "C-b", "J"]);
        let name = session_of(expected);
        crate::util::wait_for(&format!("the client in {name}"), 10, || {
            (shown() == name).then_some(())
        });
    }
    // The status line the person sees counts them: the terminal's last line.
    let status_line = || {
        let output = std::process::Command::new("tmux")
            .args(["-L", &outer, "capture-pane", "-p", "-t", "terminal"])
            .env("TMUX_TMPDIR", env.dir.path())
            .env_remove("TMUX")
            .output()
            .unwrap();
        let screen = String::from_utf8_lossy(&output.stdout);
        screen
            .trim_end()
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned()
    };
    crate::util::wait_for("the counts in the status line", 20, || {
        status_line().ends_with("1 approve 1 reply").then_some(())
    });

    // The person's own @lf-status-format goes to a shell (through tmux's
    // #()) as one argument: a quote, spaces, `;` and `$` in it mean only
    // themselves (issue 20: the kit put it between single quotes as it
    // was, so a `'` ended the quoting and the rest ran). The kit, run
    // again, appends a second count with this format.
    let pwned = env.dir.path().join("PWNED_KIT");
    let format = format!(
        "{{approve}}/{{reply}}' ; touch '{}' ; echo ' $HOME",
        pwned.display()
    );
    env.tmux(&["set-option", "-g", "@lf-status-format", &format]);
    // Room for it (tmux cuts status-right at 40 columns).
    env.tmux(&["set-option", "-g", "status-right-length", "300"]);
    env.tmux(&["run-shell", "~/.local/share/loopflow/tmux/lf.tmux"]);
    let expected = format!("1/1' ; touch '{}' ; echo ' $HOME", pwned.display());
    crate::util::wait_for("the formatted counts in the status line", 30, || {
        (status_line().ends_with(&expected) || pwned.exists()).then_some(())
    });
    assert!(!pwned.exists(), "the status format ran as a command");
}
