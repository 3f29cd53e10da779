//! One module per command, named as users type it (`lf sessions` is
//! `sessions.rs`, `lf session open` is `session_open.rs`). Below them, the
//! few translations every command shares: where the Home is (from the
//! ENGINE's environment, never this process's), where the user is, how an
//! `lf::Error` becomes a `LabeledError` pointing at the argument it is
//! about, and the completions of ids.

mod active;
mod count;
mod flow_advance;
mod flow_finish;
mod flow_review;
mod flow_wait;
mod handoff_attach;
mod handoff_claim_wake;
mod handoff_finish;
mod handoff_open;
mod handoff_show;
mod handoffs;
mod session_answer;
mod session_bind;
mod session_complete;
mod session_diff;
mod session_new;
mod session_open;
mod session_ready;
mod session_rename;
mod session_send;
mod sessions;
mod usage;
mod watch;
mod work_task_add;
mod work_task_finish;
mod work_task_list;
mod work_wave_add;
mod work_wave_list;

pub use active::Active;
pub use count::Count;
pub use flow_advance::FlowAdvance;
pub use flow_finish::FlowFinish;
pub use flow_review::FlowReview;
pub use flow_wait::FlowWait;
pub use handoff_attach::HandoffAttach;
pub use handoff_claim_wake::HandoffClaimWake;
pub use handoff_finish::HandoffFinish;
pub use handoff_open::HandoffOpen;
pub use handoff_show::HandoffShow;
pub use handoffs::Handoffs;
pub use session_answer::SessionAnswer;
pub use session_bind::SessionBind;
pub use session_complete::SessionComplete;
pub use session_diff::SessionDiff;
pub use session_new::SessionNew;
pub use session_open::SessionOpen;
pub use session_ready::SessionReady;
pub use session_rename::SessionRename;
pub use session_send::SessionSend;
pub use sessions::Sessions;
pub use usage::Usage;
pub use watch::Watch;
pub use work_task_add::WorkTaskAdd;
pub use work_task_finish::WorkTaskFinish;
pub use work_task_list::WorkTaskList;
pub use work_wave_add::WorkWaveAdd;
pub use work_wave_list::WorkWaveList;

use lf::error::hint::{Command, Word};
use lf::{Arg, Caller, ErrorKind, Lf, ListFilter};
use nu_plugin::{EngineInterface, EvaluatedCall};
use nu_protocol::engine::ArgType;
use nu_protocol::{DynamicSuggestion, LabeledError, ShellError, Span, Spanned, Value};
use std::path::{Path, PathBuf};

/// An lf error as Nushell shows it: the library's message (with its
/// causes), a code naming its kind, a label under `span`, and what to type
/// next as help, with each command spelled as Nushell users type it.
pub(crate) fn error_at(error: lf::Error, span: Span) -> LabeledError {
    let (code, label) = match error.kind() {
        ErrorKind::Usage => ("lf::usage", "not valid here"),
        ErrorKind::NotFound => ("lf::not_found", "not found"),
        ErrorKind::Conflict => ("lf::conflict", "not possible now"),
        ErrorKind::Operational => ("lf::operational", "failed here"),
    };
    let shown = LabeledError::new(error.one_line_without_hint())
        .with_label(label, span)
        .with_code(code);
    match error.hint() {
        Some(hint) => shown.with_help(hint.render(spelled)),
        None => shown,
    }
}

/// The plugin's command for what an lf command does (`lf work task
/// list`), or the external binary (`^lf-host list`) where it has none.
pub(crate) fn spelled(command: &Command) -> String {
    let ours = match command {
        Command::SessionList { .. } => Some("lf sessions"),
        Command::SessionNew { .. } => Some("lf session new"),
        Command::SessionOpen { .. } => Some("lf session open"),
        Command::WorkTaskList => Some("lf work task list"),
        Command::WorkTaskAdd { .. } => Some("lf work task add"),
        Command::WorkWaveList => Some("lf work wave list"),
        Command::WorkWaveAdd => Some("lf work wave add"),
        Command::HandoffList => Some("lf handoffs"),
        Command::HandoffShow { .. } => Some("lf handoff show"),
        Command::HandoffFinish { .. } => Some("lf handoff finish"),
        Command::HostList | Command::HostAdd { .. } | Command::HostRemove { .. } => None,
        Command::Primary => None,
    };
    let Some(ours) = ours else {
        return format!("^{command}");
    };
    let mut line = ours.to_owned();
    for word in command.words() {
        match word {
            Word::Text(text) => line.push_str(&format!(" {text}")),
            Word::Argv(argv) => line.push_str(&format!(" --argv [{}]", argv.join(" "))),
        }
    }
    line
}

/// An lf error labelled under the argument it is about (`error.arg()`):
/// the span `args` gives it (a command's positional arguments, or values
/// it took apart), else the call's flag of that name, else the command.
/// This is the one place an error finds its argument; no command reads
/// a message to decide.
pub(crate) fn fail(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    args: &[(Arg, Span)],
    error: lf::Error,
) -> LabeledError {
    let span = error
        .arg()
        .and_then(|arg| {
            let given = args
                .iter()
                .find(|(known, _)| *known == arg)
                .map(|(_, span)| *span);
            given.or_else(|| flag_span(engine, call, arg.flag()))
        })
        .unwrap_or(call.head);
    error_at(error, span)
}

/// Refuse what the library's rules of one operation refuse of the flags
/// given together (`lf::input::LISTING`), under the flag at fault.
pub(crate) fn check_flags(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    rules: &lf::input::ArgumentRules,
) -> Result<(), LabeledError> {
    rules
        .check(|arg| {
            call.named.iter().any(|(name, value)| {
                name.item == arg.flag() && !matches!(value, Some(Value::Bool { val: false, .. }))
            })
        })
        .map_err(|error| fail(engine, call, &[], error))
}

/// The span of a flag's value in this call, if it was given one.
pub(crate) fn flag_span(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    flag: &str,
) -> Option<Span> {
    call.named
        .iter()
        .find(|(name, _)| name.item == flag)
        .map(|(name, value)| match value {
            Some(value) => value_span(engine, value.span()),
            None => name.span,
        })
}

/// The part of a `--flag value` (or `--flag=value`) span that is the value:
/// Nushell gives a flag's value the span of the whole `--flag value`.
pub(crate) fn value_span(engine: &EngineInterface, span: Span) -> Span {
    let Ok(text) = engine.get_span_contents(span) else {
        return span;
    };
    if !text.starts_with(b"-") {
        return span;
    }
    let Some(end_of_name) = text
        .iter()
        .position(|b| *b == b'=' || b.is_ascii_whitespace())
    else {
        return span;
    };
    let skip = text[end_of_name..]
        .iter()
        .position(|b| *b != b'=' && !b.is_ascii_whitespace())
        .map_or(text.len(), |rest| end_of_name + rest);
    if skip >= text.len() {
        return span;
    }
    Span::new(span.start + skip, span.end)
}

/// An engine failure (a bad argument type, a lost engine call).
pub(crate) fn shell(error: ShellError) -> LabeledError {
    error.into()
}

/// A flag the signature declares with `required_named`: the engine refuses
/// a call without it before the plugin runs, so its absence is only said,
/// never decided, here.
pub(crate) fn required<T: nu_protocol::FromValue>(
    call: &EvaluatedCall,
    flag: &str,
) -> Result<T, LabeledError> {
    call.get_flag(flag).map_err(shell)?.ok_or_else(|| {
        LabeledError::new(format!("--{flag} is required"))
            .with_label(format!("add --{flag}"), call.head)
    })
}

/// A path the user typed, with `~` expanded as their shell would; the
/// library takes a relative one from the user's current directory.
pub(crate) fn user_path(engine: &EngineInterface, path: &Spanned<String>) -> PathBuf {
    let typed = Path::new(&path.item);
    match (typed.strip_prefix("~"), env_string(engine, "HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => typed.to_path_buf(),
    }
}

/// A variable of the engine's environment as text; empty counts as unset.
/// A list (Nushell keeps `PATH` as one) is joined with `:`, as a process
/// started from Nushell would see it.
pub(crate) fn env_string(engine: &EngineInterface, name: &str) -> Option<String> {
    let text = match engine.get_env_var(name) {
        Ok(Some(Value::String { val, .. })) => val,
        Ok(Some(Value::List { vals, .. })) => vals
            .iter()
            .filter_map(|value| value.as_str().ok())
            .collect::<Vec<_>>()
            .join(":"),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// The caller is the engine: its current directory and environment, never
/// this plugin process's (a long-lived process started elsewhere).
pub(crate) fn caller(engine: &EngineInterface) -> Caller {
    let cwd = engine.get_current_dir().ok().map(PathBuf::from);
    Caller::new(cwd, |name| env_string(engine, name))
}

/// lf, opened for the engine as its caller.
pub(crate) fn open(engine: &EngineInterface, span: Span) -> Result<Lf, LabeledError> {
    Lf::open(caller(engine)).map_err(|error| error_at(error, span))
}

/// The value of an lf call as a Nushell value, or its error under the
/// argument it is about.
pub(crate) fn shown<T: serde::Serialize>(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    args: &[(Arg, Span)],
    result: lf::Result<T>,
) -> Result<Value, LabeledError> {
    let value = result.map_err(|error| fail(engine, call, args, error))?;
    crate::value::to_value(&value, call.head)
}

/// Completions of open Session ids, described by their state and title.
/// Nushell filters them by what is typed.
pub(crate) fn session_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    sessions_matching(lf, &ListFilter::default())
}

/// Completions of flow review Session ids, completed ones included (waiting
/// for one of those returns at once).
pub(crate) fn review_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    let filter = ListFilter {
        kind: Some(lf::wire::SessionKind::Flow),
        all: true,
        ..ListFilter::default()
    };
    sessions_matching(lf, &filter)
}

fn sessions_matching(lf: Lf, filter: &ListFilter) -> lf::Result<Vec<DynamicSuggestion>> {
    lf.list(filter)?
        .map(|record| {
            let record = record?;
            Ok(DynamicSuggestion {
                value: record.id,
                description: Some(format!("{}: {}", record.state.as_str(), record.title)),
                ..DynamicSuggestion::default()
            })
        })
        .collect()
}

/// Completions of Task identifiers, described by their titles.
pub(crate) fn task_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    open_tasks(&lf)
}

fn open_tasks(lf: &Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    Ok(lf
        .tasks()?
        .into_iter()
        .filter(|task| !task.finished)
        .map(|task| DynamicSuggestion {
            value: task.identifier,
            description: Some(task.title),
            ..DynamicSuggestion::default()
        })
        .collect())
}

/// Completions of wave names, described by their repositories.
pub(crate) fn wave_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    waves(&lf)
}

fn waves(lf: &Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    Ok(lf
        .waves()?
        .into_iter()
        .map(|wave| DynamicSuggestion {
            value: wave.name,
            description: Some(wave.repo),
            ..DynamicSuggestion::default()
        })
        .collect())
}

/// Completions of the flow invocations still running, described by their
/// flow's name.
pub(crate) fn invocation_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    Ok(lf
        .flows()?
        .into_iter()
        .filter(|flow| !flow.finished)
        .map(|flow| DynamicSuggestion {
            value: flow.invocation_id,
            description: Some(format!("flow {}", flow.flow)),
            ..DynamicSuggestion::default()
        })
        .collect())
}

/// Completions of handoff ids, newest first, described by their status and
/// reason.
pub(crate) fn handoff_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    handoffs_matching(lf, false)
}

/// Completions of the handoffs still without an outcome.
pub(crate) fn active_handoff_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    handoffs_matching(lf, true)
}

fn handoffs_matching(lf: Lf, active: bool) -> lf::Result<Vec<DynamicSuggestion>> {
    Ok(lf
        .handoffs_with_records(active)?
        .into_iter()
        .map(|(_, record)| DynamicSuggestion {
            value: record.id,
            description: Some(format!("{}: {}", record.status.as_str(), record.reason)),
            ..DynamicSuggestion::default()
        })
        .collect())
}

/// Completions of handoff parents: `task:<identifier>` for each open Task,
/// `wave:<name>` for each wave.
pub(crate) fn parent_suggestions(lf: Lf) -> lf::Result<Vec<DynamicSuggestion>> {
    let prefixed = |prefix: &str, mut suggestion: DynamicSuggestion| {
        suggestion.value = format!("{prefix}:{}", suggestion.value);
        suggestion
    };
    let mut suggestions: Vec<DynamicSuggestion> = open_tasks(&lf)?
        .into_iter()
        .map(|task| prefixed("task", task))
        .collect();
    suggestions.extend(waves(&lf)?.into_iter().map(|wave| prefixed("wave", wave)));
    Ok(suggestions)
}

/// A flag that takes a duration (`--host-timeout 5sec`), absent or
/// bounded by the library's rule for it (`lf::input::max_seconds`), as
/// the binaries' seconds are; refused under the flag otherwise.
pub(crate) fn duration_flag(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    arg: Arg,
) -> Result<Option<std::time::Duration>, LabeledError> {
    call.get_flag::<std::time::Duration>(arg.flag())
        .map_err(shell)?
        .map(|duration| lf::input::duration_for(arg, duration))
        .transpose()
        .map_err(|error| fail(engine, call, &[], error))
}

/// A flag's non-negative integer as a `u32`, or an error under it.
/// A flag that counts something (`--limit`, `--since`): absent, or a
/// number from 0, refused under the flag otherwise.
pub(crate) fn natural_flag<T: TryFrom<i64>>(
    engine: &EngineInterface,
    call: &EvaluatedCall,
    flag: &str,
    what: &str,
) -> Result<Option<T>, LabeledError> {
    let Some(value) = call.get_flag::<Spanned<i64>>(flag).map_err(shell)? else {
        return Ok(None);
    };
    T::try_from(value.item).map(Some).map_err(|_| {
        LabeledError::new(format!("--{flag} takes {what}, 0 or more"))
            .with_label("not valid here", value_span(engine, value.span))
            .with_code("lf::usage")
    })
}

pub(crate) fn flag_u32(
    engine: &EngineInterface,
    flag: &str,
    value: &Spanned<i64>,
) -> Result<u32, LabeledError> {
    u32::try_from(value.item).map_err(|_| {
        LabeledError::new(format!(
            "invalid value {} for '--{flag}': a number from 0 to {}",
            value.item,
            u32::MAX
        ))
        .with_label("not valid here", value_span(engine, value.span))
        .with_code("lf::usage")
    })
}

/// What an argument completes with: one kind of id (each kind has one
/// suggestion function above), or a fixed set of words.
#[derive(Clone, Copy)]
pub(crate) enum Completes {
    Sessions,
    Reviews,
    Tasks,
    Waves,
    Invocations,
    Handoffs,
    ActiveHandoffs,
    Parents,
    Words(&'static [&'static str]),
    /// The agent providers (`Provider::agent_names`): not `command`.
    Agents,
}

/// Where an argument is: a positional by index, or a flag by name.
#[derive(Clone, Copy)]
pub(crate) enum At {
    Positional(usize),
    Flag(&'static str),
}

/// The completion of `arg_type` from a command's table of what each of
/// its arguments completes with; `None` (Nushell's own) for the rest.
pub(crate) fn complete(
    engine: &EngineInterface,
    arg_type: &ArgType,
    table: &[(At, Completes)],
) -> Option<Vec<DynamicSuggestion>> {
    let (_, what) = table.iter().find(|(at, _)| match (at, arg_type) {
        (At::Positional(index), ArgType::Positional(given)) => index == given,
        (At::Flag(name), ArgType::Flag(given)) => name == given,
        _ => false,
    })?;
    let suggest = match what {
        Completes::Words(words) => return Some(word_suggestions(words)),
        Completes::Agents => {
            let agents: Vec<&str> = lf::provider::Provider::agent_names().collect();
            return Some(word_suggestions(&agents));
        }
        Completes::Sessions => session_suggestions,
        Completes::Reviews => review_suggestions,
        Completes::Tasks => task_suggestions,
        Completes::Waves => wave_suggestions,
        Completes::Invocations => invocation_suggestions,
        Completes::Handoffs => handoff_suggestions,
        Completes::ActiveHandoffs => active_handoff_suggestions,
        Completes::Parents => parent_suggestions,
    };
    complete_with(engine, suggest)
}

/// A command's `get_dynamic_completion`, from its table of what each
/// argument completes with: `completes!(At::Positional(0) =>
/// Completes::Sessions)`.
macro_rules! completes {
    ($($at:expr => $what:expr),* $(,)?) => {
        #[expect(deprecated, reason = "dynamic completion is experimental in nu-plugin")]
        fn get_dynamic_completion(
            &self,
            _plugin: &crate::LfPlugin,
            engine: &nu_plugin::EngineInterface,
            _call: nu_plugin::DynamicCompletionCall,
            arg_type: nu_protocol::engine::ArgType,
            _experimental: nu_protocol::engine::ExperimentalMarker,
        ) -> Option<Vec<nu_protocol::DynamicSuggestion>> {
            use $crate::commands::{At, Completes};
            $crate::commands::complete(engine, &arg_type, &[$(($at, $what)),*])
        }
    };
}
pub(crate) use completes;

/// Completions of a fixed set of words.
pub(crate) fn word_suggestions(words: &[&str]) -> Vec<DynamicSuggestion> {
    words
        .iter()
        .map(|word| DynamicSuggestion {
            value: (*word).to_owned(),
            ..DynamicSuggestion::default()
        })
        .collect()
}

/// Run a completion against the engine's Home. A completion that cannot be
/// computed falls back to Nushell's own (`None`) rather than failing; a
/// Home without a database has nothing to complete (and is not created).
pub(crate) fn complete_with(
    engine: &EngineInterface,
    suggest: fn(Lf) -> lf::Result<Vec<DynamicSuggestion>>,
) -> Option<Vec<DynamicSuggestion>> {
    let lf = open(engine, Span::unknown()).ok()?;
    if !lf.home().database().exists() {
        return Some(Vec::new());
    }
    suggest(lf).ok()
}

/// The ids a command was given: its `<id>` argument, or the pipeline's
/// strings, records with an `id` column, or lists of them.
pub(crate) fn piped_ids(
    input: &Value,
    into: &mut Vec<Spanned<String>>,
) -> Result<(), LabeledError> {
    match input {
        Value::String {
            val, internal_span, ..
        } => into.push(Spanned {
            item: val.clone(),
            span: *internal_span,
        }),
        Value::Record {
            val, internal_span, ..
        } => match val.get("id") {
            Some(Value::String {
                val, internal_span, ..
            }) => into.push(Spanned {
                item: val.clone(),
                span: *internal_span,
            }),
            _ => {
                return Err(LabeledError::new(
                    "a piped record needs an `id` column holding a Session id",
                )
                .with_label("this record has no string `id`", *internal_span));
            }
        },
        Value::List { vals, .. } => {
            for value in vals {
                piped_ids(value, into)?;
            }
        }
        Value::Nothing { .. } => {}
        Value::Error { error, .. } => return Err(shell((**error).clone())),
        other => {
            return Err(LabeledError::new(format!(
                "expected Session ids (strings, or records with an `id` column), got {}",
                other.get_type()
            ))
            .with_label("not a Session id", other.span()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;
    use nu_plugin::Plugin;

    /// A hint's command, as the plugin spells it, is one of its commands
    /// with those flags, or an external `^lf-…` binary.
    #[test]
    fn every_command_a_hint_names_is_ours_with_its_flags_or_an_external_binary() {
        let signatures: Vec<_> = crate::LfPlugin
            .commands()
            .iter()
            .map(|command| command.signature())
            .collect();
        for command in Command::all() {
            let line = spelled(&command);
            if let Some(external) = line.strip_prefix('^') {
                assert_eq!(external, command.to_string());
                continue;
            }
            let ours = signatures
                .iter()
                .filter(|signature| {
                    line == signature.name || line.starts_with(&format!("{} ", signature.name))
                })
                .max_by_key(|signature| signature.name.len())
                .unwrap_or_else(|| panic!("{line}: no such plugin command"));
            for flag in line.split(' ').filter_map(|word| word.strip_prefix("--")) {
                assert!(
                    ours.get_long_flag(flag).is_some(),
                    "{line}: no flag --{flag}"
                );
            }
        }
    }

    #[test]
    fn an_errors_hint_is_its_help_in_the_plugins_words() {
        let error = lf::Error::from(lf::error::WorkError::TaskNotFound("LOO-404".into(), true));
        let shown = error_at(error, Span::test_data());
        assert_eq!(shown.msg, "Task \"LOO-404\" is not registered");
        assert_eq!(
            shown.help.as_deref(),
            Some("see lf work task list, or register it with lf work task add")
        );
        let hosts = lf::Error::from(lf::error::RemoteError::HostNotFound("box".into()));
        assert_eq!(
            error_at(hosts, Span::test_data()).help.as_deref(),
            Some("see ^lf-host list, or add it with ^lf-host add")
        );
    }

    #[test]
    fn session_ids_complete_with_their_state_and_title() {
        let dir = tempfile::tempdir().unwrap();
        let home = demo::seed(&std::fs::canonicalize(dir.path()).unwrap());
        let lf = || Lf::at(home.clone(), Caller::default());
        let suggestions = session_suggestions(lf()).unwrap();
        let shown: Vec<(&str, Option<&str>)> = suggestions
            .iter()
            .map(|s| (s.value.as_str(), s.description.as_deref()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (demo::EXPLORE, Some("unknown: Explore the codebase")),
                (demo::DATABASE, Some("unknown: Upgrade the database")),
                (demo::FLAKY, Some("unknown: Fix the flaky test")),
                (demo::PARSER, Some("ready: Rewrite the parser")),
                (
                    demo::REVIEW_DESIGN,
                    Some("waiting: Review review-design for LOO-291")
                ),
            ],
            "open sessions only, newest first"
        );
        let tasks = task_suggestions(lf()).unwrap();
        assert_eq!(tasks[0].value, "LOO-291");
        assert_eq!(tasks[0].description.as_deref(), Some(demo::PARSER_TITLE));
        assert_eq!(wave_suggestions(lf()).unwrap()[0].value, "product");
    }

    #[test]
    fn flow_and_handoff_ids_complete() {
        let dir = tempfile::tempdir().unwrap();
        let home = demo::seed(&std::fs::canonicalize(dir.path()).unwrap());
        let lf = || Lf::at(home.clone(), Caller::default());
        let values = |suggestions: Vec<DynamicSuggestion>| -> Vec<String> {
            suggestions.into_iter().map(|s| s.value).collect()
        };
        assert_eq!(
            values(review_suggestions(lf()).unwrap()),
            [demo::REVIEW_DESIGN, demo::REVIEW_PLAN],
            "flow reviews, completed ones too"
        );
        let invocations = invocation_suggestions(lf()).unwrap();
        assert_eq!(values(invocations.clone()), ["inv-7"], "running ones only");
        assert_eq!(invocations[0].description.as_deref(), Some("flow feature"));
        let handoffs = handoff_suggestions(lf()).unwrap();
        assert_eq!(
            handoffs[0].description.as_deref(),
            Some("waiting: OAuth login requires a human")
        );
        assert_eq!(
            values(handoffs),
            [demo::HANDOFF_LOGIN, demo::HANDOFF_DEPLOY]
        );
        assert_eq!(
            values(active_handoff_suggestions(lf()).unwrap()),
            [demo::HANDOFF_LOGIN]
        );
        assert_eq!(
            values(parent_suggestions(lf()).unwrap()),
            ["task:LOO-291", "wave:product"]
        );
    }

    /// The message of an evaluation that fails.
    fn failure(source: &str) -> String {
        let mut demo = demo::plugin_test();
        let error = match demo.test.eval(source) {
            Ok(data) => data.into_value(Span::test_data()).expect_err(source),
            Err(error) => error,
        };
        format!("{error:?}")
    }

    /// The library's message for a value of `arg` past its bound.
    fn too_long(arg: Arg) -> String {
        lf::input::seconds(arg, lf::input::max_seconds(arg) as f64 + 1.0)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn durations_past_the_library_bound_are_refused_with_its_message() {
        for (source, arg) in [
            ("lf sessions --host-timeout 61min", Arg::HostTimeout),
            (
                &*format!("lf session complete {} --grace 3601", demo::PARSER),
                Arg::Grace,
            ),
            (
                &*format!("lf flow wait {} --timeout 7200wk", demo::REVIEW_DESIGN),
                Arg::Timeout,
            ),
        ] {
            let message = failure(source);
            assert!(message.contains(&too_long(arg)), "{source}: {message}");
            assert!(message.contains("lf::usage"), "{source}: {message}");
        }
    }

    #[test]
    fn durations_within_the_bound_are_taken() {
        let mut demo = demo::plugin_test();
        let data = demo.test.eval("(lf sessions --host-timeout 60min).0.id");
        let value = data.expect("an hour is within the bound");
        let value = value.into_value(Span::test_data()).expect("a value");
        assert_eq!(value.as_str().unwrap(), demo::EXPLORE);
    }
}
