//! The wire as Nushell values. Columns keep the names and the order of
//! `lf::wire` (the JSON every binary prints), but their types are Nushell's
//! own: times are datetimes, absent values are `null`, nested objects are
//! records and arrays are lists, so `where attention != null` and
//! `sort-by updated_at` work as written. This lives in the plugin, not in
//! the library, because only the plugin speaks Nushell.

use lf::active::{ActiveSession, ActiveSnapshot, Discovery, LiveProcess, ProcessState};
use lf::flow::{FlowRecord, ReviewFeedback};
use lf::wire::{
    ActionKind, Attention, FlowMembership, FlowOccurrence, HandoffListRow, HandoffOpened,
    HandoffOutcome, HandoffRecord, SessionAction, SessionBindingPreview, SessionKind,
    SessionRecord, SessionState, TaskRecord, TitleSource, WaveRecord, WorkRef, Workspace,
};
use nu_protocol::{Record, Span, Value};

/// One Session, with the columns of `SessionRecord` in wire order.
pub fn session(record: SessionRecord, span: Span) -> Value {
    let SessionRecord {
        id,
        title,
        title_source,
        kind,
        interactive,
        state,
        attention,
        actions,
        ready_summary,
        provider,
        detail,
        cwd,
        work,
        wave_id,
        work_path,
        task_ids,
        primary_scope,
        flow_membership,
        workspace,
        open_argv,
        terminal_ids,
        alive,
        created_at,
        updated_at,
        completed_at,
    } = record;
    let mut row = Record::with_capacity(25);
    row.push("id", Value::string(id, span));
    row.push("title", Value::string(title, span));
    row.push("title_source", text(title_source_str(title_source), span));
    row.push("kind", text(kind_str(kind), span));
    row.push("interactive", Value::bool(interactive, span));
    row.push("state", text(state_str(state), span));
    row.push(
        "attention",
        optional(attention.map(attention_str).map(str::to_owned), span),
    );
    row.push(
        "actions",
        Value::list(
            actions
                .into_iter()
                .map(|action| self::action(action, span))
                .collect(),
            span,
        ),
    );
    row.push("ready_summary", optional(ready_summary, span));
    row.push("provider", optional(provider, span));
    row.push("detail", Value::string(detail, span));
    row.push("cwd", Value::string(cwd, span));
    row.push("work", self::work(work, span));
    row.push("wave_id", optional(wave_id, span));
    row.push("work_path", optional(work_path, span));
    row.push("task_ids", strings(task_ids, span));
    row.push("primary_scope", optional(primary_scope, span));
    row.push("flow_membership", membership(flow_membership, span));
    row.push("workspace", self::workspace(workspace, span));
    row.push("open_argv", strings(open_argv, span));
    row.push("terminal_ids", strings(terminal_ids, span));
    row.push("alive", Value::bool(alive, span));
    row.push("created_at", date(&created_at, span));
    row.push("updated_at", date(&updated_at, span));
    row.push(
        "completed_at",
        completed_at.map_or(Value::nothing(span), |at| date(&at, span)),
    );
    Value::record(row, span)
}

/// What `lf session bind --preview` shows.
pub fn binding_preview(preview: SessionBindingPreview, span: Span) -> Value {
    let mut row = Record::with_capacity(4);
    row.push("session_id", Value::string(preview.session_id, span));
    row.push("task_id", Value::string(preview.task_id, span));
    row.push("identifier", Value::string(preview.identifier, span));
    row.push("title", Value::string(preview.title, span));
    Value::record(row, span)
}

pub fn wave(wave: WaveRecord, span: Span) -> Value {
    let mut row = Record::with_capacity(4);
    row.push("id", Value::string(wave.id, span));
    row.push("name", Value::string(wave.name, span));
    row.push("repo", Value::string(wave.repo, span));
    row.push("created_at", date(&wave.created_at, span));
    Value::record(row, span)
}

pub fn task(task: TaskRecord, span: Span) -> Value {
    let mut row = Record::with_capacity(9);
    row.push("id", Value::string(task.id, span));
    row.push("identifier", Value::string(task.identifier, span));
    row.push("title", Value::string(task.title, span));
    row.push("worktree", optional(task.worktree, span));
    row.push("wave_id", optional(task.wave_id, span));
    row.push("work_path", optional(task.work_path, span));
    row.push("finished", Value::bool(task.finished, span));
    row.push("created_at", date(&task.created_at, span));
    row.push(
        "finished_at",
        task.finished_at
            .map_or(Value::nothing(span), |at| date(&at, span)),
    );
    Value::record(row, span)
}

/// A flow invocation, as `lf flow advance` and `lf flow finish` return it.
pub fn flow(flow: FlowRecord, span: Span) -> Value {
    let FlowRecord {
        invocation_id,
        flow,
        task_id,
        finished,
        pending_session_id,
    } = flow;
    let mut row = Record::with_capacity(5);
    row.push("invocation_id", Value::string(invocation_id, span));
    row.push("flow", Value::string(flow, span));
    row.push("task_id", optional(task_id, span));
    row.push("finished", Value::bool(finished, span));
    row.push("pending_session_id", optional(pending_session_id, span));
    Value::record(row, span)
}

/// What `lf flow wait` returns once a review is over.
pub fn feedback(feedback: ReviewFeedback, span: Span) -> Value {
    let ReviewFeedback {
        session_id,
        status,
        feedback,
        completed_at,
    } = feedback;
    let mut row = Record::with_capacity(4);
    row.push("session_id", Value::string(session_id, span));
    row.push("status", Value::string(status, span));
    row.push("feedback", optional(feedback, span));
    row.push("completed_at", optional_date(completed_at, span));
    Value::record(row, span)
}

/// One handoff, with the columns of `HandoffRecord` in wire order; its
/// times are datetimes and `outcome` is null or a record `{kind, summary}`
/// (`{kind, reason}` when it failed).
pub fn handoff(record: HandoffRecord, span: Span) -> Value {
    let HandoffRecord {
        id,
        parent_kind,
        parent_id,
        wave_id,
        status,
        home,
        cwd,
        provider,
        provider_session_id,
        body_generation,
        reason,
        environment_names,
        attach_argv,
        attached_at,
        outcome,
        finished_at,
        wake_claimed_by_generation,
        created_at,
        updated_at,
    } = record;
    let mut row = Record::with_capacity(19);
    row.push("id", Value::string(id, span));
    row.push("parent_kind", text(parent_kind.as_str(), span));
    row.push("parent_id", Value::string(parent_id, span));
    row.push("wave_id", optional(wave_id, span));
    row.push("status", text(status.as_str(), span));
    row.push("home", Value::string(home, span));
    row.push("cwd", Value::string(cwd, span));
    row.push("provider", Value::string(provider, span));
    row.push("provider_session_id", optional(provider_session_id, span));
    row.push(
        "body_generation",
        Value::int(i64::from(body_generation), span),
    );
    row.push("reason", Value::string(reason, span));
    row.push("environment_names", strings(environment_names, span));
    row.push("attach_argv", strings(attach_argv, span));
    row.push("attached_at", optional_date(attached_at, span));
    row.push(
        "outcome",
        outcome.map_or(Value::nothing(span), |outcome| {
            handoff_outcome(outcome, span)
        }),
    );
    row.push("finished_at", optional_date(finished_at, span));
    row.push(
        "wake_claimed_by_generation",
        wake_claimed_by_generation.map_or(Value::nothing(span), |generation| {
            Value::int(i64::from(generation), span)
        }),
    );
    row.push("created_at", date(&created_at, span));
    row.push("updated_at", date(&updated_at, span));
    Value::record(row, span)
}

/// What `lf handoff open` returns: `{created, handoff}`.
pub fn handoff_opened(opened: HandoffOpened, span: Span) -> Value {
    let mut row = Record::with_capacity(2);
    row.push("created", Value::bool(opened.created, span));
    row.push("handoff", handoff(opened.handoff, span));
    Value::record(row, span)
}

/// One row of `lf handoffs`: the columns of `lf-handoff list` in wire
/// order, with `age_secs` as `age`, a duration; then, from the handoff's
/// record, why it was opened, where, and when (datetimes).
pub fn handoff_row(row: HandoffListRow, record: HandoffRecord, span: Span) -> Value {
    let HandoffListRow {
        session_id,
        parent_kind,
        parent_id,
        wave_id,
        status,
        home,
        provider,
        age_secs,
    } = row;
    let mut out = Record::with_capacity(13);
    out.push("session_id", Value::string(session_id, span));
    out.push("parent_kind", text(parent_kind.as_str(), span));
    out.push("parent_id", Value::string(parent_id, span));
    out.push("wave_id", optional(wave_id, span));
    out.push("status", text(status.as_str(), span));
    out.push("home", Value::string(home, span));
    out.push("provider", Value::string(provider, span));
    out.push("age", seconds(age_secs, span));
    out.push("reason", Value::string(record.reason, span));
    out.push("cwd", Value::string(record.cwd, span));
    out.push("created_at", date(&record.created_at, span));
    out.push("attached_at", optional_date(record.attached_at, span));
    out.push("finished_at", optional_date(record.finished_at, span));
    Value::record(out, span)
}

/// The live-process snapshot, with the columns of `ActiveSnapshot` in wire
/// order: `observed_at` is a datetime, `task` null or a Task id, `sessions`
/// a table whose `processes` is a table (pids are ints, `started_at` a
/// datetime), `gaps` a list of strings.
pub fn active(snapshot: ActiveSnapshot, span: Span) -> Value {
    let ActiveSnapshot {
        discovery,
        home,
        observed_at,
        task,
        sessions,
        gaps,
    } = snapshot;
    let mut row = Record::with_capacity(6);
    row.push("discovery", text(discovery_str(discovery), span));
    row.push("home", Value::string(home, span));
    row.push("observed_at", date(&observed_at, span));
    row.push("task", optional(task, span));
    row.push(
        "sessions",
        Value::list(
            sessions
                .into_iter()
                .map(|session| active_session(session, span))
                .collect(),
            span,
        ),
    );
    row.push("gaps", strings(gaps, span));
    Value::record(row, span)
}

fn active_session(session: ActiveSession, span: Span) -> Value {
    let ActiveSession {
        id,
        title,
        work,
        processes,
    } = session;
    let mut row = Record::with_capacity(4);
    row.push("id", Value::string(id, span));
    row.push("title", Value::string(title, span));
    row.push("work", self::work(work, span));
    row.push(
        "processes",
        Value::list(
            processes
                .into_iter()
                .map(|process| live_process(process, span))
                .collect(),
            span,
        ),
    );
    Value::record(row, span)
}

fn live_process(process: LiveProcess, span: Span) -> Value {
    let LiveProcess {
        pid,
        ppid,
        provider,
        command,
        started_at,
        state,
    } = process;
    let mut row = Record::with_capacity(6);
    row.push("pid", Value::int(i64::from(pid), span));
    row.push("ppid", Value::int(i64::from(ppid), span));
    row.push("provider", Value::string(provider, span));
    row.push("command", strings(command, span));
    row.push("started_at", date(&started_at, span));
    row.push("state", text(process_state_str(state), span));
    Value::record(row, span)
}

fn handoff_outcome(outcome: HandoffOutcome, span: Span) -> Value {
    let mut row = Record::with_capacity(2);
    row.push("kind", text(outcome.status().as_str(), span));
    match outcome {
        HandoffOutcome::HandedBack { summary } | HandoffOutcome::Completed { summary } => {
            row.push("summary", Value::string(summary, span));
        }
        HandoffOutcome::Failed { reason } => row.push("reason", Value::string(reason, span)),
    }
    Value::record(row, span)
}

/// Whole seconds as a Nushell duration (nanoseconds).
fn seconds(seconds: u64, span: Span) -> Value {
    let nanos = i64::try_from(seconds)
        .ok()
        .and_then(|seconds| seconds.checked_mul(1_000_000_000))
        .unwrap_or(i64::MAX);
    Value::duration(nanos, span)
}

fn action(action: SessionAction, span: Span) -> Value {
    let mut row = Record::with_capacity(4);
    row.push("kind", text(action_str(action.kind), span));
    row.push("label", Value::string(action.label, span));
    row.push("help", Value::string(action.help, span));
    row.push(
        "unavailable_reason",
        optional(action.unavailable_reason.map(String::from), span),
    );
    Value::record(row, span)
}

fn work(work: Option<WorkRef>, span: Span) -> Value {
    let (key, id) = match work {
        Some(WorkRef::Task(id)) => ("task", id),
        Some(WorkRef::Wave(id)) => ("wave", id),
        None => return Value::nothing(span),
    };
    let mut row = Record::with_capacity(1);
    row.push(key, Value::string(id, span));
    Value::record(row, span)
}

fn membership(membership: FlowMembership, span: Span) -> Value {
    let mut row = Record::new();
    match membership {
        FlowMembership::Step {
            flow,
            invocation_id,
            step,
            node,
            iterations,
            occurrence,
        } => {
            row.push("kind", text("step", span));
            row.push("flow", Value::string(flow, span));
            row.push("invocation_id", Value::string(invocation_id, span));
            row.push("step", Value::string(step, span));
            row.push(
                "node",
                node.map_or(Value::nothing(span), |node| {
                    Value::int(i64::from(node), span)
                }),
            );
            row.push(
                "iterations",
                iterations.map_or(Value::nothing(span), |iterations| {
                    let lists = iterations
                        .into_iter()
                        .map(|path| {
                            let items = path
                                .into_iter()
                                .map(|index| Value::int(i64::from(index), span))
                                .collect();
                            Value::list(items, span)
                        })
                        .collect();
                    Value::list(lists, span)
                }),
            );
            row.push("occurrence", text(occurrence_str(occurrence), span));
        }
        FlowMembership::Independent => row.push("kind", text("independent", span)),
        FlowMembership::Unknown { reason } => {
            row.push("kind", text("unknown", span));
            row.push("reason", Value::string(reason, span));
        }
    }
    Value::record(row, span)
}

fn workspace(workspace: Option<Workspace>, span: Span) -> Value {
    let Some(workspace) = workspace else {
        return Value::nothing(span);
    };
    let mut row = Record::with_capacity(2);
    row.push("task_id", Value::string(workspace.task_id, span));
    row.push("worktree", Value::string(workspace.worktree, span));
    Value::record(row, span)
}

/// An RFC 3339 time from the wire as a datetime. The library writes every
/// time itself, so a time that does not parse is a bug; it is shown as the
/// text it was rather than hidden.
fn date(rfc3339: &str, span: Span) -> Value {
    match chrono::DateTime::parse_from_rfc3339(rfc3339) {
        Ok(at) => Value::date(at, span),
        Err(_) => Value::string(rfc3339, span),
    }
}

fn optional_date(rfc3339: Option<String>, span: Span) -> Value {
    rfc3339.map_or(Value::nothing(span), |at| date(&at, span))
}

fn optional(value: Option<String>, span: Span) -> Value {
    value.map_or(Value::nothing(span), |value| Value::string(value, span))
}

fn strings(values: Vec<String>, span: Span) -> Value {
    Value::list(
        values
            .into_iter()
            .map(|value| Value::string(value, span))
            .collect(),
        span,
    )
}

fn text(value: &str, span: Span) -> Value {
    Value::string(value, span)
}

// The names below are the serde names of the wire enums; the end-to-end
// test that compares this plugin with `lf-session-list` field by field
// keeps them equal.

fn title_source_str(source: TitleSource) -> &'static str {
    match source {
        TitleSource::Human => "human",
        TitleSource::Generated => "generated",
    }
}

fn kind_str(kind: SessionKind) -> &'static str {
    kind.as_str()
}

fn state_str(state: SessionState) -> &'static str {
    state.as_str()
}

fn attention_str(attention: Attention) -> &'static str {
    attention.as_str()
}

fn action_str(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Open => "open",
        ActionKind::MoveHere => "move_here",
        ActionKind::Complete => "complete",
    }
}

fn discovery_str(discovery: Discovery) -> &'static str {
    match discovery {
        Discovery::Ready => "ready",
        Discovery::Unavailable => "unavailable",
    }
}

fn process_state_str(state: ProcessState) -> &'static str {
    match state {
        ProcessState::Running => "running",
        ProcessState::Waiting => "waiting",
    }
}

fn occurrence_str(occurrence: FlowOccurrence) -> &'static str {
    match occurrence {
        FlowOccurrence::Unknown => "unknown",
        FlowOccurrence::Current => "current",
        FlowOccurrence::Earlier => "earlier",
        FlowOccurrence::Past => "past",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lf::wire::FlowOccurrence;

    fn record() -> SessionRecord {
        serde_json::from_str(
            r#"{"id":"0123456789abcdef0123456789abcdef","title":"T","title_source":"human",
            "kind":"flow","interactive":false,"state":"waiting","attention":null,
            "actions":[{"kind":"move_here","label":"Move here","help":"h","unavailable_reason":null}],
            "ready_summary":null,"provider":null,"detail":"review","cwd":"/w","work":{"wave":"wave-1"},
            "wave_id":"wave-1","work_path":"w","task_ids":["task-1"],"primary_scope":null,
            "flow_membership":{"kind":"step","flow":"f","invocation_id":"i","step":"review","node":3,
            "iterations":[[1,2]],"occurrence":"current"},
            "workspace":{"task_id":"task-1","worktree":"/w"},"open_argv":["/usr/bin/env"],
            "terminal_ids":["%1"],"alive":true,"created_at":"2026-01-05T09:00:00.000000Z",
            "updated_at":"2026-01-05T09:00:00.500000Z","completed_at":null}"#,
        )
        .unwrap()
    }

    /// The keys of a JSON object, in the order they were written.
    struct Keys(Vec<String>);

    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(key) = map.next_key::<String>()? {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            deserializer.deserialize_map(Visitor)
        }
    }

    #[test]
    fn columns_follow_the_wire_in_order_and_names() {
        let record = record();
        let wire: Keys = serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
        let value = session(record, Span::test_data());
        let columns: Vec<&String> = value.as_record().unwrap().columns().collect();
        assert_eq!(columns, wire.0.iter().collect::<Vec<_>>());
    }

    #[test]
    fn enums_use_their_wire_names() {
        let record = record();
        let value = session(record, Span::test_data());
        let row = value.as_record().unwrap();
        let get = |name: &str| row.get(name).unwrap().clone();
        assert_eq!(get("kind").as_str().unwrap(), "flow");
        assert_eq!(
            get("actions").as_list().unwrap()[0]
                .as_record()
                .unwrap()
                .get("kind")
                .unwrap()
                .as_str()
                .unwrap(),
            "move_here"
        );
        let membership = get("flow_membership");
        let membership = membership.as_record().unwrap();
        assert_eq!(
            membership.get("occurrence").unwrap().as_str().unwrap(),
            "current"
        );
        assert_eq!(membership.get("node").unwrap().as_int().unwrap(), 3);
        assert!(get("attention").is_nothing());
        assert!(matches!(get("created_at"), Value::Date { .. }));
        for occurrence in [
            FlowOccurrence::Unknown,
            FlowOccurrence::Current,
            FlowOccurrence::Earlier,
            FlowOccurrence::Past,
        ] {
            assert_eq!(
                serde_json::to_value(occurrence).unwrap(),
                occurrence_str(occurrence)
            );
        }
        for kind in [ActionKind::Open, ActionKind::MoveHere, ActionKind::Complete] {
            assert_eq!(serde_json::to_value(kind).unwrap(), action_str(kind));
        }
        for source in [TitleSource::Human, TitleSource::Generated] {
            assert_eq!(
                serde_json::to_value(source).unwrap(),
                title_source_str(source)
            );
        }
    }

    fn wire_keys<T: serde::Serialize>(value: &T) -> Vec<String> {
        let keys: Keys = serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap();
        keys.0
    }

    fn columns(value: &Value) -> Vec<String> {
        value.as_record().unwrap().columns().cloned().collect()
    }

    fn handoff_record() -> HandoffRecord {
        serde_json::from_str(
            r#"{"id":"handoff-01kdw0000000000000000000h1","parent_kind":"task","parent_id":"task-1",
            "wave_id":null,"status":"failed","home":"/h","cwd":"/w","provider":"codex",
            "provider_session_id":"t","body_generation":4,"reason":"login","environment_names":["A"],
            "attach_argv":["tmux"],"attached_at":"2026-01-05T09:00:00.000000Z",
            "outcome":{"kind":"failed","reason":"gone"},"finished_at":"2026-01-05T10:00:00.000000Z",
            "wake_claimed_by_generation":5,"created_at":"2026-01-05T08:00:00.000000Z",
            "updated_at":"2026-01-05T10:00:00.000000Z"}"#,
        )
        .unwrap()
    }

    #[test]
    fn flows_and_handoffs_follow_the_wire() {
        let record = handoff_record();
        let value = handoff(record.clone(), Span::test_data());
        assert_eq!(columns(&value), wire_keys(&record));
        let row = value.as_record().unwrap();
        for time in ["attached_at", "finished_at", "created_at", "updated_at"] {
            assert!(matches!(row.get(time), Some(Value::Date { .. })), "{time}");
        }
        assert_eq!(row.get("body_generation").unwrap().as_int().unwrap(), 4);
        assert_eq!(
            row.get("wake_claimed_by_generation")
                .unwrap()
                .as_int()
                .unwrap(),
            5
        );
        assert!(row.get("wave_id").unwrap().is_nothing());
        for outcome in [
            HandoffOutcome::HandedBack {
                summary: "s".into(),
            },
            HandoffOutcome::Completed {
                summary: "s".into(),
            },
            HandoffOutcome::Failed { reason: "r".into() },
        ] {
            let value = handoff_outcome(outcome.clone(), Span::test_data());
            assert_eq!(columns(&value), wire_keys(&outcome));
            assert_eq!(
                value
                    .as_record()
                    .unwrap()
                    .get("kind")
                    .unwrap()
                    .as_str()
                    .unwrap(),
                serde_json::to_value(&outcome).unwrap()["kind"]
            );
        }
        let opened = HandoffOpened {
            created: true,
            handoff: record,
        };
        assert_eq!(
            columns(&handoff_opened(opened.clone(), Span::test_data())),
            wire_keys(&opened)
        );

        let flow_record = FlowRecord {
            invocation_id: "inv-7".into(),
            flow: "feature".into(),
            task_id: None,
            finished: false,
            pending_session_id: Some("s".into()),
        };
        let value = flow(flow_record.clone(), Span::test_data());
        assert_eq!(columns(&value), wire_keys(&flow_record));
        assert!(
            value
                .as_record()
                .unwrap()
                .get("task_id")
                .unwrap()
                .is_nothing()
        );

        let done = ReviewFeedback {
            session_id: "s".into(),
            status: "completed".into(),
            feedback: Some("ok".into()),
            completed_at: Some("2026-01-05T10:00:00.000000Z".into()),
        };
        let value = feedback(done.clone(), Span::test_data());
        assert_eq!(columns(&value), wire_keys(&done));
        assert!(matches!(
            value.as_record().unwrap().get("completed_at"),
            Some(Value::Date { .. })
        ));
    }

    #[test]
    fn a_handoff_row_is_the_list_row_with_age_as_a_duration() {
        let row = HandoffListRow {
            session_id: "handoff-1".into(),
            parent_kind: lf::wire::HandoffParentKind::Wave,
            parent_id: "wave-1".into(),
            wave_id: Some("wave-1".into()),
            status: lf::wire::HandoffStatus::Waiting,
            home: "/h".into(),
            provider: "claude".into(),
            age_secs: 90,
        };
        let value = handoff_row(row.clone(), handoff_record(), Span::test_data());
        let wire: Vec<String> = wire_keys(&row)
            .into_iter()
            .map(|key| if key == "age_secs" { "age".into() } else { key })
            .collect();
        assert_eq!(columns(&value)[..wire.len()], wire[..]);
        let age = value.as_record().unwrap().get("age").unwrap().clone();
        assert_eq!(age, Value::test_duration(90_000_000_000));
        assert_eq!(
            seconds(u64::MAX, Span::test_data()),
            Value::test_duration(i64::MAX)
        );
    }

    #[test]
    fn the_active_snapshot_follows_the_wire() {
        let fixture = include_str!("../../tests/fixtures/active.json");
        let snapshot: ActiveSnapshot = serde_json::from_str(fixture).unwrap();
        let value = active(snapshot.clone(), Span::test_data());
        assert_eq!(columns(&value), wire_keys(&snapshot));
        let row = value.as_record().unwrap();
        assert!(matches!(row.get("observed_at"), Some(Value::Date { .. })));
        assert_eq!(row.get("discovery").unwrap().as_str().unwrap(), "ready");
        assert!(row.get("task").unwrap().is_nothing());
        let sessions = row.get("sessions").unwrap().as_list().unwrap();
        assert_eq!(sessions.len(), snapshot.sessions.len());
        for (value, session) in sessions.iter().zip(&snapshot.sessions) {
            assert_eq!(columns(value), wire_keys(session));
            let processes = value
                .as_record()
                .unwrap()
                .get("processes")
                .unwrap()
                .as_list()
                .unwrap();
            for (value, process) in processes.iter().zip(&session.processes) {
                assert_eq!(columns(value), wire_keys(process));
                let row = value.as_record().unwrap();
                assert_eq!(
                    row.get("pid").unwrap().as_int().unwrap(),
                    i64::from(process.pid)
                );
                assert!(matches!(row.get("started_at"), Some(Value::Date { .. })));
                assert_eq!(
                    row.get("state").unwrap().as_str().unwrap(),
                    serde_json::to_value(process.state).unwrap()
                );
            }
        }
        for discovery in [Discovery::Ready, Discovery::Unavailable] {
            assert_eq!(
                serde_json::to_value(discovery).unwrap(),
                discovery_str(discovery)
            );
        }
    }
}
