//! Every example of README.md runs as written. Each ```` ```sh ````,
//! ```` ```nu ```` and ```` ```tmux ```` block is run in a fresh sealed
//! [`Env`] set up as the machine of a reader who did what the README says
//! before its examples: the binaries on PATH and `lf-install-shell` run
//! (Install), `~/src/app` a git repository whose branch is `main` (Quick
//! start says the examples use one), and `GH_TOKEN` set (the handoff
//! example passes the reader's). `claude` and `codex` are the fakes of
//! `tests/fakes`, so nothing reaches the network.
//!
//! - sh: `bash` with `set -euo pipefail`, in HOME: a command that fails, or
//!   a variable never set, fails the block.
//! - nu: the real `nu` (`$LF_TEST_NU`, else `.tools/nu`) with the plugin
//!   built beside the binaries, as `nu -n --no-std-lib --plugins P -c BLOCK`.
//! - tmux: `source-file` on the environment's own tmux server, which
//!   fails when a command does (a `run-shell` that exits non-zero too).
//!
//! The line just before a block may mark it: `<!-- not run: REASON -->`
//! (a block that cannot run here: the install itself, a follower that
//! runs until Ctrl-C, one that takes the terminal), counted and shown;
//! `<!-- continues the block above -->` runs the nearest block above that
//! runs first, in the same shell (its variables and folder carry on). Any other mark, a reason left out, or a language without a
//! runner fails the test, as does a block that fails; each failure names
//! the block's line in README.md (and, for sh, the line that failed).

use crate::util::*;
use std::path::PathBuf;

const README: &str = include_str!("../README.md");

/// How many blocks README.md marks `not run`. A block newly marked must say
/// why it cannot run here; this number changes with it, on purpose.
const NOT_RUN: usize = 13;

/// One fenced block of the README.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    /// The line of its opening fence (1-based).
    line: usize,
    /// The fence's language: `sh`, `nu`, `tmux`.
    lang: String,
    /// The lines between the fences, each with its line in the file.
    code: Vec<(usize, String)>,
    mark: Mark,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Mark {
    Run,
    NotRun(String),
    /// Run after the block above, in the same shell.
    Continues,
}

const NOT_RUN_MARK: &str = "<!-- not run:";
const CONTINUES_MARK: &str = "<!-- continues the block above -->";

/// The fenced blocks of a Markdown text, with their marks; an error for
/// each mark that is not one of ours, a `not run` without its reason, a
/// continuation of nothing (or of another language), an unclosed fence.
fn blocks(text: &str) -> Result<Vec<Block>, Vec<String>> {
    let mut blocks = Vec::new();
    let mut errors = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        // As CommonMark has it: a fence's info string has no backtick
        // (a line that starts with inline code is no fence).
        let Some(info) = lines[index]
            .strip_prefix("```")
            .filter(|info| !info.contains('`'))
        else {
            index += 1;
            continue;
        };
        let line = index + 1;
        let lang = info
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let before = lines[..index]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty())
            .map(|line| line.trim());
        let mark = match before {
            Some(mark) if mark == CONTINUES_MARK => Mark::Continues,
            Some(mark) if mark.starts_with(NOT_RUN_MARK) => {
                let reason = mark
                    .strip_prefix(NOT_RUN_MARK)
                    .and_then(|rest| rest.strip_suffix("-->"))
                    .map(str::trim)
                    .unwrap_or_default();
                if reason.is_empty() {
                    errors.push(format!(
                        "README.md:{line}: the block is marked not run but not why: \
                         write {NOT_RUN_MARK} REASON --> on the line before it"
                    ));
                }
                Mark::NotRun(reason.to_owned())
            }
            Some(mark) if mark.starts_with("<!--") => {
                errors.push(format!(
                    "README.md:{line}: {mark:?} before the block is not a mark the test knows: \
                     use {NOT_RUN_MARK} REASON --> or {CONTINUES_MARK}"
                ));
                Mark::Run
            }
            _ => Mark::Run,
        };
        let mut code = Vec::new();
        index += 1;
        while index < lines.len() && lines[index].trim_end() != "```" {
            code.push((index + 1, lines[index].to_owned()));
            index += 1;
        }
        if index == lines.len() {
            errors.push(format!("README.md:{line}: the block is never closed"));
        }
        index += 1;
        if mark == Mark::Continues {
            match blocks
                .iter()
                .rev()
                .find(|block: &&Block| !matches!(block.mark, Mark::NotRun(_)))
            {
                Some(above) if above.lang == lang => {}
                _ => errors.push(format!(
                    "README.md:{line}: the block continues the block above, but the nearest \
                     block above that runs is not a ```{lang} block"
                )),
            }
        }
        if !matches!(mark, Mark::NotRun(_)) && !["sh", "nu", "tmux"].contains(&lang.as_str()) {
            errors.push(format!(
                "README.md:{line}: no runner for a ```{lang} block: mark it {NOT_RUN_MARK} REASON -->"
            ));
        }
        blocks.push(Block {
            line,
            lang,
            code,
            mark,
        });
    }
    if errors.is_empty() {
        Ok(blocks)
    } else {
        Err(errors)
    }
}

/// A block and those it continues, first to last: each `continues` goes
/// on after the nearest block above it that runs (one marked not run in
/// between is passed over).
fn chain(blocks: &[Block], at: usize) -> Vec<&Block> {
    let mut chain = vec![&blocks[at]];
    let mut index = at;
    while blocks[index].mark == Mark::Continues {
        index -= 1;
        while matches!(blocks[index].mark, Mark::NotRun(_)) {
            index -= 1;
        }
        chain.insert(0, &blocks[index]);
    }
    chain
}

/// The environment a reader's machine is, once Install is done and
/// `~/src/app` is theirs.
fn reader() -> Env {
    let mut env = Env::new();
    env.vars.push((
        "GH_TOKEN".to_owned(),
        "ghp_the-readers-own-token".to_owned(),
    ));
    env.install_shell(&[]).ok();
    let app = env.dir.path().join("src/app");
    std::fs::create_dir_all(&app).unwrap();
    let git = |args: &[&str]| {
        let mut command = env.program("git");
        command.current_dir(&app).args([
            "-c",
            "user.name=Reader",
            "-c",
            "user.email=reader@example.org",
        ]);
        command.args(args);
        env.run_command(command).ok();
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(app.join("README.md"), "# app\n").unwrap();
    git(&["add", "README.md"]);
    git(&["commit", "-q", "-m", "The app"]);
    env
}

/// The plugin, built beside the binaries: the README's nu blocks need it.
fn plugin() -> PathBuf {
    crate::util::built_beside("nu_plugin_lf", "nu_plugin_lf")
}

/// Run one block (after those it continues) in a fresh reader's
/// environment; what went wrong, for a person, if it failed.
fn run(chain: &[&Block]) -> Result<(), String> {
    let block = chain.last().unwrap();
    let env = reader();
    let home = env.dir.path().to_owned();
    let lines: Vec<&(usize, String)> = chain.iter().flat_map(|block| &block.code).collect();
    let code: String = lines.iter().map(|(_, line)| format!("{line}\n")).collect();
    let continues = if chain.len() > 1 {
        let above: Vec<String> = chain[..chain.len() - 1]
            .iter()
            .map(|block| format!("README.md:{}", block.line))
            .collect();
        format!(" (run after {})", above.join(", "))
    } else {
        String::new()
    };
    let ran = match block.lang.as_str() {
        "sh" | "nu" => {
            let mut command = env.program("timeout");
            command.args(["--kill-after=10", "600"]);
            if block.lang == "sh" {
                // The first line of the script is the trap: README lines start at 2.
                let script =
                    format!("trap 'echo \"readme: failed at line $LINENO\" >&2' ERR\n{code}");
                command.args(["bash", "-euo", "pipefail", "-c"]).arg(script);
            } else {
                command
                    .arg(nu())
                    .args(["-n", "--no-std-lib", "--plugins"])
                    .arg(plugin())
                    .args(["-c", &code]);
            }
            command.current_dir(&home);
            run_leaving_nothing(&env, command)
        }
        "tmux" => {
            env.tmux(&["new-session", "-d", "-s", "reader", "--", "sleep", "600"]);
            let file = home.join("readme.tmux");
            std::fs::write(&file, &code).unwrap();
            env.run_command(env.tmux_command(&["source-file", file.to_str().unwrap()]))
        }
        other => unreachable!("no runner for {other}"),
    };
    if ran.code == Some(0) {
        // Shown with --nocapture, or when another block fails.
        println!(
            "README.md:{}: the ```{} block ran{continues}\n{}{}",
            block.line, block.lang, ran.stdout, ran.stderr
        );
        return Ok(());
    }
    let at = ran
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("readme: failed at line "))
        .and_then(|number| number.trim().parse::<usize>().ok())
        .and_then(|number| lines.get(number.checked_sub(2)?))
        .map(|(line, text)| format!(", at README.md:{line}: {}", text.trim()))
        .unwrap_or_default();
    Err(format!(
        "README.md:{}: the ```{} block failed{continues}{at}\nexit: {:?}\nstdout:\n{}\nstderr:\n{}",
        block.line, block.lang, ran.code, ran.stdout, ran.stderr
    ))
}

/// Run a block's interpreter (under `timeout`, which leads its own process
/// group) with its output in files, not pipes: a process the block leaves
/// running (a follower, a `&` job) neither holds the test up nor outlives
/// it, as the group is killed once the block has ended.
fn run_leaving_nothing(env: &Env, mut command: std::process::Command) -> Ran {
    let out = env.dir.path().join("block.stdout");
    let err = env.dir.path().join("block.stderr");
    command
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    let argv = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let mut child = command.spawn().expect("spawn the block's interpreter");
    let status = child.wait().unwrap();
    kill(-(child.id() as i32), Signal::KILL);
    let read = |path: &std::path::Path| {
        String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
    };
    Ran {
        argv,
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
    }
}

#[test]
fn every_block_of_the_readme_runs_as_written_or_says_why_not() {
    let blocks = blocks(README).unwrap_or_else(|errors| panic!("{}", errors.join("\n")));
    let mut failures = Vec::new();
    let mut not_run = Vec::new();
    let mut ran = 0;
    for (at, block) in blocks.iter().enumerate() {
        if let Mark::NotRun(reason) = &block.mark {
            not_run.push(format!("README.md:{}: {reason}", block.line));
            continue;
        }
        ran += 1;
        if let Err(failure) = run(&chain(&blocks, at)) {
            failures.push(failure);
        }
    }
    println!(
        "README.md: {} blocks, {ran} run, {} not run:\n{}",
        blocks.len(),
        not_run.len(),
        not_run.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} README blocks failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(
        not_run.len(),
        NOT_RUN,
        "README.md marks {} blocks not run, the test expects {NOT_RUN}: a block that can run \
         must, and one that cannot says why; then change NOT_RUN:\n{}",
        not_run.len(),
        not_run.join("\n")
    );
}

#[test]
fn marks_are_read_and_a_mark_the_test_does_not_know_fails() {
    let text = "# t\n\n```sh\necho one\n```\n\n<!-- continues the block above -->\n```sh\necho two\n```\n\
                <!-- not run: it needs a person -->\n\n```nu\nlf watch\n```\n";
    let found = blocks(text).unwrap();
    let marks: Vec<(usize, &str, &Mark)> = found
        .iter()
        .map(|block| (block.line, block.lang.as_str(), &block.mark))
        .collect();
    assert_eq!(
        marks,
        [
            (3, "sh", &Mark::Run),
            (8, "sh", &Mark::Continues),
            (13, "nu", &Mark::NotRun("it needs a person".to_owned())),
        ]
    );
    assert_eq!(found[1].code, [(9, "echo two".to_owned())]);
    let chained: Vec<usize> = chain(&found, 1).iter().map(|block| block.line).collect();
    assert_eq!(chained, [3, 8]);
    let text = "```sh\na\n```\n<!-- not run: why -->\n```sh\nb\n```\n<!-- continues the block above -->\n```sh\nc\n```\n";
    let found = blocks(text).unwrap();
    let chained: Vec<usize> = chain(&found, 2).iter().map(|block| block.line).collect();
    assert_eq!(chained, [1, 9], "the block not run is passed over");
    for (text, error) in [
        (
            "<!-- not run: -->\n```sh\nx\n```\n",
            "README.md:2: the block is marked not run but not why",
        ),
        (
            "<!-- skip -->\n```sh\nx\n```\n",
            "README.md:2: \"<!-- skip -->\" before the block is not a mark the test knows",
        ),
        (
            "<!-- continues the block above -->\n```sh\nx\n```\n",
            "README.md:2: the block continues the block above, but",
        ),
        (
            "```sh\nx\n```\n<!-- continues the block above -->\n```nu\nx\n```\n",
            "README.md:5: the block continues the block above, but",
        ),
        (
            "```python\nx\n```\n",
            "README.md:1: no runner for a ```python block",
        ),
        ("```sh\nx\n", "README.md:1: the block is never closed"),
    ] {
        let errors = blocks(text).unwrap_err();
        assert!(
            errors.iter().any(|said| said.starts_with(error)),
            "{text:?}: {errors:?}"
        );
    }
}

/// A failing block is found, and named by its line and the line that failed.
#[test]
fn a_failing_block_is_named_by_its_line() {
    let text = "# t\n\n```sh\ntrue\nlf-session-complete \"$id\"\n```\n";
    let found = blocks(text).unwrap();
    let failure = run(&chain(&found, 0)).unwrap_err();
    assert!(
        failure.starts_with("README.md:3: the ```sh block failed"),
        "{failure}"
    );
    assert!(failure.contains("id: unbound variable"), "{failure}");
    let text = "```sh\ntrue\nfalse\ntrue\n```\n";
    let found = blocks(text).unwrap();
    let failure = run(&chain(&found, 0)).unwrap_err();
    assert!(
        failure.starts_with("README.md:1: the ```sh block failed, at README.md:3: false"),
        "{failure}"
    );
}
