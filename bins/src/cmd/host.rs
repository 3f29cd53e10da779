use crate::{Output, Tool, open_lf};
use clap::{Parser, Subcommand};
use lf::wire::HostEntry;

/// Keep the host list: the other machines whose lf Homes listings include.
///
/// Each host is a machine where lf is installed, named as ssh takes it (an
/// alias of ~/.ssh/config, a host name, or user@host). lf reaches it with
/// your own ssh, keys and config: `ssh HOST true` must work without a
/// prompt. The list is $LF_HOME/hosts.json; `lf-session-list --hosts`
/// lists every host's sessions beside this machine's, `--host HOST` one of
/// them. Connections reuse a ControlMaster socket that lf keeps in
/// $LF_HOME/ssh; --no-control-master leaves that to your ssh config.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-host add build-box
  lf-host add me@vm.example.org --home /srv/lf --bin '~/.cargo/bin'
  lf-host add gpu --no-control-master
  lf-host list | jq -r '.[].host'
  lf-host remove build-box
  lf-session-list --hosts --attention | jq -r '.[] | \"\\(.workspace.home_id // \"here\") \\(.title)\"'"
)]
pub struct Cli {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Add a host and print its entry.
    Add {
        /// The host, as ssh takes it (letters, digits and - . _ @ : [ ] %).
        #[arg(value_name = "HOST")]
        host: String,
        /// LF_HOME on that machine (default: its default Home).
        #[arg(long, value_name = "DIR")]
        home: Option<String>,
        /// The folder of lf's binaries there (default: the PATH its ssh commands get).
        #[arg(long, value_name = "DIR")]
        bin: Option<String>,
        /// Use no ControlMaster socket of lf's for this host (your ssh config decides).
        #[arg(long)]
        no_control_master: bool,
    },
    /// Print the host list as a JSON array.
    List,
    /// Remove a host (and close lf's connection to it) and print its entry.
    Remove {
        #[arg(value_name = "HOST")]
        host: String,
    },
}

impl Tool for Cli {
    const NAME: &'static str = "lf-host";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        match self.what {
            What::Add {
                host,
                home,
                bin,
                no_control_master,
            } => out.json(&lf.add_host(HostEntry {
                host,
                home,
                bin,
                control_master: !no_control_master,
            })?),
            What::List => out.json(&lf.hosts()?),
            What::Remove { host } => out.json(&lf.remove_host(&host)?),
        }
    }
}
