//! `lf handoffs`: the interactive handoffs as a typed table, newest first,
//! as `lf-handoff list` prints them — with `age` a duration and the times
//! datetimes.

use super::{error_at, open, shell};
use crate::LfPlugin;
use crate::value::to_value;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Record, Signature, Type, Value};

pub struct Handoffs;

impl SimplePluginCommand for Handoffs {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf handoffs"
    }

    fn description(&self) -> &str {
        "List interactive handoffs as a typed table, newest first."
    }

    fn extra_description(&self) -> &str {
        "An autonomous agent that meets something only a person can do (a login, a decision) \
hands its terminal over with lf-handoff open; this is the list of those handoffs. The columns \
are those of `lf-handoff list` (id is the handoff id) with age_secs as `age`, a \
duration, followed by the handoff's reason, cwd and times: created_at is a datetime, \
attached_at and finished_at are datetimes or null. status is waiting, attached, handed_back, \
completed or failed. `lf handoff show <id>` returns everything about one handoff.

Compose it:
  lf handoffs --active | where age > 1hr | select id reason age
  lf handoffs --active | first | lf handoff attach $in.id

The examples below describe a demo Home with a waiting handoff and a handed-back one."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["handoff", "human", "login", "list"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .switch("active", "Only handoffs without an outcome yet.", None)
            .input_output_type(Type::Nothing, Type::table())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        let strings = |items: &[&str]| {
            Value::test_list(items.iter().map(|s| Value::test_string(*s)).collect())
        };
        vec![
            Example {
                example: "(lf handoffs).status",
                description: "Every handoff, newest first",
                result: Some(strings(&["waiting", "handed_back"])),
            },
            Example {
                example: "(lf handoffs --active).reason",
                description: "What waits for a person",
                result: Some(strings(&[HANDOFF_LOGIN_REASON])),
            },
            Example {
                example: "[((lf handoffs).0.age | describe) ((lf handoffs).0.created_at | describe)]",
                description: "Age is a duration and times are datetimes, so they compare as such",
                result: Some(strings(&["duration", "datetime"])),
            },
        ]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let head = call.head;
        let active = call.has_flag("active").map_err(shell)?;
        // One read: each row as `lf-handoff list` shows it, aged now (its
        // `age` a duration), then why it was opened, where and when.
        let rows = open(engine, head)?
            .handoffs_with_records(active)
            .map_err(|error| error_at(error, head))?;
        let rows = rows
            .into_iter()
            .map(|(listed, record)| {
                let Value::Record { val: listed, .. } = to_value(&listed, head)? else {
                    return Err(LabeledError::new("a handoff row is not a record"));
                };
                let mut row = Record::with_capacity(listed.len() + 5);
                for (column, value) in listed.into_owned() {
                    row.push(
                        if column == "age_secs" {
                            "age".to_owned()
                        } else {
                            column
                        },
                        value,
                    );
                }
                row.push("reason", Value::string(record.reason, head));
                row.push("cwd", Value::string(record.cwd, head));
                row.push("created_at", to_value(&record.created_at, head)?);
                row.push("attached_at", to_value(&record.attached_at, head)?);
                row.push("finished_at", to_value(&record.finished_at, head)?);
                Ok(Value::record(row, head))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Value::list(rows, head))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::Span;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Handoffs);
    }

    #[test]
    fn rows_are_the_rows_of_lf_handoff_list_with_typed_age_and_times() {
        let mut demo = crate::demo::plugin_test();
        let lf = lf::Lf::at(demo.home.clone(), lf::Caller::default());
        let listed = lf.handoffs(false).unwrap();
        let table = demo
            .test
            .eval("lf handoffs")
            .unwrap()
            .into_value(Span::test_data())
            .unwrap();
        let rows = table.as_list().unwrap();
        assert_eq!(rows.len(), listed.len());
        for (row, listed) in rows.iter().zip(&listed) {
            let row = row.as_record().unwrap();
            let text = |name: &str| row.get(name).unwrap().as_str().unwrap().to_owned();
            assert_eq!(text("id"), listed.id);
            assert_eq!(text("parent_kind"), listed.parent_kind.as_str());
            assert_eq!(text("parent_id"), listed.parent_id);
            assert_eq!(text("status"), listed.status.as_str());
            assert_eq!(text("home"), listed.home);
            assert_eq!(text("provider"), listed.provider);
            let Value::Duration { val: nanos, .. } = row.get("age").unwrap() else {
                panic!("age is not a duration: {row:?}");
            };
            let age = u64::try_from(*nanos / 1_000_000_000).unwrap();
            assert!(
                age.abs_diff(listed.age_secs.0) <= 1,
                "{age} vs {:?}",
                listed.age_secs
            );
            assert!(matches!(row.get("created_at"), Some(Value::Date { .. })));
        }
        let columns: Vec<&String> = rows[0].as_record().unwrap().columns().collect();
        assert_eq!(
            columns,
            [
                "id",
                "parent_kind",
                "parent_id",
                "wave_id",
                "status",
                "home",
                "provider",
                "age",
                "reason",
                "cwd",
                "created_at",
                "attached_at",
                "finished_at"
            ]
        );
        let handed_back = rows[1].as_record().unwrap();
        assert!(matches!(
            handed_back.get("finished_at"),
            Some(Value::Date { .. })
        ));
        assert!(handed_back.get("attached_at").unwrap().is_nothing());
    }
}
