use crate::{Output, Tool, open_lf};
use clap::{ArgGroup, Args, Parser, Subcommand};
use lf::provider::Provider;
use lf::wire::HandoffOutcome;
use std::path::PathBuf;

/// Hand an agent's terminal to a person, and give it back.
///
/// An autonomous agent that meets something only a person can do (a
/// login, a decision) opens a handoff under its Task or Wave; a person
/// attaches to the terminal, does it, and finishes the handoff; the agent's
/// next body generation claims the wake and carries on. Opening is
/// idempotent on replay, attaching is idempotent, the first outcome wins
/// (a different later one exits 4), and a wake is claimed exactly once.
///
/// The person runs what the agent stored, so nothing hidden may change what
/// runs: the agent may give only credentials as variables (--env), and
/// --exec runs the program found on the PATH of the person's own terminal,
/// which attach and show print as attach_program. Variable values may be
/// secret: they are never printed, only their names.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-handoff open task:LOO-291 --provider codex --body-generation 4 \\
      --reason 'OAuth login requires a human' --env \"GH_TOKEN=$GH_TOKEN\" \\
      -- tmux attach-session -t lf-loo-291
  lf-handoff list --active | jq -r '.[] | \"\\(.session_id) \\(.status) \\(.age_secs)s\"'
  lf-handoff attach handoff-01kqpt849vf8y8dfxm5see3ewd --exec
  lf-handoff finish handoff-01kqpt849vf8y8dfxm5see3ewd --handed-back 'Logged in; carry on'
  lf-handoff claim-wake handoff-01kqpt849vf8y8dfxm5see3ewd --generation 5"
)]
pub struct Cli {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Open a handoff (or find the one this request opened) and print
    /// `{created, handoff}`.
    Open(Open),
    /// Record that a person attaches and print the handoff; --exec runs
    /// the attach command in this terminal.
    ///
    /// Its program is attach_program: the attach argv's first word found on
    /// this terminal's PATH. A handoff stored by an older lf with a variable
    /// an agent may no longer give is refused (exit 4), and nothing runs.
    Attach {
        /// The handoff id (handoff- and 26 base32 characters).
        #[arg(value_name = "ID")]
        id: String,
        /// Replace this process with the attach command (attach_program,
        /// found on this PATH), run with the handoff's variables added.
        #[arg(long)]
        exec: bool,
    },
    /// Record the handoff's outcome and print the handoff; the first
    /// outcome wins.
    Finish(Finish),
    /// After the outcome, claim the wake of the agent: prints true for the
    /// first claim, false for every later one.
    ClaimWake {
        /// The handoff id.
        #[arg(value_name = "ID")]
        id: String,
        /// The body generation that claims the wake.
        #[arg(long, value_name = "G")]
        generation: u32,
    },
    /// Print handoffs as a JSON array of rows, newest first.
    List {
        /// Only handoffs without an outcome yet.
        #[arg(long)]
        active: bool,
    },
    /// Print one handoff: what --exec would run is attach_program (found
    /// on this PATH) with attach_argv, in cwd, with the variables of
    /// environment_names.
    Show {
        /// The handoff id.
        #[arg(value_name = "ID")]
        id: String,
    },
}

#[derive(Debug, Args)]
struct Open {
    /// What the work is handed back to: task:TASK (id or identifier) or
    /// wave:WAVE (id or name).
    #[arg(value_name = "PARENT")]
    parent: String,
    /// The terminal's working directory: the Task's worktree, or the
    /// Wave's repository.
    #[arg(long, value_name = "DIR", default_value = ".")]
    cwd: PathBuf,
    /// The agent CLI whose terminal is handed over.
    #[arg(long, value_parser = super::provider(false))]
    provider: Provider,
    /// The provider's own id of the conversation (Claude's session UUID,
    /// Codex's thread id).
    #[arg(long, value_name = "ID")]
    provider_session_id: Option<String>,
    /// The generation of the agent process handing off; one handoff per
    /// generation, so a replayed open finds it.
    #[arg(long, value_name = "G")]
    body_generation: u32,
    /// Why a person is needed.
    #[arg(long)]
    reason: String,
    /// A credential for the attach command, NAME=VALUE (repeatable); the
    /// value is never printed. NAME is in capitals and ends in _TOKEN, _KEY,
    /// _KEY_ID, _SECRET or _PASSWORD (GH_TOKEN); anything else (PATH,
    /// LD_PRELOAD, GIT_*, LF_*, ...) is refused: the person sees only names,
    /// so what is not secret belongs in the attach command.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    environment: Vec<String>,
    /// The command that puts a person in the terminal.
    #[arg(last = true, required = true, value_name = "ATTACH_ARGV")]
    attach_argv: Vec<String>,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("outcome").required(true).multiple(false)))]
struct Finish {
    /// The handoff id.
    #[arg(value_name = "ID")]
    id: String,
    /// The person gives the work back to the agent.
    #[arg(long, value_name = "SUMMARY", group = "outcome")]
    handed_back: Option<String>,
    /// The person finished the work.
    #[arg(long, value_name = "SUMMARY", group = "outcome")]
    completed: Option<String>,
    /// The handoff failed.
    #[arg(long, value_name = "REASON", group = "outcome")]
    failed: Option<String>,
}

impl Finish {
    fn outcome(self) -> HandoffOutcome {
        // clap's group gives exactly one.
        let given = [self.handed_back, self.completed, self.failed];
        let (flag, text) = HandoffOutcome::FLAGS
            .into_iter()
            .zip(given)
            .find_map(|(flag, text)| Some((flag, text?)))
            .unwrap_or(("failed", String::new()));
        HandoffOutcome::of_flag(flag, text).expect("one of the outcome flags")
    }
}

impl Tool for Cli {
    const NAME: &'static str = "lf-handoff";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        // The library checks the input before it opens the database, so bad
        // input never creates or changes one.
        let lf = open_lf()?;
        match self.what {
            What::Open(open) => out.json(&lf.open_handoff(&lf::handoff::OpenArgs {
                parent: &open.parent,
                cwd: &open.cwd,
                provider: open.provider.as_str(),
                provider_session_id: open.provider_session_id.as_deref(),
                body_generation: open.body_generation,
                reason: &open.reason,
                environment: &open.environment,
                attach_argv: &open.attach_argv,
            })?),
            What::Attach { id, exec } => {
                let attach = lf.attach_handoff(&id)?;
                if exec {
                    return Err(attach.exec());
                }
                out.json(&attach.record)
            }
            What::Finish(finish) => {
                let id = finish.id.clone();
                out.json(&lf.finish_handoff(&id, finish.outcome())?)
            }
            What::ClaimWake { id, generation } => {
                out.json(&lf.claim_handoff_wake(&id, generation)?)
            }
            What::List { active } => out.json(&lf.handoffs(active)?),
            What::Show { id } => out.json(&lf.handoff(&id)?),
        }
    }
}
