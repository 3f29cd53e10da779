//! `lf sessions`: the Sessions as a typed table, streamed newest first, with
//! the filters of `lf-session-list`.

use super::{open, shell, user_path};
use crate::LfPlugin;
use crate::value::to_value;
use lf::ListFilter;
use lf::wire::{SessionKind, SessionState};
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, ListStream, PipelineData, Record, Signature, Spanned,
    SyntaxShape, Type, Value,
};
use std::path::PathBuf;

pub struct Sessions;

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

With --hosts (or --host [a b]) the sessions of other machines are listed there over ssh and \
merged in, newest first; their workspace.home_id is the host and their open_argv goes through \
ssh. A host that is down, slow or runs another lf is left out and reported on stderr, one JSON \
object a line ({host, problem, message}): the table still comes.

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
            .switch(
                "hosts",
                "Also the sessions of every host of the host list (lf-host), merged in; workspace.home_id names the host.",
                None,
            )
            .named(
                "host",
                SyntaxShape::List(Box::new(SyntaxShape::String)),
                "Also the sessions of these hosts (a list; they need not be in the host list).",
                None,
            )
            .named(
                "host-timeout",
                SyntaxShape::Duration,
                "How long each host may take (default 5sec); a host that fails is reported on stderr.",
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
        let text = |name: &str| call.get_flag::<Spanned<String>>(name).map_err(shell);
        let (orphan, here, page) = (flag("orphan")?, flag("here")?, flag("page")?);
        let task = text("task")?;
        let cwd = text("cwd")?;
        super::check_flags(engine, call, &lf::input::LISTING)?;
        let fail = |error| super::fail(engine, call, &[], error);
        let limit = super::natural_flag(engine, call, "limit", "a number of sessions")?;
        let filter = ListFilter {
            attention: flag("attention")?,
            state: text("state")?
                .map(|state| SessionState::parse(&state.item))
                .transpose()
                .map_err(fail)?,
            kind: text("kind")?
                .map(|kind| SessionKind::parse(&kind.item))
                .transpose()
                .map_err(fail)?,
            task: task.map(|task| task.item),
            orphan,
            // `--here` is the caller's directory, which the library knows.
            cwd: match (&cwd, here) {
                (Some(dir), _) => Some(user_path(engine, dir)),
                (None, true) => Some(PathBuf::from(".")),
                (None, false) => None,
            },
            all: flag("all")?,
            limit,
            after: text("after")?.map(|after| after.item),
        };
        let hosts: Vec<String> = call
            .get_flag::<Vec<String>>("host")
            .map_err(shell)?
            .unwrap_or_default();
        let timeout = super::duration_flag(engine, call, lf::Arg::HostTimeout)?;
        let lf = open(engine, head)?;
        let remotes = lf.remotes(flag("hosts")?, &hosts, timeout).map_err(fail)?;
        // The filters are checked before the first record, so a bad one is
        // an error under its flag, not half a table.
        let mut listing = lf.list_merged(&filter, &remotes).map_err(fail)?;
        // A table has no place for them, and they are not a failure.
        lf::remote::list::report(listing.problems(), std::io::stderr().lock());
        if page {
            let entries = listing
                .by_ref()
                .map(|record| to_value(&record.map_err(fail)?, head))
                .collect::<Result<Vec<_>, _>>()?;
            let mut page = Record::with_capacity(2);
            page.push("entries", Value::list(entries, head));
            page.push("next", to_value(&listing.next_page(), head)?);
            return Ok(PipelineData::value(Value::record(page, head), None));
        }
        let records = listing.map(move |record| {
            let value = record
                .map_err(|error| super::error_at(error, head))
                .and_then(|record| to_value(&record, head));
            value.unwrap_or_else(|error| Value::error(error.into(), head))
        });
        let stream = ListStream::new(records, head, engine.signals().clone());
        Ok(PipelineData::list_stream(stream, None))
    }

    super::completes!(
        At::Flag("state") => Completes::Words(SessionState::NAMES),
        At::Flag("kind") => Completes::Words(SessionKind::NAMES),
        At::Flag("task") => Completes::Tasks,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Sessions);
    }
}
