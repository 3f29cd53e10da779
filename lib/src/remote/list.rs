//! One list: this Home's Sessions and those of every host asked, merged
//! in the usual order (newest created first, `(created_at, id)`).
//!
//! Each host runs `lf-session-list --jsonl` with the same filters (so only
//! matching rows cross the network) and, for a page, the same cursor and
//! one more than the page size; all hosts are asked at once, and the
//! listing waits for them at most the timeout. A host that fails gives a
//! [`HostProblem`] instead of records. A remote record is taken only if it
//! decodes strictly and its id is a Session id; it is then rewritten for
//! this machine: its `workspace` names the host, its `open_argv` goes
//! through ssh, and its `terminal_ids` (panes of that machine's tmux) are
//! dropped.

use super::hosts::Remotes;
use super::ssh::{self, Exceeded, Finished, Limit, NotFinished, Ssh};
use crate::Result;
use crate::error::domain::ErrorKind;
use crate::error::hint::Command;
use crate::error::untrusted::host_text;
use crate::facade::Lf;
use crate::ids::SessionId;
use crate::remote::RemoteError;
use crate::session::{ListFilter, Listing};
use crate::wire::{ActionKind, HostEntry, HostProblem, HostProblemKind, SessionRecord, Workspace};
use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::time::Duration;

/// What a remote record's workspace says cannot be resolved here.
pub const REMOTE_CHECKOUT: &str = "Checkout resolution is unavailable on this remote Home";

/// The most Sessions lf takes from one host's listing. A listing is read
/// by a person (or a picker a person scrolls): nobody reads a hundred
/// thousand rows, and a Home has far fewer open. A host with more (`--all`
/// over years: 50 a day for five years) is asked for fewer, not read whole.
const MAX_REMOTE_ROWS: usize = 100_000;

/// The most bytes lf reads of one host's listing. A record lf writes takes
/// about 1 KB (1,005 bytes measured for a titled command Session), so
/// 100,000 of them fit with room; the byte bound is for records far larger
/// than lf's, or a flood. Both bounds cost about the same memory at worst:
/// 100,000 decoded records peaked at 166 MiB (measured, debug build), and
/// large records are mostly one long string each, which decodes to its own
/// size. Each host asked has its own bounds. (The old bound was 512 MiB.)
const LISTING: Limit = Limit {
    bytes: 128 * 1024 * 1024,
    advice: LIST_ADVICE,
};

const LIST_ADVICE: &str = "ask for fewer Sessions (--limit N, --state, --attention, without --all), or check that its lf-session-list prints nothing but records there";

/// This Home's listing and the records of the hosts asked, merged newest
/// first; iterate it like a [`Listing`]. The hosts that gave nothing are in
/// [`Merged::problems`], known before the first record.
pub struct Merged {
    local: std::iter::Peekable<Listing>,
    remote: Vec<VecDeque<SessionRecord>>,
    problems: Vec<HostProblem>,
    limit: Option<usize>,
    emitted: usize,
    last: Option<(i64, String)>,
    next: Option<String>,
    done: bool,
}

impl Merged {
    /// The hosts whose Sessions are missing, and why.
    pub fn problems(&self) -> &[HostProblem] {
        &self.problems
    }

    /// The cursor of the next page, once the listing stopped at its limit.
    pub fn next_page(&self) -> Option<&str> {
        self.next.as_deref()
    }

    fn more(&mut self) -> bool {
        self.local.peek().is_some() || self.remote.iter().any(|queue| !queue.is_empty())
    }
}

/// Write the hosts a command left out, one JSON object a line
/// (`{"host", "problem", "message"}`), as every surface reports them on
/// stderr: they are not the command's failure, and a program reads them.
pub fn report(problems: &[HostProblem], mut to: impl std::io::Write) {
    for problem in problems {
        if let Ok(line) = serde_json::to_string(problem) {
            let _ = writeln!(to, "{line}");
        }
    }
}

fn key(record: &SessionRecord) -> (i64, &str) {
    (record.created_at.0, record.id.as_str())
}

impl Iterator for Merged {
    type Item = Result<SessionRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.limit.is_some_and(|limit| self.emitted == limit) {
            self.done = true;
            if self.more() {
                self.next = self
                    .last
                    .as_ref()
                    .map(|(created, id)| crate::session::ops::format_cursor(*created, id));
            }
            return None;
        }
        let local = match self.local.peek() {
            Some(Ok(record)) => Some(key(record)),
            Some(Err(_)) => {
                self.done = true;
                return self.local.next();
            }
            None => None,
        };
        let newest_remote = self
            .remote
            .iter()
            .enumerate()
            .filter_map(|(index, queue)| Some((index, key(queue.front()?))))
            .max_by(|a, b| a.1.cmp(&b.1));
        let record = match (local, newest_remote) {
            (None, None) => {
                self.done = true;
                return None;
            }
            (Some(local), Some((_, remote))) if local >= remote => self.local.next(),
            (None, Some((index, _))) | (Some(_), Some((index, _))) => {
                self.remote[index].pop_front().map(Ok)
            }
            (Some(_), None) => self.local.next(),
        };
        if let Some(Ok(record)) = &record {
            self.emitted += 1;
            self.last = Some((record.created_at.0, record.id.clone()));
        }
        record
    }
}

/// The arguments a host's `lf-session-list` gets for this filter. Filters
/// that name something of this machine cannot be asked of another.
fn remote_args(filter: &ListFilter) -> Result<Vec<String>> {
    if filter.task.is_some() {
        return Err(RemoteError::LocalOnlyFilter { flag: "--task" }.into());
    }
    if filter.cwd.is_some() {
        return Err(RemoteError::LocalOnlyFilter {
            flag: "--cwd (or --here)",
        }
        .into());
    }
    let mut args = vec!["--jsonl".to_owned()];
    if filter.attention {
        args.push("--attention".to_owned());
    }
    if let Some(state) = filter.state {
        args.extend(["--state".to_owned(), state.as_str().to_owned()]);
    }
    if let Some(kind) = filter.kind {
        args.extend(["--kind".to_owned(), kind.as_str().to_owned()]);
    }
    if filter.orphan {
        args.push("--orphan".to_owned());
    }
    if filter.all {
        args.push("--all".to_owned());
    }
    if let Some(limit) = filter.limit {
        args.extend(["--limit".to_owned(), limit.saturating_add(1).to_string()]);
    }
    if let Some(after) = &filter.after {
        let (created, id) = crate::session::ops::parse_cursor(after)?;
        args.extend([
            "--after".to_owned(),
            crate::session::ops::format_cursor(created, &id),
        ]);
    }
    Ok(args)
}

impl Lf {
    /// This Home's Sessions merged with those of the hosts asked; see the
    /// module docs. Fails only for what fails locally (a bad filter, this
    /// Home's database); a host's failure is one of its `problems`.
    pub fn list_merged(self, filter: &ListFilter, remotes: &Remotes) -> Result<Merged> {
        let mut local_filter = filter.clone();
        local_filter.limit = filter.limit.map(|limit| limit.saturating_add(1));
        let args = if remotes.is_empty() {
            Vec::new()
        } else {
            remote_args(filter)?
        };
        let hosts: Vec<Ssh> = remotes.hosts.iter().map(|entry| self.ssh(entry)).collect();
        let jobs = jobs(&hosts, &args, remotes);
        let local = self.list(&local_filter)?;
        let (remote, problems) = collect(
            &hosts,
            ssh::run_all(jobs, remotes.timeout, LISTING, read_records),
            remotes,
        );
        Ok(Merged {
            local: local.peekable(),
            remote,
            problems,
            limit: filter.limit,
            emitted: 0,
            last: None,
            next: None,
            done: false,
        })
    }

    /// The Sessions of the hosts asked that match the filter, newest first
    /// per host, and the hosts that gave none.
    pub(crate) fn remote_sessions(
        &self,
        filter: &ListFilter,
        remotes: &Remotes,
    ) -> Result<(Vec<SessionRecord>, Vec<HostProblem>)> {
        let args = remote_args(filter)?;
        let hosts: Vec<Ssh> = remotes.hosts.iter().map(|entry| self.ssh(entry)).collect();
        let jobs = jobs(&hosts, &args, remotes);
        let outcomes = ssh::run_all(jobs, remotes.timeout, LISTING, read_records);
        let (remote, problems) = collect(&hosts, outcomes, remotes);
        Ok((remote.into_iter().flatten().collect(), problems))
    }
}

/// The ssh argv of each host's listing.
fn jobs(hosts: &[Ssh], args: &[String], remotes: &Remotes) -> Vec<Vec<String>> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    hosts
        .iter()
        .map(|ssh| {
            // A socket folder that cannot be made only costs the reuse.
            let _ = ssh.prepare();
            ssh.batch_argv("lf-session-list", &args, remotes.timeout)
        })
        .collect()
}

type Outcome = Result<Finished<Result<Vec<SessionRecord>, String>>, NotFinished>;

/// Each host's records, taken, or its problem.
fn collect(
    hosts: &[Ssh],
    outcomes: Vec<Outcome>,
    remotes: &Remotes,
) -> (Vec<VecDeque<SessionRecord>>, Vec<HostProblem>) {
    let mut remote = Vec::new();
    let mut problems = Vec::new();
    for (ssh, outcome) in hosts.iter().zip(outcomes) {
        let taken = received(ssh.entry(), outcome, remotes.timeout).and_then(|records| {
            adopt_all(ssh, records).map_err(|message| HostProblem {
                host: ssh.host().to_owned(),
                problem: HostProblemKind::Incompatible,
                message,
            })
        });
        match taken {
            Ok(records) => remote.push(records),
            Err(problem) => problems.push(problem),
        }
    }
    (remote, problems)
}

/// A host's records, one JSON object a line, decoded strictly as they
/// come: each line at most one record's bound, and at most
/// `MAX_REMOTE_ROWS` of them (`run_all` bounds the bytes).
fn read_records(stdout: &mut dyn BufRead) -> Result<Result<Vec<SessionRecord>, String>, Exceeded> {
    let mut records = Vec::new();
    let mut line = String::new();
    for number in 1.. {
        line.clear();
        let read = (&mut *stdout)
            .take(ssh::MAX_RECORD_BYTES + 1)
            .read_line(&mut line);
        match read {
            Ok(0) => break,
            Ok(count) if count as u64 > ssh::MAX_RECORD_BYTES => {
                return Err(Exceeded {
                    bound: format!("{} for one Session", ssh::mebibytes(ssh::MAX_RECORD_BYTES)),
                    advice: LIST_ADVICE,
                });
            }
            Ok(_) => {}
            Err(error) => return Ok(Err(format!("cannot read its output: {error}"))),
        }
        if line.trim().is_empty() {
            continue;
        }
        if records.len() == MAX_REMOTE_ROWS {
            return Err(Exceeded {
                bound: format!("{MAX_REMOTE_ROWS} Sessions"),
                advice: LIST_ADVICE,
            });
        }
        match serde_json::from_str::<SessionRecord>(&line) {
            Ok(record) => records.push(record),
            // serde's complaint may hold the host's bytes (an unknown field).
            Err(error) => {
                return Ok(Err(format!(
                    "line {number}: {}",
                    host_text(&error.to_string())
                )));
            }
        }
    }
    Ok(Ok(records))
}

/// What one host's ssh gave: its records, or the problem.
fn received(
    entry: &HostEntry,
    outcome: Result<Finished<Result<Vec<SessionRecord>, String>>, NotFinished>,
    timeout: Duration,
) -> Result<Vec<SessionRecord>, HostProblem> {
    received_from(entry, "lf-session-list", outcome, timeout)
}

/// What one host's ssh running `program` gave: what its output read as,
/// or the problem.
pub(crate) fn received_from<T>(
    entry: &HostEntry,
    program: &str,
    outcome: Result<Finished<Result<T, String>>, NotFinished>,
    timeout: Duration,
) -> Result<T, HostProblem> {
    let host = &entry.host;
    let problem = |problem, message: String| HostProblem {
        host: host.clone(),
        problem,
        message,
    };
    let finished = match outcome {
        Ok(finished) => finished,
        Err(not) => return Err(not_finished(host, program, not, timeout)),
    };
    match finished.status.code() {
        Some(0) => finished.stdout.map_err(|error| {
            problem(
                HostProblemKind::Incompatible,
                format!(
                    "host {host} sent something that is not a record this lf can read ({error}): another version of lf, or a login script there that prints on stdout; install the same lf on both machines"
                ),
            )
        }),
        _ => Err(failed(entry, program, &finished.status, &finished.stderr)),
    }
}

/// The problem of an ssh that did not finish.
pub(crate) fn not_finished(
    host: &str,
    program: &str,
    not: NotFinished,
    timeout: Duration,
) -> HostProblem {
    let (problem, message) = match not {
        NotFinished::Spawn(error) => (
            HostProblemKind::Unreachable,
            format!(
                "cannot run ssh to ask host {host} ({error}); install OpenSSH's client (openssh-client)"
            ),
        ),
        NotFinished::Timeout => (
            HostProblemKind::Timeout,
            format!(
                "host {host} did not answer {program} within {} s; check that it is up (ssh {host} true), or give it longer with --host-timeout",
                timeout.as_secs_f64()
            ),
        ),
        NotFinished::Exceeded(Exceeded { bound, advice }) => (
            HostProblemKind::Failed,
            format!(
                "host {host} sent more than {bound} in answer to {program}, more than lf reads from a host, so lf stopped reading and closed the connection; {advice}"
            ),
        ),
    };
    HostProblem {
        host: host.to_owned(),
        problem,
        message,
    }
}

/// The problem of an ssh that finished without success: ssh's own
/// failure (255), a program the remote shell could not find, or the
/// remote lf's error, in its own words.
pub(crate) fn failed(
    entry: &HostEntry,
    program: &str,
    status: &std::process::ExitStatus,
    stderr: &str,
) -> HostProblem {
    let host = &entry.host;
    let said = ssh::remote_error(stderr).map(|said| (said.kind, said.message));
    let (problem, message) = match (status.code(), said) {
        (Some(ssh::SSH_FAILED), _) => (
            HostProblemKind::Unreachable,
            format!(
                "cannot reach host {host} over ssh: {}; check that `ssh {host} true` works without a prompt (lf never asks for a password)",
                ssh::last_words(stderr)
            ),
        ),
        (Some(code), _) if ssh::not_installed(code) => (
            HostProblemKind::NotInstalled,
            format!(
                "{program} is not installed on host {host}{} (its shell said {}); install lf there, or name the folder of its binaries with {}",
                match &entry.bin {
                    Some(bin) => format!(" in {bin}"),
                    None => " on the PATH its ssh commands get".to_owned(),
                },
                ssh::last_words(stderr),
                // A record's words are the binaries' (the wire).
                Command::HostAdd {
                    host: Some(host.clone()),
                    bin: true,
                }
            ),
        ),
        (_, Some((ErrorKind::Usage, message))) => (
            HostProblemKind::Incompatible,
            format!(
                "host {host} runs an lf that does not understand this request ({message}); install the same lf on both machines"
            ),
        ),
        (_, Some((_, message))) => (
            HostProblemKind::Failed,
            format!("on host {host}: {message}"),
        ),
        (code, None) => (
            HostProblemKind::Failed,
            format!(
                "on host {host}, {program} {}: {}",
                match code {
                    Some(code) => format!("exited with {code}"),
                    None => "was killed by a signal".to_owned(),
                },
                ssh::last_words(stderr)
            ),
        ),
    };
    HostProblem {
        host: host.clone(),
        problem,
        message,
    }
}

/// A host's records, each checked and rewritten for this machine, newest
/// first; the first that cannot be taken says why.
fn adopt_all(ssh: &Ssh, records: Vec<SessionRecord>) -> Result<VecDeque<SessionRecord>, String> {
    let mut adopted = records
        .into_iter()
        .map(|record| adopt(ssh, record))
        .collect::<Result<Vec<_>, _>>()?;
    // The order is the remote's promise; it is checked, not trusted.
    adopted.sort_by(|a, b| key(b).cmp(&key(a)));
    Ok(adopted.into())
}

/// The first string of a record (by its JSON path) that holds a character
/// `input::is_unsafe` refuses, lines and tabs aside.
fn unsafe_text(value: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::String(text) => text
            .chars()
            .any(|c| crate::input::is_unsafe(c) && c != '\n' && c != '\t')
            .then(|| path.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| unsafe_text(item, &format!("{path}[{index}]"))),
        Value::Object(fields) => fields
            .iter()
            .find_map(|(key, item)| unsafe_text(item, &format!("{path}.{key}"))),
        _ => None,
    }
}

/// One record of a host, checked and rewritten: see the module docs.
pub(crate) fn adopt(ssh: &Ssh, mut record: SessionRecord) -> Result<SessionRecord, String> {
    let host = ssh.host().to_owned();
    let id = SessionId::parse(&record.id).map_err(|error| {
        format!(
            "host {host} sent a record with a bad id ({}); install the same lf on both machines",
            host_text(&error.to_string())
        )
    })?;
    crate::input::title(&record.title).map_err(|error| {
        format!(
            "host {host} sent Session {id} with a bad title ({})",
            host_text(&error.to_string())
        )
    })?;
    // Every other text of the record reaches terminals too (`jq -r`, the
    // picker): none may hold what acts on one. Lines and tabs may.
    let value = serde_json::to_value(&record).map_err(|error| error.to_string())?;
    if let Some(field) = unsafe_text(&value, "") {
        return Err(format!(
            "host {host} sent Session {id} with a control or text-direction character in {field}; it is left out"
        ));
    }
    let checkout = record.workspace.take();
    record.workspace = Some(Workspace {
        home_id: Some(host.clone()),
        task_id: checkout.as_ref().and_then(|c| c.task_id.clone()),
        worktree: checkout.and_then(|c| c.worktree),
        unavailable: Some(REMOTE_CHECKOUT.to_owned()),
    });
    record.open_argv = ssh.open_argv(&[id.as_str()]);
    record.terminal_ids.clear();
    for action in &mut record.actions {
        if action.kind == ActionKind::Complete && action.unavailable_reason.is_none() {
            action.unavailable_reason = Some(
                format!(
                    "This Session is on host {host}; complete it there (lf-session-complete {id} on {host})"
                )
                .into(),
            );
        }
    }
    Ok(record)
}
