//! Helpers for the JSON-contract tests of every wire shape: reading the
//! fixtures and schemas, exact round trips, key comparisons, and a small
//! JSON Schema validator that refuses any keyword or pattern it does not
//! implement (so a schema can never silently use something unchecked).

use lf::ids::{SessionId, TaskId, WaveId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Keywords that only document.
pub const ANNOTATIONS: &[&str] = &["$schema", "$defs", "title", "description", "format"];

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_owned()
}

pub fn read_json(relative: &str) -> Value {
    let path = root().join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

pub fn fixture(name: &str) -> Value {
    read_json(&format!("tests/fixtures/{name}"))
}

pub fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialise")
}

/// Decode `value` as `T`, re-serialise it and require the very same JSON.
pub fn round_trip<T: DeserializeOwned + Serialize>(name: &str, value: &Value) -> T {
    let decoded: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|error| panic!("{name} does not decode: {error}"));
    let again = to_value(&decoded);
    if let Some(difference) = difference(value, &again, "") {
        panic!("{name} does not re-serialise to the same JSON: {difference}");
    }
    decoded
}

/// Where `after` first differs from `before`, if it does.
pub fn difference(before: &Value, after: &Value, at: &str) -> Option<String> {
    let place = if at.is_empty() { "/" } else { at };
    match (before, after) {
        (Value::Object(before), Value::Object(after)) => {
            if let Some(key) = before.keys().find(|key| !after.contains_key(*key)) {
                return Some(format!("{place}: the key {key} is dropped"));
            }
            if let Some(key) = after.keys().find(|key| !before.contains_key(*key)) {
                return Some(format!("{place}: the key {key} is added"));
            }
            before
                .iter()
                .find_map(|(key, value)| difference(value, &after[key], &format!("{at}/{key}")))
        }
        (Value::Array(before), Value::Array(after)) if before.len() == after.len() => before
            .iter()
            .zip(after)
            .enumerate()
            .find_map(|(index, (b, a))| difference(b, a, &format!("{at}/{index}"))),
        _ if before == after => None,
        _ => Some(format!("{place}: {before} becomes {after}")),
    }
}

pub fn object(value: &Value) -> &Map<String, Value> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not a JSON object: {value}"))
}

pub fn keys(value: &Value) -> BTreeSet<String> {
    object(value).keys().cloned().collect()
}

/// Follow a local `$ref` ("#" or "#/$defs/Name").
pub fn resolve<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference
        .strip_prefix('#')
        .unwrap_or_else(|| panic!("only local references are supported: {reference}"));
    root.pointer(pointer)
        .unwrap_or_else(|| panic!("the schema has no {reference}"))
}

pub fn def<'a>(root: &'a Value, name: &str) -> &'a Value {
    resolve(root, &format!("#/$defs/{name}"))
}

/// The schema's `properties` keys and `required` list of an object schema.
pub fn declared(schema: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let properties = keys(&schema["properties"]);
    let required: BTreeSet<String> = schema["required"]
        .as_array()
        .expect("a required list")
        .iter()
        .map(|key| key.as_str().unwrap().to_owned())
        .collect();
    (properties, required)
}

pub fn assert_keys_match(what: &str, serialised: &Value, schema: &Value) {
    let (properties, required) = declared(schema);
    let keys = keys(serialised);
    assert_eq!(
        keys, properties,
        "{what}: the serialised keys (left) and the schema's properties (right) differ"
    );
    assert_eq!(
        keys, required,
        "{what}: the serialised keys (left) and the schema's required list (right) differ"
    );
    assert_eq!(
        schema["additionalProperties"],
        Value::Bool(false),
        "{what}: the schema allows additional properties"
    );
}

pub fn pattern_matches(pattern: &str, text: &str) -> bool {
    let timestamp = |text: &str| {
        let bytes = text.as_bytes();
        let shape = "dddd-dd-ddTdd:dd:dd.ddddddZ".as_bytes();
        bytes.len() == shape.len()
            && bytes.iter().zip(shape).all(|(byte, want)| match want {
                b'd' => byte.is_ascii_digit(),
                other => byte == other,
            })
    };
    let cursor = |text: &str| {
        text.split_once('.').is_some_and(|(micros, id)| {
            let digits = micros.strip_prefix('-').unwrap_or(micros);
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && SessionId::parse(id).is_ok()
        })
    };
    let variable = |text: &str| {
        let mut bytes = text.bytes();
        bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    match pattern {
        "^[0-9a-f]{32}$" => SessionId::parse(text).is_ok(),
        "^task-[0-9a-hjkmnp-tv-z]{26}$" => TaskId::parse(text).is_ok(),
        "^wave-[0-9a-hjkmnp-tv-z]{26}$" => WaveId::parse(text).is_ok(),
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$" => timestamp(text),
        "^-?[0-9]+\\.[0-9a-f]{32}$" => cursor(text),
        "^handoff-[0-9a-hjkmnp-tv-z]{26}$" => lf::ids::HandoffId::parse(text).is_ok(),
        "^device-[0-9a-hjkmnp-tv-z]{26}$" => lf::ids::DeviceId::parse(text).is_ok(),
        "^req-[0-9a-hjkmnp-tv-z]{26}$" => lf::ids::RequestId::parse(text).is_ok(),
        "^(task|wave)-[0-9a-hjkmnp-tv-z]{26}$" => {
            TaskId::parse(text).is_ok() || WaveId::parse(text).is_ok()
        }
        "^[A-Za-z_][A-Za-z0-9_]*$" => variable(text),
        other => panic!("the validator in tests/schema.rs does not know the pattern {other:?}"),
    }
}

pub fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        other => panic!("unknown JSON Schema type {other}"),
    }
}

/// Validate `value` against `schema` (a part of `root`); `at` names where
/// `value` is, for the error.
pub fn validate(root: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let schema = object(schema);
    let place = if at.is_empty() { "/" } else { at };
    for (keyword, argument) in schema {
        match keyword.as_str() {
            keyword if ANNOTATIONS.contains(&keyword) => {}
            "$ref" => validate(root, resolve(root, argument.as_str().unwrap()), value, at)?,
            "type" => {
                let names: Vec<&str> = match argument {
                    Value::String(name) => vec![name],
                    Value::Array(names) => names.iter().map(|n| n.as_str().unwrap()).collect(),
                    other => panic!("bad type {other}"),
                };
                if !names.iter().any(|name| type_matches(name, value)) {
                    return Err(format!("{place}: {value} is not of type {argument}"));
                }
            }
            "enum" => {
                if !argument.as_array().unwrap().contains(value) {
                    return Err(format!("{place}: {value} is not one of {argument}"));
                }
            }
            "const" => {
                if argument != value {
                    return Err(format!("{place}: {value} is not {argument}"));
                }
            }
            "pattern" => {
                if let Some(text) = value.as_str()
                    && !pattern_matches(argument.as_str().unwrap(), text)
                {
                    return Err(format!("{place}: {value} does not match {argument}"));
                }
            }
            "minimum" => {
                if let Some(number) = value.as_f64()
                    && number < argument.as_f64().unwrap()
                {
                    return Err(format!("{place}: {value} is below {argument}"));
                }
            }
            "minItems" => {
                if let Some(items) = value.as_array()
                    && (items.len() as u64) < argument.as_u64().unwrap()
                {
                    return Err(format!("{place}: fewer than {argument} items"));
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    for (index, item) in items.iter().enumerate() {
                        validate(root, argument, item, &format!("{at}/{index}"))?;
                    }
                }
            }
            "properties" => {
                if let Some(map) = value.as_object() {
                    for (key, property) in object(argument) {
                        if let Some(item) = map.get(key) {
                            validate(root, property, item, &format!("{at}/{key}"))?;
                        }
                    }
                }
            }
            "required" => {
                if let Some(map) = value.as_object() {
                    for key in argument.as_array().unwrap() {
                        let key = key.as_str().unwrap();
                        if !map.contains_key(key) {
                            return Err(format!("{place}: the required key {key} is missing"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(
                    argument,
                    &Value::Bool(false),
                    "only additionalProperties: false is supported"
                );
                if let Some(map) = value.as_object() {
                    let known = schema.get("properties").map(object);
                    for key in map.keys() {
                        if !known.is_some_and(|known| known.contains_key(key)) {
                            return Err(format!("{place}: the key {key} is not allowed"));
                        }
                    }
                }
            }
            "oneOf" => {
                let branches = argument.as_array().unwrap();
                let errors: Vec<String> = branches
                    .iter()
                    .filter_map(|branch| validate(root, branch, value, at).err())
                    .collect();
                let matched = branches.len() - errors.len();
                if matched != 1 {
                    return Err(format!(
                        "{place}: {value} matches {matched} of the oneOf branches, not exactly one ({})",
                        errors.join("; ")
                    ));
                }
            }
            other => panic!(
                "the validator in tests/schema.rs does not implement the keyword {other:?}; \
                 teach it before using it in the schema"
            ),
        }
    }
    Ok(())
}
