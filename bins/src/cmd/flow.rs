use crate::{Output, Tool, open_lf};
use clap::{Parser, Subcommand};
use lf::flow::{Position, ReviewRequest};
use lf::provider::Provider;
use std::time::Duration;

/// Flow reviews: an orchestrator asks a person to review one step of a flow.
///
/// `review` creates the review session of one exact flow position (its id
/// is derived from the position) and launches its agent; asking again for
/// the same position returns the same session and launches nothing. The
/// person works with the agent, the agent runs lf-session-ready, the person
/// runs lf-session-complete; `wait` (what an orchestrator scripts against)
/// then prints the feedback. `advance` and `finish` move the invocation on:
/// its reviews become `earlier` or `past` and need no attention.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  id=$(lf-flow review --task LOO-291 --invocation inv-7 --flow feature --node 2 --step review-design | jq -r .id)
  lf-flow wait \"$id\" | jq -r .feedback
  lf-flow advance --invocation inv-7
  lf-flow finish --invocation inv-7"
)]
pub struct Cli {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Create (once) and launch the review session of a flow position; print it.
    Review {
        /// The Task under review (id or identifier).
        #[arg(long, value_name = "TASK")]
        task: String,
        /// The flow invocation.
        #[arg(long, value_name = "ID")]
        invocation: String,
        /// The flow's name.
        #[arg(long, value_name = "NAME")]
        flow: String,
        /// The node's index in the flow graph.
        #[arg(long, value_name = "N")]
        node: u32,
        /// The step (skill) to review.
        #[arg(long, value_name = "SKILL")]
        step: String,
        /// The iteration of a repeated step.
        #[arg(long, value_name = "K", default_value_t = 0)]
        iteration: u32,
        /// Extra instructions for the review agent.
        #[arg(long, value_name = "TEXT")]
        prompt: Option<String>,
        /// The agent CLI for the review.
        #[arg(long, default_value = "claude",
              value_parser = super::provider(true))]
        provider: Provider,
        /// The model, passed to the provider's --model.
        #[arg(long)]
        model: Option<String>,
        /// Only record the review; do not launch its agent.
        #[arg(long)]
        no_launch: bool,
    },
    /// The orchestrator moved on: the invocation's reviews become earlier positions.
    Advance {
        /// The flow invocation.
        #[arg(long, value_name = "ID")]
        invocation: String,
    },
    /// The invocation finished: its reviews become past.
    Finish {
        /// The flow invocation.
        #[arg(long, value_name = "ID")]
        invocation: String,
    },
    /// Wait until a review session is completed; print its feedback.
    Wait {
        /// The review session id (or its first 6 or more characters).
        #[arg(value_name = "SESSION")]
        session: String,
        /// Give up after this many seconds (exit 1).
        #[arg(long, value_name = "SECONDS",
              value_parser = super::seconds(lf::Arg::Timeout))]
        timeout: Option<Duration>,
    },
}

impl Tool for Cli {
    const NAME: &'static str = "lf-flow";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        match self.what {
            What::Review {
                task,
                invocation,
                flow,
                node,
                step,
                iteration,
                prompt,
                provider,
                model,
                no_launch,
            } => {
                let position = Position {
                    task,
                    invocation,
                    flow,
                    node,
                    step,
                    iteration,
                };
                let request = ReviewRequest {
                    prompt,
                    provider: Some(provider),
                    model,
                    no_launch,
                };
                out.json(&lf.review(&position, &request)?)
            }
            What::Advance { invocation } => out.json(&lf.advance_flow(&invocation)?),
            What::Finish { invocation } => out.json(&lf.finish_flow(&invocation)?),
            What::Wait { session, timeout } => {
                // The result is read by a program that waited: print it at once.
                let feedback = lf.wait_review(&session, timeout)?;
                out.json(&feedback)
            }
        }
    }
}
