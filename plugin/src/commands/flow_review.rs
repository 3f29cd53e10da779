//! `lf flow review`: the review Session of one exact flow position, as
//! `lf-flow review` creates it. Its id is derived from the position, so
//! asking again finds the same Session and launches nothing.

use super::{flag_u32, open, required, shell, shown};
use crate::LfPlugin;
use lf::flow::{Position, ReviewRequest};
use lf::provider::Provider;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct FlowReview;

impl SimplePluginCommand for FlowReview {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf flow review"
    }

    fn description(&self) -> &str {
        "Create (once) and launch the review session of a flow position; return its record."
    }

    fn extra_description(&self) -> &str {
        "An orchestrator (a script, a CI job, another agent) asks a person to review one step \
of a flow. The session's id is derived from the exact position (Task, invocation, flow, node, \
iteration), so asking again for the same position returns the same session and launches \
nothing. The review's agent works in the Task's worktree (else your current directory) and \
starts in its durable tmux session unless --no-launch. Only the invocation's pending review \
needs attention (`attention == review`); `lf flow advance` and `lf flow finish` move the \
invocation on. The person works with the agent, the agent runs lf-session-ready, the person \
completes the session (`lf session complete`), and `lf flow wait` returns the feedback.

The examples below describe a demo Home whose Task LOO-291 has the flow invocation inv-7 \
pending on the review of node 2."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["orchestrator", "review", "flow"]
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required_named(
                "task",
                SyntaxShape::String,
                "The Task under review (id or identifier).",
                None,
            )
            .required_named(
                "invocation",
                SyntaxShape::String,
                "The flow invocation.",
                None,
            )
            .required_named("flow", SyntaxShape::String, "The flow's name.", None)
            .required_named(
                "node",
                SyntaxShape::Int,
                "The node's index in the flow graph.",
                None,
            )
            .required_named(
                "step",
                SyntaxShape::String,
                "The step (skill) to review.",
                None,
            )
            .named(
                "iteration",
                SyntaxShape::Int,
                "The iteration of a repeated step (default 0).",
                None,
            )
            .named(
                "prompt",
                SyntaxShape::String,
                "Extra instructions for the review agent.",
                None,
            )
            .named(
                "provider",
                SyntaxShape::String,
                "The agent CLI for the review: claude (the default), codex, gemini or opencode.",
                None,
            )
            .named(
                "model",
                SyntaxShape::String,
                "The model, passed to the provider's --model.",
                None,
            )
            .switch(
                "no-launch",
                "Only record the review; do not launch its agent.",
                None,
            )
            .input_output_type(Type::Nothing, Type::record())
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        use crate::demo::*;
        vec![
            Example {
                example: "(lf flow review --no-launch --task LOO-291 --invocation inv-7 --flow feature --node 3 --step review-code).attention",
                description: "Ask for the review of node 3; it is now the invocation's pending review",
                result: Some(Value::test_string("review")),
            },
            Example {
                example: "(lf flow review --task LOO-291 --invocation inv-7 --flow feature --node 2 --step review-design).title",
                description: "Asking again for a position returns its session and launches nothing",
                result: Some(Value::test_string(REVIEW_DESIGN_TITLE)),
            },
            Example {
                example: "(lf flow review --no-launch --task LOO-291 --invocation inv-7 --flow feature --node 2 --step review-design).flow_membership.occurrence",
                description: "An earlier position of the invocation needs no attention",
                result: Some(Value::test_string("earlier")),
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
        let text = |name: &str| call.get_flag::<Spanned<String>>(name).map_err(shell);
        let number = |name: &str| call.get_flag::<Spanned<i64>>(name).map_err(shell);
        let task: Spanned<String> = required(call, "task")?;
        let invocation: Spanned<String> = required(call, "invocation")?;
        let flow: Spanned<String> = required(call, "flow")?;
        let step: Spanned<String> = required(call, "step")?;
        let node = flag_u32(engine, "node", &required(call, "node")?)?;
        let iteration = match number("iteration")? {
            Some(iteration) => flag_u32(engine, "iteration", &iteration)?,
            None => 0,
        };
        let provider = text("provider")?
            .map(|provider| Provider::parse(&provider.item))
            .transpose()
            .map_err(|error| super::fail(engine, call, &[], error))?;
        let position = Position {
            task: task.item,
            invocation: invocation.item,
            flow: flow.item,
            node,
            step: step.item,
            iteration,
        };
        let request = ReviewRequest {
            prompt: text("prompt")?.map(|prompt| prompt.item),
            provider,
            model: text("model")?.map(|model| model.item),
            no_launch: call.has_flag("no-launch").map_err(shell)?,
        };
        let review = open(engine, head)?.review(&position, &request);
        shown(engine, call, &[], review)
    }

    super::completes!(
        At::Flag("task") => Completes::Tasks,
        At::Flag("invocation") => Completes::Invocations,
        At::Flag("provider") => Completes::Agents,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&FlowReview);
    }
}
