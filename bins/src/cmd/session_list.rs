use crate::{ArrayWriter, Output, Tool, open_lf};
use clap::Parser;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use lf::wire::{SessionKind, SessionState};
use std::path::PathBuf;

/// List sessions as JSON, newest first.
///
/// Prints every open session as a JSON array of SessionRecords (see
/// schema/session-record.schema.json). Listing is passive: it reads the
/// database and /proc only, and starts or stops nothing. Filters combine;
/// they apply before --limit, so a page of 10 holds 10 matches.
///
/// With --hosts (every host of lf-host list) or --host HOST, each host's
/// sessions are listed there over ssh, at once, and merged in; their
/// workspace.home_id names the host and their open_argv goes through ssh.
/// A host that fails or does not answer within --host-timeout is reported
/// on stderr as one JSON object a line ({"host", "problem", "message"})
/// and the listing goes on without it.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-list --attention | jq -r '.[] | \"\\(.id[0:8]) \\(.attention) \\(.title)\"'
  lf-session-list --state active --kind conversation
  lf-session-list --task LOO-291
  lf-session-list --here --all
  lf-session-list --limit 20 --page | jq -r .next
  lf-session-list --jsonl | head -n 3
  lf-session-list --hosts --attention
  lf-session-list --host build-box --host-timeout 2 2> problems.jsonl"
)]
pub struct Cli {
    /// Only sessions that need the person now (review, approve or reply).
    #[arg(long)]
    attention: bool,
    /// Only sessions in this state.
    #[arg(long, value_name = "STATE",
          value_parser = PossibleValuesParser::new(SessionState::NAMES).try_map(|s: String| SessionState::parse(&s)))]
    state: Option<SessionState>,
    /// Only sessions of this kind.
    #[arg(long, value_name = "KIND",
          value_parser = PossibleValuesParser::new(SessionKind::NAMES).try_map(|s: String| SessionKind::parse(&s)))]
    kind: Option<SessionKind>,
    /// Only sessions bound to this Task or working in its worktree (id or identifier).
    #[arg(long, value_name = "TASK")]
    task: Option<String>,
    /// Only sessions that belong to no Task.
    #[arg(long, conflicts_with = "task")]
    orphan: bool,
    /// Only sessions working in this directory or below it.
    #[arg(long, value_name = "DIR", conflicts_with = "here")]
    cwd: Option<PathBuf>,
    /// Only sessions working in the current directory or below it.
    #[arg(long)]
    here: bool,
    /// Include closed (completed) sessions.
    #[arg(long)]
    all: bool,
    /// Print at most N sessions.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Continue after this cursor (the "next" of a previous --page).
    #[arg(long, value_name = "CURSOR")]
    after: Option<String>,
    /// Print a page object {"entries": [...], "next": cursor or null}.
    #[arg(long, conflicts_with = "jsonl")]
    page: bool,
    /// Print one record per line (JSON Lines), streamed.
    #[arg(long)]
    jsonl: bool,
    /// Also list the sessions of every host of the host list (lf-host).
    #[arg(long)]
    hosts: bool,
    /// Also list the sessions of this host (repeatable; it need not be in the list).
    #[arg(long, value_name = "HOST")]
    host: Vec<String>,
    /// How long each host may take, in seconds (default 5).
    #[arg(long, value_name = "SECONDS",
          value_parser = super::seconds(lf::Arg::HostTimeout))]
    host_timeout: Option<std::time::Duration>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-list";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        // `--here` is the caller's directory, which the library knows.
        let cwd = match (self.cwd, self.here) {
            (Some(dir), _) => Some(dir),
            (None, true) => Some(PathBuf::from(".")),
            (None, false) => None,
        };
        let filter = lf::ListFilter {
            attention: self.attention,
            state: self.state,
            kind: self.kind,
            task: self.task,
            orphan: self.orphan,
            cwd,
            all: self.all,
            limit: self.limit,
            after: self.after,
        };
        let lf = open_lf()?;
        let remotes = lf.remotes(self.hosts, &self.host, self.host_timeout)?;
        if remotes.is_empty() {
            let listing = lf.list(&filter)?;
            return print(out, self.jsonl, self.page, |show| listing.write(show));
        }
        let merged = lf.list_merged(&filter, &remotes)?;
        lf::remote::list::report(merged.problems(), std::io::stderr().lock());
        print(out, self.jsonl, self.page, |show| {
            let mut merged = merged;
            for record in merged.by_ref() {
                show(record?)?;
            }
            Ok(merged.next_page().map(str::to_owned))
        })
    }
}

/// Print the records a listing hands over: JSON Lines, an array, or a page.
fn print(
    out: &mut Output,
    jsonl: bool,
    page: bool,
    list: impl FnOnce(
        &mut dyn FnMut(lf::wire::SessionRecord) -> lf::Result<()>,
    ) -> lf::Result<Option<String>>,
) -> lf::Result<()> {
    if jsonl {
        list(&mut |record| out.json(&record))?;
        return Ok(());
    }
    if page {
        out.raw("{\"entries\":")?;
    }
    let mut array = ArrayWriter::begin(out)?;
    let next = list(&mut |record| array.push(out, &record))?;
    array.end(out)?;
    if page {
        out.raw(",\"next\":")?;
        out.value(&next)?;
        out.raw("}")?;
    }
    out.raw("\n")
}
