//! Flow reviews: an orchestrator (a script, a CI job, another agent) asks a
//! person to review one step of a flow and waits for the feedback. A review
//! Session's id is derived from its exact flow position, so asking again
//! for the same position finds the same Session and launches nothing. Only
//! the invocation's pending review needs attention; earlier positions show
//! `earlier`, finished or replaced invocations `past`.

use crate::Result;
use crate::clock::{Timestamp, now_micros};
use crate::error::domain::{Arg, Domain, ErrorKind};
use crate::facade::Lf;
use crate::ids::SessionId;
use crate::input;
use crate::provider::Provider;
use crate::session::OpenOptions;
use crate::session::error::SessionError;
use crate::store::{NewReview, NewRun, NewSessionRow};
use crate::wire::{SessionKind, SessionRecord, TitleSource};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// One exact position of a flow invocation that needs a person.
#[derive(Debug, Clone)]
pub struct Position {
    /// The Task (id or identifier).
    pub task: String,
    pub invocation: String,
    pub flow: String,
    /// The node's index in the flow graph.
    pub node: u32,
    /// The step (skill) to review.
    pub step: String,
    pub iteration: u32,
}

/// What `lf-flow review` asks for besides the position.
#[derive(Debug, Clone, Default)]
pub struct ReviewRequest {
    pub prompt: Option<String>,
    pub provider: Option<Provider>,
    pub model: Option<String>,
    /// Record the review without launching its agent.
    pub no_launch: bool,
}

/// A flow invocation as `lf-flow advance` and `finish` print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowRecord {
    pub invocation_id: String,
    pub flow: String,
    #[serde(deserialize_with = "crate::wire::required")]
    pub task_id: Option<String>,
    pub finished: bool,
    #[serde(deserialize_with = "crate::wire::required")]
    pub pending_session_id: Option<String>,
}

/// What `lf-flow wait` prints once the review is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewFeedback {
    pub session_id: String,
    /// `completed`, or `gone` when the Session no longer exists.
    pub status: String,
    /// The review's ready summary: the person's feedback.
    #[serde(deserialize_with = "crate::wire::required")]
    pub feedback: Option<String>,
    #[serde(deserialize_with = "crate::wire::required")]
    pub completed_at: Option<Timestamp>,
}

fn flow_record(flow: crate::store::FlowRow) -> FlowRecord {
    FlowRecord {
        invocation_id: flow.id,
        flow: flow.name,
        task_id: flow.task_id,
        finished: flow.finished,
        pending_session_id: flow.pending_session_id,
    }
}

/// The instructions a review agent starts with.
fn instructions(step: &str, identifier: &str, session: &str, extra: Option<&str>) -> String {
    let mut text = format!(
        "This `{step}` session is the interactive review for Task {identifier}. Work with the person. \
         When the review is ready to end, run `lf-session-ready \"<feedback, agreed changes and remaining work>\"`; \
         the person then completes it with `lf-session-complete {session}`, which returns that summary as \
         feedback to the next flow step."
    );
    if let Some(extra) = extra {
        text.push_str("\n\n");
        text.push_str(extra);
    }
    text
}

impl Lf {
    /// Create (once) and launch the review Session of one flow position. A
    /// review whose Task has no worktree works in the caller's directory.
    pub fn review(&self, position: &Position, request: &ReviewRequest) -> Result<SessionRecord> {
        let task = crate::work::find_task(self.store()?, &position.task)?;
        let invocation = input::INVOCATION.check(&position.invocation)?;
        let flow = input::FLOW_NAME.check(&position.flow)?;
        let step = input::STEP.check(&position.step)?;
        let key = format!(
            "{}:{invocation}:{flow}:{}:{}",
            task.id, position.node, position.iteration
        );
        let id = SessionId::derived(&key);
        let _lock = crate::locks::named(self.home(), &format!("flow:{invocation}"))?;
        if self.store()?.session_row(&id)?.is_none() {
            let provider = request.provider.unwrap_or(Provider::Claude);
            if !provider.is_agent() {
                return Err(SessionError::NeedsAgent("review").into());
            }
            let model = request
                .model
                .as_deref()
                .map(|model| input::MODEL.check(model))
                .transpose()?;
            let cwd = match &task.worktree {
                Some(worktree) => worktree.clone(),
                None => {
                    crate::work::canonical_dir(self.caller.cwd()?, Arg::Cwd, "working directory")?
                }
            };
            let prompt = instructions(
                &step,
                &task.identifier,
                id.as_str(),
                request.prompt.as_deref(),
            );
            let session = NewSessionRow {
                id: id.clone(),
                kind: SessionKind::Flow,
                title: crate::input::title(&format!("Review {step} for {}", task.identifier))?,
                title_source: TitleSource::Generated,
                interactive: true,
                cwd,
                provider: provider.as_str().to_owned(),
                model: model.clone(),
                task_id: Some(task.id.clone()),
                wave_id: task.wave_id.clone(),
                primary_scope: None,
                independent: false,
            };
            let run = NewRun {
                id: self.caller.new_run_id(),
                chosen_native_id: provider.chosen_native_id(),
                provider: provider.as_str().to_owned(),
                model,
                argv: Vec::new(),
                prompt: Some(prompt),
            };
            let iterations = vec![vec![position.iteration]];
            self.store()?.insert_review(
                &NewReview {
                    session: &session,
                    run: &run,
                    invocation: &invocation,
                    flow: &flow,
                    step: &step,
                    node: Some(position.node),
                    iterations: Some(&iterations),
                },
                now_micros(),
            )?;
            if !request.no_launch {
                self.resolve_id(&id)
                    .and_then(|review| self.open_session(&review, OpenOptions::default()))
                    .map_err(|error| {
                    error.during(format!(
                        "review Session {id} was recorded but did not start; run the same command to retry"
                    ))
                })?;
            }
        }
        self.record_of(&id)
    }

    /// The orchestrator moved the invocation past its review position.
    pub fn advance_flow(&self, invocation: &str) -> Result<FlowRecord> {
        let invocation = input::INVOCATION.check(invocation)?;
        let _lock = crate::locks::named(self.home(), &format!("flow:{invocation}"))?;
        self.store()?
            .advance_flow(&invocation, self.caller.new_run_id().as_str(), now_micros())?;
        self.flow(&invocation)
    }

    /// The invocation finished: all its reviews are past.
    pub fn finish_flow(&self, invocation: &str) -> Result<FlowRecord> {
        let invocation = input::INVOCATION.check(invocation)?;
        let _lock = crate::locks::named(self.home(), &format!("flow:{invocation}"))?;
        self.store()?.finish_flow(&invocation, now_micros())?;
        self.flow(&invocation)
    }

    /// Every flow invocation lf knows of.
    pub fn flows(&self) -> Result<Vec<FlowRecord>> {
        Ok(self
            .store()?
            .flows()?
            .into_iter()
            .map(flow_record)
            .collect())
    }

    fn flow(&self, invocation: &str) -> Result<FlowRecord> {
        self.store()?
            .flow(invocation)?
            .map(flow_record)
            .ok_or_else(|| FlowError::InvocationNotFound(invocation.to_owned()).into())
    }

    /// Block until a review Session is completed (or disappears) and return
    /// its feedback. `timeout` bounds the wait (exit 1 past it).
    pub fn wait_review(&self, selector: &str, timeout: Option<Duration>) -> Result<ReviewFeedback> {
        let never = || false;
        match self.wait_review_until(selector, timeout, &never)? {
            Some(feedback) => Ok(feedback),
            None => Err(FlowError::WaitStopped.into()),
        }
    }

    /// As `wait_review`, but also gives up (returns `None`) as soon as
    /// `stop` says so; it is asked between polls, every 100 ms. For a
    /// caller that must stay responsive to an interrupt, such as the
    /// Nushell plugin.
    pub fn wait_review_until(
        &self,
        selector: &str,
        timeout: Option<Duration>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<ReviewFeedback>> {
        // Pinned once: a prefix names the review it names now.
        let id = match crate::ids::SessionSelector::parse(selector)? {
            crate::ids::SessionSelector::Session(id) => id,
            other => self.resolve_selector(other)?.id,
        };
        let deadline = timeout.map(|timeout| Instant::now() + timeout);
        let mut seen = false;
        loop {
            match self.store()?.session_row(&id)? {
                Some(row) => {
                    seen = true;
                    if let Some(completed) = row.completed_at {
                        return Ok(Some(ReviewFeedback {
                            session_id: row.id.into(),
                            status: "completed".to_owned(),
                            feedback: row.ready_summary,
                            completed_at: Some(Timestamp(completed)),
                        }));
                    }
                }
                None if seen => {
                    return Ok(Some(ReviewFeedback {
                        session_id: id.to_string(),
                        status: "gone".to_owned(),
                        feedback: None,
                        completed_at: None,
                    }));
                }
                None => return Err(SessionError::SessionNotFound(id.to_string()).into()),
            }
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                return Err(FlowError::WaitTimeout(id.to_string()).into());
            }
            if stop() {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
/// Flow invocations and waiting on their reviews.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum FlowError {
    #[error("flow invocation {0:?} was not found")]
    InvocationNotFound(String),
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
    #[error("Session {0} was not completed within the timeout; it is still open")]
    WaitTimeout(String),
    #[error("the wait was stopped")]
    WaitStopped,
}

impl Domain for FlowError {
    fn kind(&self) -> ErrorKind {
        use FlowError::*;
        match self {
            InvocationNotFound(..) => ErrorKind::NotFound,
            InvocationOfOtherFlow { .. } | InvocationFinished(..) => ErrorKind::Conflict,
            WaitTimeout(..) | WaitStopped => ErrorKind::Operational,
        }
    }

    fn arg(&self) -> Option<Arg> {
        use FlowError::*;
        Some(match self {
            InvocationNotFound(_) | InvocationOfOtherFlow { .. } | InvocationFinished(_) => {
                Arg::Invocation
            }
            WaitTimeout(_) => Arg::Id,
            _ => return None,
        })
    }

    fn name(&self) -> &str {
        self.into()
    }
}
