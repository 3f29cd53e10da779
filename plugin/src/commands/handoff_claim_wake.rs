//! `lf handoff claim-wake`: after a handoff's outcome, the agent's next
//! body generation claims the wake, exactly once, as
//! `lf-handoff claim-wake` does.

use super::{flag_u32, open, required, shell, shown};
use crate::LfPlugin;
use lf::Arg;
use nu_plugin::{EngineInterface, EvaluatedCall, PluginCommand, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Spanned, SyntaxShape, Type, Value};

pub struct HandoffClaimWake;

impl SimplePluginCommand for HandoffClaimWake {
    type Plugin = LfPlugin;

    fn name(&self) -> &str {
        "lf handoff claim-wake"
    }

    fn description(&self) -> &str {
        "Claim the wake of a finished handoff: true for the first claim, false for every later one."
    }

    fn extra_description(&self) -> &str {
        "Run by the agent's next body generation once the handoff has an outcome: exactly one \
claim wakes the agent, also between processes claiming at once. Before an outcome there is \
nothing to wake for, and the claim is refused."
    }

    fn signature(&self) -> Signature {
        Signature::build(PluginCommand::name(self))
            .required(
                "id",
                SyntaxShape::String,
                "The handoff id (handoff- and 26 base32 characters).",
            )
            .required_named(
                "generation",
                SyntaxShape::Int,
                "The body generation that claims the wake.",
                None,
            )
            .input_output_type(Type::Nothing, Type::Bool)
            .category(Category::Custom("lf".into()))
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "lf handoff claim-wake handoff-01kdw0000000000000000000h0 --generation 3",
                description: "The first claim after the outcome wakes the agent",
                result: Some(Value::test_bool(true)),
            },
            Example {
                example: "lf handoff claim-wake handoff-01kdw0000000000000000000h0 --generation 4",
                description: "Every later claim gets false",
                result: Some(Value::test_bool(false)),
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
        let id: Spanned<String> = call.req(0).map_err(shell)?;
        let generation = flag_u32(engine, "generation", &required(call, "generation")?)?;
        let claimed = open(engine, head)?.claim_handoff_wake(&id.item, generation);
        shown(engine, call, &[(Arg::Id, id.span)], claimed)
    }

    super::completes!(At::Positional(0) => Completes::Handoffs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        crate::demo::test_examples(&HandoffClaimWake);
    }
}
