//! What the rules of Sessions and their Runs refuse: a Session or Run
//! that is not there, an action its state does not allow, a Run that is
//! not the current one. The store, the state rules and the operations
//! raise these; they live here, below all of them.

use crate::error::domain::{Arg, Domain, ErrorKind, What};
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::quote;
use crate::wire::Attention;

/// Sessions and their Runs: one that is not there, and what their rules refuse.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum SessionError {
    #[error("Session {0} was not found")]
    SessionNotFound(String),
    #[error("Run {0} was not found")]
    RunNotFound(String),
    /// Every action on a completed Session is refused with this, and its
    /// record's actions say it: `state::completed` makes it.
    #[error("Session {session} was completed at {at}")]
    AlreadyComplete { session: String, at: String },
    /// An action the rules say is unavailable now, with their reason.
    #[error("{0}")]
    Unavailable(std::borrow::Cow<'static, str>),
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
    #[error("Session {0} changed while a new attempt was prepared; open it again")]
    ChangedMeanwhile(String),
    #[error("Session {session} is already bound to Task {task}; a binding is permanent")]
    AlreadyBound { session: String, task: String },
    #[error("Session {0} is not a primary Session")]
    NotPrimary(String),
    #[error("{} is not inside a git repository", quote(.0))]
    NotInRepository(String),
    #[error(
        "a {0} needs an agent: choose --provider {agents}",
        agents = crate::provider::Provider::agent_names().collect::<Vec<_>>().join(", ")
    )]
    NeedsAgent(What),
    #[error(
        "arguments after -- are only for --provider command; {0} takes one PROMPT (after -- when it starts with -)"
    )]
    ArgvNotForAgent(&'static str),
    #[error("{name} is not set: this is run by an agent inside a session that lf launched")]
    NotLaunchedByLf { name: &'static str },
    /// An action from afar on a Session that does not wait for it: nothing
    /// was sent to its agent.
    #[error("Session {session} does not wait for {}: {}; nothing was sent to its agent", wanted_words(*.wanted), owed_words(*.attention))]
    NotWaitingFor {
        session: String,
        wanted: Attention,
        attention: Option<Attention>,
    },
    #[error(
        "Session {0} shows no permission prompt on its screen (answered at its terminal, or a dialog lf does not answer); nothing was sent to its agent"
    )]
    NoPromptOnScreen(String),
    #[error(
        "the permission prompt of Session {0} offers no \"don't ask again\"; nothing was sent to its agent"
    )]
    NoAlwaysOnPrompt(String),
    #[error(
        "the agent of Session {0} did not take the answer: its permission prompt is still on its screen; nothing was recorded"
    )]
    AnswerNotTaken(String),
    /// An answer named a request that is not the one its Session waits on
    /// now (answered already, or another came up): nothing was pressed.
    #[error("request {asked} of Session {session} is not waiting any more: {}; nothing was sent to its agent", match .up { Some(up) => format!("its agent now asks {up}"), None => "its agent asks nothing now".to_owned() })]
    RequestNotUp {
        session: String,
        asked: String,
        up: Option<String>,
    },
    /// Several requests are queued and the answer named none of them.
    #[error("Session {session} waits on {} requests ({}): name the one you answer with --request; nothing was sent to its agent", .requests.len(), .requests.join(", "))]
    RequestsQueued {
        session: String,
        requests: Vec<String>,
    },
    /// The dialog on the screen is not the request's (its next request is
    /// drawn already, or the page that answers showed another).
    #[error(
        "the dialog on the screen of Session {session} is not request {request} ({}); nothing was sent to its agent", match .shown { Some(shown) => format!("it is request {shown}, queued after it"), None => "another request is up, or the screen changed since it was shown".to_owned() }
    )]
    RequestNotOnScreen {
        session: String,
        request: String,
        /// The request the dialog on the screen is, when it is one of the
        /// Session's.
        shown: Option<String>,
    },
    /// Another answer or reply to the Session is being pressed now.
    #[error(
        "another answer to Session {0} is being typed right now; nothing was sent to its agent (look again in a moment)"
    )]
    ActionInFlight(String),
    /// A reply was asked while a dialog is up: typed, it would answer it.
    #[error(
        "Session {0} shows a permission dialog, which a reply would answer; nothing was sent to its agent (it now waits for that answer)"
    )]
    DialogUp(String),
    /// The caller runs in a live Session's own terminal.
    #[error(
        "an agent cannot answer for the person: this runs in the terminal of Session {0} ({1}); nothing was done: run it from your own terminal, outside any lf session"
    )]
    FromSessionsOwnTerminal(String, &'static str),
    #[error("Session {0} has no live agent in a tmux pane to send to")]
    NotLive(String),
    #[error("Session {0} runs a command, not an agent: lf sends nothing to it")]
    NoAgentToAnswer(String),
    #[error("--always goes with allow: a refusal answers this prompt alone")]
    AlwaysOnlyAllows,
    /// An agent lf launched (its `LF_RUN_ID` or `LF_SESSION_ID` set) asked
    /// to act for the person: it may not answer its own prompt, nor
    /// another agent's, nor serve itself the page that does.
    #[error(
        "an agent cannot answer for the person: {variable} is set, so this runs inside a session that lf launched; nothing was done: run it from your own terminal, outside any lf session"
    )]
    AgentActsForPerson { variable: &'static str },
}

/// What a Session waits for, in an action's refusal.
fn wanted_words(wanted: Attention) -> &'static str {
    match wanted {
        Attention::Reply => "a reply",
        Attention::Approve => "an answer to a permission prompt",
        Attention::Review => "a review",
    }
}

/// What a Session owes now, in an action's refusal.
fn owed_words(attention: Option<Attention>) -> &'static str {
    match attention {
        None => "its agent is working, or was answered already",
        Some(Attention::Reply) => "it waits for a reply",
        Some(Attention::Approve) => "it waits for its permission prompt to be answered",
        Some(Attention::Review) => "it is ready for review",
    }
}

impl Domain for SessionError {
    fn kind(&self) -> ErrorKind {
        use SessionError::*;
        match self {
            SessionNotFound(..) | RunNotFound(..) => ErrorKind::NotFound,
            AlreadyComplete { .. }
            | Unavailable(..)
            | NoLongerWaiting(..)
            | StaleReview
            | PrimaryNotReviewed
            | RunOfOtherSession { .. }
            | HistoricalRun { .. }
            | SupersededRun { .. }
            | ChangedMeanwhile(..)
            | AlreadyBound { .. }
            | NotPrimary(..)
            | NotWaitingFor { .. }
            | NoPromptOnScreen(..)
            | NoAlwaysOnPrompt(..)
            | NotLive(..)
            | RequestNotUp { .. }
            | RequestsQueued { .. }
            | RequestNotOnScreen { .. }
            | ActionInFlight(..)
            | DialogUp(..)
            | NoAgentToAnswer(..) => ErrorKind::Conflict,
            AnswerNotTaken(..) => ErrorKind::Operational,
            NotInRepository(..)
            | NeedsAgent(..)
            | ArgvNotForAgent(..)
            | NotLaunchedByLf { .. }
            | AlwaysOnlyAllows
            | AgentActsForPerson { .. }
            | FromSessionsOwnTerminal(..) => ErrorKind::Usage,
        }
    }

    fn arg(&self) -> Option<Arg> {
        use SessionError::*;
        Some(match self {
            SessionNotFound(_)
            | RunNotFound(_)
            | AlreadyComplete { .. }
            | HistoricalRun { .. }
            | AlreadyBound { .. }
            | NotPrimary(_)
            | NotWaitingFor { .. }
            | NoPromptOnScreen(_)
            | NotLive(_)
            | ActionInFlight(_)
            | DialogUp(_)
            | NoAgentToAnswer(_) => Arg::Id,
            RequestNotUp { .. } | RequestsQueued { .. } | RequestNotOnScreen { .. } => Arg::Request,
            NoAlwaysOnPrompt(_) | AlwaysOnlyAllows => Arg::Always,
            NeedsAgent(_) => Arg::Provider,
            ArgvNotForAgent(_) => Arg::Argv,
            _ => return None,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            SessionError::AlreadyComplete { .. } => Some(
                Hint::text("start a new one with ")
                    .command(Command::SessionNew { command: None })
                    .then(", or see it with ")
                    .command(Command::SessionList { all: true }),
            ),
            SessionError::NotWaitingFor { session, .. }
            | SessionError::NoPromptOnScreen(session)
            | SessionError::NoAlwaysOnPrompt(session)
            | SessionError::RequestNotUp { session, .. }
            | SessionError::RequestsQueued { session, .. }
            | SessionError::RequestNotOnScreen { session, .. }
            | SessionError::DialogUp(session)
            | SessionError::AnswerNotTaken(session) => Some(
                Hint::text("see it and answer it there with ").command(Command::SessionOpen {
                    id: session.clone(),
                    host: None,
                }),
            ),
            SessionError::NotLive(session) => Some(
                Hint::text("start its agent again with ").command(Command::SessionOpen {
                    id: session.clone(),
                    host: None,
                }),
            ),
            SessionError::NotInRepository(_) => Some(
                Hint::text("run ")
                    .command(Command::Primary)
                    .then(" in a repository, or pass --wave"),
            ),
            _ => None,
        }
    }
}
