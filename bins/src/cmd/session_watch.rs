use crate::{Output, Tool, open_lf};
use clap::Parser;
use lf::changes::{Next, WatchOptions};
use lf::wire::SessionEvent;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Print every change to your sessions as it happens, as JSON lines.
///
/// Each line is one event: {seq, at, session_id, kind, from, to, by,
/// record}, where kind is created, completed, state, attention, title,
/// ready_summary or answered, from and to are the value before and after,
/// and record is the session after the change. An answered event is a
/// person acting from afar (lf-session-send, lf-session-answer): from is
/// the attention answered, to is sent, allowed, allowed_always or denied,
/// and by is who (a user name; null for every other kind). Events are recorded in the same
/// transaction as the change, so none is missed or told twice: a consumer
/// that restarts with --since (the last seq it handled) goes on exactly
/// where it stopped. Without --since it starts with the next change. A new
/// event is printed within milliseconds of its commit, and waiting costs
/// no CPU.
///
/// The Home keeps the latest 10000 events (LF_EVENTS_KEEP sets how many);
/// resuming before the oldest one kept says so on stderr and goes on.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-watch
  lf-session-watch --attention | jq -r '\"\\(.to // \"done\"): \\(.record.title)\"'
  lf-session-watch --since 0 --no-follow           # every event the Home keeps
  lf-session-watch --attention --exec sh -c 'notify-send lf \"$(jq -r .record.title)\"'
  lf-session-watch --exec curl -s -d @- https://hooks.example/lf"
)]
pub struct Cli {
    /// Start after the event with this seq (0: with the oldest kept).
    #[arg(long, value_name = "SEQ")]
    since: Option<u64>,
    /// Only attention events: into or out of review, approve or reply.
    #[arg(long)]
    attention: bool,
    /// Print the events there are and exit instead of waiting for more.
    #[arg(long)]
    no_follow: bool,
    /// Run this command once per event, with the event as JSON on its
    /// stdin, instead of printing it (one at a time, in order).
    #[arg(
        long,
        value_name = "CMD",
        num_args = 1..,
        allow_hyphen_values = true,
        trailing_var_arg = true
    )]
    exec: Vec<String>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-watch";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let mut watch = open_lf()?.watch(WatchOptions {
            since: self.since,
            attention: self.attention,
            follow: !self.no_follow,
        })?;
        if let Some(gap) = watch.gap() {
            eprintln!("{}: {gap}", Self::NAME);
        }
        loop {
            match watch.next_within(Duration::from_secs(60))? {
                Next::Event(event) if self.exec.is_empty() => {
                    out.json(&event)?;
                    out.finish()?;
                }
                Next::Event(event) => self.exec(&event)?,
                Next::Idle => {}
                Next::End => return Ok(()),
            }
        }
    }
}

impl Cli {
    /// Run the --exec command for one event; one that fails is reported
    /// and the next event still runs it.
    fn exec(&self, event: &SessionEvent) -> lf::Result<()> {
        let mut json = serde_json::to_vec(event)?;
        json.push(b'\n');
        let program = &self.exec[0];
        let cannot_run = |source| lf::Error::CannotRun {
            program: program.clone(),
            source,
        };
        let mut child = Command::new(program)
            .args(&self.exec[1..])
            .stdin(Stdio::piped())
            .spawn()
            .map_err(cannot_run)?;
        if let Some(mut stdin) = child.stdin.take() {
            // A command that does not read its stdin is not an error.
            let _ = stdin.write_all(&json);
        }
        let status = child.wait().map_err(cannot_run)?;
        if !status.success() {
            eprintln!(
                "{}: {} failed ({status}) for event {}; going on",
                Self::NAME,
                lf::error::quote(program),
                event.seq
            );
        }
        Ok(())
    }
}
