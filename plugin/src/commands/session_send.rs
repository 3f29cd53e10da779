//! `lf session send`: type a reply into a session's agent from afar.

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct SessionSend;

impl SimplePluginCommand for SessionSend {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf session send"
    }

    fn description(&self) -> &str {
        "Type a reply into a session's agent and submit it; return its record."
    }

    fn extra_description(&self) -> &str {
        "Only when the session waits for a reply (attention reply): a session whose agent is \
working, waits for something else, is completed or has no live agent in a tmux pane is refused \
(lf::conflict) and nothing is typed. The text is typed as it is, never read as keys, then \
Enter; it must be one line of at most 10000 characters without control characters. Of two \
replies at once one is typed, the other refused. lf watch shows it as an answered event, \
naming who sent it."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["reply", "answer", "type", "remote", "prompt"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The session id (or its first 6 or more characters), or the id of its current Run.",
            )
            .required(
                "text",
                SyntaxShape::String,
                "The reply, typed as it is (one line).",
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "lf session send a1b2c3d4e5f60718293a4b5c6d7e8f90 'Yes, go ahead with the migration'",
                description: "Reply to an agent that finished its turn",
                result: None,
            },
            Example {
                example: "lf sessions --attention | where attention == reply | first | lf session send $in.id 'Continue'",
                description: "Reply to the first session that waits for one",
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
        let text: Spanned<String> = call.req(1).map_err(shell)?;
        let args = [(Arg::Id, id.span), (Arg::Text, text.span)];
        let sent = open(engine, call.head)?.send_reply(&id.item, &text.item);
        shown(engine, call, &args, sent)
    }

    super::completes!(At::Positional(0) => Completes::Sessions);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&SessionSend);
    }

    /// The demo engine runs as an agent (its LF_RUN_ID is set): a reply is
    /// refused, a newline before anything is looked at.
    #[test]
    fn a_reply_from_an_agent_or_with_a_newline_is_refused() {
        let mut demo = crate::demo::plugin_test();
        let mut fails = |source: &str| demo.error_of(source);
        let flaky = crate::demo::FLAKY;
        let message = fails(&format!("lf session send {flaky} 'Continue'"));
        // The demo engine is the agent of "Explore the codebase"
        // (LF_RUN_ID): it may not answer for the person.
        assert!(message.contains("lf::usage"), "{message}");
        assert!(message.contains("LF_RUN_ID is set"), "{message}");
        let message = fails(&format!("lf session send {flaky} \"a\\nb\""));
        assert!(message.contains("lf::usage"), "{message}");
    }
}
