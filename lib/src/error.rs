//! Every way an lf operation can fail, as one typed enum. Each message is
//! written once, in its variant, for a person: what happened, to which
//! session or file, and what to do about it. `kind()` gives the documented
//! exit code, `arg()` the argument an error is about (so the plugin can put
//! its label under it without reading the message), and `source()` the
//! lower-level I/O or SQLite error, which surfaces print as `Caused by:`.

use std::fmt;
use std::path::PathBuf;

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
}

impl Arg {
    /// The flag's name without dashes (`provider-session-id`).
    pub fn flag(self) -> &'static str {
        self.into()
    }
}

/// What a validated text is, as messages name it.
pub type What = &'static str;

/// Each variant has a stable snake_case name (`session_not_found`), which
/// `name()` gives and `LF_ERROR_FORMAT=json` prints as `error`: a program
/// (or a test) matches it, not the message, which is for a person.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum Error {
    // ----- malformed input (exit 2)
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
        if *.what == "Run" { " after run-" } else { " (lf-session-list shows them)" }
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
    #[error("a {what} cannot contain control or text-direction characters (found {found:?})")]
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
    #[error(
        "LF_EVENTS_KEEP={} is not a number of events to keep: set it to a positive count such as 10000, or unset it",
        quote(.0)
    )]
    BadEventsKeep(String),
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
    #[error("cannot find the lf Home: set LF_HOME (or HOME) to choose where lf keeps its data")]
    NoHome,
    #[error("{problem}")]
    BadCommand { problem: &'static str },
    #[error(
        "arguments after -- are only for --provider command; {0} takes one PROMPT (after -- when it starts with -)"
    )]
    ArgvNotForAgent(&'static str),
    #[error("a {0} needs an agent: choose --provider claude or codex")]
    NeedsAgent(What),
    #[error("the Task identifier {} looks like an lf id; choose another, such as LOO-291", quote(.0))]
    IdentifierLooksLikeId(String),
    #[error("{} is not inside a git repository; run lf-primary in a repository, or pass --wave", quote(.0))]
    NotInRepository(String),
    #[error(
        "{} is not inside a git repository: --worktree needs one; pass --cwd with a directory of a repository",
        quote(.0)
    )]
    NotAGitRepository(String),
    #[error(
        "the repository {} is on no branch (its HEAD is detached): name the branch to start from with --base BRANCH",
        quote(.0)
    )]
    DetachedBase(String),
    #[error(
        "{} is not a branch of this repository: --base takes a local branch (main) or a remote-tracking one (origin/main)",
        quote(.0)
    )]
    BaseNotABranch(String),
    #[error(
        "--worktree registers a Task of its own; leave out --task (or use the Task's worktree with --task alone)"
    )]
    WorktreeWithTask,
    #[error(
        "{} is not a handoff parent: use task:TASK (a Task id or identifier) or wave:WAVE (a Wave id or name)",
        quote(.0)
    )]
    BadParent(String),
    #[error("a handoff takes at most {max} environment entries; this one has {count}")]
    TooManyVariables { max: usize, count: usize },
    #[error(
        "environment entry {number} is not KEY=VALUE (its text is not shown: it may be a secret); pass each variable as --env NAME=VALUE"
    )]
    NotAVariable { number: usize },
    #[error(
        "environment entry {number} has {shown}, not a valid variable name: use letters, digits and _, not starting with a digit, at most {max} characters"
    )]
    BadVariableName {
        number: usize,
        shown: String,
        max: usize,
    },
    #[error(
        "the value of environment variable {name} is not usable (at most {max} bytes, no NUL); it is not shown: it may be a secret"
    )]
    BadVariableValue { name: String, max: usize },
    #[error("environment variable {0} is given twice; give each variable once")]
    VariableTwice(String),
    /// An opener gave a variable that could change what the attach command
    /// runs (docs/decisions/0025-handoffs-what-an-opener-may-set.md).
    #[error(
        "environment variable {name} cannot be given to a handoff: {why}. The person who attaches sees only the variables' names, so an opener may give only credentials, named in capitals ending in _TOKEN, _KEY, _KEY_ID, _SECRET or _PASSWORD (such as GH_TOKEN or OPENAI_API_KEY); put anything else in the attach command, where the person sees it"
    )]
    ForbiddenVariable { name: String, why: &'static str },
    #[error(
        "the handoff's working directory {cwd} is not the {what} of {parent} ({checkout}); open the handoff with --cwd {checkout}"
    )]
    HandoffElsewhere {
        cwd: String,
        what: What,
        parent: String,
        checkout: String,
    },
    #[error("{name} is not set: this is run by an agent inside a session that lf launched")]
    NotLaunchedByLf { name: &'static str },
    #[error("{0}")]
    BadHook(String),
    #[error("--{} takes a number of seconds from 0 to {max}", .arg.flag())]
    BadSeconds { arg: Arg, max: u64 },
    #[error("a {hook} hook arrived for Run {run}, which runs {runs}")]
    HookOfOtherProvider {
        hook: &'static str,
        run: String,
        runs: String,
    },
    #[error("cannot attach to the tmux session {name}: this is not a terminal; run {attach}")]
    NotATerminal { name: String, attach: String },
    #[error("lf-session-pick needs a terminal; use lf-session-list to choose in a script")]
    NoTerminal,
    #[error(
        "HOME is not set to an absolute path: lf-install-shell installs into your home folder; set HOME"
    )]
    NoUserHome,
    /// A command line the binaries' parser refused; clap wrote the message.
    #[error("{0}")]
    CommandLine(String),
    #[error(
        "{} is not a host name lf passes to ssh: use letters, digits and - . _ @ : [ ] %, not starting with -",
        quote(.0)
    )]
    BadHost(String),
    #[error(
        "the remote {what} {} cannot be used: give an absolute path (or one starting with ~/) without quotes, backslashes or control characters",
        quote(.text)
    )]
    BadRemotePath { arg: Arg, what: What, text: String },
    #[error(
        "{flag} names something of this machine, so it cannot be combined with --host or --hosts; remote sessions can be filtered with --attention, --state, --kind, --orphan and --all"
    )]
    LocalOnlyFilter { flag: &'static str },
    /// Two arguments that exclude each other (`lf::input::ArgumentRules`).
    #[error("the argument '--{}' cannot be used with '--{}'", .with.flag(), .arg.flag())]
    ArgumentsConflict { arg: Arg, with: Arg },
    /// An argument that means something only beside another
    /// (`lf::input::ArgumentRules`).
    #[error("--{} only goes with --{}", .arg.flag(), .needs.flag())]
    ArgumentNeeds { arg: Arg, needs: Arg },
    #[error("{variable}: {inner}")]
    InVariable {
        variable: &'static str,
        inner: Box<Error>,
    },

    // ----- something named does not exist (exit 3)
    #[error("Session {0} was not found")]
    SessionNotFound(String),
    #[error("Run {0} was not found")]
    RunNotFound(String),
    #[error("Task {} is not registered; see lf-work task list{}", quote(.0), if *.1 { ", or register it with lf-work task add" } else { "" })]
    TaskNotFound(String, bool),
    #[error("Wave {} is not registered; see lf-work wave list, or register it with lf-work wave add", quote(.0))]
    WaveNotFound(String),
    #[error("flow invocation {0:?} was not found")]
    InvocationNotFound(String),
    #[error("handoff {0} was not found; see lf-handoff list")]
    HandoffNotFound(String),
    #[error("process {0} is not running (no /proc/{0}/stat)")]
    ProcessNotFound(u32),
    #[error("there is no session to pick")]
    NothingToPick,
    #[error("host {} is not in the host list; see lf-host list, or add it with lf-host add", quote(.0))]
    HostNotFound(String),
    #[error(
        "Session {id} was not found here or on any host of the host list (lf-host list){problems}; pass --host HOST if it is on another machine"
    )]
    NowhereFound { id: String, problems: String },
    /// What a remote lf refused, in its own words (escaped) and naming the
    /// host; the kind is its kind.
    #[error("{message}")]
    RemoteRefused {
        host: String,
        kind: ErrorKind,
        message: String,
    },

    // ----- conflicts with the current state (exit 4)
    /// Every action on a completed Session is refused with this, and its
    /// record's actions say it: `state::completed` makes it.
    #[error(
        "Session {session} was completed at {at}; start a new one with lf-session-new, or see it with lf-session-list --all"
    )]
    AlreadyComplete { session: String, at: String },
    #[error("Session {0} is no longer waiting")]
    NoLongerWaiting(String),
    #[error("review session is stale")]
    StaleReview,
    #[error("a primary Session has no caller waiting on readiness")]
    PrimaryNotReviewed,
    #[error("Run {run} does not belong to Session {session}")]
    RunOfOtherSession { run: String, session: String },
    #[error("Run {run} is a historical attempt of Session {session}; its current Run is {current}")]
    HistoricalRun {
        run: String,
        session: String,
        current: String,
    },
    #[error(
        "Run {run} is superseded and cannot mark Session {session} ready; its current Run is {current}"
    )]
    SupersededRun {
        run: String,
        session: String,
        current: String,
    },
    #[error(
        "Run {run} is no longer current for Session {session}; its current Run is {current}: open the Session instead"
    )]
    NotCurrentRun {
        run: String,
        session: String,
        current: String,
    },
    #[error(
        "Run {0} was already launched and has no native history; open the Session to start a new attempt"
    )]
    NoNativeHistory(String),
    #[error("Session {0} changed while a new attempt was prepared; open it again")]
    ChangedMeanwhile(String),
    #[error("Session {0} is being opened by another process; try again in a moment")]
    BeingOpened(String),
    /// An action the rules say is unavailable now, with their reason.
    #[error("{0}")]
    Unavailable(std::borrow::Cow<'static, str>),
    #[error("Session {session} is already bound to Task {task}; a binding is permanent")]
    AlreadyBound { session: String, task: String },
    #[error("Session {0} is not a primary Session")]
    NotPrimary(String),
    #[error("a Wave named {0:?} is already registered")]
    WaveExists(String),
    #[error("a Task with identifier {0:?} is already registered")]
    TaskExists(String),
    #[error("host {} is already in the host list; remove it first to change it (lf-host remove)", quote(.0))]
    HostExists(String),
    #[error(
        "the branch {} already exists in {}; choose another --worktree NAME, or register its worktree as a Task (lf-work task add --worktree DIR) and pass --task",
        quote(.branch), quote(.repo)
    )]
    BranchExists { branch: String, repo: String },
    #[error(
        "{} already exists; choose another --worktree NAME, or set LF_WORKTREES to put worktrees elsewhere",
        quote(.0)
    )]
    WorktreeDirExists(String),
    #[error(
        "Session {session} has no worktree to remove (it is bound to no Task with a worktree); complete it without --remove-worktree"
    )]
    NoWorktree { session: String },
    #[error(
        "removing the worktree {} of Session {session} would lose {lost}; commit and merge that first, or pass --force to discard it",
        quote(.worktree)
    )]
    WouldLoseWork {
        session: String,
        worktree: String,
        lost: String,
    },
    #[error(
        "Session {other} is open in the worktree {} too; complete it first, or remove the worktree with the last Session that uses it",
        quote(.worktree)
    )]
    WorktreeInUse { other: String, worktree: String },
    #[error(
        "invocation {invocation} belongs to flow {flow:?} of Task {task}; it cannot hold a review of flow {requested:?}"
    )]
    InvocationOfOtherFlow {
        invocation: String,
        flow: String,
        task: String,
        requested: String,
    },
    #[error("invocation {0} is finished; start a new invocation for another review")]
    InvocationFinished(String),
    #[error(
        "{parent} has no worktree, so lf cannot check that {cwd} is its checkout; register the Task with lf-work task add --worktree DIR"
    )]
    ParentWithoutWorktree { parent: String, cwd: String },
    #[error(
        "handoff {id} was already opened for body generation {generation} of {parent} with a different {differ}; a replayed open must repeat the same request (see lf-handoff show {id})"
    )]
    ReplayDiffers {
        id: String,
        generation: u32,
        parent: String,
        differ: String,
    },
    #[error(
        "{parent} already has handoff {id} (body generation {generation}, {status}) without an outcome; finish it first, such as: lf-handoff finish {id} --failed REASON"
    )]
    ParentBusy {
        parent: String,
        id: String,
        generation: u32,
        status: &'static str,
    },
    #[error(
        "handoff {id} already ended as {status}; there is nothing to attach to (see lf-handoff show {id})"
    )]
    HandoffEnded { id: String, status: &'static str },
    #[error(
        "handoff {id} already ended as {stored}; the first outcome stands, so {requested} was not recorded"
    )]
    OutcomeStands {
        id: String,
        stored: String,
        requested: String,
    },
    #[error(
        "handoff {id} has no outcome yet (it is {status}); its wake can be claimed once lf-handoff finish records one"
    )]
    NoOutcomeYet { id: String, status: &'static str },
    /// A handoff stored before openers were checked carries variables an
    /// opener may no longer give; `names` is not empty, `why` is about the
    /// first.
    #[error(
        "handoff {id} carries {}, which an opener can no longer give ({}: {why}); nothing was run. Finish it with lf-handoff finish {id} --failed REASON, and let the agent open a new one",
        variables(.names),
        .names.first().map_or("", String::as_str)
    )]
    ForbiddenStoredVariables {
        id: String,
        names: Vec<String>,
        why: &'static str,
    },

    // ----- the environment failed (exit 1)
    #[error("database {}: {advice}", .path.display())]
    Database {
        path: PathBuf,
        advice: &'static str,
        source: rusqlite::Error,
    },
    #[error("cannot read the database {}; it was left as it is", .path.display())]
    DatabaseUnreadable {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot upgrade the database {} to schema version {version}", .path.display())]
    Migration {
        path: PathBuf,
        version: i64,
        source: rusqlite::Error,
    },
    #[error(
        "the database {} has schema version {found}, newer than this lf understands ({supported}); it was written by a newer lf: upgrade lf, or set LF_HOME to another folder",
        .path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// A SQLite failure not yet tied to a database file.
    #[error("the lf database failed")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{what} {}; check that its parent exists and is writable, or set LF_HOME", .path.display())]
    HomeFile {
        what: What,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the lf Home folder {} is not a folder; move it aside or set LF_HOME", .0.display())]
    HomeNotAFolder(PathBuf),
    #[error(
        "the lf Home folder {0} is read-only (mode {mode:04o}) and lf writes there; make it writable (chmod u+w {0}) or set LF_HOME to another folder",
        .path.display()
    )]
    HomeReadOnly { path: PathBuf, mode: u32 },
    #[error("{} is a shared folder (mode {mode:04o}), not an lf Home; set LF_HOME to a folder of your own", .path.display())]
    SharedFolder { path: PathBuf, mode: u32 },
    #[error(
        "{} in the lf Home has mode {mode:04o} and belongs to another user, so lf cannot make it private; make it yours and private (chown, then chmod {private:o}) or set LF_HOME to a folder of your own",
        .path.display()
    )]
    NotOurs {
        path: PathBuf,
        mode: u32,
        private: u32,
    },
    #[error("cannot open the lock file {}; check that the lf Home is writable", .path.display())]
    LockFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot take the lock {}", .path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {what}; lf needs Linux's /proc")]
    Proc {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("/proc/stat has no btime line")]
    NoBootTime,
    #[error(
        "tmux is not installed (or not on PATH): lf runs agents in tmux sessions; install tmux"
    )]
    NoTmux,
    #[error("cannot run tmux")]
    TmuxFailed(#[source] std::io::Error),
    #[error("{what}: tmux said: {stderr}")]
    Tmux { what: String, stderr: String },
    #[error("the tmux session {0} exists already: another process launched it")]
    TmuxSessionExists(String),
    #[error("tmux could not attach to {0}")]
    AttachFailed(String),
    /// The program of a launch is not installed; `install` says how (the
    /// provider's package), `arg` which argument chose it.
    #[error("{} is not on PATH: {install}", quote(.program))]
    NotOnPath {
        arg: Arg,
        program: String,
        install: &'static str,
    },
    /// A launch failed; the diagnostic is what lf-serve or the agent said.
    #[error("{0}")]
    LaunchFailed(String),
    #[error("the launcher of Run {run} exited before the agent was resumable; see {}", .log.display())]
    LauncherExited { run: String, log: PathBuf },
    #[error("Run {run} did not start within {seconds}s; look at the tmux session {tmux}")]
    StartTimeout {
        run: String,
        seconds: u64,
        tmux: String,
    },
    #[error("cannot {what}; git said: {stderr}")]
    Git { what: String, stderr: String },
    #[error("git is not installed (not found on PATH); install git to use worktrees and diffs")]
    NoGit,
    #[error(
        "the worktree {} is not the one git made for its repository ({reason}), so lf runs no git in it; look at its .git file (an agent may have rewritten it), or remove the folder yourself",
        .worktree.display()
    )]
    ForeignGitDir { worktree: PathBuf, reason: String },
    #[error("{0} Session(s) could not be restored; the line of each says why")]
    RestoreFailed(usize),
    #[error("a Claude Run has no chosen session id")]
    NoChosenId,
    #[error("this command session has no argv to run")]
    NoArgv,
    #[error("the handoff {0} was not stored")]
    NotStored(String),
    #[error("handoff {0} has no outcome after recording one; try again")]
    OutcomeLost(String),
    #[error(
        "the working directory {cwd} of handoff {id} is gone; finish the handoff with lf-handoff finish {id} --failed REASON"
    )]
    HandoffCwdGone { id: String, cwd: String },
    #[error(
        "cannot find the attach program {} of handoff {id} {looked}: no executable file is there; install it, or finish the handoff with lf-handoff finish {id} --failed REASON",
        quote(.program)
    )]
    AttachProgramMissing {
        id: String,
        program: String,
        looked: &'static str,
    },
    #[error(
        "cannot run the attach command {} of handoff {id}; check that the program exists, or finish the handoff with lf-handoff finish {id} --failed REASON",
        quote(.program)
    )]
    AttachCommand {
        id: String,
        program: String,
        source: std::io::Error,
    },
    #[error("Session {0} was not completed within the timeout; it is still open")]
    WaitTimeout(String),
    #[error("the wait was stopped")]
    WaitStopped,
    #[error("cannot run {}", quote(.program))]
    CannotRun {
        program: String,
        source: std::io::Error,
    },
    #[error("cannot {0} the terminal")]
    Terminal(&'static str, #[source] std::io::Error),
    #[error("cannot write the output")]
    Output(#[source] std::io::Error),
    #[error(
        "the host list {} cannot be read: {problem}; fix it or remove it (lf-host list shows it once it reads)",
        .path.display()
    )]
    BadHostList { path: PathBuf, problem: String },
    /// A host could not be asked; the message says why, for a person.
    #[error("{message}")]
    HostUnavailable { host: String, message: String },
    #[error(
        "event {seq} in the database cannot be read (it was left as it is); resume after it with --since {seq}"
    )]
    BadEvent { seq: u64, source: serde_json::Error },
    #[error("cannot watch the lf Home {} for new events", .path.display())]
    CannotWatch {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{what}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// An error about a given argument (a Task named as a handoff's parent).
    #[error("{inner}")]
    About { arg: Arg, inner: Box<Error> },
    /// What was being done when an inner error happened.
    #[error("{what}: {inner}")]
    During { what: String, inner: Box<Error> },
}

/// Quote untrusted text for a message: bounded and with control characters
/// escaped, so a hostile argument cannot rewrite the user's terminal.
pub fn quote(text: &str) -> String {
    escape(text, 80, true)
}

/// The most characters of another machine's text a message shows. A
/// remote lf's own message (a sentence that may quote a path or two, and
/// for a lookup the problems of that machine's hosts) stays well below
/// it; `quote`'s 80 would cut such a message mid-sentence.
pub const HOST_TEXT_MAX: usize = 2_000;

/// Text another machine sent, for a message: a remote lf's error, the
/// last words of ssh or the remote shell, a decoder's complaint that holds
/// the host's bytes. Everything a host says is untrusted (a hostile or
/// broken machine can say anything), so it is escaped by the same rule as
/// `quote`, only bounded more generously and without quotes around it:
/// it is a sentence of its own, which may hold quotes of its own.
pub fn host_text(text: &str) -> String {
    escape(text, HOST_TEXT_MAX, false)
}

/// The one rule for showing text lf did not write: every character that
/// Rust's `{:?}` escapes is shown as its escape (`\u{1b}`, `\n`), so it
/// reaches a terminal as plain characters. That is every control
/// character (ESC, BEL, the C1 CSI), the bidi controls U+202A–U+202E and
/// U+2066–U+2069 (which reorder what follows on the line), the other
/// invisible format characters, and line separators; the tests below pin
/// it. At most `max` characters, then `…`. `quoted` puts the text in
/// double quotes and escapes quotes and backslashes within, so it reads as
/// `{:?}` does; without it they stay as they are (they act on no terminal).
fn escape(text: &str, max: usize, quoted: bool) -> String {
    let mut shown = String::new();
    if quoted {
        shown.push('"');
    }
    for (count, c) in text.chars().enumerate() {
        if count == max {
            shown.push('…');
            break;
        }
        match c {
            '"' | '\\' if quoted => {
                shown.push('\\');
                shown.push(c);
            }
            '"' | '\'' | '\\' => shown.push(c),
            _ => shown.extend(c.escape_debug()),
        }
    }
    if quoted {
        shown.push('"');
    }
    shown
}

/// Variable names for a message: "variable A" or "variables A, B".
fn variables(names: &[String]) -> String {
    let plural = if names.len() == 1 { "" } else { "s" };
    format!("environment variable{plural} {}", names.join(", "))
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// SQLite's own words for an error, without rusqlite's debug wrapping.
fn describe_sqlite_error(error: &rusqlite::Error) -> String {
    match error {
        rusqlite::Error::SqliteFailure(failure, Some(message)) => {
            format!("{message} ({:?})", failure.code)
        }
        rusqlite::Error::SqliteFailure(failure, None) => failure.to_string(),
        other => other.to_string(),
    }
}

impl Error {
    /// The kind, and with it the exit code.
    pub fn kind(&self) -> ErrorKind {
        use Error::*;
        match self {
            BadId { .. }
            | BadSelector(_)
            | PrefixTooShort { .. }
            | AmbiguousPrefix { .. }
            | BadToken { .. }
            | EmptyText { .. }
            | TextTooLong { .. }
            | ControlCharacter { .. }
            | NulByte { .. }
            | UnknownName { .. }
            | BadCursor(_)
            | BadEventsKeep(_)
            | UnusableDir { .. }
            | NotADirectory { .. }
            | NotUtf8 { .. }
            | NoCurrentDir
            | NoHome
            | BadCommand { .. }
            | ArgvNotForAgent(_)
            | NeedsAgent(_)
            | IdentifierLooksLikeId(_)
            | NotInRepository(_)
            | NotAGitRepository(_)
            | DetachedBase(_)
            | BaseNotABranch(_)
            | WorktreeWithTask
            | BadParent(_)
            | TooManyVariables { .. }
            | NotAVariable { .. }
            | BadVariableName { .. }
            | BadVariableValue { .. }
            | VariableTwice(_)
            | ForbiddenVariable { .. }
            | HandoffElsewhere { .. }
            | NotLaunchedByLf { .. }
            | BadHook(_)
            | HookOfOtherProvider { .. }
            | NotATerminal { .. }
            | CommandLine(_)
            | BadSeconds { .. }
            | NoTerminal
            | NoUserHome
            | BadHost(_)
            | BadRemotePath { .. }
            | LocalOnlyFilter { .. }
            | ArgumentsConflict { .. }
            | ArgumentNeeds { .. } => ErrorKind::Usage,
            SessionNotFound(_)
            | RunNotFound(_)
            | TaskNotFound(..)
            | WaveNotFound(_)
            | InvocationNotFound(_)
            | HandoffNotFound(_)
            | ProcessNotFound(_)
            | NothingToPick
            | HostNotFound(_)
            | NowhereFound { .. } => ErrorKind::NotFound,
            AlreadyComplete { .. }
            | NoLongerWaiting(_)
            | StaleReview
            | PrimaryNotReviewed
            | RunOfOtherSession { .. }
            | HistoricalRun { .. }
            | SupersededRun { .. }
            | NotCurrentRun { .. }
            | NoNativeHistory(_)
            | ChangedMeanwhile(_)
            | BeingOpened(_)
            | Unavailable(_)
            | AlreadyBound { .. }
            | NotPrimary(_)
            | WaveExists(_)
            | TaskExists(_)
            | BranchExists { .. }
            | WorktreeDirExists(_)
            | NoWorktree { .. }
            | WouldLoseWork { .. }
            | WorktreeInUse { .. }
            | InvocationOfOtherFlow { .. }
            | InvocationFinished(_)
            | ParentWithoutWorktree { .. }
            | ReplayDiffers { .. }
            | ParentBusy { .. }
            | HandoffEnded { .. }
            | OutcomeStands { .. }
            | NoOutcomeYet { .. }
            | ForbiddenStoredVariables { .. }
            | HostExists(_) => ErrorKind::Conflict,
            RemoteRefused { kind, .. } => *kind,
            InVariable { inner, .. } | During { inner, .. } | About { inner, .. } => inner.kind(),
            Database { .. }
            | DatabaseUnreadable { .. }
            | Migration { .. }
            | NewerSchema { .. }
            | Sqlite(_)
            | HomeFile { .. }
            | HomeNotAFolder(_)
            | SharedFolder { .. }
            | HomeReadOnly { .. }
            | NotOurs { .. }
            | LockFile { .. }
            | Lock { .. }
            | Proc { .. }
            | NoBootTime
            | NoTmux
            | TmuxFailed(_)
            | Tmux { .. }
            | TmuxSessionExists(_)
            | AttachFailed(_)
            | NotOnPath { .. }
            | LaunchFailed(_)
            | LauncherExited { .. }
            | StartTimeout { .. }
            | Git { .. }
            | NoGit
            | ForeignGitDir { .. }
            | RestoreFailed(_)
            | NoChosenId
            | NoArgv
            | NotStored(_)
            | OutcomeLost(_)
            | HandoffCwdGone { .. }
            | AttachProgramMissing { .. }
            | AttachCommand { .. }
            | WaitTimeout(_)
            | WaitStopped
            | Output(_)
            | BadEvent { .. }
            | CannotWatch { .. }
            | Io { .. }
            | Json(_)
            | CannotRun { .. }
            | BadHostList { .. }
            | HostUnavailable { .. }
            | Terminal(..) => ErrorKind::Operational,
        }
    }

    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }

    /// The stable snake_case name of this error's variant
    /// (`session_not_found`); an error wrapped to say what was being done
    /// or which argument it is about (`During`, `About`, `InVariable`) is
    /// named as the error inside it, as its kind and argument are.
    pub fn name(&self) -> &'static str {
        match self {
            Error::InVariable { inner, .. }
            | Error::During { inner, .. }
            | Error::About { inner, .. } => inner.name(),
            other => other.into(),
        }
    }

    /// The argument this error is about, when it is about one.
    pub fn arg(&self) -> Option<Arg> {
        use Error::*;
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
            | BadSeconds { arg, .. } => *arg,
            BadSelector(_)
            | PrefixTooShort { .. }
            | AmbiguousPrefix { .. }
            | SessionNotFound(_)
            | RunNotFound(_)
            | HistoricalRun { .. }
            | AlreadyComplete { .. }
            | NotPrimary(_)
            | AlreadyBound { .. }
            | WaitTimeout(_)
            | NowhereFound { .. } => Arg::Id,
            BadHost(_) | HostNotFound(_) | HostExists(_) => Arg::Host,
            BadRemotePath { arg, .. } => *arg,
            ArgumentsConflict { arg, .. } | ArgumentNeeds { arg, .. } => *arg,
            UnknownName { arg, .. } => return *arg,
            BadCursor(_) => Arg::After,
            NoCurrentDir | HandoffElsewhere { .. } | ParentWithoutWorktree { .. } => Arg::Cwd,
            BadCommand { .. } | ArgvNotForAgent(_) => Arg::Argv,
            NotOnPath { arg, .. } => *arg,
            NeedsAgent(_) => Arg::Provider,
            NotAGitRepository(_) => Arg::Cwd,
            DetachedBase(_) | BaseNotABranch(_) => Arg::Base,
            BranchExists { .. } | WorktreeDirExists(_) | WorktreeWithTask => Arg::Worktree,
            NoWorktree { .. } | WouldLoseWork { .. } | WorktreeInUse { .. } => Arg::RemoveWorktree,
            IdentifierLooksLikeId(_) | TaskExists(_) => Arg::Identifier,
            WaveExists(_) => Arg::Name,
            BadParent(_) | ParentBusy { .. } | ReplayDiffers { .. } => Arg::Parent,
            OutcomeStands { .. } => Arg::Outcome,
            HandoffEnded { .. }
            | NoOutcomeYet { .. }
            | HandoffNotFound(_)
            | ForbiddenStoredVariables { .. } => Arg::Id,
            TooManyVariables { .. }
            | NotAVariable { .. }
            | BadVariableName { .. }
            | BadVariableValue { .. }
            | VariableTwice(_)
            | ForbiddenVariable { .. } => Arg::Env,
            TaskNotFound(..) => Arg::Task,
            WaveNotFound(_) => Arg::Wave,
            InvocationNotFound(_) | InvocationOfOtherFlow { .. } | InvocationFinished(_) => {
                Arg::Invocation
            }
            About { arg, .. } => *arg,
            InVariable { inner, .. } | During { inner, .. } => return inner.arg(),
            _ => return None,
        })
    }

    /// Say what was being done when this error happened.
    pub fn during(self, what: impl fmt::Display) -> Self {
        Error::During {
            what: what.to_string(),
            inner: Box::new(self),
        }
    }

    /// This error, as one about `arg`.
    pub fn about(self, arg: Arg) -> Self {
        Error::About {
            arg,
            inner: Box::new(self),
        }
    }

    /// An I/O failure, said for a person.
    pub fn io(what: impl fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            what: what.to_string(),
            source,
        }
    }

    /// The message and every cause below it, each on its own line after
    /// `Caused by:`, as the binaries print it.
    pub fn report(&self) -> String {
        self.with_causes("\nCaused by: ")
    }

    /// The message and its causes on one line, `message: cause: cause`, for
    /// a program or a place that has one line (a JSON field, a gap).
    pub fn one_line(&self) -> String {
        self.with_causes(": ")
    }

    fn with_causes(&self, before_each: &str) -> String {
        let mut text = self.to_string();
        for cause in self.causes() {
            text.push_str(before_each);
            text.push_str(&cause);
        }
        text
    }

    /// The messages of the lower-level errors below this one (an I/O or
    /// SQLite error), outermost first. A wrapped lf error is part of the
    /// message already ("what: inner"); only its causes are new.
    pub fn causes(&self) -> Vec<String> {
        if let Error::InVariable { inner, .. }
        | Error::During { inner, .. }
        | Error::About { inner, .. } = self
        {
            return inner.causes();
        }
        let mut causes = Vec::new();
        let mut next = std::error::Error::source(self);
        while let Some(cause) = next {
            causes.push(match cause.downcast_ref::<rusqlite::Error>() {
                Some(sqlite) => describe_sqlite_error(sqlite),
                None => cause.to_string(),
            });
            next = cause.source();
        }
        causes
    }
}

/// Say what was being done when a lower-level error happened.
pub trait Context<T> {
    fn during(self, what: impl fmt::Display) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn during(self, what: impl fmt::Display) -> Result<T> {
        self.map_err(|error| error.into().during(what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_bounds_and_escapes_untrusted_text() {
        assert_eq!(quote("a\u{1b}[2J"), "\"a\\u{1b}[2J\"");
        assert!(quote(&"x".repeat(10_000)).len() < 100);
        // Quotes and backslashes as `{:?}` shows them.
        let text = "it's \"x\" \\ \u{7}\n\u{202e}";
        assert_eq!(quote(text), format!("{text:?}"));
    }

    #[test]
    fn host_text_escapes_what_acts_on_a_terminal_and_is_bounded() {
        assert_eq!(
            host_text("on \"x\": \u{1b}]2;pwned\u{7}\u{1b}[2J\u{9b}1m\tend\n"),
            "on \"x\": \\u{1b}]2;pwned\\u{7}\\u{1b}[2J\\u{9b}1m\\tend\\n"
        );
        // Bidi controls (embeddings, overrides, isolates, marks) and
        // other invisible characters: Rust's escape_debug escapes them all.
        for c in [
            '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{61c}', '\u{2028}', '\u{feff}',
        ] {
            let shown = host_text(&format!("a{c}b"));
            assert_eq!(shown, format!("a\\u{{{:x}}}b", c as u32));
            assert!(quote(&c.to_string()).is_ascii(), "{shown}");
        }
        // Other scripts stay readable.
        assert_eq!(host_text("Sitzung für 日本"), "Sitzung für 日本");
        let long = host_text(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), HOST_TEXT_MAX + 1);
        assert!(long.ends_with('…'));
        assert_eq!(
            host_text(&"x".repeat(HOST_TEXT_MAX)),
            "x".repeat(HOST_TEXT_MAX)
        );
    }

    #[test]
    fn variants_have_stable_snake_case_names() {
        assert_eq!(
            Error::SessionNotFound("x".into()).name(),
            "session_not_found"
        );
        let complete = Error::AlreadyComplete {
            session: "x".into(),
            at: "y".into(),
        };
        assert_eq!(complete.name(), "already_complete");
        assert_eq!(Error::NoHome.name(), "no_home");
        assert_eq!(
            Error::WaveNotFound("w".into()).about(Arg::Parent).name(),
            "wave_not_found"
        );
    }

    #[test]
    fn kinds_keep_their_documented_exit_codes() {
        use ErrorKind::*;
        let codes = [Operational, Usage, NotFound, Conflict].map(ErrorKind::exit_code);
        assert_eq!(codes, [1, 2, 3, 4]);
    }

    #[test]
    fn causes_follow_the_message_and_wrapped_errors_keep_kind_and_arg() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let error = Error::UnusableDir {
            arg: Arg::Cwd,
            what: "working directory",
            path: "/x".into(),
            source: io,
        }
        .during("review Session 1 was recorded but did not start");
        assert_eq!(error.kind(), ErrorKind::Usage);
        assert_eq!(error.arg(), Some(Arg::Cwd));
        assert_eq!(error.name(), "unusable_dir");
        assert_eq!(
            error.report(),
            "review Session 1 was recorded but did not start: the working directory \"/x\" cannot be used\nCaused by: denied"
        );
    }
}
