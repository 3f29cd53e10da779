//! The wire as Nushell values, through one generic serde serializer: any
//! wire type becomes a `Value` with the column names and order its JSON
//! has, and Nushell's own types — nested objects are records, arrays are
//! lists, absent values `null`, and the wire's time types
//! (`lf::clock::Timestamp`, `lf::clock::Seconds`) datetimes and durations —
//! so `where attention != null` and `sort-by updated_at` work as written.
//! The serializer says it is not human-readable, which is how the time
//! types know to hand it numbers instead of text.

use lf::clock::{Seconds, Timestamp};
use nu_protocol::{LabeledError, Record, Span, Value};
use serde::ser::{self, Serialize};
use std::fmt;

/// Any wire value as a Nushell value.
pub fn to_value<T: Serialize + ?Sized>(value: &T, span: Span) -> Result<Value, LabeledError> {
    value.serialize(Serializer { span }).map_err(|error| {
        LabeledError::new(format!("lf could not show this value in Nushell: {error}"))
    })
}

#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error(message.to_string())
    }
}

#[derive(Clone, Copy)]
struct Serializer {
    span: Span,
}

/// A sequence (list) being built.
struct Seq {
    span: Span,
    /// `Some(variant)` for a tuple variant: `{variant: [..]}`.
    variant: Option<&'static str>,
    items: Vec<Value>,
}

/// A record being built.
struct Map {
    span: Span,
    /// `Some(variant)` for a struct variant: `{variant: {..}}`.
    variant: Option<&'static str>,
    record: Record,
    key: Option<String>,
}

fn wrapped(variant: Option<&'static str>, value: Value, span: Span) -> Value {
    match variant {
        Some(variant) => {
            let mut record = Record::with_capacity(1);
            record.push(variant, value);
            Value::record(record, span)
        }
        None => value,
    }
}

impl ser::Serializer for Serializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Map;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::bool(v, self.span))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        Ok(Value::int(v, self.span))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        self.serialize_i64(i64::try_from(v).unwrap_or(i64::MAX))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        Ok(Value::float(v, self.span))
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::string(v.to_string(), self.span))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::string(v, self.span))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(Value::binary(v, self.span))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::nothing(self.span))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::nothing(self.span))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        let inner = value.serialize(self)?;
        let number = || inner.as_int().map_err(|error| Error(error.to_string()));
        match name {
            Timestamp::SERDE_NAME => {
                let micros = number()?;
                let at = chrono::DateTime::from_timestamp_micros(micros)
                    .ok_or_else(|| Error(format!("{micros} µs is not a representable time")))?;
                Ok(Value::date(at.fixed_offset(), self.span))
            }
            Seconds::SERDE_NAME => {
                let nanos = number()?.saturating_mul(1_000_000_000);
                Ok(Value::duration(nanos, self.span))
            }
            _ => Ok(inner),
        }
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        Ok(wrapped(Some(variant), value.serialize(self)?, self.span))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq {
            span: self.span,
            variant: None,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq, Error> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.variant = Some(variant);
        Ok(seq)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Map, Error> {
        Ok(Map {
            span: self.span,
            variant: None,
            record: Record::with_capacity(len.unwrap_or(0)),
            key: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Map, Error> {
        let mut map = self.serialize_map(Some(len))?;
        map.variant = Some(variant);
        Ok(map)
    }
}

impl Seq {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items
            .push(value.serialize(Serializer { span: self.span })?);
        Ok(())
    }
    fn finish(self) -> Result<Value, Error> {
        let list = Value::list(self.items, self.span);
        Ok(wrapped(self.variant, list, self.span))
    }
}

/// The four ways serde hands over a sequence's items are one list.
macro_rules! seq {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Seq {
            type Ok = Value;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Value, Error> {
                self.finish()
            }
        }
    )*};
}

seq!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl Map {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let value = value.serialize(Serializer { span: self.span })?;
        self.record.push(key, value);
        Ok(())
    }
    fn finish(self) -> Result<Value, Error> {
        let record = Value::record(self.record, self.span);
        Ok(wrapped(self.variant, record, self.span))
    }
}

impl ser::SerializeMap for Map {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        match key.serialize(Serializer { span: self.span })? {
            Value::String { val, .. } => {
                self.key = Some(val);
                Ok(())
            }
            other => Err(Error(format!(
                "a record's keys are strings, not {}",
                other.get_type()
            ))),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("a map value came before its key".to_owned()))?;
        self.field(&key, value)
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

/// A struct and a struct variant are one record.
macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Map {
            type Ok = Value;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<Value, Error> {
                self.finish()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;
    use lf::snapshot::LiveSnapshot;
    use lf::wire::{HandoffRecord, SessionRecord};

    /// JSON as written, objects in their order (serde_json's own `Value`
    /// sorts keys).
    #[derive(Debug)]
    enum Json {
        Null,
        Bool(bool),
        Int(i64),
        Text(String),
        List(Vec<Json>),
        Object(Vec<(String, Json)>),
    }

    impl<'de> serde::Deserialize<'de> for Json {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Json;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_unit<E>(self) -> Result<Json, E> {
                    Ok(Json::Null)
                }
                fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                    Ok(Json::Bool(v))
                }
                fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                    Ok(Json::Int(v))
                }
                fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                    Ok(Json::Int(v as i64))
                }
                fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                    Ok(Json::Text(v.to_owned()))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Json, A::Error> {
                    let mut items = Vec::new();
                    while let Some(item) = seq.next_element()? {
                        items.push(item);
                    }
                    Ok(Json::List(items))
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Json, A::Error> {
                    let mut fields = Vec::new();
                    while let Some(field) = map.next_entry()? {
                        fields.push(field);
                    }
                    Ok(Json::Object(fields))
                }
            }
            deserializer.deserialize_any(Visitor)
        }
    }

    /// The JSON a wire value prints, as the Nushell value the generic
    /// serializer must give: the same names in the same order, the same
    /// values, and datetimes and durations where the wire has its times.
    fn expected(json: &Json, wire: &Value) -> Value {
        let span = Span::test_data();
        match (json, wire) {
            (Json::Text(_) | Json::Int(_), Value::Date { .. } | Value::Duration { .. }) => {
                wire.clone()
            }
            (Json::Null, _) => Value::nothing(span),
            (Json::Bool(b), _) => Value::bool(*b, span),
            (Json::Int(n), _) => Value::int(*n, span),
            (Json::Text(s), _) => Value::string(s, span),
            (Json::List(items), Value::List { vals, .. }) => Value::list(
                items
                    .iter()
                    .zip(vals)
                    .map(|(j, w)| expected(j, w))
                    .collect(),
                span,
            ),
            (Json::Object(fields), Value::Record { val, .. }) => {
                let mut record = Record::new();
                for ((key, j), (column, w)) in fields.iter().zip(val.iter()) {
                    assert_eq!(key, column, "columns keep the wire's names and order");
                    record.push(key, expected(j, w));
                }
                Value::record(record, span)
            }
            (json, wire) => panic!("{json:?} became {wire:?}"),
        }
    }

    /// Each fixture, as the generic serializer shows it: the same columns
    /// in the same order as its JSON, the same values, and datetimes where
    /// the wire has times.
    fn same_as_json<T: Serialize + serde::de::DeserializeOwned>(fixture: &str) -> Value {
        let typed: T = serde_json::from_str(fixture).unwrap();
        let json: Json = serde_json::from_str(fixture).unwrap();
        let value = to_value(&typed, Span::test_data()).unwrap();
        assert_eq!(value, expected(&json, &value));
        value
    }

    #[test]
    fn fixtures_become_the_same_columns_with_nushell_types() {
        use lf::flow::{FlowRecord, ReviewFeedback};
        use lf::wire::{HandoffListRow, HandoffOpened, SessionBindingPreview, SessionPage};
        macro_rules! fixture {
            ($name:literal) => {
                include_str!(concat!("../../tests/fixtures/", $name))
            };
        }
        let value = same_as_json::<SessionRecord>(fixture!("session.json"));
        let row = value.as_record().unwrap();
        assert!(matches!(row.get("created_at"), Some(Value::Date { .. })));
        assert!(matches!(
            row.get("completed_at"),
            Some(Value::Nothing { .. })
        ));
        same_as_json::<Vec<SessionRecord>>(fixture!("sessions.json"));
        same_as_json::<SessionPage>(fixture!("session_page.json"));
        same_as_json::<SessionBindingPreview>(fixture!("session_binding_preview.json"));
        let value = same_as_json::<LiveSnapshot>(fixture!("active.json"));
        let sessions = value
            .as_record()
            .unwrap()
            .get("sessions")
            .unwrap()
            .as_list()
            .unwrap();
        let processes = sessions[0].as_record().unwrap().get("processes").unwrap();
        let process = processes.as_list().unwrap()[0].as_record().unwrap();
        assert!(matches!(
            process.get("started_at"),
            Some(Value::Date { .. })
        ));
        assert!(matches!(process.get("pid"), Some(Value::Int { .. })));
        same_as_json::<HandoffRecord>(fixture!("handoff.json"));
        same_as_json::<HandoffOpened>(fixture!("handoff_opened.json"));
        let rows = same_as_json::<Vec<HandoffListRow>>(fixture!("handoff_list.json"));
        let row = rows.as_list().unwrap()[0].as_record().unwrap().clone();
        assert!(matches!(row.get("age_secs"), Some(Value::Duration { .. })));
        same_as_json::<FlowRecord>(fixture!("flow.json"));
        same_as_json::<ReviewFeedback>(fixture!("review_feedback.json"));
    }

    #[test]
    fn times_are_datetimes_and_spans_durations() {
        let span = Span::test_data();
        let at = to_value(&Timestamp(1_795_904_311_123_456), span).unwrap();
        assert_eq!(
            at,
            Value::date(
                chrono::DateTime::parse_from_rfc3339("2026-11-28T22:18:31.123456Z").unwrap(),
                span
            )
        );
        assert_eq!(
            to_value(&Seconds(90), span).unwrap(),
            Value::test_duration(90_000_000_000)
        );
        assert_eq!(
            to_value(&Seconds(u64::MAX), span).unwrap(),
            Value::test_duration(i64::MAX)
        );
        assert_eq!(
            to_value(&Some(Timestamp(0)), span)
                .unwrap()
                .get_type()
                .to_string(),
            "datetime"
        );
    }
}
