//! `lf flow wait`: block until a review Session is completed and return its
//! feedback, as `lf-flow wait` prints it. An orchestrator scripts against
//! this; Ctrl-C stops the wait (the review stays open).

use super::{open, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{
    Category, Example, LabeledError, ShellError, Signature, Spanned, SyntaxShape, Type, Value,
};

pub struct FlowWait;

impl SimplePluginCommand for FlowWait {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf flow wait"
    }

    fn description(&self) -> &str {
        "Wait until a review session is completed; return its feedback."
    }

    fn extra_description(&self) -> &str {
        "Returns {session_id, status, feedback, completed_at}: status is `completed` (feedback \
is the review's ready summary, completed_at a datetime) or `gone` (the session no longer \
exists; feedback and completed_at are null). A review that is already completed returns at \
once. --timeout bounds the wait (an error past it; the review stays open); Ctrl-C stops \
waiting."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "session",
                SyntaxShape::String,
                "The review session id (as `lf flow review` returned it, or its first 6 or more characters).",
            )
            .named(
                "timeout",
                SyntaxShape::Duration,
                "Give up after this long, such as 30min.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![
            Example {
                example: "(lf flow wait 58280eb938e0e752255a3becea432bdf).feedback",
                description: "The feedback of a completed review",
                result: Some(Value::test_string(REVIEW_PLAN_FEEDBACK)),
            },
            Example {
                example: "(lf flow wait 58280eb938e0e752255a3becea432bdf --timeout 30min).completed_at | describe",
                description: "Wait at most 30 minutes; the completion time is a datetime",
                result: Some(Value::test_string("datetime")),
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
        let session: Spanned<String> = call.req(0).map_err(shell)?;
        let args = [(Arg::Id, session.span)];
        let timeout = super::duration_flag(engine, call, Arg::Timeout)?;
        let lf = open(engine, head)?;
        let signals = engine.signals().clone();
        let stop = move || signals.interrupted();
        match lf.wait_review_until(&session.item, timeout, &stop) {
            Ok(Some(feedback)) => shown(engine, call, &args, Ok(feedback)),
            Ok(None) => Err(shell(ShellError::Interrupted { span: head })),
            Err(error) => Err(super::fail(engine, call, &args, error)),
        }
    }

    super::completes!(At::Positional(0) => Completes::Reviews);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&FlowWait);
    }
}
