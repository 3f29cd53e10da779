use clap::{CommandFactory, Parser};
use lf::provider::Provider;
use std::io::Read;

/// Receive a provider's hook (called by the agent, not by people).
///
/// Claude Code and Codex send their hook JSON on stdin (an agent that an
/// earlier lf launched with Codex's `notify` passes its JSON as the last
/// argument). The Run is $LF_RUN_ID. lf-hook records turns,
/// permission prompts and the native session id, prints nothing and always
/// exits 0 (a hook's output and exit code change the agent's behaviour);
/// problems are appended to $LF_HOME/hook.log.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  echo '{\"hook_event_name\":\"Stop\",\"session_id\":\"…\"}' | lf-hook claude
  echo '{\"hook_event_name\":\"Stop\",\"session_id\":\"…\"}' | lf-hook codex"
)]
pub struct Cli {
    /// Which provider is calling (an agent provider's name).
    #[arg(value_name = "PROVIDER")]
    provider: String,
    /// The payload arguments (Codex's `notify` passes its JSON as the last one).
    #[arg(
        value_name = "PAYLOAD",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    payload: Vec<String>,
}

/// lf-hook's own main: whatever happens, nothing on stdout and exit 0.
/// Only a person's `lf-hook --help` or `--version`, with no provider before
/// it, prints; once a provider is named every argument is the provider's.
pub fn main() -> ! {
    let called_by_provider = std::env::args_os()
        .nth(1)
        .is_some_and(|first| !first.as_encoded_bytes().starts_with(b"-"));
    let command = Cli::command().name("lf-hook");
    let command = if called_by_provider {
        command.disable_help_flag(true).disable_version_flag(true)
    } else {
        command
    };
    let cli = match command.try_get_matches_from(std::env::args_os()) {
        Ok(matches) => <Cli as clap::FromArgMatches>::from_arg_matches(&matches).ok(),
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = error.print();
                std::process::exit(0);
            }
            None
        }
    };
    let lf = crate::open_lf();
    let problem = match (&cli, &lf) {
        (None, _) => Some((
            "?".to_owned(),
            "lf-hook was called with arguments it does not understand".to_owned(),
        )),
        (Some(_), Err(error)) => Some(("?".to_owned(), error.one_line())),
        (Some(cli), Ok(lf)) => receive(cli, lf)
            .err()
            .map(|message| (cli.provider.clone(), message)),
    };
    if let (Some((provider, message)), Ok(lf)) = (problem, &lf) {
        lf.log_hook(&provider, &message);
    }
    // `exit` runs no destructors: close the store first, which bounds the
    // WAL (a Home written only by hooks would grow it by every hook).
    drop(lf);
    std::process::exit(0)
}

fn receive(cli: &Cli, lf: &lf::Lf) -> Result<(), String> {
    let provider = Provider::parse(&cli.provider).map_err(|error| error.one_line())?;
    // A payload given as the last argument (Codex's `notify` passes it so)
    // is read from there, else from stdin.
    let payload = match cli.payload.last() {
        Some(arg) => arg.as_bytes().to_vec(),
        None => {
            let mut buffer = Vec::new();
            std::io::stdin()
                .take(lf::hook::MAX_PAYLOAD as u64 + 1)
                .read_to_end(&mut buffer)
                .map_err(|error| format!("cannot read the payload: {error}"))?;
            buffer
        }
    };
    if payload.len() > lf::hook::MAX_PAYLOAD {
        return Err(format!(
            "payload is larger than {} bytes; ignored",
            lf::hook::MAX_PAYLOAD
        ));
    }
    match lf.receive_hook(provider, &payload) {
        Ok(None) => Ok(()),
        Ok(Some(note)) => Err(note),
        Err(error) => Err(error.one_line()),
    }
}
