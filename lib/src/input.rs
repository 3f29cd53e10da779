//! Every check of untrusted text in one place: what people, agents and hook
//! payloads hand us (titles, summaries, prompts, names, model names, native
//! ids, argvs) is trimmed, bounded and refused when it holds what could
//! rewrite a terminal or be misread by a shell or a flag parser — before it
//! is stored or passed on. Ids have their strict formats in `ids`; messages
//! show untrusted text through `error::quote`.

use crate::Result;
use crate::error::domain::{Arg, Domain, ErrorKind, What};
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::quote;
use std::path::PathBuf;

/// A character text from outside may not hold: a control character, or
/// one that reorders or hides what is shown (`untrusted::is_hidden`: the
/// bidirectional controls and marks U+202A–U+202E, U+2066–U+2069, U+200E,
/// U+200F, U+061C, and the invisible U+200B, U+2060, U+FEFF, …), so that
/// text reads as something it is not (the "Trojan Source" class). The
/// zero-width non-joiner and joiner (U+200C, U+200D) and the soft hyphen
/// are spelling in some scripts and emoji, so text may hold them; the
/// display filter (`untrusted::visible`) still shows them as escapes.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || (crate::error::untrusted::is_hidden(c)
            && !matches!(c, '\u{200c}' | '\u{200d}' | '\u{ad}'))
}

/// Prose: trimmed, not empty, at most `max` characters, and free of
/// unsafe characters (`is_unsafe`; newlines, tabs and the line and
/// paragraph separators allowed where `lines` says).
#[derive(Debug, Clone, Copy)]
pub struct Prose {
    pub arg: Arg,
    pub what: What,
    pub max: usize,
    pub lines: bool,
}

pub const TITLE: Prose = Prose {
    arg: Arg::Title,
    what: "title",
    max: 200,
    lines: false,
};
pub const READY_SUMMARY: Prose = Prose {
    arg: Arg::Summary,
    what: "ready summary",
    max: 20_000,
    lines: true,
};
pub const HANDOFF_REASON: Prose = Prose {
    arg: Arg::Reason,
    what: "handoff reason",
    max: 2_000,
    lines: true,
};
pub const HANDED_BACK_SUMMARY: Prose = Prose {
    what: "handed-back summary",
    ..READY_SUMMARY
};
pub const COMPLETION_SUMMARY: Prose = Prose {
    what: "completion summary",
    ..READY_SUMMARY
};
pub const FAILURE_REASON: Prose = Prose {
    arg: Arg::Reason,
    what: "failure reason",
    ..READY_SUMMARY
};

impl Prose {
    pub fn check(self, text: &str) -> Result<String> {
        let Prose {
            arg,
            what,
            max,
            lines,
        } = self;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(InputError::EmptyText { arg, what }.into());
        }
        let count = trimmed.chars().count();
        if count > max {
            return Err(InputError::TextTooLong {
                arg,
                what,
                max,
                count,
            }
            .into());
        }
        // Where lines are allowed, the line and paragraph separators too
        // (they break a line as a newline does).
        let allowed = |c: char| lines && matches!(c, '\n' | '\t' | '\u{2028}' | '\u{2029}');
        if let Some(found) = trimmed.chars().find(|&c| is_unsafe(c) && !allowed(c)) {
            return Err(InputError::ControlCharacter { arg, what, found }.into());
        }
        Ok(trimmed.to_owned())
    }
}

/// The longest reply `lf-session-send` types, in characters.
pub const REPLY_MAX: usize = 10_000;

/// A reply typed into an agent (`lf-session-send`): one line, since a
/// newline would submit it early, and nothing a terminal would read as a
/// key or a sequence.
pub const REPLY: Prose = Prose {
    arg: Arg::Text,
    what: "reply",
    max: REPLY_MAX,
    lines: false,
};

pub fn reply(text: &str) -> Result<String> {
    REPLY.check(text)
}

pub fn title(text: &str) -> Result<String> {
    TITLE.check(text)
}

pub fn summary(text: &str) -> Result<String> {
    READY_SUMMARY.check(text)
}

/// A first prompt: passed to the agent as it is, but bounded and NUL-free
/// (an argv cannot hold a NUL).
pub fn prompt(prompt: String) -> Result<String> {
    const MAX: usize = 100_000;
    let (arg, what) = (Arg::Prompt, "prompt");
    if prompt.contains('\0') {
        return Err(InputError::NulByte { arg, what }.into());
    }
    let count = prompt.chars().count();
    if count > MAX {
        return Err(InputError::TextTooLong {
            arg,
            what,
            max: MAX,
            count,
        }
        .into());
    }
    Ok(prompt)
}

/// A token: a short name, not prose, made of letters, digits and a few
/// punctuation characters that no shell or flag parser misreads.
#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub arg: Arg,
    pub what: What,
    /// Trim surrounding spaces first (a name typed by a person).
    trim: bool,
    /// Besides letters and digits; non-ASCII letters only with `unicode`.
    punctuation: &'static str,
    unicode: bool,
    /// Characters at most (and at least one).
    max: usize,
    /// A leading `-` would read as a flag where the token is passed on.
    no_leading_dash: bool,
    /// Any printable character but spaces (a provider's own id).
    opaque: bool,
    allowed: &'static str,
}

const NAME: Token = Token {
    arg: Arg::Name,
    what: "name",
    trim: true,
    punctuation: "-_./ ",
    unicode: true,
    max: 100,
    no_leading_dash: false,
    opaque: false,
    allowed: "1 to 100 letters, digits, spaces and - _ . /",
};
pub const WAVE_NAME: Token = Token {
    what: "Wave name",
    ..NAME
};
pub const TASK_IDENTIFIER: Token = Token {
    arg: Arg::Identifier,
    what: "Task identifier",
    ..NAME
};
const POSITION: Token = Token {
    arg: Arg::Flow,
    what: "flow name",
    trim: false,
    punctuation: "-_.:/",
    unicode: false,
    max: 100,
    no_leading_dash: false,
    opaque: false,
    allowed: "up to 100 letters, digits and - _ . : /",
};
pub const FLOW_NAME: Token = POSITION;
pub const STEP: Token = Token {
    arg: Arg::Step,
    what: "step",
    ..POSITION
};
pub const INVOCATION: Token = Token {
    arg: Arg::Invocation,
    what: "invocation id",
    ..POSITION
};
pub const MODEL: Token = Token {
    arg: Arg::Model,
    what: "model name",
    trim: false,
    punctuation: ".-_:/@[]",
    unicode: false,
    max: 100,
    no_leading_dash: true,
    opaque: false,
    allowed: "up to 100 letters, digits and . - _ : / @ [ ], not starting with -",
};
pub const PROVIDER_SESSION_ID: Token = Token {
    arg: Arg::ProviderSessionId,
    what: "provider session id",
    trim: false,
    punctuation: "",
    unicode: true,
    max: 200,
    no_leading_dash: false,
    opaque: true,
    allowed: "1 to 200 characters without spaces, control or text-direction characters",
};

impl Token {
    pub fn check(self, text: &str) -> Result<String> {
        let text = if self.trim { text.trim() } else { text };
        let letter = |c: char| {
            if self.opaque {
                !is_unsafe(c) && !c.is_whitespace()
            } else if self.unicode {
                c.is_alphanumeric() || self.punctuation.contains(c)
            } else {
                c.is_ascii_alphanumeric() || self.punctuation.contains(c)
            }
        };
        let ok = !text.is_empty()
            && text.chars().count() <= self.max
            && !(self.no_leading_dash && text.starts_with('-'))
            && text.chars().all(letter);
        if ok {
            Ok(text.to_owned())
        } else {
            Err(InputError::BadToken {
                arg: self.arg,
                what: self.what,
                text: text.to_owned(),
                allowed: self.allowed,
            }
            .into())
        }
    }
}

const BRANCH: Token = Token {
    arg: Arg::Worktree,
    what: "worktree name",
    trim: false,
    punctuation: "-_./",
    unicode: false,
    max: 100,
    no_leading_dash: true,
    opaque: false,
    allowed: "1 to 100 ASCII letters, digits and - _ . / that make a git branch name \
              (not starting with - or /, no .. or //, no part starting with . or ending in .lock, not HEAD)",
};
pub const WORKTREE_NAME: Token = BRANCH;
pub const BASE_BRANCH: Token = Token {
    arg: Arg::Base,
    what: "base branch",
    ..BRANCH
};

/// A branch name lf creates or starts from: a strict subset of git's ref
/// name rules (`git check-ref-format`), so it is also a safe directory
/// name once its `/` are replaced, and never reads as a flag.
pub fn branch_name(token: Token, text: &str) -> Result<String> {
    let name = token.check(text)?;
    let git_refuses = name == "HEAD"
        || name.starts_with('/')
        || name.ends_with('/')
        || name.ends_with('.')
        || name.contains("..")
        || name.contains("//")
        || name
            .split('/')
            .any(|part| part.starts_with('.') || part.ends_with(".lock"));
    if git_refuses {
        return Err(InputError::BadToken {
            arg: token.arg,
            what: token.what,
            text: name,
            allowed: token.allowed,
        }
        .into());
    }
    Ok(name)
}

/// The argv of a `command` Session or a handoff's attach command: at most
/// 1,000 items, none holding a NUL (which no argv can carry).
pub fn argv(argv: &[String]) -> Result<()> {
    const MAX: usize = 1_000;
    if argv.len() > MAX || argv.iter().any(|arg| arg.contains('\0')) {
        return Err(InputError::BadCommand {
            problem: "the command's argv is too long (at most 1000 items) or contains a NUL byte",
            example: None,
        }
        .into());
    }
    Ok(())
}

/// Which arguments of one operation cannot be given together, and which
/// mean something only beside another. Each operation's rules are written
/// once, here: the plugin checks them with [`ArgumentRules::check`], and
/// the binary tells clap the same pairs (`conflicts_with`, `requires`) for
/// its --help, which a test of the binaries holds to these tables.
#[derive(Debug, Clone, Copy)]
pub struct ArgumentRules {
    /// `(first, second)`: the second, given with the first, is refused
    /// (`ArgumentsConflict`, about the second).
    pub conflicts: &'static [(Arg, Arg)],
    /// `(arg, needs)`: `arg` without `needs` is refused (`ArgumentNeeds`).
    pub requires: &'static [(Arg, Arg)],
}

impl ArgumentRules {
    /// Refuse the first rule that the arguments `given` break.
    pub fn check(&self, given: impl Fn(Arg) -> bool) -> Result<()> {
        if let Some(&(with, arg)) = self
            .conflicts
            .iter()
            .find(|(first, second)| given(*first) && given(*second))
        {
            return Err(InputError::ArgumentsConflict { arg, with }.into());
        }
        if let Some(&(arg, needs)) = self
            .requires
            .iter()
            .find(|(arg, needs)| given(*arg) && !given(*needs))
        {
            return Err(InputError::ArgumentNeeds { arg, needs }.into());
        }
        Ok(())
    }
}

/// Listing Sessions: no Task is not one Task, and the caller's directory
/// is a `--cwd`.
pub const LISTING: ArgumentRules = ArgumentRules {
    conflicts: &[(Arg::Orphan, Arg::Task), (Arg::Here, Arg::Cwd)],
    requires: &[],
};

/// Completing a Session: `--force` is about removing its worktree.
pub const COMPLETING: ArgumentRules = ArgumentRules {
    conflicts: &[],
    requires: &[(Arg::Force, Arg::RemoveWorktree)],
};

/// `--grace` when it is not given: how long a Session's live clients have
/// between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The most seconds a flag that takes seconds may be given, whoever reads
/// it (a binary's clap parser, the plugin's Nushell duration): the one
/// place these bounds are. An agent's grace and a host's answer are at
/// most an hour; a wait (`--timeout`) at most what a `u32` counts.
pub fn max_seconds(arg: Arg) -> u64 {
    match arg {
        Arg::Grace | Arg::HostTimeout => 3600,
        _ => u64::from(u32::MAX),
    }
}

/// A number of seconds a person typed for `arg`, as a duration of at
/// most [`max_seconds`] of it.
pub fn seconds(arg: Arg, value: f64) -> Result<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(value)
        .ok()
        .and_then(|duration| duration_for(arg, duration).ok())
        .ok_or(
            InputError::BadSeconds {
                arg,
                max: max_seconds(arg),
            }
            .into(),
        )
}

/// A duration a person gave for `arg` (a Nushell `5sec`), refused past
/// [`max_seconds`] of it as [`seconds`] refuses a number.
pub fn duration_for(arg: Arg, duration: std::time::Duration) -> Result<std::time::Duration> {
    let max = max_seconds(arg);
    (duration.as_secs_f64() <= max as f64)
        .then_some(duration)
        .ok_or(InputError::BadSeconds { arg, max }.into())
}

/// A generated title from a prompt: its first line, shortened, with
/// unsafe characters dropped. `None` when nothing printable is left.
pub fn title_from_prompt(prompt: &str) -> Option<String> {
    let line: String = prompt
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())?
        .chars()
        .filter(|&c| !is_unsafe(c))
        .collect();
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let limit = 80;
    Some(if line.chars().count() > limit {
        let cut: String = line.chars().take(limit - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        line.to_owned()
    })
}

/// Text or an argument that is not what an operation takes: ids, names, titles, directories, command lines, numbers of seconds (exit 2).
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum InputError {
    #[error("{} is not a {what}: expected {expected}", quote(.text))]
    BadId {
        arg: Arg,
        what: What,
        text: String,
        expected: &'static str,
    },
    #[error(
        "{} is not a Session id (32 lowercase hexadecimal characters, or the first 6 or more of them) or a Run id (run- and 26 base32 characters, or the first 6 or more of them)",
        quote(.0)
    )]
    BadSelector(String),
    #[error(
        "{} is too short to name a {what}: give at least {min} characters of its id{}",
        quote(.text),
        if *.what == "Run" { " after run-" } else { "" }
    )]
    PrefixTooShort {
        text: String,
        what: What,
        min: usize,
    },
    /// A prefix that begins more than one id; `candidates` names them (a
    /// bounded list, as `error::candidates` writes it).
    #[error(
        "{} names more than one {what}: {candidates}; give more characters of the id",
        quote(.text)
    )]
    AmbiguousPrefix {
        text: String,
        what: What,
        candidates: String,
    },
    #[error("{} is not a valid {what}: use {allowed}", quote(.text))]
    BadToken {
        arg: Arg,
        what: What,
        text: String,
        allowed: &'static str,
    },
    #[error("a {what} cannot be empty")]
    EmptyText { arg: Arg, what: What },
    #[error("a {what} has at most {max} characters; this one has {count}")]
    TextTooLong {
        arg: Arg,
        what: What,
        max: usize,
        count: usize,
    },
    #[error(
        "a {what} cannot contain control, text-direction or invisible characters (found {found:?})"
    )]
    ControlCharacter { arg: Arg, what: What, found: char },
    #[error("a {what} cannot contain a NUL byte")]
    NulByte { arg: Arg, what: What },
    #[error("unknown {what} {}: choose {}", quote(.text), choices.join(", "))]
    UnknownName {
        arg: Option<Arg>,
        what: What,
        text: String,
        choices: &'static [&'static str],
    },
    #[error("{} is not a page cursor: pass the \"next\" value of a previous page", quote(.0))]
    BadCursor(String),
    #[error("the {what} {} cannot be used", quote(&.path.display().to_string()))]
    UnusableDir {
        arg: Arg,
        what: What,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the {what} {} is not a directory", quote(&.path.display().to_string()))]
    NotADirectory { arg: Arg, what: What, path: PathBuf },
    #[error("the {what} {} is not valid UTF-8", .path.display())]
    NotUtf8 { arg: Arg, what: What, path: PathBuf },
    #[error(
        "the current directory cannot be used (it was removed, or cannot be read): pass a directory with --cwd"
    )]
    NoCurrentDir,
    #[error("{problem}")]
    /// `example` is a command line that would do, for the hint.
    BadCommand {
        problem: &'static str,
        example: Option<Command>,
    },
    #[error("--{} takes a number of seconds from 0 to {max}", .arg.flag())]
    BadSeconds { arg: Arg, max: u64 },
    /// Two arguments that exclude each other ([`ArgumentRules`]).
    #[error("the argument '--{}' cannot be used with '--{}'", .with.flag(), .arg.flag())]
    ArgumentsConflict { arg: Arg, with: Arg },
    /// An argument that means something only beside another
    /// ([`ArgumentRules`]).
    #[error("--{} only goes with --{}", .arg.flag(), .needs.flag())]
    ArgumentNeeds { arg: Arg, needs: Arg },
    /// A command line the binaries' parser refused; clap wrote the message.
    #[error("{0}")]
    CommandLine(String),
}

impl Domain for InputError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Usage
    }

    fn arg(&self) -> Option<Arg> {
        use InputError::*;
        Some(match self {
            BadId { arg, .. }
            | BadToken { arg, .. }
            | EmptyText { arg, .. }
            | TextTooLong { arg, .. }
            | ControlCharacter { arg, .. }
            | NulByte { arg, .. }
            | UnusableDir { arg, .. }
            | NotADirectory { arg, .. }
            | NotUtf8 { arg, .. }
            | BadSeconds { arg, .. }
            | ArgumentsConflict { arg, .. }
            | ArgumentNeeds { arg, .. } => *arg,
            BadSelector(_) | PrefixTooShort { .. } | AmbiguousPrefix { .. } => Arg::Id,
            UnknownName { arg, .. } => return *arg,
            BadCursor(_) => Arg::After,
            NoCurrentDir => Arg::Cwd,
            BadCommand { .. } => Arg::Argv,
            _ => return None,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            InputError::PrefixTooShort { what, .. } if *what != "Run" => {
                Some(Hint::from(Command::SessionList { all: false }).then(" shows them"))
            }
            InputError::BadCommand {
                example: Some(example),
                ..
            } => Some(Hint::text("for example ").command(example.clone())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn arguments_given_together_are_refused_naming_both() {
        let given = |args: &'static [Arg]| move |arg| args.contains(&arg);
        let error = LISTING.check(given(&[Arg::Orphan, Arg::Task])).unwrap_err();
        assert!(matches!(
            error,
            crate::Error::Input(InputError::ArgumentsConflict {
                arg: Arg::Task,
                with: Arg::Orphan
            })
        ));
        assert_eq!(error.arg(), Some(Arg::Task));
        assert_eq!(error.kind(), ErrorKind::Usage);
        assert_eq!(
            error.to_string(),
            "the argument '--orphan' cannot be used with '--task'"
        );
        assert!(LISTING.check(given(&[Arg::Here, Arg::Task])).is_ok());
        let error = COMPLETING.check(given(&[Arg::Force])).unwrap_err();
        assert_eq!(error.name(), "argument_needs");
        assert_eq!(error.arg(), Some(Arg::Force));
        assert_eq!(
            error.to_string(),
            "--force only goes with --remove-worktree"
        );
        assert!(
            COMPLETING
                .check(given(&[Arg::Force, Arg::RemoveWorktree]))
                .is_ok()
        );
    }

    #[test]
    fn branch_names_follow_git_and_never_read_as_flags_or_paths() {
        for good in ["lf-1a2b3c4d", "feature/parser", "fix_2.1", "origin/main"] {
            assert_eq!(branch_name(WORKTREE_NAME, good).unwrap(), good);
        }
        for bad in [
            "",
            "-x",
            "--force",
            "HEAD",
            "a..b",
            "../up",
            "/abs",
            "a/",
            "a//b",
            ".hidden",
            "a/.b",
            "x.lock",
            "a/b.lock/c",
            "end.",
            "a b",
            "a~1",
            "a^",
            "a:b",
            "a?",
            "a*",
            "a[b",
            "a\\b",
            "a@{1}",
            "tab\tname",
            "é",
        ] {
            let error = branch_name(WORKTREE_NAME, bad).unwrap_err();
            assert_eq!(error.arg(), Some(Arg::Worktree), "{bad:?}");
        }
        assert_eq!(
            branch_name(BASE_BRANCH, "..").unwrap_err().arg(),
            Some(Arg::Base)
        );
    }

    #[test]
    fn titles_are_trimmed_bounded_and_printable() {
        assert_eq!(title("  Fix the parser \n").unwrap(), "Fix the parser");
        assert_eq!(title(&"é".repeat(200)).unwrap().chars().count(), 200);
        assert!(title(&"é".repeat(201)).is_err());
        assert!(title(&"x".repeat(10_000)).is_err());
        assert!(title("   ").is_err());
        assert!(title("a\u{1b}[2Jb").is_err());
        assert!(title("two\nlines").is_err());
        // What reorders or hides text: refused, naming the character.
        for c in [
            '\u{200b}', '\u{200e}', '\u{200f}', '\u{61c}', '\u{feff}', '\u{2060}', '\u{202e}',
            '\u{2066}', '\u{2028}',
        ] {
            let refused = title(&format!("a{c}b")).unwrap_err().to_string();
            assert!(refused.contains(&format!("{c:?}")), "{refused}");
        }
        // Joiners spell emoji and some scripts.
        assert!(title("family \u{1f468}\u{200d}\u{1f469}").is_ok());
        let error = title("\u{7}").unwrap_err();
        assert_eq!(
            (error.kind(), error.arg()),
            (ErrorKind::Usage, Some(Arg::Title))
        );
    }

    #[test]
    fn summaries_keep_lines_but_refuse_escapes() {
        assert_eq!(summary(" done\n\tnext ").unwrap(), "done\n\tnext");
        assert!(matches!(
            summary("  ").unwrap_err(),
            crate::Error::Input(InputError::EmptyText {
                arg: Arg::Summary,
                ..
            })
        ));
        assert!(summary("a\u{1b}b").is_err());
        assert!(summary(&"x".repeat(READY_SUMMARY.max + 1)).is_err());
        assert_eq!(FAILURE_REASON.check(" gone ").unwrap(), "gone");
    }

    #[test]
    fn tokens_refuse_what_a_shell_or_a_flag_parser_would_misread() {
        assert_eq!(
            MODEL.check("claude-opus-4[1m]").unwrap(),
            "claude-opus-4[1m]"
        );
        for bad in ["", "-x", "a b", "a;b", "é"] {
            assert!(MODEL.check(bad).is_err(), "{bad:?}");
        }
        assert_eq!(WAVE_NAME.check(" product ").unwrap(), "product");
        assert_eq!(TASK_IDENTIFIER.check("Tâche 1").unwrap(), "Tâche 1");
        assert!(STEP.check("review code").is_err());
        assert_eq!(STEP.check("review-code").unwrap(), "review-code");
        assert!(PROVIDER_SESSION_ID.check("a b").is_err());
        assert_eq!(PROVIDER_SESSION_ID.check("019a-é").unwrap(), "019a-é");
        let error = INVOCATION.check("x y").unwrap_err();
        assert_eq!(error.arg(), Some(Arg::Invocation));
        assert_eq!(
            error.to_string(),
            "\"x y\" is not a valid invocation id: use up to 100 letters, digits and - _ . : /"
        );
    }

    #[test]
    fn prompts_are_bounded_and_give_short_generated_titles() {
        assert!(prompt("a\0b".into()).is_err());
        assert!(prompt("x".repeat(100_001)).is_err());
        assert_eq!(
            title_from_prompt("\n  Fix the bug\nmore").as_deref(),
            Some("Fix the bug")
        );
        assert_eq!(title_from_prompt("\u{1b}"), None);
        assert_eq!(title_from_prompt(""), None);
        let long = title_from_prompt(&"word ".repeat(50)).unwrap();
        assert!(long.chars().count() <= 80 && long.ends_with('…'));
    }

    #[test]
    fn seconds_are_bounded_by_their_flag() {
        use std::time::Duration;
        assert_eq!(max_seconds(Arg::Grace), 3600);
        assert_eq!(max_seconds(Arg::HostTimeout), 3600);
        assert_eq!(max_seconds(Arg::Timeout), u64::from(u32::MAX));
        assert_eq!(
            seconds(Arg::Grace, 3600.0).unwrap(),
            Duration::from_secs(3600)
        );
        for refused in [seconds(Arg::Grace, 3600.5), seconds(Arg::Grace, -1.0)] {
            assert_eq!(
                refused.unwrap_err().to_string(),
                "--grace takes a number of seconds from 0 to 3600"
            );
        }
        assert!(duration_for(Arg::HostTimeout, Duration::from_secs(3601)).is_err());
        assert!(duration_for(Arg::Timeout, Duration::from_secs(3601)).is_ok());
    }
}
