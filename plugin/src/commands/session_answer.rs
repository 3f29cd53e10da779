//! `lf session answer`: allow or deny a session's permission prompt from
//! afar.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use lf::provider::Answer;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionAnswer;

impl SimplePluginCommand for SessionAnswer {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session answer"
    }

    fn description(&self) -> &str {
        "Allow or deny the request a session's agent waits on; return its record."
    }

    fn extra_description(&self) -> &str {
        "Only the request you saw: --request (its attention_request.id) is answered only while \
that exact request is up and its own dialog is on the agent's screen; without it, the one \
request up. Agents queue their dialogs (parallel tool calls): the answer reaches one dialog, \
never the next. A request already answered (here or at its terminal), an agent that is working, \
a completed session or one with no live agent in a tmux pane is refused (lf::conflict) and no \
key is pressed. The keys are the agent's own for its dialog (Claude Code: 1, 2, Esc; Codex: y, p or a, \
Esc; Gemini CLI: 1, 2, Esc; OpenCode: Enter, Right Enter Enter, Esc). --always allows the like of it from now on, where the dialog offers that. lf watch \
shows it as an answered event, naming who gave it."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["approve", "allow", "deny", "permission", "remote"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run.",
            )
            .required("answer", SyntaxShape::String, "allow or deny.")
            .switch(
                "always",
                "With allow: do not ask again for the like of it (where the dialog offers that).",
                None,
            )
            .named(
                "request",
                SyntaxShape::String,
                "Answer only this request (req-…, its attention_request.id): refused if another is up.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "lf session answer c5d2e9f6a3b0c7d4e1f8a5b2c9d6e3f0 allow",
                description: "Allow what an agent asks permission for, this once",
                result: None,
            },
            Example {
                example: "lf session answer c5d2e9f6a3b0c7d4e1f8a5b2c9d6e3f0 deny",
                description: "Refuse it",
                result: None,
            },
            Example {
                example: "lf sessions --attention | where attention == approve | each { |s| lf session answer $s.id allow --request $s.attention_request.id }",
                description: "Allow each waiting request you just listed, and only that one",
                result: None,
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
        let id: Spanned<String> = call.req(0).map_err(shell)?;
        let word: Spanned<String> = call.req(1).map_err(shell)?;
        let always = call.has_flag("always").map_err(shell)?;
        let request: Option<Spanned<String>> = call.get_flag("request").map_err(shell)?;
        let args = [
            (Arg::Id, id.span),
            (Arg::Answer, word.span),
            (Arg::Always, call.head),
            (Arg::Request, request.as_ref().map_or(call.head, |r| r.span)),
        ];
        let seen = lf::session::act::Seen {
            request: request.as_ref().map(|r| r.item.as_str()),
            dialog: None,
        };
        let answered = match Answer::parse(&word.item, always) {
            Ok(answer) => open(engine, call.head)?.answer_prompt(&id.item, answer, seen),
            Err(error) => Err(error),
        };
        shown(engine, call, &args, answered)
    }

    super::completes!(At::Positional(0) => Completes::Sessions);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionAnswer);
    }

    /// The demo engine runs as an agent (its LF_RUN_ID is set): it may not
    /// answer "Upgrade the database"'s permission prompt. A deny --always is refused before
    /// anything is looked at, and so is a word other than allow or deny.
    #[test]
    fn an_answer_from_an_agent_or_a_denial_always_is_refused() {
        let mut demo = crate::demo::plugin_test();
        let mut fails = |source: &str| demo.error_of(source);
        let database = crate::demo::DATABASE;
        let message = fails(&format!("lf session answer {database} allow"));
        // The demo engine is the agent of "Explore the codebase"
        // (LF_RUN_ID): it may not answer for the person.
        assert!(message.contains("lf::usage"), "{message}");
        assert!(message.contains("LF_RUN_ID is set"), "{message}");
        let message = fails(&format!("lf session answer {database} deny --always"));
        assert!(message.contains("lf::usage"), "{message}");
        let message = fails(&format!("lf session answer {database} maybe"));
        assert!(message.contains("lf::usage"), "{message}");
    }
}
