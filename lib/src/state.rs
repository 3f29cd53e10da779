//! The rules users see, as pure functions of a Session's facts: `state`,
//! `attention`, `actions` and flow membership. Nothing here reads a file or
//! the database, so every branch has a unit test below.

use crate::session::error::SessionError;
use std::borrow::Cow;

use crate::wire::{
    ActionKind, Attention, FlowMembership, FlowOccurrence, LostReason, SessionAction, SessionKind,
    SessionState,
};

crate::names::named! {
    "Run outcome";
    /// How a Run's provider process ended.
    pub enum RunOutcome {
        /// It exited by itself (any exit code).
        Exited,
        /// It ended by a signal or an interrupt.
        Interrupted,
        /// It could not start, or never became resumable.
        Failed,
    }
}

crate::names::named! {
    "turn";
    /// The latest turn of a conversation, from the provider's hooks.
    pub enum Turn {
        Started,
        Completed,
    }
}

/// What the rules need to know of one Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub kind: SessionKind,
    pub interactive: bool,
    pub completed: bool,
    pub ready: bool,
    /// A recorded client is alive by `(boot_id, pid, starttime)`.
    pub live_client: bool,
    /// How the current Run's provider ended, if it did.
    pub outcome: Option<RunOutcome>,
    /// The current Run's agent was running and is gone without having
    /// ended by itself (no outcome): why.
    pub lost: Option<LostReason>,
    pub latest_turn: Option<Turn>,
    /// The agent waits on a permission prompt.
    pub permission_pending: bool,
    /// A flow review that is its flow's current pending step.
    pub pending_review: bool,
    /// The Session's task is finished.
    pub task_finished: bool,
}

/// First match wins: closed, ready, active, lost, interrupted, waiting,
/// unknown. A provider's exit never closes a Session.
pub fn state(facts: &Facts) -> SessionState {
    if facts.completed {
        SessionState::Closed
    } else if facts.ready {
        SessionState::Ready
    } else if facts.live_client {
        SessionState::Active
    } else if facts.lost.is_some() {
        SessionState::Lost
    } else if facts.outcome == Some(RunOutcome::Interrupted) {
        SessionState::Interrupted
    } else if facts.kind == SessionKind::Flow {
        SessionState::Waiting
    } else {
        SessionState::Unknown
    }
}

/// The order in which waiting Sessions come to the person, wherever they
/// are ordered (`lf-session-next` over every Home, the picker):
/// an approval blocks an agent mid-work, a reply lets an agent go on, a
/// review asks the person's judgement and can wait.
pub const WAITING_ORDER: [Attention; 3] = [Attention::Approve, Attention::Reply, Attention::Review];

/// A Session's place in [`WAITING_ORDER`]; one that waits for nothing
/// comes after every one that does.
pub fn waiting_rank(attention: Option<Attention>) -> usize {
    attention
        .and_then(|attention| WAITING_ORDER.iter().position(|kind| *kind == attention))
        .unwrap_or(WAITING_ORDER.len())
}

/// [`waiting_rank`] in SQL, for a column `column` holding an attention's
/// name.
pub(crate) fn waiting_rank_sql(column: &str) -> String {
    let mut sql = format!("CASE {column}");
    for (rank, attention) in WAITING_ORDER.iter().enumerate() {
        sql.push_str(&format!(" WHEN '{}' THEN {rank}", attention.as_str()));
    }
    sql.push_str(&format!(" ELSE {} END", WAITING_ORDER.len()));
    sql
}

/// The person's current obligation, independent of liveness.
pub fn attention(facts: &Facts) -> Option<Attention> {
    if facts.completed {
        return None;
    }
    let current_review =
        facts.kind == SessionKind::Flow && facts.pending_review && !facts.task_finished;
    let ready_conversation = facts.kind == SessionKind::Conversation && facts.ready;
    if current_review || ready_conversation {
        Some(Attention::Review)
    } else if facts.permission_pending {
        Some(Attention::Approve)
    } else if facts.interactive
        && facts.latest_turn == Some(Turn::Completed)
        && facts.outcome != Some(RunOutcome::Interrupted)
    {
        Some(Attention::Reply)
    } else {
        None
    }
}

/// When a Session's facts changed in the ways that owe attention
/// (microseconds); a time lf did not record yet (a Home older than these
/// columns) falls back to the Session's last update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moments {
    pub created: i64,
    pub updated: i64,
    pub ready: Option<i64>,
    pub permission: Option<i64>,
    pub turn_completed: Option<i64>,
}

/// Since when the person has owed this attention: a flow review since its
/// Session exists (it is pending from then), a ready conversation since
/// the agent marked it, an approval since the prompt, a reply since the
/// turn completed.
pub fn attention_since(attention: Attention, kind: SessionKind, at: &Moments) -> i64 {
    let recorded = match (attention, kind) {
        (Attention::Review, SessionKind::Flow) => Some(at.created),
        (Attention::Review, SessionKind::Conversation) => at.ready,
        (Attention::Approve, _) => at.permission,
        (Attention::Reply, _) => at.turn_completed,
    };
    recorded.unwrap_or(at.updated)
}

/// What is known of the current Run's launch, for [`lost`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaunchFacts {
    /// A launcher started the Run's agent.
    pub started: bool,
    /// The Run ended (lf-serve saw its terminal hang up, when no outcome).
    pub ended: bool,
    /// The launcher was recorded under another boot than this one.
    pub other_boot: bool,
    /// The launcher (`lf-serve`) still runs, in its terminal.
    pub launcher_alive: bool,
    /// The launcher still runs but its terminal hung up: it is about to
    /// record that (and to stop the agent), but the terminal is gone now.
    pub hung_up: bool,
}

/// Why the current Run's agent is gone without having ended by itself, or
/// `None`: it runs, it never started, it recorded how it ended (exited,
/// interrupted, failed), or its launcher is still there to record it.
pub fn lost(
    outcome: Option<RunOutcome>,
    live_client: bool,
    launch: LaunchFacts,
) -> Option<LostReason> {
    if !launch.started || outcome.is_some() || live_client {
        None
    } else if launch.other_boot {
        Some(LostReason::Reboot)
    } else if launch.hung_up {
        Some(LostReason::Terminal)
    } else if launch.launcher_alive {
        None
    } else if launch.ended {
        Some(LostReason::Terminal)
    } else {
        Some(LostReason::Killed)
    }
}

pub const ACTIVE_ELSEWHERE: &str =
    "This Session is active in another terminal; use Move here to transfer it";
pub const NOT_READY: &str = "The session agent has not marked this ready";

/// A completed Session can be opened, completed or renamed no more: the
/// one refusal, naming it and when it was completed, and what to do
/// instead. Its record's actions give this as their unavailable reason,
/// and every binary refuses with it (exit 4).
pub fn completed(session: &str, completed_at: i64) -> crate::Error {
    SessionError::AlreadyComplete {
        session: crate::ids::short_id(session).to_owned(),
        at: crate::clock::Timestamp(completed_at).to_string(),
    }
    .into()
}

/// The refusal of anything but a read of a completed Session.
pub fn refuse_completed(session: &str, completed_at: Option<i64>) -> crate::Result<()> {
    match completed_at {
        Some(at) => Err(completed(session, at)),
        None => Ok(()),
    }
}

/// What a person may do now with Session `session` (completed at
/// `completed_at`, if it was). The labels, help and reasons are a
/// contract: every binary refuses an unavailable action with exactly its
/// reason (`require_action`).
pub fn actions(
    session: &str,
    kind: SessionKind,
    state: SessionState,
    completed_at: Option<i64>,
) -> Vec<SessionAction> {
    let active_client = kind == SessionKind::Conversation && state == SessionState::Active;
    let done: Option<Cow<'static, str>> =
        completed_at.map(|at| Cow::Owned(completed(session, at).one_line()));
    let action = |kind, label: &'static str, help: &'static str, reason: Option<&'static str>| {
        SessionAction {
            kind,
            label: Cow::Borrowed(label),
            help: Cow::Borrowed(help),
            unavailable_reason: done.clone().or(reason.map(Cow::Borrowed)),
        }
    };
    let mut actions = vec![action(
        ActionKind::Open,
        "Open here",
        "Open this Session in a terminal",
        active_client.then_some(ACTIVE_ELSEWHERE),
    )];
    match kind {
        SessionKind::Conversation => {
            if active_client {
                actions.push(action(
                    ActionKind::MoveHere,
                    "Move here",
                    "Stop the other client and resume here; unsent text there is lost",
                    None,
                ));
            }
            actions.push(action(
                ActionKind::Complete,
                "Complete",
                "Stop the provider and remove this Session; native history remains resumable",
                None,
            ));
        }
        SessionKind::Flow => actions.push(action(
            ActionKind::Complete,
            "Complete",
            "Complete the review and return feedback to the next Flow step",
            (state != SessionState::Ready).then_some(NOT_READY),
        )),
    }
    actions
}

/// Whether `action` is available; the error is its exact unavailable reason
/// (for a completed Session, the error `completed` gives).
pub fn require_action(
    session: &str,
    kind: SessionKind,
    state: SessionState,
    completed_at: Option<i64>,
    action: ActionKind,
) -> crate::Result<()> {
    refuse_completed(session, completed_at)?;
    match actions(session, kind, state, completed_at)
        .into_iter()
        .find(|item| item.kind == action)
    {
        None => Err(
            SessionError::Unavailable("This action does not apply to this Session".into()).into(),
        ),
        Some(SessionAction {
            unavailable_reason: Some(reason),
            ..
        }) => Err(SessionError::Unavailable(reason).into()),
        Some(_) => Ok(()),
    }
}

/// A flow invocation as the membership rule sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowFacts {
    pub name: String,
    /// Finished, or replaced by a restart.
    pub finished: bool,
    /// The Run of the invocation's current attempt, if one is reserved.
    pub current_run: Option<String>,
    /// The Session the invocation waits on, if any.
    pub pending_session: Option<String>,
}

/// A Session's recorded place in a flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepFacts<'a> {
    pub invocation_id: &'a str,
    pub step: &'a str,
    pub node: Option<u32>,
    pub iterations: Option<Vec<Vec<u32>>>,
}

/// Membership comes only from the Session's recorded invocation, never from
/// matching its task, checkout or provider.
pub fn membership(
    session_id: &str,
    current_run: &str,
    independent: bool,
    step: Option<StepFacts<'_>>,
    flow: Option<&FlowFacts>,
) -> FlowMembership {
    let Some(step) = step else {
        return if independent {
            FlowMembership::Independent
        } else {
            FlowMembership::Unknown {
                reason: "Flow membership was not recorded".to_owned(),
            }
        };
    };
    let Some(flow) = flow else {
        return FlowMembership::Unknown {
            reason: format!("Flow {} metadata is unavailable", step.invocation_id),
        };
    };
    let occurrence = if flow.finished {
        FlowOccurrence::Past
    } else if flow.current_run.as_deref() == Some(current_run) {
        FlowOccurrence::Current
    } else if flow.current_run.is_some() {
        FlowOccurrence::Earlier
    } else if flow.pending_session.as_deref() == Some(session_id) {
        FlowOccurrence::Current
    } else {
        FlowOccurrence::Unknown
    };
    FlowMembership::Step {
        flow: flow.name.clone(),
        invocation_id: step.invocation_id.to_owned(),
        step: step.step.to_owned(),
        node: step.node,
        iterations: step.iterations,
        occurrence,
    }
}

/// Whether a flow review is its flow's current pending step.
pub fn is_pending_review(session_id: &str, flow: Option<&FlowFacts>) -> bool {
    flow.is_some_and(|flow| !flow.finished && flow.pending_session.as_deref() == Some(session_id))
}

/// `provider[:model]` for a conversation; the step for a flow review.
pub fn detail(
    kind: SessionKind,
    provider: Option<&str>,
    model: Option<&str>,
    step: Option<&str>,
) -> String {
    match kind {
        SessionKind::Conversation => {
            let provider = provider.unwrap_or_default();
            match model {
                Some(model) => format!("{provider}:{model}"),
                None => provider.to_owned(),
            }
        }
        SessionKind::Flow => step.unwrap_or("Request for input").to_owned(),
    }
}

/// `wave / TASK-1`, or a label that says which part is unavailable.
pub fn work_path(
    wave: Option<(&str, Option<&str>)>,
    task: Option<(&str, Option<&str>)>,
) -> Option<String> {
    let (wave_id, wave_name) = wave?;
    let wave = wave_name
        .map(str::to_owned)
        .unwrap_or_else(|| format!("Wave {wave_id} (unavailable)"));
    Some(match task {
        None => wave,
        Some((_, Some(identifier))) => format!("{wave} / {identifier}"),
        Some((task_id, None)) => format!("Task {task_id} (unavailable)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn attention_is_owed_since_the_fact_that_owes_it() {
        let at = Moments {
            created: 1,
            updated: 9,
            ready: Some(5),
            permission: Some(6),
            turn_completed: Some(7),
        };
        use SessionKind::{Conversation, Flow};
        assert_eq!(attention_since(Attention::Review, Flow, &at), 1);
        assert_eq!(attention_since(Attention::Review, Conversation, &at), 5);
        assert_eq!(attention_since(Attention::Approve, Conversation, &at), 6);
        assert_eq!(attention_since(Attention::Reply, Conversation, &at), 7);
        let old = Moments {
            ready: None,
            permission: None,
            turn_completed: None,
            ..at
        };
        assert_eq!(attention_since(Attention::Reply, Conversation, &old), 9);
    }

    fn conversation() -> Facts {
        Facts {
            kind: SessionKind::Conversation,
            interactive: true,
            completed: false,
            ready: false,
            live_client: false,
            outcome: None,
            lost: None,
            latest_turn: None,
            permission_pending: false,
            pending_review: false,
            task_finished: false,
        }
    }

    fn review() -> Facts {
        Facts {
            kind: SessionKind::Flow,
            ..conversation()
        }
    }

    #[test]
    fn state_first_match_wins() {
        let everything = Facts {
            completed: true,
            ready: true,
            live_client: true,
            outcome: Some(RunOutcome::Interrupted),
            ..review()
        };
        assert_eq!(state(&everything), SessionState::Closed);
        let ready = Facts {
            completed: false,
            ..everything.clone()
        };
        assert_eq!(state(&ready), SessionState::Ready);
        let active = Facts {
            ready: false,
            ..ready
        };
        assert_eq!(state(&active), SessionState::Active);
        let lost = Facts {
            live_client: false,
            outcome: None,
            lost: Some(LostReason::Reboot),
            ..active.clone()
        };
        assert_eq!(state(&lost), SessionState::Lost);
        let interrupted = Facts {
            live_client: false,
            ..active
        };
        assert_eq!(state(&interrupted), SessionState::Interrupted);
        let waiting = Facts {
            outcome: Some(RunOutcome::Exited),
            ..interrupted
        };
        assert_eq!(state(&waiting), SessionState::Waiting);
        assert_eq!(state(&conversation()), SessionState::Unknown);
    }

    #[test]
    fn lost_is_an_agent_gone_without_ending_by_itself() {
        let started = LaunchFacts {
            started: true,
            ..LaunchFacts::default()
        };
        let rebooted = LaunchFacts {
            other_boot: true,
            ..started
        };
        let hung_up = LaunchFacts {
            ended: true,
            ..started
        };
        let serving = LaunchFacts {
            launcher_alive: true,
            ..hung_up
        };
        assert_eq!(lost(None, false, rebooted), Some(LostReason::Reboot));
        assert_eq!(lost(None, false, hung_up), Some(LostReason::Terminal));
        assert_eq!(lost(None, false, started), Some(LostReason::Killed));
        assert_eq!(lost(None, false, serving), None, "lf-serve will record it");
        let hanging_up = LaunchFacts {
            hung_up: true,
            ..started
        };
        assert_eq!(
            lost(None, false, hanging_up),
            Some(LostReason::Terminal),
            "its terminal is gone before lf-serve says so"
        );
        assert_eq!(lost(None, true, rebooted), None, "it runs");
        assert_eq!(
            lost(None, false, LaunchFacts::default()),
            None,
            "never launched"
        );
        for outcome in RunOutcome::ALL {
            assert_eq!(lost(Some(*outcome), false, rebooted), None, "{outcome:?}");
        }
    }

    #[test]
    fn provider_exit_never_closes_a_session() {
        for outcome in [RunOutcome::Exited, RunOutcome::Failed] {
            let facts = Facts {
                outcome: Some(outcome),
                ..conversation()
            };
            assert_eq!(state(&facts), SessionState::Unknown);
        }
    }

    #[test]
    fn completed_sessions_need_no_attention() {
        let facts = Facts {
            completed: true,
            ready: true,
            permission_pending: true,
            latest_turn: Some(Turn::Completed),
            ..conversation()
        };
        assert_eq!(attention(&facts), None);
        let review = Facts {
            completed: true,
            pending_review: true,
            ..review()
        };
        assert_eq!(attention(&review), None);
    }

    #[test]
    fn ready_conversations_and_current_reviews_need_review() {
        let ready = Facts {
            ready: true,
            permission_pending: true,
            ..conversation()
        };
        assert_eq!(attention(&ready), Some(Attention::Review));
        let pending = Facts {
            pending_review: true,
            ..review()
        };
        assert_eq!(attention(&pending), Some(Attention::Review));
        let finished_task = Facts {
            task_finished: true,
            ..pending.clone()
        };
        assert_eq!(attention(&finished_task), None);
        // A flow review's readiness alone is not its flow's current step.
        let ready_review = Facts {
            ready: true,
            ..review()
        };
        assert_eq!(attention(&ready_review), None);
    }

    #[test]
    fn permission_prompts_need_approval() {
        let facts = Facts {
            permission_pending: true,
            latest_turn: Some(Turn::Completed),
            ..conversation()
        };
        assert_eq!(attention(&facts), Some(Attention::Approve));
    }

    #[test]
    fn a_completed_turn_needs_a_reply_unless_interrupted_or_not_interactive() {
        let turn = Facts {
            latest_turn: Some(Turn::Completed),
            ..conversation()
        };
        assert_eq!(attention(&turn), Some(Attention::Reply));
        let exited = Facts {
            outcome: Some(RunOutcome::Exited),
            ..turn.clone()
        };
        assert_eq!(attention(&exited), Some(Attention::Reply));
        let interrupted = Facts {
            outcome: Some(RunOutcome::Interrupted),
            ..turn.clone()
        };
        assert_eq!(attention(&interrupted), None);
        let batch = Facts {
            interactive: false,
            ..turn.clone()
        };
        assert_eq!(attention(&batch), None);
        let working = Facts {
            latest_turn: Some(Turn::Started),
            ..turn
        };
        assert_eq!(attention(&working), None);
        assert_eq!(attention(&conversation()), None);
    }

    #[test]
    fn actions_match_the_contract() {
        let kinds = |actions: Vec<SessionAction>| -> Vec<(ActionKind, Option<String>)> {
            actions
                .into_iter()
                .map(|action| (action.kind, action.unavailable_reason.map(String::from)))
                .collect()
        };
        assert_eq!(
            kinds(actions(
                ID,
                SessionKind::Conversation,
                SessionState::Active,
                None
            )),
            vec![
                (ActionKind::Open, Some(ACTIVE_ELSEWHERE.to_owned())),
                (ActionKind::MoveHere, None),
                (ActionKind::Complete, None),
            ]
        );
        for state in [
            SessionState::Unknown,
            SessionState::Ready,
            SessionState::Interrupted,
        ] {
            assert_eq!(
                kinds(actions(ID, SessionKind::Conversation, state, None)),
                vec![(ActionKind::Open, None), (ActionKind::Complete, None)]
            );
        }
        assert_eq!(
            kinds(actions(ID, SessionKind::Flow, SessionState::Active, None)),
            vec![
                (ActionKind::Open, None),
                (ActionKind::Complete, Some(NOT_READY.to_owned())),
            ]
        );
        assert_eq!(
            kinds(actions(ID, SessionKind::Flow, SessionState::Ready, None)),
            vec![(ActionKind::Open, None), (ActionKind::Complete, None)]
        );
        let labels: Vec<(String, String)> =
            actions(ID, SessionKind::Conversation, SessionState::Active, None)
                .into_iter()
                .map(|action| (action.label.into_owned(), action.help.into_owned()))
                .collect();
        assert_eq!(
            labels,
            [
                ("Open here", "Open this Session in a terminal"),
                (
                    "Move here",
                    "Stop the other client and resume here; unsent text there is lost"
                ),
                (
                    "Complete",
                    "Stop the provider and remove this Session; native history remains resumable"
                ),
            ]
            .map(|(label, help)| (label.to_owned(), help.to_owned()))
        );
        assert_eq!(
            actions(ID, SessionKind::Flow, SessionState::Waiting, None)[1].help,
            "Complete the review and return feedback to the next Flow step"
        );
    }

    #[test]
    fn unavailable_actions_are_refused_with_their_reason() {
        assert_eq!(
            require_action(
                ID,
                SessionKind::Conversation,
                SessionState::Active,
                None,
                ActionKind::Open
            )
            .map_err(|error| error.to_string()),
            Err(ACTIVE_ELSEWHERE.to_owned())
        );
        assert_eq!(
            require_action(
                ID,
                SessionKind::Flow,
                SessionState::Waiting,
                None,
                ActionKind::Complete
            )
            .map_err(|error| error.to_string()),
            Err(NOT_READY.to_owned())
        );
        assert_eq!(
            require_action(
                ID,
                SessionKind::Conversation,
                SessionState::Unknown,
                None,
                ActionKind::MoveHere
            )
            .map_err(|error| error.to_string()),
            Err("This action does not apply to this Session".to_owned())
        );
        assert_eq!(
            require_action(
                ID,
                SessionKind::Conversation,
                SessionState::Active,
                None,
                ActionKind::Complete
            )
            .map_err(|error| error.to_string()),
            Ok(())
        );
    }

    #[test]
    fn a_completed_session_offers_nothing_and_says_what_to_do_instead() {
        // 2026-01-02T03:04:05Z
        let at = 1_767_323_045_000_000;
        let said = "Session 01234567 was completed at 2026-01-02T03:04:05.000000Z; start a new \
                    one with lf-session-new, or see it with lf-session-list --all";
        assert_eq!(completed(ID, at).one_line(), said);
        for kind in [SessionKind::Conversation, SessionKind::Flow] {
            let offered = actions(ID, kind, SessionState::Closed, Some(at));
            let kinds: Vec<ActionKind> = offered.iter().map(|action| action.kind).collect();
            assert_eq!(kinds, [ActionKind::Open, ActionKind::Complete], "{kind:?}");
            for action in offered {
                assert_eq!(action.unavailable_reason.as_deref(), Some(said), "{kind:?}");
                let refused = require_action(ID, kind, SessionState::Closed, Some(at), action.kind)
                    .unwrap_err();
                assert_eq!(refused.one_line(), said);
                assert_eq!(refused.kind(), crate::ErrorKind::Conflict);
            }
        }
    }

    fn flow(finished: bool, current_run: Option<&str>, pending: Option<&str>) -> FlowFacts {
        FlowFacts {
            name: "feature".to_owned(),
            finished,
            current_run: current_run.map(str::to_owned),
            pending_session: pending.map(str::to_owned),
        }
    }

    fn step() -> StepFacts<'static> {
        StepFacts {
            invocation_id: "inv-1",
            step: "review-design",
            node: Some(3),
            iterations: Some(vec![vec![5], vec![2]]),
        }
    }

    fn occurrence(membership: FlowMembership) -> Option<FlowOccurrence> {
        match membership {
            FlowMembership::Step { occurrence, .. } => Some(occurrence),
            _ => None,
        }
    }

    #[test]
    fn membership_occurrence_follows_the_flow_position() {
        let of = |flow: FlowFacts| {
            occurrence(membership("s1", "run-a", false, Some(step()), Some(&flow)))
        };
        assert_eq!(
            of(flow(true, Some("run-a"), Some("s1"))),
            Some(FlowOccurrence::Past)
        );
        assert_eq!(
            of(flow(false, Some("run-a"), None)),
            Some(FlowOccurrence::Current)
        );
        assert_eq!(
            of(flow(false, Some("run-b"), Some("s1"))),
            Some(FlowOccurrence::Earlier)
        );
        assert_eq!(
            of(flow(false, None, Some("s1"))),
            Some(FlowOccurrence::Current)
        );
        assert_eq!(
            of(flow(false, None, Some("s2"))),
            Some(FlowOccurrence::Unknown)
        );
        assert_eq!(of(flow(false, None, None)), Some(FlowOccurrence::Unknown));
    }

    #[test]
    fn membership_keeps_the_exact_recorded_step() {
        let flow = flow(false, None, Some("s1"));
        assert_eq!(
            membership("s1", "run-a", false, Some(step()), Some(&flow)),
            FlowMembership::Step {
                flow: "feature".to_owned(),
                invocation_id: "inv-1".to_owned(),
                step: "review-design".to_owned(),
                node: Some(3),
                iterations: Some(vec![vec![5], vec![2]]),
                occurrence: FlowOccurrence::Current,
            }
        );
    }

    #[test]
    fn membership_without_a_recorded_step_is_independent_or_unknown() {
        assert_eq!(
            membership("s", "r", true, None, None),
            FlowMembership::Independent
        );
        assert_eq!(
            membership("s", "r", false, None, None),
            FlowMembership::Unknown {
                reason: "Flow membership was not recorded".to_owned()
            }
        );
        assert_eq!(
            membership("s", "r", false, Some(step()), None),
            FlowMembership::Unknown {
                reason: "Flow inv-1 metadata is unavailable".to_owned()
            }
        );
    }

    #[test]
    fn pending_review_is_the_unfinished_flows_pending_session() {
        assert!(is_pending_review(
            "s1",
            Some(&flow(false, None, Some("s1")))
        ));
        assert!(!is_pending_review(
            "s1",
            Some(&flow(true, None, Some("s1")))
        ));
        assert!(!is_pending_review(
            "s1",
            Some(&flow(false, None, Some("s2")))
        ));
        assert!(!is_pending_review("s1", None));
    }

    #[test]
    fn detail_names_provider_and_model_or_the_step() {
        assert_eq!(
            detail(
                SessionKind::Conversation,
                Some("claude"),
                Some("opus"),
                None
            ),
            "claude:opus"
        );
        assert_eq!(
            detail(SessionKind::Conversation, Some("codex"), None, Some("x")),
            "codex"
        );
        assert_eq!(detail(SessionKind::Conversation, None, None, None), "");
        assert_eq!(
            detail(
                SessionKind::Flow,
                Some("claude"),
                None,
                Some("review-design")
            ),
            "review-design"
        );
        assert_eq!(
            detail(SessionKind::Flow, None, None, None),
            "Request for input"
        );
    }

    #[test]
    fn work_path_names_wave_and_task_or_what_is_missing() {
        assert_eq!(work_path(None, Some(("t", Some("LOO-1")))), None);
        assert_eq!(
            work_path(Some(("w", Some("product"))), None).as_deref(),
            Some("product")
        );
        assert_eq!(
            work_path(Some(("w", Some("product"))), Some(("t", Some("LOO-291")))).as_deref(),
            Some("product / LOO-291")
        );
        assert_eq!(
            work_path(Some(("wave-x", None)), None).as_deref(),
            Some("Wave wave-x (unavailable)")
        );
        assert_eq!(
            work_path(Some(("w", Some("product"))), Some(("task-x", None))).as_deref(),
            Some("Task task-x (unavailable)")
        );
    }
}
