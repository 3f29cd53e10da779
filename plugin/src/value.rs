//! The wire as Nushell values. Columns keep the names and the order of
//! `lf::wire` (the JSON every binary prints), but their types are Nushell's
//! own: times are datetimes, absent values are `null`, nested objects are
//! records and arrays are lists, so `where attention != null` and
//! `sort-by updated_at` work as written. This lives in the plugin, not in
//! the library, because only the plugin speaks Nushell.

use lf::wire::{
    ActionKind, Attention, FlowMembership, FlowOccurrence, SessionAction, SessionBindingPreview,
    SessionKind, SessionRecord, SessionState, TaskRecord, TitleSource, WaveRecord, WorkRef,
    Workspace,
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
        created_at,
        updated_at,
        completed_at,
    } = record;
    let mut row = Record::with_capacity(24);
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

fn action(action: SessionAction, span: Span) -> Value {
    let mut row = Record::with_capacity(4);
    row.push("kind", text(action_str(action.kind), span));
    row.push("label", Value::string(action.label, span));
    row.push("help", Value::string(action.help, span));
    row.push(
        "unavailable_reason",
        optional(action.unavailable_reason, span),
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
            "terminal_ids":["%1"],"created_at":"2026-01-05T09:00:00.000000Z",
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
}
