//! `lf-web`'s command line. The server is its own crate (`web/`), so the
//! binaries that must start in a millisecond carry no HTTP stack; its
//! flags live here, beside every other binary's, so its completions, man
//! page and edges (exit codes, error format, a closed stdout) are theirs.

use clap::{Parser, Subcommand};
use std::net::SocketAddr;

/// Serve the Sessions that need you as one page, for a browser or a phone.
///
/// The page lists the Sessions that wait for you first (approve, then
/// reply, then review, each longest waiting first, with how long), then
/// the rest; a Session's page shows its state, ready summary, the last
/// lines of its screen and its worktree's diff, and can complete it. It
/// follows the change stream, so it updates as your agents work.
///
/// lf-web listens on 127.0.0.1 and asks every request for this Home's
/// token (kept owner-only in $LF_HOME/web.token, made on first run). On a
/// terminal it prints the URL that carries the token, and a QR code of it;
/// when stdout is not a terminal (a service manager, whose log would keep
/// the token) it prints nothing unless --print-url asks for it, and says
/// on stderr how to open it. A browser that opens the URL is signed in as
/// a device of its own (its cookie holds that device's own secret, never
/// the token); `lf-web devices` lists them and `lf-web revoke` signs one
/// out. To use it from a phone, reach this machine through
/// an SSH tunnel or a VPN (see the README): never on a public address.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-web                                   # http://127.0.0.1:7780/?token=…
  lf-web --listen 127.0.0.1:8080 --no-qr
  ssh -L 7780:127.0.0.1:7780 devbox        # then open the printed URL here
  lf-web --listen 100.101.102.103:7780 --allow-remote --host devbox.tailnet.ts.net
  lf-web --new-token                       # lock out every browser that had the old one
  lf-web --print-url > ~/.lf-web-url       # not a terminal: the URL only when asked
  lf-web devices | jq -r '.[] | \"\\(.id) \\(.last_seen_at) \\(.label)\"'
  lf-web revoke device-01jb2x4m0e5f6g7h8j9k0m1n2p   # that phone is signed out
  lf-web revoke --all",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The address and port to listen on (port 0: any free port).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7780")]
    pub listen: SocketAddr,
    /// Listen on an address other than loopback (a VPN's): anyone who can
    /// reach it and has the token controls your agents, and the token and
    /// cookies cross that network in clear (plain HTTP).
    #[arg(long)]
    pub allow_remote: bool,
    /// Another name this machine is reached by (a VPN's name for it):
    /// requests are accepted for it as for the listen address.
    #[arg(long = "host", value_name = "NAME")]
    pub hosts: Vec<String>,
    /// Make a new token first, and sign out every device: each must open
    /// the new URL.
    #[arg(long)]
    pub new_token: bool,
    /// Print the URL alone, without its QR code.
    #[arg(long)]
    pub no_qr: bool,
    /// Print the URL (which carries the token) even when stdout is not a
    /// terminal; without it, only a terminal is shown the URL.
    #[arg(long)]
    pub print_url: bool,
}

/// What lf-web does instead of serving.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the devices signed in (each opened the printed URL once), as
    /// a JSON array (schema/device.schema.json), most recently seen first.
    /// A device unused for 30 days is signed out by itself.
    Devices,
    /// Sign out a device (its id from `lf-web devices`), or every one with
    /// --all, and print what was signed out as a JSON array. A running
    /// lf-web refuses its cookie from the next request on.
    Revoke {
        /// The device's id (device- and 26 base32 characters).
        #[arg(value_name = "DEVICE", required_unless_present = "all")]
        device: Option<String>,
        /// Sign out every device.
        #[arg(long, conflicts_with = "device")]
        all: bool,
    },
}

impl Cli {
    pub const NAME: &'static str = "lf-web";
}
