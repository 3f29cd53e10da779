//! `lf usage`: what the sessions used (tokens, turns, time, cost), summed
//! as `lf-session-usage --json` sums them, as a table with ints and
//! durations.

use super::{open, shell};
use crate::LfPlugin;
use lf::wire::UsageBy;
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct Usage;

impl SimplePluginCommand for Usage {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf usage"
    }

    fn description(&self) -> &str {
        "What the sessions used: tokens, turns, time and cost, from the agents' own records."
    }

    fn extra_description(&self) -> &str {
        "The rows of lf-session-usage --json, one per group (a day by default): key, host, title, \
sessions, and usage, a record of tokens (input, output, cache_creation, cache_read, total), \
requests, turns, working and waiting (durations), models (a table) and cost in US dollars \
(null when a model used has no price; unpriced lists them). Each call reads only what the \
agents appended since the last one.

With --hosts (or --host [a b]) each host sums its own sessions over ssh and its rows are added \
with host set; a host that fails is reported on stderr.

Compose it:
  lf usage --by session | sort-by usage.tokens.total | last 5
  lf usage --by repository | select key usage.cost

The examples describe the demo Home, whose \"Rewrite the parser\" worked one turn of five \
minutes with claude-sonnet-4-5."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["tokens", "cost", "ccusage", "spend", "time"]
    }

    fn signature(&self) -> Signature {
        Signature::build(SimplePluginCommand::name(self))
            .named(
                "by",
                SyntaxShape::String,
                "Sum by this: day (the default), session, folder, repository or provider.",
                None,
            )
            .named(
                "since",
                SyntaxShape::String,
                "Only from this day on (YYYY-MM-DD, UTC).",
                None,
            )
            .switch(
                "hosts",
                "Also every host of the host list (lf-host), each summed there.",
                None,
            )
            .named(
                "host",
                SyntaxShape::List(Box::new(SyntaxShape::String)),
                "Also these hosts (a list; they need not be in the host list).",
                None,
            )
            .named(
                "host-timeout",
                SyntaxShape::Duration,
                "How long each host may take (default 5sec).",
                None,
            )
            .input_output_type(Type::Nothing, Type::table())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![
            Example {
                example: "(lf usage --by session).0.title",
                description: "The session that used the most tokens",
                result: Some(Value::test_string(PARSER_TITLE)),
            },
            Example {
                example: "(lf usage).0.usage.tokens.total",
                description: "Every token of the demo's one day",
                result: Some(Value::test_int(122_500)),
            },
            Example {
                example: "(lf usage --by provider).0.usage.working",
                description: "How long Claude worked, as a duration",
                result: Some(Value::test_duration(300 * 1_000_000_000)),
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
        let text = |name: &str| call.get_flag::<Spanned<String>>(name).map_err(shell);
        let fail = |error| super::fail(engine, call, &[], error);
        let by = match text("by")? {
            Some(by) => UsageBy::parse(&by.item).map_err(fail)?,
            None => UsageBy::Day,
        };
        let since = text("since")?;
        let query = lf::usage::UsageQuery::new(by, since.as_ref().map(|since| since.item.as_str()))
            .map_err(fail)?;
        let hosts: Vec<String> = call
            .get_flag::<Vec<String>>("host")
            .map_err(shell)?
            .unwrap_or_default();
        let timeout = super::duration_flag(engine, call, lf::Arg::HostTimeout)?;
        let lf = open(engine, call.head)?;
        let remotes = lf
            .remotes(call.has_flag("hosts").map_err(shell)?, &hosts, timeout)
            .map_err(fail)?;
        let report = lf.usage(&query, &remotes).map_err(fail)?;
        // A table has no place for them, and they are not a failure.
        for (path, why) in &report.unread {
            eprintln!("lf usage: transcript {path}: {why}");
        }
        lf::remote::list::report(&report.hosts, std::io::stderr().lock());
        crate::value::to_value(&report.rows, call.head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&Usage);
    }
}
