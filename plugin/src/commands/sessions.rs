//! `lf sessions`: the Sessions as a typed table, streamed newest first, with
//! the filters of `lf-session-list`.

use super::{
    complete_with, current_dir, error_at, error_at_flag, home, shell, user_path, value_span,
};
use crate::LfPlugin;
use lf::wire::{SessionKind, SessionState};
use lf::{Lf, ListFilter};
use nu_plugin::{DynamicCompletionCall, EngineInterface, EvaluatedCall, PluginCommand};
use nu_protocol::engine::ArgType;
use nu_protocol::{
    Category, DynamicSuggestion, Example, LabeledError, ListStream, PipelineData, Record,
    Signature, Span, Spanned, SyntaxShape, Type, Value,
};
use std::sync::mpsc;

pub struct Sessions;

/// Which argument a failure to prepare the listing is about.
enum Culprit {
    Head,
    Task,
    Cwd,
    After,
}

impl PluginCommand for Sessions {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf sessions"
    }

    fn description(&self) -> &str {
        "List sessions as a typed table, newest first."
    }

    fn extra_description(&self) -> &str {
        "The same sessions, filters and columns as lf-session-list, with Nushell types: \
created_at, updated_at and completed_at are datetimes (completed_at is null while open), \
attention, ready_summary and the other optional columns are null or a string, actions is a \
table, work and flow_membership are records, and task_ids, terminal_ids and open_argv are \
lists of strings. Filters apply before --limit. The list is streamed, so `first` stops the \
listing early. Listing is passive: it reads the database and /proc, never tmux.

Compose it:
  lf sessions | where attention != null | sort-by updated_at | first | lf session open $in.id
  lf sessions | where state == ready | lf session complete
  lf sessions --all | group-by state | transpose state sessions

The examples below describe a demo Home with five open sessions (one of them a flow review) \
and two closed ones."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["agent", "conversation", "attention", "list"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .switch(
                "attention",
                "Only sessions that need you now (review, approve or reply).",
                None,
            )
            .named(
                "state",
                SyntaxShape::String,
                "Only sessions in this state: unknown, waiting, active, ready, closed or interrupted.",
                None,
            )
            .named(
                "kind",
                SyntaxShape::String,
                "Only sessions of this kind: conversation or flow.",
                None,
            )
            .named(
                "task",
                SyntaxShape::String,
                "Only sessions bound to this Task or working in its worktree (id or identifier).",
                None,
            )
            .switch("orphan", "Only sessions that belong to no Task.", None)
            .named(
                "cwd",
                SyntaxShape::Directory,
                "Only sessions working in this directory or below it.",
                None,
            )
            .switch(
                "here",
                "Only sessions working in the current directory or below it.",
                None,
            )
            .switch("all", "Include closed (completed) sessions.", None)
            .named("limit", SyntaxShape::Int, "At most N sessions.", None)
            .named(
                "after",
                SyntaxShape::String,
                "Continue after this cursor (the `next` of a previous --page).",
                None,
            )
            .switch(
                "page",
                "Return one page {entries, next}; pass next to --after for the following one.",
                None,
            )
            .input_output_types(vec![
                (Type::Nothing, Type::table()),
                (Type::Nothing, Type::record()),
            ])
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        let strings = |items: &[&str]| {
            Value::test_list(items.iter().map(|s| Value::test_string(*s)).collect())
        };
        vec![
            Example {
                example: "(lf sessions --attention).title",
                description: "What needs you, newest first",
                result: Some(strings(&[
                    DATABASE_TITLE,
                    FLAKY_TITLE,
                    PARSER_TITLE,
                    REVIEW_DESIGN_TITLE,
                ])),
            },
            Example {
                example: "(lf sessions --attention).attention",
                description: "Why each of them needs you",
                result: Some(strings(&["approve", "reply", "review", "review"])),
            },
            Example {
                example: "(lf sessions --state ready).ready_summary",
                description: "What the agents that finished say they did",
                result: Some(strings(&[PARSER_SUMMARY])),
            },
            Example {
                example: "(lf sessions --task LOO-291).work_path",
                description: "Sessions of one Task (bound to it, or working in its worktree)",
                result: Some(strings(&["product / LOO-291", "product / LOO-291"])),
            },
            Example {
                example: "(lf sessions --orphan).title",
                description: "Sessions that belong to no Task",
                result: Some(strings(&[EXPLORE_TITLE, DATABASE_TITLE, FLAKY_TITLE])),
            },
            Example {
                example: "(lf sessions --all).state",
                description: "Every session, closed ones included",
                result: Some(strings(&[
                    "unknown", "unknown", "unknown", "ready", "waiting", "closed", "closed",
                ])),
            },
            Example {
                example: "(lf sessions --limit 1).0.updated_at | describe",
                description: "Times are datetimes, so they sort and compare as times",
                result: Some(Value::test_string("datetime")),
            },
            Example {
                example: "(lf sessions --page --limit 2).next",
                description: "Page through sessions: pass next to --after",
                result: Some(Value::test_string(format!(
                    "{}.{DATABASE}",
                    created_micros(DATABASE)
                ))),
            },
        ]
    }

    fn run(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: PipelineData,
    ) -> Result<PipelineData, LabeledError> {
        let head = call.head;
        let flag = |name: &str| call.has_flag(name).map_err(shell);
        let state = call.get_flag::<Spanned<String>>("state").map_err(shell)?;
        let kind = call.get_flag::<Spanned<String>>("kind").map_err(shell)?;
        let task = call.get_flag::<Spanned<String>>("task").map_err(shell)?;
        let cwd = call.get_flag::<Spanned<String>>("cwd").map_err(shell)?;
        let limit = call.get_flag::<Spanned<i64>>("limit").map_err(shell)?;
        let after = call.get_flag::<Spanned<String>>("after").map_err(shell)?;
        let (orphan, here, page) = (flag("orphan")?, flag("here")?, flag("page")?);
        if orphan && let Some(task) = &task {
            return Err(conflicting("--orphan", "--task", task.span));
        }
        if here && let Some(cwd) = &cwd {
            return Err(conflicting("--here", "--cwd", cwd.span));
        }
        let cwd_span = cwd.as_ref().map(|cwd| cwd.span);
        let cwd = match (&cwd, here) {
            (Some(dir), _) => Some(user_path(engine, dir)?),
            (None, true) => Some(current_dir(engine, head)?),
            (None, false) => None,
        };
        let filter = ListFilter {
            attention: flag("attention")?,
            state: state
                .map(|state| {
                    parse_state(&state.item).map_err(|e| error_at_flag(engine, e, state.span))
                })
                .transpose()?,
            kind: kind
                .map(|kind| parse_kind(&kind.item).map_err(|e| error_at_flag(engine, e, kind.span)))
                .transpose()?,
            task: task.as_ref().map(|task| task.item.clone()),
            orphan,
            cwd,
            all: flag("all")?,
            limit: limit
                .map(|limit| {
                    usize::try_from(limit.item).map_err(|_| {
                        let error =
                            lf::Error::usage("--limit takes a number of sessions, 0 or more");
                        error_at_flag(engine, error, limit.span)
                    })
                })
                .transpose()?,
            after: after.as_ref().map(|after| after.item.clone()),
        };
        let home = home(engine, head)?;
        let culprit_span = |culprit: Culprit| match culprit {
            Culprit::Head => head,
            Culprit::Task => task
                .as_ref()
                .map_or(head, |task| value_span(engine, task.span)),
            Culprit::Cwd => cwd_span.map_or(head, |span| value_span(engine, span)),
            Culprit::After => after
                .as_ref()
                .map_or(head, |after| value_span(engine, after.span)),
        };

        // The listing borrows its open database, so it runs on a thread of
        // its own and streams records to the engine through a channel. It
        // is prepared (filters checked) before the first record is sent, so
        // a bad filter is an error, not half a table.
        let (prepared_tx, prepared_rx) = mpsc::channel();
        let (records_tx, records_rx) = mpsc::sync_channel::<Value>(1024);
        std::thread::spawn(move || {
            let listing = prepare(&home, &filter);
            let (lf, filter) = match listing {
                Ok(prepared) => prepared,
                Err(failure) => {
                    let _ = prepared_tx.send(Err(failure));
                    return;
                }
            };
            let listing = match lf.list(&filter) {
                Ok(listing) => listing,
                Err(error) => {
                    let culprit = if filter.after.is_some() {
                        Culprit::After
                    } else {
                        Culprit::Head
                    };
                    let _ = prepared_tx.send(Err((culprit, error)));
                    return;
                }
            };
            if prepared_tx.send(Ok(())).is_err() {
                return;
            }
            let gone = || lf::Error::operational("the reader of the listing went away");
            let next = listing.for_each(|record| {
                records_tx
                    .send(crate::value::session(record, head))
                    .map_err(|_| gone())
            });
            match next {
                Ok(next) if page => {
                    let _ = records_tx.send(Value::string(next.unwrap_or_default(), head));
                }
                Ok(_) => {}
                Err(error) => {
                    let error = error_at(error, head);
                    let _ = records_tx.send(Value::error(error.into(), head));
                }
            }
        });
        match prepared_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err((culprit, error))) => return Err(error_at(error, culprit_span(culprit))),
            Err(_) => return Err(LabeledError::new("the listing stopped unexpectedly")),
        }
        if page {
            return Ok(PipelineData::value(paged(records_rx, head)?, None));
        }
        let stream = ListStream::new(records_rx.into_iter(), head, engine.signals().clone());
        Ok(PipelineData::list_stream(stream, None))
    }

    #[expect(deprecated, reason = "dynamic completion is experimental in nu-plugin")]
    fn get_dynamic_completion(
        &self,
        _plugin: &LfPlugin,
        engine: &EngineInterface,
        _call: DynamicCompletionCall,
        arg_type: ArgType,
        _experimental: nu_protocol::engine::ExperimentalMarker,
    ) -> Option<Vec<DynamicSuggestion>> {
        match arg_type {
            ArgType::Flag(flag) if flag == "state" => Some(super::word_suggestions(
                &SessionState::ALL.map(SessionState::as_str),
            )),
            ArgType::Flag(flag) if flag == "kind" => Some(super::word_suggestions(
                &SessionKind::ALL.map(SessionKind::as_str),
            )),
            ArgType::Flag(flag) if flag == "task" => complete_with(engine, super::task_suggestions),
            _ => None,
        }
    }
}

/// Open the Home and check the filters that name things (a Task, a
/// directory), so an error can point at the flag that named them.
fn prepare(home: &lf::Home, filter: &ListFilter) -> Result<(Lf, ListFilter), (Culprit, lf::Error)> {
    let lf = Lf::open(home).map_err(|error| (Culprit::Head, error))?;
    if let Some(task) = &filter.task {
        lf::work::find_task(lf.store(), task).map_err(|error| (Culprit::Task, error))?;
    }
    if let Some(dir) = &filter.cwd {
        lf::work::canonical_dir(dir, "directory").map_err(|error| (Culprit::Cwd, error))?;
    }
    Ok((lf, filter.clone()))
}

/// Collect a page: the records, then the cursor the thread sends last
/// (empty when this is the last page).
fn paged(records: mpsc::Receiver<Value>, head: Span) -> Result<Value, LabeledError> {
    let mut entries: Vec<Value> = records.into_iter().collect();
    let next = match entries.pop() {
        Some(Value::String { val, .. }) if val.is_empty() => Value::nothing(head),
        Some(value @ Value::String { .. }) => value,
        Some(Value::Error { error, .. }) => return Err(shell(*error)),
        other => {
            return Err(LabeledError::new(format!(
                "the listing ended without its cursor: {other:?}"
            )));
        }
    };
    let mut page = Record::with_capacity(2);
    page.push("entries", Value::list(entries, head));
    page.push("next", next);
    Ok(Value::record(page, head))
}

fn conflicting(flag: &str, other: &str, span: Span) -> LabeledError {
    error_at(
        lf::Error::usage(format!(
            "the argument '{flag}' cannot be used with '{other}'"
        )),
        span,
    )
}

fn parse_state(state: &str) -> lf::Result<SessionState> {
    SessionState::parse(state).ok_or_else(|| {
        let names = SessionState::ALL.map(SessionState::as_str).join(", ");
        lf::Error::usage(format!(
            "invalid value {} for '--state': possible values: {names}",
            lf::ids::quote(state)
        ))
    })
}

fn parse_kind(kind: &str) -> lf::Result<SessionKind> {
    SessionKind::parse(kind).ok_or_else(|| {
        let names = SessionKind::ALL.map(SessionKind::as_str).join(", ");
        lf::Error::usage(format!(
            "invalid value {} for '--kind': possible values: {names}",
            lf::ids::quote(kind)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Sessions);
    }
}
