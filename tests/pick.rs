use crate::util::*;
use lf::wire::{Attention, SessionRecord};
use std::path::PathBuf;

/// `lf-session-pick --print` in a pane of the private tmux server. The
/// pane's shell records the exit code and whether the terminal's modes
/// came back as they were, then stays, so the pane can be inspected.
struct Picker<'a> {
    env: &'a Env,
    pane: String,
    out: PathBuf,
}

/// How the picker ended.
#[derive(Debug)]
struct Ended {
    code: String,
    restored: bool,
    stderr: String,
}

impl<'a> Picker<'a> {
    fn start(env: &'a Env, args: &[&str]) -> Self {
        Self::start_with(env, "", args)
    }

    /// Start the picker after `prelude` (shell text) in a 120 × 30 pane.
    fn start_with(env: &'a Env, prelude: &str, args: &[&str]) -> Self {
        let out = env.dir.path().join("chosen.json");
        let script = format!(
            "{prelude} tty=$(stty -g); \
             sh -c 'echo $$ > \"$0.pid\"; exec lf-session-pick --print \"$@\"' \"$0\" \"$@\" \
               > \"$0\" 2> \"$0.err\"; code=$?; \
             if [ \"$(stty -g 2>/dev/null)\" = \"$tty\" ]; then modes=restored; else modes=changed; fi; \
             echo \"exit=$code $modes\" > \"$0.status\"; exec sleep 600"
        );
        let home = format!("LF_HOME={}", env.home().display());
        let socket = format!("LF_TMUX_SOCKET={}", env.socket);
        let tmpdir = format!("TMUX_TMPDIR={}", env.dir.path().display());
        let out_text = out.display().to_string();
        let mut argv = vec![
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-s",
            "picker",
            "-x",
            "120",
            "-y",
            "30",
            "-e",
            &home,
            "-e",
            &socket,
            "-e",
            &tmpdir,
            "--",
            "sh",
            "-c",
            &script,
            &out_text,
        ];
        argv.extend_from_slice(args);
        let pane = env.tmux(&argv).trim().to_owned();
        let picker = Picker { env, pane, out };
        picker.wait_screen("the picker to draw", |screen| {
            screen
                .lines()
                .next()
                .is_some_and(|prompt| prompt.starts_with("> ") && prompt.trim_end().contains('/'))
        });
        picker
    }

    /// What the pane shows now (the visible screen only).
    fn screen(&self) -> String {
        self.env
            .tmux(&["capture-pane", "-p", "-t", &self.pane])
            .trim_end()
            .to_owned()
    }

    /// Wait until the screen satisfies `probe`, and return it.
    fn wait_screen(&self, what: &str, probe: impl Fn(&str) -> bool) -> String {
        let mut last = String::new();
        let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            wait_for(what, 20, || {
                last = self.screen();
                probe(&last).then(|| last.clone())
            })
        }));
        found.unwrap_or_else(|_| panic!("timed out waiting for {what}; the screen:\n{last}"))
    }

    /// The row of the screen that shows this title.
    fn row(&self, title: &str) -> String {
        let screen = self.wait_screen(&format!("a row for {title:?}"), |screen| {
            screen.contains(title)
        });
        screen
            .lines()
            .find(|line| line.contains(title))
            .unwrap()
            .to_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut argv = vec!["send-keys", "-t", &self.pane];
        argv.extend_from_slice(keys);
        self.env.tmux(&argv);
    }

    fn type_text(&self, text: &str) {
        self.env.tmux(&["send-keys", "-t", &self.pane, "-l", text]);
        self.wait_screen(&format!("{text:?} in the prompt"), |screen| {
            screen.starts_with(&format!("> {text}"))
        });
    }

    fn resize(&self, width: u16, height: u16) {
        self.env.tmux(&[
            "resize-window",
            "-t",
            "=picker",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    fn pid(&self) -> i32 {
        let path = format!("{}.pid", self.out.display());
        wait_for("the picker's pid", 20, || {
            std::fs::read_to_string(&path).ok()?.trim().parse().ok()
        })
    }

    fn ended(&self) -> Ended {
        let status = format!("{}.status", self.out.display());
        // The status line is complete once its newline is written.
        let status = wait_for("the picker to end", 20, || {
            std::fs::read_to_string(&status)
                .ok()
                .filter(|text| text.ends_with('\n'))
        });
        let (code, modes) = status.trim().split_once(' ').unwrap();
        Ended {
            code: code.to_owned(),
            restored: modes == "restored",
            stderr: std::fs::read_to_string(format!("{}.err", self.out.display()))
                .unwrap_or_default(),
        }
    }

    /// The chosen record, after the picker ended well and gave the
    /// terminal back: its modes and the main screen.
    fn chosen(&self) -> Option<SessionRecord> {
        let ended = self.ended();
        assert_eq!(ended.code, "exit=0", "{ended:?}");
        assert!(ended.restored, "the terminal was left changed: {ended:?}");
        let alternate = self
            .env
            .tmux(&["display", "-p", "-t", &self.pane, "#{alternate_on}"]);
        assert_eq!(alternate.trim(), "0", "the alternate screen is still on");
        let text = std::fs::read_to_string(&self.out).unwrap();
        (!text.is_empty()).then(|| serde_json::from_str(&text).unwrap())
    }
}

fn three(env: &Env) -> (SessionRecord, SessionRecord, SessionRecord) {
    let parser = env.new_session(&["--title", "Fix the parser"]);
    let docs = env.new_session(&["--title", "Write the docs"]);
    let review = env.new_session(&["--title", "Review the API"]);
    let mut ready = env.command("lf-session-ready");
    ready
        .env("LF_SESSION_ID", &review.id)
        .env("LF_RUN_ID", env.current_run(&review.id))
        .arg("API ready");
    env.run_command(ready).ok();
    (parser, docs, review)
}

#[test]
fn enter_picks_the_session_that_needs_attention_first() {
    let env = Env::new();
    let (_, _, review) = three(&env);
    let picker = Picker::start(&env, &[]);
    picker.keys(&["Enter"]);
    assert_eq!(picker.chosen().unwrap().id, review.id);
}

/// Over a fresh `three`: type `query`, press `keys`; how many Sessions
/// matched the query, and the title of the one chosen.
fn after_typing(query: &str, keys: &[&str]) -> (usize, String) {
    let env = Env::new();
    three(&env);
    let picker = Picker::start(&env, &[]);
    picker.type_text(query);
    let screen = picker.screen();
    let prompt = screen.lines().next().unwrap();
    let (count, _) = prompt.rsplit(' ').next().unwrap().split_once('/').unwrap();
    picker.keys(keys);
    (count.parse().unwrap(), picker.chosen().unwrap().title)
}

#[test]
fn typing_filters_and_arrows_move() {
    // All three match "the" alike, so the order stays: review, docs, parser.
    assert_eq!(
        after_typing("the", &["Down", "Down", "Enter"]),
        (3, "Fix the parser".to_owned())
    );
    assert_eq!(
        after_typing("write DOCS", &["Enter"]),
        (1, "Write the docs".to_owned())
    );
}

#[test]
fn a_fuzzy_query_of_letters_spread_over_a_title_picks_it() {
    assert_eq!(
        after_typing("wtdcs", &["Enter"]),
        (1, "Write the docs".to_owned())
    );
    // The Session listed last without a query.
    assert_eq!(
        after_typing("fxprs", &["Enter"]),
        (1, "Fix the parser".to_owned())
    );
}

#[test]
fn rows_show_attention_and_how_long_it_has_waited() {
    let env = Env::new();
    let (_, _, review) = three(&env);
    // Ready for review three days and an hour ago.
    let since = lf::clock::now_micros() - (3 * 86_400 + 3600) * 1_000_000;
    env.db()
        .execute(
            "UPDATE sessions SET ready_at = ?2 WHERE id = ?1",
            (&review.id, since),
        )
        .unwrap();
    let record = env.show(&review.id);
    assert_eq!(record.attention, Some(Attention::Review));
    assert_eq!(record.attention_since, Some(lf::clock::Timestamp(since)));
    let picker = Picker::start(&env, &[]);
    let row = picker.row("Review the API");
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(words[..4], [">", "review", "3d", "ready"], "{row:?}");
    // A Session that needs nothing shows no wait.
    let row = picker.row("Write the docs");
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(words[..2], ["unknown", "Write"], "{row:?}");
    picker.keys(&["Escape"]);
    assert!(picker.chosen().is_none());
}

#[test]
fn the_preview_shows_what_the_selected_sessions_agent_printed() {
    let env = Env::new();
    env.new_session(&["--title", "Not running"]);
    let agent: SessionRecord = env.run("lf-session-new", &["Explain the preview"]).json();
    let pane = agent.terminal_ids[0].clone();
    // The fake agent answers the prompt, in colour where it prints red.
    wait_for("the agent to answer", 20, || {
        (env.show(&agent.id).attention == Some(Attention::Reply)).then_some(())
    });
    let printer: SessionRecord = env
        .run(
            "lf-session-new",
            &[
                "--provider",
                "command",
                "--title",
                "Colour printer",
                "--",
                "sh",
                "-c",
                "printf '\\033[31mRED TEXT\\033[0m plain\\n'; exec sleep 600",
            ],
        )
        .json();
    wait_for("the printer's pane", 20, || {
        env.capture(&printer.terminal_ids[0])
            .contains("RED TEXT")
            .then_some(())
    });
    assert!(
        env.capture(&pane)
            .contains("assistant: Explain the preview")
    );

    let picker = Picker::start(&env, &[]);
    // The agent needs a reply, so it comes first and is selected; its pane
    // is shown to the right of the list's rule.
    let preview = |screen: &str| -> String {
        screen
            .lines()
            .filter_map(|line| line.split_once('│').map(|(_, right)| right.trim()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    picker.wait_screen("the agent's answer in the preview", |screen| {
        preview(screen).contains("assistant: Explain the preview")
    });
    picker.type_text("not running");
    picker.wait_screen("why there is no preview", |screen| {
        preview(screen).contains("(no tmux pane")
    });
    // Issue 26: with nothing matching it said the same, of no session.
    picker.keys(&["C-u"]);
    picker.type_text("zzzz");
    picker.wait_screen("that nothing matches", |screen| {
        preview(screen).contains("(no session matches)")
    });
    picker.keys(&["C-u"]);
    // Colours survive; escapes other than colours never reach the screen
    // (see pick::preview), so the list beside the preview stays whole.
    picker.keys(&["C-u"]);
    picker.type_text("colour");
    let coloured = wait_for("red text in the preview", 20, || {
        let screen = env.tmux(&["capture-pane", "-p", "-e", "-t", &picker.pane]);
        screen.contains("RED TEXT").then_some(screen)
    });
    let row = coloured
        .lines()
        .find(|line| line.contains("RED TEXT"))
        .unwrap();
    assert!(row.contains("\x1b[31mRED TEXT"), "{row:?}");
    assert!(row.contains("Colour printer"), "{row:?}");
    picker.keys(&["Enter"]);
    assert_eq!(picker.chosen().unwrap().id, printer.id);
}

#[test]
fn resizing_redraws_to_fit_and_small_terminals_still_work() {
    let env = Env::new();
    let (_, docs, _) = three(&env);
    let picker = Picker::start(&env, &[]);
    picker.wait_screen("the preview's rule", |screen| screen.contains('│'));
    picker.resize(40, 6);
    let small = picker.wait_screen("a redraw at 40 × 6", |screen| {
        !screen.contains('│') && screen.lines().count() <= 6 && screen.contains("Write the")
    });
    for line in small.lines() {
        assert!(line.chars().count() <= 40, "{line:?}");
    }
    // Too small to show a row: the picker keeps running.
    picker.resize(3, 1);
    picker.wait_screen("a redraw at 3 × 1", |screen| !screen.contains("Write"));
    picker.keys(&["-l", "docs"]);
    picker.resize(120, 30);
    picker.wait_screen("the query and the preview back at 120 × 30", |screen| {
        screen.starts_with("> docs") && screen.contains('│')
    });
    picker.keys(&["Enter"]);
    assert_eq!(picker.chosen().unwrap().id, docs.id);
}

#[test]
fn escape_and_ctrl_c_leave_without_choosing_and_an_empty_list_is_not_found() {
    let env = Env::new();
    three(&env);
    let picker = Picker::start(&env, &["--attention"]);
    picker.keys(&["Escape"]);
    assert!(picker.chosen().is_none());

    let env = Env::new();
    three(&env);
    let picker = Picker::start(&env, &[]);
    picker.keys(&["C-c"]);
    assert!(picker.chosen().is_none());

    let empty = Env::new();
    empty
        .attempt("lf-session-pick", &["--print"])
        .fails_with(3, "nothing_to_pick");
}

#[test]
fn sigterm_leaves_the_terminal_as_it_was() {
    let env = Env::new();
    three(&env);
    let picker = Picker::start(&env, &[]);
    kill(picker.pid(), Signal::TERM);
    assert!(picker.chosen().is_none());
}

#[test]
fn a_terminal_that_hangs_up_ends_the_picker_with_an_error() {
    let env = Env::new();
    three(&env);
    // With SIGHUP ignored the picker outlives its terminal; it must notice
    // and end rather than read a dead terminal forever.
    let picker = Picker::start_with(&env, "trap '' HUP; echo $$ > \"$0.shell\";", &[]);
    env.tmux(&["kill-pane", "-t", &picker.pane]);
    let ended = picker.ended();
    // The shell outlives its pane too; the environment cannot find it.
    let shell = std::fs::read_to_string(format!("{}.shell", picker.out.display())).unwrap();
    kill(shell.trim().parse().unwrap(), Signal::KILL);
    assert_eq!(ended.code, "exit=1", "{ended:?}");
    assert_eq!(
        ended.stderr.trim(),
        "lf-session-pick: cannot read the terminal\nCaused by: it was closed"
    );
}
