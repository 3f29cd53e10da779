//! What every domain's error says about itself: its kind (and with it the
//! exit code), the argument it is about, its stable name and what to type
//! next. Each domain's enum lives beside the rule that raises it
//! (`input::InputError`, `handoff::HandoffError`); `crate::Error` joins
//! them and asks them through `Domain`.

use super::hint::Hint;

/// What kind of failure this is; each kind has one documented exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Something in the environment failed (I/O, database, tmux): exit 1.
    Operational,
    /// The arguments or input are malformed: exit 2.
    Usage,
    /// A named session, run, task or wave does not exist: exit 3.
    NotFound,
    /// The request conflicts with the current state, or names an action
    /// that is unavailable now: exit 4.
    Conflict,
}

impl ErrorKind {
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Operational => 1,
            ErrorKind::Usage => 2,
            ErrorKind::NotFound => 3,
            ErrorKind::Conflict => 4,
        }
    }
}

/// The argument of an operation an error is about, named as the binaries'
/// flags are (`--task`, `--cwd`); `Id` is the Session (or Run) an operation
/// is given as its first argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Arg {
    Id,
    Task,
    Wave,
    Title,
    Summary,
    Prompt,
    Cwd,
    Model,
    Provider,
    /// The argv of a command (after `--` on a command line).
    Argv,
    After,
    Parent,
    ProviderSessionId,
    Invocation,
    Flow,
    Step,
    Env,
    Name,
    Identifier,
    Repo,
    Worktree,
    Reason,
    State,
    Kind,
    Grace,
    Timeout,
    /// A handoff's outcome (`--handed-back`, `--completed` or `--failed`).
    Outcome,
    /// The branch a worktree starts from (`--base`).
    Base,
    RemoveWorktree,
    /// `--force` (of `--remove-worktree`).
    Force,
    /// Sessions that belong to no Task (`--orphan`).
    Orphan,
    /// The caller's directory (`--here`).
    Here,
    /// A remote host (`--host`, `lf-host add HOST`).
    Host,
    /// The lf Home on a remote host (`lf-host add --home`).
    Home,
    /// The folder of lf's binaries on a remote host (`lf-host add --bin`).
    Bin,
    HostTimeout,
    /// The text a reply types (`lf-session-send ID TEXT`).
    Text,
    /// `lf-session-answer --always`.
    Always,
    /// `lf-session-answer ID ANSWER`: allow or deny.
    Answer,
    /// The request an answer is for (`lf-session-answer --request`).
    Request,
    /// What `lf-session-usage` sums by (`--by`).
    By,
    /// The first day `lf-session-usage` sums (`--since`).
    Since,
}

impl Arg {
    /// The flag's name without dashes (`provider-session-id`).
    pub fn flag(self) -> &'static str {
        self.into()
    }
}

/// What a validated text is, as messages name it.
pub type What = &'static str;

/// One domain's errors, as the joined `crate::Error` asks them.
pub trait Domain: std::error::Error + Send + Sync + 'static {
    /// The kind, and with it the exit code.
    fn kind(&self) -> ErrorKind;

    /// The argument this error is about, when it is about one.
    fn arg(&self) -> Option<Arg> {
        None
    }

    /// The variant's stable snake_case name (`session_not_found`), a
    /// contract: `LF_ERROR_FORMAT=json` prints it as `error`.
    fn name(&self) -> &str;

    /// What to type next, when there is one thing to say.
    fn hint(&self) -> Option<Hint> {
        None
    }
}
