//! The JSON contract. The fixtures under `tests/fixtures/` round-trip
//! exactly through the library's wire types, the schema in
//! `schema/session-record.schema.json` lists exactly the keys those types
//! serialise and exactly the values of their enums, and every fixture is
//! valid by the schema (checked by the small validator in `schema.rs`,
//! which refuses any keyword it does not implement).

use crate::schema::*;
use crate::util::Env;
use lf::state;
use lf::wire::{
    ActionKind, Attention, FlowMembership, FlowOccurrence, SessionBindingPreview, SessionKind,
    SessionPage, SessionRecord, SessionState, TitleSource, WorkRef, Workspace,
};
use serde_json::Value;
use std::collections::BTreeSet;

fn schema() -> Value {
    read_json("schema/session-record.schema.json")
}

/// Every record in every fixture, decoded, with where it came from.
fn fixture_records() -> Vec<(String, SessionRecord)> {
    let mut records = vec![(
        "session.json".to_owned(),
        serde_json::from_value(fixture("session.json")).unwrap(),
    )];
    let list: Vec<SessionRecord> = serde_json::from_value(fixture("sessions.json")).unwrap();
    let page: SessionPage = serde_json::from_value(fixture("session_page.json")).unwrap();
    for (name, list) in [("sessions.json", list), ("session_page.json", page.entries)] {
        for (index, record) in list.into_iter().enumerate() {
            records.push((format!("{name}[{index}]"), record));
        }
    }
    records
}

/// A record with every optional value present.
fn full_record() -> SessionRecord {
    let id = "0123456789abcdef0123456789abcdef".to_owned();
    let task = "task-01kqpt849vf8y8dfxm5see3ewd".to_owned();
    let wave = "wave-01kywrwt966ckfqfhwbpjahzx0".to_owned();
    SessionRecord {
        id: id.clone(),
        title: "Rewrite the parser".to_owned(),
        title_source: TitleSource::Human,
        kind: SessionKind::Flow,
        interactive: true,
        state: SessionState::Ready,
        attention: Some(Attention::Review),
        attention_since: lf::clock::Timestamp::parse("2026-11-28T22:18:31.123456Z"),
        attention_request: Some(lf::wire::AttentionRequest {
            id: "req-01kywrwt966ckfqfhwbpjahzx0".to_owned(),
            tool: Some("Bash".to_owned()),
            input: Some("git push --force-with-lease origin feature".to_owned()),
            cwd: "/src/app-loo-291".to_owned(),
            since: lf::clock::Timestamp::parse("2026-11-28T22:18:31.123456Z").unwrap(),
        }),
        actions: state::actions(&id, SessionKind::Flow, SessionState::Ready, None),
        ready_summary: Some("Done".to_owned()),
        provider: Some("claude".to_owned()),
        detail: "review-design".to_owned(),
        cwd: "/src/app-loo-291".to_owned(),
        work: Some(WorkRef::Task(task.clone())),
        wave_id: Some(wave),
        work_path: Some("product / LOO-291".to_owned()),
        task_ids: vec![task.clone()],
        primary_scope: Some("repository:/src/app".to_owned()),
        flow_membership: FlowMembership::Step {
            flow: "feature".to_owned(),
            invocation_id: "inv-1".to_owned(),
            step: "review-design".to_owned(),
            node: Some(3),
            iterations: Some(vec![vec![5], vec![2]]),
            occurrence: FlowOccurrence::Current,
        },
        workspace: Some(Workspace {
            home_id: None,
            task_id: Some(task),
            worktree: Some("/src/app-loo-291".to_owned()),
            unavailable: None,
        }),
        open_argv: vec![
            "/usr/bin/env".to_owned(),
            "LF_HOME=/home/ada/.local/state/loopflow".to_owned(),
            "/usr/local/bin/lf-session-open".to_owned(),
            id,
        ],
        terminal_ids: vec!["%12".to_owned()],
        alive: true,
        lost: Some(lf::wire::LostReason::Terminal),
        created_at: lf::clock::Timestamp::parse("2026-11-28T22:18:31.123456Z").unwrap(),
        updated_at: lf::clock::Timestamp::parse("2026-11-28T22:19:00.000000Z").unwrap(),
        completed_at: Some(lf::clock::Timestamp::parse("2026-11-28T23:00:00.000000Z").unwrap()),
    }
}

/// The same record with every optional value absent.
fn sparse_record() -> SessionRecord {
    SessionRecord {
        kind: SessionKind::Conversation,
        state: SessionState::Unknown,
        attention: None,
        actions: state::actions(
            "0123456789abcdef0123456789abcdef",
            SessionKind::Conversation,
            SessionState::Unknown,
            None,
        ),
        ready_summary: None,
        provider: None,
        work: None,
        wave_id: None,
        work_path: None,
        task_ids: vec![],
        primary_scope: None,
        flow_membership: FlowMembership::Independent,
        workspace: None,
        terminal_ids: vec![],
        alive: false,
        lost: None,
        completed_at: None,
        ..full_record()
    }
}

fn without(value: &Value, key: &str) -> Value {
    let mut value = value.clone();
    let removed = value.as_object_mut().unwrap().remove(key);
    assert!(removed.is_some(), "the fixture has no key {key}");
    value
}

// ---------------------------------------------------------------------------
// Round trips and required keys.

#[test]
fn fixtures_round_trip_exactly() {
    round_trip::<SessionRecord>("session.json", &fixture("session.json"));
    let list = round_trip::<Vec<SessionRecord>>("sessions.json", &fixture("sessions.json"));
    assert!(!list.is_empty());
    let page = round_trip::<SessionPage>("session_page.json", &fixture("session_page.json"));
    assert!(
        page.next.is_some(),
        "the page fixture shows a continuing page"
    );
    round_trip::<SessionBindingPreview>(
        "session_binding_preview.json",
        &fixture("session_binding_preview.json"),
    );
    for record in [full_record(), sparse_record()] {
        round_trip::<SessionRecord>("a built record", &to_value(&record));
    }
}

#[test]
fn decoding_fails_without_a_required_key() {
    let record = fixture("session.json");
    for key in ["id", "title_source", "flow_membership"] {
        let result = serde_json::from_value::<SessionRecord>(without(&record, key));
        assert!(result.is_err(), "a record without {key} decoded");
    }
    let page = fixture("session_page.json");
    assert!(
        serde_json::from_value::<SessionPage>(without(&page, "entries")).is_err(),
        "a page without entries decoded"
    );
    let preview = fixture("session_binding_preview.json");
    for key in ["session_id", "task_id", "identifier", "title"] {
        let result = serde_json::from_value::<SessionBindingPreview>(without(&preview, key));
        assert!(result.is_err(), "a binding preview without {key} decoded");
    }
    // Membership is tagged: a variant without its tag is not a membership.
    let mut untagged = record.clone();
    untagged["flow_membership"] = serde_json::json!({});
    assert!(serde_json::from_value::<SessionRecord>(untagged).is_err());
}

// ---------------------------------------------------------------------------
// What the wire never carries, and what it always derives.

/// Every object key in `value`, at any depth.
fn all_keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                out.push(key.clone());
                all_keys(value, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| all_keys(item, out)),
        _ => {}
    }
}

/// Every string in `value`, at any depth.
fn all_strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => out.push(text),
        Value::Object(map) => map.values().for_each(|value| all_strings(value, out)),
        Value::Array(items) => items.iter().for_each(|item| all_strings(item, out)),
        _ => {}
    }
}

#[test]
fn no_run_id_is_on_the_wire() {
    let mut records: Vec<(String, Value)> = fixture_records()
        .into_iter()
        .map(|(name, record)| (name, to_value(&record)))
        .collect();
    records.push(("a full record".to_owned(), to_value(&full_record())));
    records.push(("a sparse record".to_owned(), to_value(&sparse_record())));
    for (name, value) in &records {
        let mut keys = vec![];
        all_keys(value, &mut keys);
        for key in keys {
            assert!(
                key != "run_id" && !key.ends_with("_run_id"),
                "{name} has a key {key}"
            );
        }
        let mut strings = vec![];
        all_strings(value, &mut strings);
        for text in strings {
            assert!(
                lf::ids::RunId::parse(text).is_err(),
                "{name} carries a Run id: {text}"
            );
        }
    }
}

#[test]
fn fixture_actions_are_what_the_rules_say() {
    for (name, record) in fixture_records() {
        assert_eq!(
            record.actions,
            state::actions(
                &record.id,
                record.kind,
                record.state,
                record.completed_at.map(|at| at.micros())
            ),
            "{name}: actions differ from state::actions({:?}, {:?})",
            record.kind,
            record.state
        );
    }
}

#[test]
fn the_fixture_list_covers_every_variant() {
    let list: Vec<SessionRecord> = serde_json::from_value(fixture("sessions.json")).unwrap();
    let values = |pick: &dyn Fn(&SessionRecord) -> Value| -> BTreeSet<String> {
        list.iter().map(|record| pick(record).to_string()).collect()
    };
    let expect = |what: &str, seen: BTreeSet<String>, all: Vec<Value>| {
        let all: BTreeSet<String> = all.iter().map(Value::to_string).collect();
        assert_eq!(seen, all, "sessions.json does not show every {what}");
    };
    expect(
        "state",
        values(&|record| to_value(&record.state)),
        SessionState::ALL.iter().map(to_value).collect(),
    );
    expect(
        "attention",
        values(&|record| to_value(&record.attention)),
        every_attention().iter().map(to_value).collect(),
    );
    expect(
        "kind",
        values(&|record| to_value(&record.kind)),
        SessionKind::ALL.iter().map(to_value).collect(),
    );
    expect(
        "flow_membership kind",
        values(&|record| to_value(&record.flow_membership)["kind"].clone()),
        ["step", "independent", "unknown"].map(Value::from).to_vec(),
    );
    let steps: Vec<_> = list
        .iter()
        .filter_map(|record| match &record.flow_membership {
            FlowMembership::Step {
                node,
                iterations,
                occurrence,
                ..
            } => Some((node.is_none() && iterations.is_none(), *occurrence)),
            _ => None,
        })
        .collect();
    expect(
        "occurrence",
        steps.iter().map(|(_, o)| to_value(o).to_string()).collect(),
        every_occurrence().iter().map(to_value).collect(),
    );
    assert!(
        steps.iter().any(|(unrecorded, _)| *unrecorded),
        "sessions.json has no step with node and iterations null"
    );
    let works = values(&|record| match &record.work {
        None => Value::Null,
        Some(work) => Value::from(object(&to_value(work)).keys().next().unwrap().clone()),
    });
    expect(
        "work",
        works,
        vec![Value::Null, "task".into(), "wave".into()],
    );
}

#[test]
fn the_page_cursor_names_its_last_entry() {
    let page: SessionPage = serde_json::from_value(fixture("session_page.json")).unwrap();
    let last = page.entries.last().expect("the page has entries");
    let next = page.next.expect("the page continues");
    let (micros, id) = next.split_once('.').expect("a cursor is <micros>.<id>");
    assert_eq!(id, last.id);
    let micros: i64 = micros.parse().expect("the cursor's time is an integer");
    assert_eq!(lf::clock::Timestamp(micros), last.created_at);
}

// ---------------------------------------------------------------------------
// The schema and the types agree.

fn every_attention() -> Vec<Option<Attention>> {
    // A new variant must be added here (the match stops compiling) and so
    // to the schema, which the tests below then compare.
    let all = [Attention::Review, Attention::Approve, Attention::Reply];
    for attention in all {
        match attention {
            Attention::Review | Attention::Approve | Attention::Reply => {}
        }
    }
    let mut values: Vec<_> = all.into_iter().map(Some).collect();
    values.push(None);
    values
}

fn every_title_source() -> Vec<TitleSource> {
    let all = [TitleSource::Human, TitleSource::Generated];
    for source in all {
        match source {
            TitleSource::Human | TitleSource::Generated => {}
        }
    }
    all.to_vec()
}

fn every_action_kind() -> Vec<ActionKind> {
    let all = [ActionKind::Open, ActionKind::MoveHere, ActionKind::Complete];
    for kind in all {
        match kind {
            ActionKind::Open | ActionKind::MoveHere | ActionKind::Complete => {}
        }
    }
    all.to_vec()
}

fn every_occurrence() -> Vec<FlowOccurrence> {
    let all = [
        FlowOccurrence::Unknown,
        FlowOccurrence::Current,
        FlowOccurrence::Earlier,
        FlowOccurrence::Past,
    ];
    for occurrence in all {
        match occurrence {
            FlowOccurrence::Unknown
            | FlowOccurrence::Current
            | FlowOccurrence::Earlier
            | FlowOccurrence::Past => {}
        }
    }
    all.to_vec()
}

/// Every variant of every membership, so each branch of the schema is checked.
fn every_membership() -> Vec<FlowMembership> {
    let all = vec![
        FlowMembership::Step {
            flow: "feature".to_owned(),
            invocation_id: "inv-1".to_owned(),
            step: "review-design".to_owned(),
            node: None,
            iterations: None,
            occurrence: FlowOccurrence::Unknown,
        },
        FlowMembership::Independent,
        FlowMembership::Unknown {
            reason: "Flow membership was not recorded".to_owned(),
        },
    ];
    for membership in &all {
        match membership {
            FlowMembership::Step { .. }
            | FlowMembership::Independent
            | FlowMembership::Unknown { .. } => {}
        }
    }
    all
}

/// The `oneOf` branch of an object union whose `kind` is this constant.
fn branch<'a>(union: &'a Value, kind: &str) -> &'a Value {
    union["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|branch| branch["properties"]["kind"]["const"] == kind)
        .unwrap_or_else(|| panic!("the schema has no branch with kind {kind}"))
}

#[test]
fn the_schema_lists_exactly_the_serialised_keys() {
    let schema = schema();
    let full = to_value(&full_record());
    assert_keys_match("SessionRecord", &full, &schema);
    assert_eq!(
        keys(&to_value(&sparse_record())),
        keys(&full),
        "a record without optional values must still have every key"
    );
    for record in fixture_records().into_iter().map(|(_, record)| record) {
        assert_eq!(keys(&to_value(&record)), keys(&full));
    }

    let action = to_value(
        &state::actions(
            "0123456789abcdef0123456789abcdef",
            SessionKind::Conversation,
            SessionState::Active,
            None,
        )[0],
    );
    assert_keys_match("SessionAction", &action, def(&schema, "SessionAction"));
    assert_keys_match(
        "Workspace",
        &to_value(&full_record().workspace),
        def(&schema, "Workspace"),
    );
    for membership in every_membership() {
        let value = to_value(&membership);
        let kind = value["kind"].as_str().unwrap().to_owned();
        assert_keys_match(
            &format!("FlowMembership {kind}"),
            &value,
            branch(def(&schema, "FlowMembership"), &kind),
        );
    }
    let union = def(&schema, "FlowMembership")["oneOf"].as_array().unwrap();
    assert_eq!(
        union.len(),
        every_membership().len(),
        "FlowMembership branches"
    );
    let works = def(&schema, "WorkRef")["oneOf"].as_array().unwrap();
    let mut work_keys: Vec<BTreeSet<String>> = works.iter().map(|w| declared(w).1).collect();
    work_keys.sort();
    let mut serialised: Vec<BTreeSet<String>> =
        [WorkRef::Task("t".into()), WorkRef::Wave("w".into())]
            .iter()
            .map(|work| keys(&to_value(work)))
            .collect();
    serialised.sort();
    assert_eq!(work_keys, serialised, "WorkRef branches");
    for work in works {
        let (properties, required) = declared(work);
        assert_eq!(properties, required);
        assert_eq!(work["additionalProperties"], Value::Bool(false));
    }

    let page = to_value(&SessionPage {
        entries: vec![full_record()],
        next: None,
    });
    assert_keys_match("SessionPage", &page, def(&schema, "SessionPage"));
    let preview = fixture("session_binding_preview.json");
    let preview = to_value(&serde_json::from_value::<SessionBindingPreview>(preview).unwrap());
    assert_keys_match(
        "SessionBindingPreview",
        &preview,
        def(&schema, "SessionBindingPreview"),
    );
}

/// The schema's `enum` list at `pointer`.
fn schema_enum(schema: &Value, pointer: &str) -> Vec<Value> {
    schema
        .pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("the schema has no enum at {pointer}"))
        .clone()
}

#[test]
fn the_schema_enums_are_exactly_the_serialised_values() {
    let schema = schema();
    let check = |pointer: &str, values: Vec<Value>| {
        assert_eq!(
            schema_enum(&schema, pointer),
            values,
            "the enum at {pointer} (left) is not what the type serialises (right)"
        );
    };
    check(
        "/$defs/SessionState/enum",
        SessionState::ALL.iter().map(to_value).collect(),
    );
    check(
        "/$defs/SessionKind/enum",
        SessionKind::ALL.iter().map(to_value).collect(),
    );
    check(
        "/$defs/TitleSource/enum",
        every_title_source().iter().map(to_value).collect(),
    );
    check(
        "/properties/attention/enum",
        every_attention().iter().map(to_value).collect(),
    );
    check(
        "/$defs/SessionAction/properties/kind/enum",
        every_action_kind().iter().map(to_value).collect(),
    );
    check(
        "/$defs/FlowOccurrence/enum",
        every_occurrence().iter().map(to_value).collect(),
    );
    check(
        "/$defs/LostReason/enum",
        lf::wire::LostReason::ALL.iter().map(to_value).collect(),
    );
    // Every shape that names a provider names exactly lf's providers.
    let providers: Vec<Value> = lf::provider::Provider::NAMES
        .iter()
        .map(|name| Value::from(*name))
        .collect();
    let with_null = || providers.iter().cloned().chain([Value::Null]).collect();
    check("/properties/provider/enum", with_null());
    for (file, pointer, values) in [
        (
            "schema/restore.schema.json",
            "/properties/provider/enum",
            with_null(),
        ),
        (
            "schema/handoff.schema.json",
            "/properties/provider/enum",
            providers.clone(),
        ),
        (
            "schema/handoff.schema.json",
            "/$defs/HandoffListRow/properties/provider/enum",
            providers.clone(),
        ),
        (
            "schema/active.schema.json",
            "/$defs/LiveProcess/properties/provider/enum",
            providers.clone(),
        ),
    ] {
        assert_eq!(
            schema_enum(&read_json(file), pointer),
            values,
            "{file}: the providers at {pointer}"
        );
    }
    // The wire's own names for them agree with serde's.
    for state in SessionState::ALL {
        assert_eq!(to_value(&state), state.as_str());
    }
    for kind in SessionKind::ALL {
        assert_eq!(to_value(&kind), kind.as_str());
    }
    for attention in every_attention().into_iter().flatten() {
        assert_eq!(to_value(&attention), attention.as_str());
    }
}

#[test]
fn every_object_in_the_schema_requires_all_its_properties() {
    fn walk(pointer: String, value: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(properties) = map.get("properties") {
                    let (properties_keys, required) = declared(value);
                    assert_eq!(
                        properties_keys, required,
                        "{pointer}: every property is required (null stands for unknown)"
                    );
                    assert_eq!(
                        map.get("additionalProperties"),
                        Some(&Value::Bool(false)),
                        "{pointer}: additional properties are allowed"
                    );
                    assert!(properties.is_object());
                }
                for (key, value) in map {
                    walk(format!("{pointer}/{key}"), value);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(format!("{pointer}/{index}"), item);
                }
            }
            _ => {}
        }
    }
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    walk(String::new(), &schema);
}

#[test]
fn fixtures_are_valid_by_the_schema() {
    let schema = schema();
    let record_schema = &schema;
    let check = |name: &str, value: &Value, at: &Value| {
        if let Err(error) = validate(&schema, at, value, "") {
            panic!("{name} is not valid by the schema: {error}");
        }
    };
    check("session.json", &fixture("session.json"), record_schema);
    for (index, record) in fixture("sessions.json")
        .as_array()
        .expect("sessions.json is an array")
        .iter()
        .enumerate()
    {
        check(&format!("sessions.json[{index}]"), record, record_schema);
    }
    check(
        "session_page.json",
        &fixture("session_page.json"),
        def(&schema, "SessionPage"),
    );
    check(
        "session_binding_preview.json",
        &fixture("session_binding_preview.json"),
        def(&schema, "SessionBindingPreview"),
    );
    check("a full record", &to_value(&full_record()), record_schema);
    check(
        "a sparse record",
        &to_value(&sparse_record()),
        record_schema,
    );
    for membership in every_membership() {
        let record = SessionRecord {
            flow_membership: membership,
            ..full_record()
        };
        check(
            "a record of each membership",
            &to_value(&record),
            record_schema,
        );
    }
}

/// A change that makes a record break the contract.
type Mutation = Box<dyn Fn(&mut Value)>;

#[test]
fn the_schema_rejects_what_the_contract_forbids() {
    let schema = schema();
    let record = fixture("session.json");
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "an unknown state",
            Box::new(|r| r["state"] = "sleeping".into()),
        ),
        (
            "an unknown attention",
            Box::new(|r| r["attention"] = "later".into()),
        ),
        ("an unknown kind", Box::new(|r| r["kind"] = "batch".into())),
        (
            "an unknown title source",
            Box::new(|r| r["title_source"] = "agent".into()),
        ),
        (
            "an unknown action",
            Box::new(|r| r["actions"][0]["kind"] = "delete".into()),
        ),
        (
            "an extra key",
            Box::new(|r| r["run_id"] = "run-01kqpt849vf8y8dfxm5see3ewd".into()),
        ),
        (
            "a missing nullable key",
            Box::new(|r| {
                r.as_object_mut().unwrap().remove("attention");
            }),
        ),
        (
            "an uppercase id",
            Box::new(|r| r["id"] = "011BE24092FB22F338F75FAE3C6833C2".into()),
        ),
        ("a short id", Box::new(|r| r["id"] = "011be240".into())),
        (
            "work with both task and wave",
            Box::new(|r| {
                r["work"]["wave"] = "wave-01kywrwt966ckfqfhwbpjahzx0".into();
            }),
        ),
        (
            "work naming a wave id as a task",
            Box::new(|r| {
                r["work"] = serde_json::json!({"task": "wave-01kywrwt966ckfqfhwbpjahzx0"});
            }),
        ),
        (
            "a task id with a letter outside base32",
            Box::new(|r| {
                r["task_ids"][0] = "task-01kqpt849vf8y8dfxm5see3ewu".into();
            }),
        ),
        (
            "an untagged membership",
            Box::new(|r| r["flow_membership"] = serde_json::json!({})),
        ),
        (
            "a step without its fields",
            Box::new(|r| {
                r["flow_membership"] = serde_json::json!({"kind": "step"});
            }),
        ),
        (
            "an unknown occurrence",
            Box::new(|r| {
                r["flow_membership"] = serde_json::json!({
                    "kind": "step", "flow": "f", "invocation_id": "i", "step": "s",
                    "node": 1, "iterations": [[1]], "occurrence": "later"
                });
            }),
        ),
        (
            "a negative node",
            Box::new(|r| {
                r["flow_membership"] = serde_json::json!({
                    "kind": "step", "flow": "f", "invocation_id": "i", "step": "s",
                    "node": -1, "iterations": null, "occurrence": "past"
                });
            }),
        ),
        (
            "a time without microseconds",
            Box::new(|r| r["created_at"] = "2026-11-29T23:26:59Z".into()),
        ),
        (
            "a time with an offset",
            Box::new(|r| {
                r["updated_at"] = "2026-11-29T23:26:59.000000+01:00".into();
            }),
        ),
        (
            "a string for a boolean",
            Box::new(|r| r["interactive"] = "yes".into()),
        ),
        (
            "an empty open_argv",
            Box::new(|r| r["open_argv"] = serde_json::json!([])),
        ),
    ];
    for (what, mutate) in mutations {
        let mut value = record.clone();
        mutate(&mut value);
        assert!(
            validate(&schema, &schema, &value, "").is_err(),
            "the schema accepts a record with {what}"
        );
    }
    let page = def(&schema, "SessionPage");
    let mut bad_cursor = fixture("session_page.json");
    bad_cursor["next"] = "42".into();
    assert!(validate(&schema, page, &bad_cursor, "").is_err());
    let mut bad_entry = fixture("session_page.json");
    bad_entry["entries"][0]["state"] = "sleeping".into();
    assert!(validate(&schema, page, &bad_entry, "").is_err());
}

// ---------------------------------------------------------------------------
// A small JSON Schema validator: just the keywords this schema uses. Any
// other keyword is an error, so the schema cannot grow a constraint that no
// test checks. `pattern` is checked by the Rust function that implements
// each pattern the schema uses (the library's own id parsers where it has
// them); a new pattern must be taught here.

/// The binaries write JSON with sonic-rs for speed; it must write exactly
/// the bytes serde_json writes, escapes included (a summary may hold any
/// printable text, newlines and tabs).
#[test]
fn the_binaries_write_the_bytes_serde_json_writes() {
    let env = Env::new();
    let summary = "Line one\n\tTabbed \"quoted\" \\ back/slash — ü 😀 \u{2028} <end>";
    let record = env.new_session(&["--title", "Ünïcode \"title\" / 😀"]);
    let mut ready = env.command("lf-session-ready");
    ready
        .env("LF_SESSION_ID", &record.id)
        .env("LF_RUN_ID", env.current_run(&record.id))
        .arg(summary);
    env.run_command(ready).ok();
    env.new_session(&["--provider", "command", "--", "htop", "-d", "10"]);
    let listed = env.run("lf-session-list", &[]);
    let lines: Vec<&str> = listed.ok().stdout.lines().collect();
    assert_eq!((lines[0], lines[lines.len() - 1]), ("[", "]"));
    let records: Vec<SessionRecord> = listed.json();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].ready_summary.as_deref(), Some(summary));
    for (line, record) in lines[1..lines.len() - 1].iter().zip(&records) {
        let expected = serde_json::to_string(record).unwrap();
        assert_eq!(line.trim_end_matches(','), expected);
    }
    let shown = env.run("lf-session-list", &["--jsonl"]);
    for (line, record) in shown.ok().stdout.lines().zip(&records) {
        assert_eq!(line, serde_json::to_string(record).unwrap());
    }
}
