//! The `lf-*` binaries. Each command is one module under `cmd/` holding its
//! clap definition (the doc comments are the help text) and a `run` that
//! calls the library and prints; each file under `bin/` is a one-line
//! `main`. The same clap definitions generate completions and man pages.
//!
//! The harness here gives every binary the same behaviour at the edges:
//! exit codes (0 ok, 1 operational, 2 usage, 3 not found, 4 conflict or
//! unavailable action), errors on stderr as `lf-x: message` or, with
//! `LF_ERROR_FORMAT=json`, as one JSON object, and a quiet exit when the
//! reader of stdout goes away (`lf-session-list | head`).

pub mod cmd;
pub mod generated;
pub mod install;
mod output;

pub use output::{ArrayWriter, Output};

use clap::{CommandFactory, FromArgMatches};
use lf::Error;
use std::io::Write;

/// A binary: its clap definition and what it does.
pub trait Tool: CommandFactory + FromArgMatches + Sized {
    const NAME: &'static str;
    fn run(self, out: &mut Output) -> lf::Result<()>;
}

/// Every binary's clap definition, named as installed.
pub fn commands() -> Vec<clap::Command> {
    cmd::all()
}

/// Parse argv, run the tool, print its error, and exit with its code.
pub fn main<T: Tool>() -> ! {
    let code = run::<T>(std::env::args_os());
    std::process::exit(code)
}

fn run<T: Tool>(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    run_with(T::NAME, args, T::run)
}

/// [`main`] for a binary outside this crate (`lf-web`), whose command line
/// is defined here but whose work is done by `run`: the same edges.
pub fn main_with<T: CommandFactory + FromArgMatches>(
    name: &'static str,
    run: impl FnOnce(T, &mut Output) -> lf::Result<()>,
) -> ! {
    let code = run_with(name, std::env::args_os(), run);
    std::process::exit(code)
}

fn run_with<T: CommandFactory + FromArgMatches>(
    name: &'static str,
    args: impl IntoIterator<Item = std::ffi::OsString>,
    run: impl FnOnce(T, &mut Output) -> lf::Result<()>,
) -> i32 {
    let matches = match T::command().name(name).try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) => return usage_error(name, error),
    };
    let tool = match T::from_arg_matches(&matches) {
        Ok(tool) => tool,
        Err(error) => return usage_error(name, error),
    };
    let mut out = Output::stdout();
    let result = run(tool, &mut out).and_then(|()| out.finish());
    match result {
        Ok(()) => 0,
        Err(_) if out.reader_gone() => 0,
        Err(error) => report(name, &error),
    }
}

fn usage_error(name: &str, error: clap::Error) -> i32 {
    use clap::error::ErrorKind as Clap;
    if matches!(error.kind(), Clap::DisplayHelp | Clap::DisplayVersion) {
        let _ = error.print();
        return 0;
    }
    if matches!(error.kind(), Clap::DisplayHelpOnMissingArgumentOrSubcommand) {
        let _ = error.print();
        return 2;
    }
    let rendered = error.render().to_string();
    let message = rendered.trim().trim_start_matches("error: ").to_owned();
    report(name, &lf::error::InputError::CommandLine(message).into())
}

/// Print an error for a person — its message and what to type next
/// (`message; hint`, the hint's commands spelled as binaries), then each
/// lower-level cause after `Caused by:` — or, with `LF_ERROR_FORMAT=json`,
/// as one JSON object for a program (`error` the variant's stable name,
/// `arg` the argument it is about or null, `message` on one line with its
/// hint, `hint` alone or null, `causes` as a list); return its exit code.
pub fn report(name: &str, error: &Error) -> i32 {
    let mut stderr = std::io::stderr().lock();
    if lf::Caller::from_process().var("LF_ERROR_FORMAT") == Some("json") {
        let body = serde_json::json!({
            "program": name,
            "error": error.name(),
            "arg": error.arg().map(lf::Arg::flag),
            "kind": error.kind(),
            "code": error.exit_code(),
            "message": error.one_line(),
            "hint": error.hint().map(|hint| hint.to_string()),
            "causes": error.causes(),
        });
        let _ = writeln!(stderr, "{body}");
    } else {
        let _ = writeln!(stderr, "{name}: {}", error.report());
    }
    error.exit_code()
}

/// lf, for this process as the caller: its environment and directory.
pub fn open_lf() -> lf::Result<lf::Lf> {
    lf::Lf::open(lf::Caller::from_process())
}

#[cfg(test)]
mod tests {
    use lf::error::hint::{Command, Word};

    /// A hint's command, as the binaries spell it, is a binary with that
    /// subcommand and those flags: a hint never names what does not exist.
    #[test]
    fn every_command_a_hint_names_is_a_binary_with_its_flags() {
        let binaries = super::commands();
        for command in Command::all() {
            let (binary, subcommand) = command.program();
            let mut found = binaries
                .iter()
                .find(|tool| tool.get_name() == binary)
                .unwrap_or_else(|| panic!("{command}: no binary {binary}"));
            for word in subcommand {
                found = found
                    .find_subcommand(word)
                    .unwrap_or_else(|| panic!("{command}: no subcommand {word}"));
            }
            for word in command.words() {
                let flag = match word {
                    Word::Text(text) => text.strip_prefix("--").map(str::to_owned),
                    Word::Argv(_) => None,
                };
                if let Some(flag) = flag {
                    assert!(
                        found
                            .get_arguments()
                            .any(|arg| arg.get_long() == Some(&flag)),
                        "{command}: no flag --{flag}"
                    );
                }
            }
        }
    }
}
