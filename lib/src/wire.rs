//! The wire: the one JSON shape every binary prints and the Nushell plugin
//! returns. Defined once here with serde and documented by
//! `schema/session-record.schema.json`; fixtures under `tests/fixtures/`
//! must round-trip exactly. No Run id appears on the wire: a Session is what
//! a person deals with, a Run is how lf launched it.

use crate::clock::{Seconds, Timestamp};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

crate::names::named! {
    "Session kind", Some(crate::Arg::Kind);
    pub enum SessionKind {
        /// A conversation between a person and an agent.
        Conversation,
        /// A review step of an orchestrated flow.
        Flow,
    }
}

crate::names::named! {
    "title source";
    pub enum TitleSource {
        /// Named by a person; never replaced by a generated title.
        Human,
        /// Suggested by lf or the agent.
        Generated,
    }
}

crate::names::named! {
    "Session state", Some(crate::Arg::State);
    pub enum SessionState {
        /// A conversation with no live client and nothing else known.
        Unknown,
        /// A flow review waiting for its person.
        Waiting,
        /// A live client shows the session.
        Active,
        /// The agent marked its work ready for review.
        Ready,
        /// Completed.
        Closed,
        /// The last launch ended by a signal or an interrupt.
        Interrupted,
        /// The agent was running and is gone without having ended by
        /// itself: a reboot, or its terminal (the tmux server) went away.
        /// `lost` says which; `lf-session-restore` brings it back.
        Lost,
    }
}

crate::names::named! {
    "lost reason";
    /// Why a Session's agent is gone although it never ended by itself
    /// (`lf-session-restore` brings such Sessions back).
    pub enum LostReason {
        /// The machine restarted while the agent ran (its launcher was
        /// recorded under another boot id).
        Reboot,
        /// Its terminal went away: the tmux server, or the Session's tmux
        /// pane, was killed, and lf-serve saw the hang-up.
        Terminal,
        /// lf-serve and the agent were killed without a word (SIGKILL, the
        /// OOM killer) on this boot.
        Killed,
    }
}

crate::names::named! {
    "attention";
    pub enum Attention {
        /// Ready for review, or the pending review of its flow.
        Review,
        /// The agent is blocked on a permission prompt.
        Approve,
        /// The agent finished a turn and waits for the person.
        Reply,
    }
}

crate::names::named! {
    "action";
    pub enum ActionKind {
        Open,
        MoveHere,
        Complete,
    }
}

/// Something a person may do with a Session now, or why not. The texts
/// are the contract's fixed strings, borrowed rather than copied per row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionAction {
    pub kind: ActionKind,
    pub label: Cow<'static, str>,
    pub help: Cow<'static, str>,
    #[serde(deserialize_with = "required")]
    pub unavailable_reason: Option<Cow<'static, str>>,
}

/// The work a Session belongs to: `{"task": id}` or `{"wave": id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkRef {
    Task(String),
    Wave(String),
}

crate::names::named! {
    "flow occurrence";
    /// Where a flow occurrence sits relative to its flow's current position.
    pub enum FlowOccurrence {
        /// Membership is known but the occurrence cannot be placed.
        Unknown,
        /// The invocation's current position.
        Current,
        /// An earlier position of an invocation that is still running.
        Earlier,
        /// An invocation that finished or was replaced.
        Past,
    }
}

/// Whether a Session is an occurrence of a flow step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlowMembership {
    Step {
        flow: String,
        invocation_id: String,
        step: String,
        node: Option<u32>,
        iterations: Option<Vec<Vec<u32>>>,
        occurrence: FlowOccurrence,
    },
    Independent,
    Unknown {
        reason: String,
    },
}

/// Where a Session lives: which Home (`home_id`: null for this one, the
/// host for a remote Home) and the Task checkout its working directory
/// lies in, as far as that is known here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    /// The host (as in the host list) whose Home holds the Session; null
    /// for a Session of this Home.
    #[serde(deserialize_with = "required")]
    pub home_id: Option<String>,
    #[serde(deserialize_with = "required")]
    pub task_id: Option<String>,
    /// The checkout (a Task's worktree); on a remote Home, a path on that
    /// machine.
    #[serde(deserialize_with = "required")]
    pub worktree: Option<String>,
    /// Why the checkout cannot be resolved here (a remote Home); null when
    /// it can.
    #[serde(deserialize_with = "required")]
    pub unavailable: Option<String>,
}

/// A device signed in to lf-web (`lf-web devices`; schema/device.schema.json).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// `device-` and 26 base32 characters: what `lf-web revoke` takes.
    pub id: String,
    /// What its browser said it is (its User-Agent), made safe to show.
    pub label: String,
    /// When it opened the printed URL.
    pub created_at: Timestamp,
    /// When it last used lf-web (renewed at most once an hour).
    pub last_seen_at: Timestamp,
    /// When it is signed out unless used again before.
    pub expires_at: Timestamp,
}

/// One remote Home of the host list (`$LF_HOME/hosts.json`, `lf-host`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostEntry {
    /// The host as ssh takes it: an alias of `~/.ssh/config`, a name, or
    /// `user@host`.
    pub host: String,
    /// `LF_HOME` on that machine; null for its default Home.
    #[serde(default)]
    pub home: Option<String>,
    /// The folder of lf's binaries on that machine; null to find them on
    /// the PATH its ssh commands get.
    #[serde(default)]
    pub bin: Option<String>,
    /// Reuse one ssh connection through a ControlMaster socket lf keeps
    /// under `$LF_HOME/ssh` (true unless turned off for this host).
    #[serde(default = "yes")]
    pub control_master: bool,
}

fn yes() -> bool {
    true
}

crate::names::named! {
    "host problem";
    /// Why a host gave no sessions.
    pub enum HostProblemKind {
        /// ssh could not reach it or log in.
        Unreachable,
        /// It did not answer within the timeout.
        Timeout,
        /// lf is not installed there (or not where the host list says).
        NotInstalled,
        /// Its lf speaks another version of the wire or the flags.
        Incompatible,
        /// Its lf failed (its own message says why).
        Failed,
    }
}

/// A host whose sessions are missing from a listing, and why: printed on
/// stderr as one JSON object per line, and never a reason to fail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostProblem {
    pub host: String,
    pub problem: HostProblemKind,
    /// For a person: what happened and what to do.
    pub message: String,
}

/// Make a field required even though it may be null: serde would
/// otherwise read a missing `Option` field as `None`.
pub(crate) fn required<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer)
}

/// One Session as every lf surface shows it. Every field is required;
/// nullable ones are present as `null`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub id: String,
    pub title: String,
    pub title_source: TitleSource,
    pub kind: SessionKind,
    pub interactive: bool,
    pub state: SessionState,
    /// A current obligation of the person, independent of liveness.
    #[serde(deserialize_with = "required")]
    pub attention: Option<Attention>,
    /// Since when the person has owed that attention (null without one).
    #[serde(deserialize_with = "required")]
    pub attention_since: Option<Timestamp>,
    /// The request its agent waits on while its attention is `approve`
    /// (null otherwise, and from an lf too old to know requests).
    #[serde(default)]
    pub attention_request: Option<AttentionRequest>,
    pub actions: Vec<SessionAction>,
    #[serde(deserialize_with = "required")]
    pub ready_summary: Option<String>,
    #[serde(deserialize_with = "required")]
    pub provider: Option<String>,
    /// `provider[:model]` for a conversation, the step for a flow review.
    pub detail: String,
    pub cwd: String,
    #[serde(deserialize_with = "required")]
    pub work: Option<WorkRef>,
    #[serde(deserialize_with = "required")]
    pub wave_id: Option<String>,
    /// `wave / TASK-1`.
    #[serde(deserialize_with = "required")]
    pub work_path: Option<String>,
    pub task_ids: Vec<String>,
    #[serde(deserialize_with = "required")]
    pub primary_scope: Option<String>,
    pub flow_membership: FlowMembership,
    #[serde(deserialize_with = "required")]
    pub workspace: Option<Workspace>,
    /// The exact argv a fresh terminal runs to connect to this Session.
    pub open_argv: Vec<String>,
    /// Panes (or ttys) of the live clients.
    pub terminal_ids: Vec<String>,
    /// Whether a client (the agent) of the Session is alive now, whatever
    /// its state: a `ready` Session may still have its agent running.
    pub alive: bool,
    /// Why the agent is gone although it never ended by itself (a reboot,
    /// a lost terminal), whatever the state; null otherwise.
    #[serde(deserialize_with = "required")]
    pub lost: Option<LostReason>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(deserialize_with = "required")]
    pub completed_at: Option<Timestamp>,
}

/// One request an agent waits on (a permission dialog, a question), as
/// lf identified it when it appeared. An answer names its `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttentionRequest {
    /// `req-` and 26 base32 characters.
    pub id: String,
    /// The tool it asks to use, as its hook named it (null: its hook named
    /// none; the dialog on its screen says).
    #[serde(deserialize_with = "required")]
    pub tool: Option<String>,
    /// Its command or input as text, whole (null as `tool`).
    #[serde(deserialize_with = "required")]
    pub input: Option<String>,
    /// The folder the agent works in.
    pub cwd: String,
    /// When it appeared.
    pub since: Timestamp,
}

/// What `lf-session-diff` prints: a Session's work, for review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionDiff {
    /// The Session id.
    pub id: String,
    /// The directory compared: the Session's worktree, else the top of its
    /// cwd's repository.
    pub directory: String,
    /// The Session's own worktree (its Task's), if it has one.
    #[serde(deserialize_with = "required")]
    pub worktree: Option<String>,
    /// The branch checked out there (null on a detached HEAD).
    #[serde(deserialize_with = "required")]
    pub branch: Option<String>,
    /// What the files are compared with: the worktree branch's base (its
    /// upstream), from where the branch left it; else `HEAD`.
    pub base: String,
    /// Commits on the branch that the base lacks, and the reverse.
    pub ahead: u64,
    pub behind: u64,
    /// Whether anything there is not committed (untracked files count).
    pub uncommitted: bool,
    /// Files changed against the base, committed or not (`git diff
    /// --numstat`); untracked files are listed in `untracked` instead.
    pub files: Vec<FileChange>,
    /// Untracked files; a folder nothing in which is tracked is one entry
    /// ending in `/`.
    pub untracked: Vec<String>,
    /// Sums over `files` (binary files count nothing).
    pub insertions: u64,
    pub deletions: u64,
}

/// One changed file of a [`SessionDiff`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    /// The path it was renamed from.
    #[serde(deserialize_with = "required")]
    pub from: Option<String>,
    /// Lines added and removed; null for a binary file.
    #[serde(deserialize_with = "required")]
    pub insertions: Option<u64>,
    #[serde(deserialize_with = "required")]
    pub deletions: Option<u64>,
    pub binary: bool,
}

crate::names::named! {
    "restore result";
    /// What `lf-session-restore` did with one Session.
    pub enum RestoreResult {
        /// Its exact native conversation runs again, in its tmux session.
        Resumed,
        /// It had no native conversation to resume (`command`, or an agent
        /// that never named one): a new launch of the same argv runs.
        Relaunched,
        /// Nothing was done; `skipped` says why.
        Skipped,
        /// Its launch failed; `reason` holds the diagnostic.
        Failed,
        /// `--dry-run`: it would be resumed.
        WouldResume,
        /// `--dry-run`: it would be relaunched.
        WouldRelaunch,
    }
}

crate::names::named! {
    "skip reason";
    /// Why `lf-session-restore` left a Session as it was.
    pub enum RestoreSkip {
        /// Its agent runs (or its launcher is still recording how it ended).
        Running,
        /// Its agent exited by itself: the person quit it.
        Exited,
        /// Its agent was stopped by a signal while its terminal stayed.
        Interrupted,
        /// Its last launch failed.
        LaunchFailed,
        /// It was never launched.
        NeverLaunched,
        /// It was completed while restore ran.
        Completed,
    }
}

/// One line of `lf-session-restore`: one open Session and what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoreLine {
    pub id: String,
    pub title: String,
    #[serde(deserialize_with = "required")]
    pub provider: Option<String>,
    pub result: RestoreResult,
    /// Why its agent was gone (as the record's `lost` said), if it was.
    #[serde(deserialize_with = "required")]
    pub lost: Option<LostReason>,
    /// Why it was skipped (`result` is `skipped`).
    #[serde(deserialize_with = "required")]
    pub skipped: Option<RestoreSkip>,
    /// For a person: why it was skipped, or the failed launch's diagnostic.
    #[serde(deserialize_with = "required")]
    pub reason: Option<String>,
    /// The native conversation resumed (or, relaunched, chosen), if known.
    #[serde(deserialize_with = "required")]
    pub native_id: Option<String>,
    /// The durable tmux session it runs in (resumed or relaunched).
    #[serde(deserialize_with = "required")]
    pub tmux_session: Option<String>,
}

crate::names::named! {
    "event kind";
    /// What changed, in one event of the change stream.
    pub enum EventKind {
        /// The Session was created (`to`: its state).
        Created,
        /// The Session was completed (`from`: its state before, `to`: closed).
        Completed,
        /// Its state changed otherwise, a live client coming or going too.
        State,
        /// Its attention began, changed or ended (`null` is none).
        Attention,
        /// Its title changed.
        Title,
        /// The agent's ready summary changed (`null` once there is none).
        ReadySummary,
        /// A person answered the agent from afar (`lf-session-send`,
        /// `lf-session-answer`): `from` is the attention answered, `to` what
        /// they did ([`Answered`]), `by` who.
        Answered,
    }
}

/// One change a person could see, as `lf-session-watch` prints it: `seq`
/// numbers events in commit order (`--since SEQ` resumes after one),
/// `from` and `to` are the changed value before and after (text or
/// `null`), and `record` is the Session's record after the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEvent {
    pub seq: u64,
    pub at: Timestamp,
    pub session_id: String,
    pub kind: EventKind,
    #[serde(deserialize_with = "required")]
    pub from: Option<String>,
    #[serde(deserialize_with = "required")]
    pub to: Option<String>,
    /// Who acted, for an `answered` event (this machine's user name);
    /// `null` for every other kind.
    #[serde(deserialize_with = "required")]
    pub by: Option<String>,
    pub record: SessionRecord,
}

crate::names::named! {
    "answer";
    /// What a person did to an agent from afar: an `answered` event's `to`.
    pub enum Answered {
        /// Typed a reply and submitted it (`lf-session-send`).
        Sent,
        /// Allowed what the permission prompt asked, this once.
        Allowed,
        /// Allowed it, and the like of it from now on (`--always`).
        AllowedAlways,
        /// Refused what the permission prompt asked.
        Denied,
    }
}

/// How many open Sessions owe each kind of attention (`lf-session-count`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttentionCounts {
    pub review: u64,
    pub approve: u64,
    pub reply: u64,
    pub total: u64,
}

/// One page of Sessions; `next` continues after the last entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionPage {
    pub entries: Vec<SessionRecord>,
    #[serde(deserialize_with = "required")]
    pub next: Option<String>,
}

/// What `lf-session-bind --preview` shows before a permanent binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionBindingPreview {
    pub session_id: String,
    pub task_id: String,
    pub identifier: String,
    pub title: String,
}

/// A registered Wave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaveRecord {
    pub id: String,
    pub name: String,
    pub repo: String,
    pub created_at: Timestamp,
}

/// A registered Task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: String,
    pub identifier: String,
    pub title: String,
    pub worktree: Option<String>,
    pub wave_id: Option<String>,
    pub work_path: Option<String>,
    pub finished: bool,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

crate::names::named! {
    "handoff parent kind";
    /// What an interactive handoff hands back to: a Task or a Wave.
    pub enum HandoffParentKind {
        Task,
        Wave,
    }
}

crate::names::named! {
    "handoff status";
    /// Where an interactive handoff stands. The last three are terminal: the
    /// first of them recorded is the handoff's outcome for good.
    pub enum HandoffStatus {
        /// Opened; no person has attached yet.
        Waiting,
        /// A person attached to the terminal.
        Attached,
        /// The person gave the work back to the agent, with a summary.
        HandedBack,
        /// The person finished the work, with a summary.
        Completed,
        /// The handoff failed, with a reason.
        Failed,
    }
}

/// How an interactive handoff ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HandoffOutcome {
    HandedBack { summary: String },
    Completed { summary: String },
    Failed { reason: String },
}

impl HandoffOutcome {
    /// The flags that give an outcome, one per kind, as both surfaces
    /// name them (`--handed-back SUMMARY`, `--completed SUMMARY`,
    /// `--failed REASON`).
    pub const FLAGS: [&'static str; 3] = ["handed-back", "completed", "failed"];

    /// The outcome one of [`Self::FLAGS`] gives with its text; `None` for
    /// any other flag.
    pub fn of_flag(flag: &str, text: String) -> Option<Self> {
        match flag {
            "handed-back" => Some(HandoffOutcome::HandedBack { summary: text }),
            "completed" => Some(HandoffOutcome::Completed { summary: text }),
            "failed" => Some(HandoffOutcome::Failed { reason: text }),
            _ => None,
        }
    }

    pub fn status(&self) -> HandoffStatus {
        match self {
            HandoffOutcome::HandedBack { .. } => HandoffStatus::HandedBack,
            HandoffOutcome::Completed { .. } => HandoffStatus::Completed,
            HandoffOutcome::Failed { .. } => HandoffStatus::Failed,
        }
    }

    /// The summary or the reason.
    pub fn text(&self) -> &str {
        match self {
            HandoffOutcome::HandedBack { summary } | HandoffOutcome::Completed { summary } => {
                summary
            }
            HandoffOutcome::Failed { reason } => reason,
        }
    }
}

/// One interactive handoff, as `lf-handoff` prints it; documented by
/// `schema/handoff.schema.json`. Environment values never appear on the
/// wire (they may be secret): only their names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffRecord {
    pub id: String,
    pub parent_kind: HandoffParentKind,
    /// The Task or Wave id.
    pub parent_id: String,
    /// The Wave the parent belongs to (a Wave parent's own id).
    #[serde(deserialize_with = "required")]
    pub wave_id: Option<String>,
    pub status: HandoffStatus,
    /// The lf Home this handoff is recorded in.
    pub home: String,
    pub cwd: String,
    pub provider: String,
    #[serde(deserialize_with = "required")]
    pub provider_session_id: Option<String>,
    /// The generation of the agent process that handed off.
    pub body_generation: u32,
    pub reason: String,
    /// Names of the variables the attach argv runs with, sorted. An opener
    /// may give only credentials (`lf::handoff::refusal`), so none of them
    /// changes which program runs or what it loads.
    pub environment_names: Vec<String>,
    /// The argv that puts a person in the handed-off terminal.
    pub attach_argv: Vec<String>,
    /// The program `lf-handoff attach --exec` runs for the process that
    /// printed this record: `attach_argv[0]` found on that process's own
    /// PATH (a name with a slash: from `cwd`); null if there is no
    /// executable there.
    #[serde(deserialize_with = "required")]
    pub attach_program: Option<String>,
    #[serde(deserialize_with = "required")]
    pub attached_at: Option<Timestamp>,
    #[serde(deserialize_with = "required")]
    pub outcome: Option<HandoffOutcome>,
    #[serde(deserialize_with = "required")]
    pub finished_at: Option<Timestamp>,
    /// The body generation that claimed the wake after the outcome.
    #[serde(deserialize_with = "required")]
    pub wake_claimed_by_generation: Option<u32>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What `lf-handoff open` prints: the handoff, and whether this call
/// created it (`false` for a replayed open).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffOpened {
    pub created: bool,
    pub handoff: HandoffRecord,
}

/// One row of `lf-handoff list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffListRow {
    /// The handoff id (named `session_id` before schema 2026-12; a handoff
    /// is not a Session).
    pub id: String,
    pub parent_kind: HandoffParentKind,
    pub parent_id: String,
    #[serde(deserialize_with = "required")]
    pub wave_id: Option<String>,
    pub status: HandoffStatus,
    pub home: String,
    pub provider: String,
    /// Seconds since the handoff was opened.
    pub age_secs: Seconds,
}

/// Tokens by kind (`lf-session-usage`): `input` the model read that no
/// cache served, `output` it wrote (reasoning included), `cache_creation`
/// it wrote to the prompt cache, `cache_read` the cache served; `total`
/// is their sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenCounts {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    pub total: u64,
}

/// What one model used, and its cost in US dollars (`null`: the price
/// table has no price for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelUsage {
    pub model: String,
    /// Model requests the agent's records hold.
    pub requests: u64,
    pub tokens: TokenCounts,
    #[serde(deserialize_with = "required")]
    pub cost: Option<f64>,
}

/// What Sessions used, from the agents' own records
/// (docs/decisions/0030-usage.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub tokens: TokenCounts,
    pub requests: u64,
    /// Turns the person started.
    pub turns: u64,
    /// From each turn's start to the agent's last work in it.
    pub working: Seconds,
    /// From a turn's last work to the person's next prompt.
    pub waiting: Seconds,
    /// By model, most tokens first.
    pub models: Vec<ModelUsage>,
    /// US dollars; `null` when a model used has no price (see `unpriced`),
    /// never a partial sum that looks whole.
    #[serde(deserialize_with = "required")]
    pub cost: Option<f64>,
    /// The models used whose price the table lacks.
    pub unpriced: Vec<String>,
}

crate::names::named! {
    "usage grouping", Some(crate::Arg::By);
    /// What `lf-session-usage` sums by.
    pub enum UsageBy {
        /// Each Session.
        Session,
        /// Each day (UTC) the agents worked.
        Day,
        /// Each working directory.
        Folder,
        /// Each repository (the Git checkout holding the working directory).
        Repository,
        /// Each provider (claude, codex, …).
        Provider,
    }
}

/// One row of `lf-session-usage`: the sums of one group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageRow {
    pub by: UsageBy,
    /// The group: a Session id, a day (`YYYY-MM-DD`), a folder, a
    /// repository, or a provider.
    pub key: String,
    /// The host (as in the host list) whose Home it is; null for this one.
    #[serde(deserialize_with = "required")]
    pub host: Option<String>,
    /// A Session's title (`by: session` only; null otherwise).
    #[serde(deserialize_with = "required")]
    pub title: Option<String>,
    /// The Sessions summed.
    pub sessions: u64,
    pub usage: Usage,
}
