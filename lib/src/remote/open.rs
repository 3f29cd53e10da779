//! One jump: where a Session lives — this Home, or a host of the list —
//! and how a terminal gets there. A remote Session is opened by its own
//! machine's `lf-session-open`, run through `ssh -t` with that host's
//! Home: inside tmux in a new window of the person's session, outside
//! tmux in this terminal (ssh replaces this process).

use super::list::{adopt, failed, not_finished};
use super::ssh::{self, Limit, Ssh};
use crate::error::domain::ErrorKind;
use crate::error::hint::{Command, Hint};
use crate::error::untrusted::host_text;
use crate::facade::Lf;
use crate::ids::SessionSelector;
use crate::input::InputError;
use crate::remote::RemoteError;
use crate::session::Resolved;
use crate::session::error::SessionError;
use crate::tmux::TmuxError;
use crate::wire::{HostEntry, HostProblem, SessionRecord};
use crate::{Error, Result};
use std::time::Duration;

/// A host's answer to one open is one record (`--print`, `--detach`), so
/// lf reads no more of it than one record's bound.
const ONE_RECORD: Limit = Limit {
    bytes: ssh::MAX_RECORD_BYTES,
    advice: "lf-session-open there prints one record, far smaller than that: check what it prints on that host (a login script that prints on stdout, or a program that is not lf)",
};

/// Where a Session lives.
#[derive(Debug)]
pub enum Located {
    /// In this Home: the Session, resolved (its text parsed, a prefix
    /// pinned, its row read) for what the operation does next.
    Here(Box<Resolved>),
    /// On a host of the list (or the one named): its record, rewritten for
    /// this machine, and the host's entry.
    Remote(Box<RemoteSession>),
}

#[derive(Debug)]
pub struct RemoteSession {
    pub entry: HostEntry,
    pub record: SessionRecord,
}

impl RemoteSession {
    /// A record a listing of these hosts gave, with its host's entry.
    pub fn of(remotes: &super::Remotes, record: &SessionRecord) -> Result<Self> {
        let host = record
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.home_id.as_deref())
            .unwrap_or_default();
        let entry = remotes
            .hosts
            .iter()
            .find(|entry| entry.host == host)
            .cloned()
            .ok_or_else(|| RemoteError::HostNotFound(host.to_owned()))?;
        Ok(RemoteSession {
            entry,
            record: record.clone(),
        })
    }
}

/// How long a remote open that launches an agent may take (a launch waits
/// up to 30 s for the agent to be resumable).
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a host did not give a record.
enum Refusal {
    /// Its lf said it has no such Session (in these words, with this
    /// error name).
    NotThere(String, Option<String>),
    /// It could not be asked, or its lf failed (with this kind and name).
    Problem(HostProblem, Option<(ErrorKind, Option<String>)>),
    /// It sent more than `bound`, and was cut off.
    TooMuch(HostProblem, String),
}

impl Refusal {
    fn into_error(self, host: &str) -> Error {
        match self {
            Refusal::NotThere(message, name) => RemoteError::RemoteRefused {
                host: host.to_owned(),
                kind: ErrorKind::NotFound,
                message: format!("on host {host}: {message}"),
                name,
            }
            .into(),
            // A problem's message names the host already.
            Refusal::Problem(problem, Some((kind, name))) => RemoteError::RemoteRefused {
                host: host.to_owned(),
                kind,
                message: problem.message,
                name,
            }
            .into(),
            Refusal::Problem(problem, None) => RemoteError::HostUnavailable {
                host: problem.host,
                message: problem.message,
            }
            .into(),
            Refusal::TooMuch(problem, bound) => RemoteError::HostSentTooMuch {
                host: problem.host,
                bound,
                message: problem.message,
            }
            .into(),
        }
    }
}

impl Lf {
    /// Where the Session a selector names lives: on `host` when one is
    /// named; else here, or, when it is not here, on the first host of the
    /// list that has it (all are asked at once).
    pub fn locate(
        &self,
        selector: &str,
        host: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<Located> {
        let selector = SessionSelector::parse(selector)?;
        // Text as it was typed (checked): a host pins a prefix itself.
        let text = selector.to_string();
        if let Some(host) = host {
            let named = self.remotes(false, &[host.to_owned()], timeout)?;
            let entry = named
                .hosts
                .into_iter()
                .next()
                .ok_or_else(|| RemoteError::HostNotFound(host.to_owned()))?;
            let ssh = self.ssh(&entry);
            let record = self
                .ask_record(&ssh, &["--print", &text], named.timeout)
                .map_err(|refusal| refusal.into_error(&entry.host))?;
            return Ok(Located::Remote(Box::new(RemoteSession { entry, record })));
        }
        let prefix = selector.is_prefix();
        // The host list is read only for a Session that is not here.
        let remotes = match self.resolve_selector(selector) {
            Ok(row) => return Ok(Located::Here(Box::new(Resolved { row }))),
            Err(
                error @ Error::Session(
                    SessionError::SessionNotFound(_) | SessionError::RunNotFound(_),
                ),
            ) => {
                let remotes = self.remotes(true, &[], timeout)?;
                if remotes.is_empty() {
                    return Err(error);
                }
                remotes
            }
            Err(error) => return Err(error),
        };
        let hosts: Vec<Ssh> = remotes.hosts.iter().map(|entry| self.ssh(entry)).collect();
        let asked = self.ask_records(&hosts, &["--print", &text], remotes.timeout);
        let mut problems = Vec::new();
        let mut found = Vec::new();
        // A host's lf that refused the text itself (a prefix it finds
        // ambiguous): its words are the answer when no host has the Session.
        let mut refused = None;
        for (ssh, answer) in hosts.iter().zip(asked) {
            match answer {
                Ok(record) => found.push(RemoteSession {
                    entry: ssh.entry().clone(),
                    record,
                }),
                Err(Refusal::NotThere(..)) => {}
                Err(Refusal::Problem(problem, Some((ErrorKind::Usage, name))))
                    if refused.is_none() =>
                {
                    let refusal = Refusal::Problem(problem, Some((ErrorKind::Usage, name)));
                    refused = Some(refusal.into_error(ssh.host()));
                }
                Err(Refusal::Problem(problem, _) | Refusal::TooMuch(problem, _)) => {
                    problems.push(problem.message)
                }
            }
            // A whole id is one Session: the first host that has it.
            if !prefix && !found.is_empty() {
                break;
            }
        }
        // One id on two hosts is one Session, as a whole id is (the first
        // host's); a prefix that pins two ids names more than one.
        let mut ids = std::collections::HashSet::new();
        found.retain(|session| ids.insert(session.record.id.clone()));
        if found.len() > 1 {
            let candidates = found
                .iter()
                .map(|session| {
                    format!(
                        "{} {} on host {}",
                        crate::ids::short_id(&session.record.id),
                        crate::error::untrusted::quote(&session.record.title),
                        session.entry.host
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            return Err(InputError::AmbiguousPrefix {
                text,
                what: "Session",
                candidates,
            }
            .into());
        }
        if let Some(session) = found.into_iter().next() {
            return Ok(Located::Remote(Box::new(session)));
        }
        if let Some(error) = refused {
            return Err(error);
        }
        Err(RemoteError::NowhereFound {
            id: text,
            problems: problems
                .iter()
                .map(|message| format!("; {message}"))
                .collect(),
        }
        .into())
    }

    /// The argv that takes a terminal to a remote Session, with these
    /// flags of `lf-session-open` (`--replace`, `--here`, `--try`).
    pub fn remote_open_argv(&self, session: &RemoteSession, flags: &[&str]) -> Vec<String> {
        let mut args = flags.to_vec();
        args.push(&session.record.id);
        self.ssh(&session.entry).open_argv(&args)
    }

    /// Have the host launch or resume its Session without a terminal
    /// (`lf-session-open --detach` there); its record afterwards.
    pub fn detach_remote(&self, session: &RemoteSession, flags: &[&str]) -> Result<SessionRecord> {
        let mut args = vec!["--detach"];
        args.extend_from_slice(flags);
        args.push(&session.record.id);
        let ssh = self.ssh(&session.entry);
        self.ask_record(&ssh, &args, LAUNCH_TIMEOUT)
            .map_err(|refusal| refusal.into_error(&session.entry.host))
    }

    /// Take the caller's terminal to a remote Session: a new tmux window
    /// running `argv` inside tmux, else ssh in place of this process (it
    /// returns only with an error).
    pub fn go_remote(&self, session: &RemoteSession, argv: &[String]) -> Result<()> {
        if self.caller.in_tmux() {
            return self.caller.tmux().new_window(argv);
        }
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            let id = &session.record.id;
            return Err(TmuxError::NotATerminal {
                name: format!("of Session {id} on host {}", session.entry.host),
                attach: Hint::text("run ")
                    .command(Command::SessionOpen {
                        id: id.clone(),
                        host: Some(session.entry.host.clone()),
                    })
                    .then(" in a terminal"),
            }
            .into());
        }
        Err(crate::session::Destination::exec(argv))
    }

    /// Run one of the host's `lf-session-open` forms that prints a record.
    fn ask_record(
        &self,
        ssh: &Ssh,
        args: &[&str],
        timeout: Duration,
    ) -> Result<SessionRecord, Refusal> {
        self.ask_records(std::slice::from_ref(ssh), args, timeout)
            .pop()
            .unwrap_or_else(|| {
                Err(Refusal::Problem(
                    not_finished(
                        ssh.host(),
                        "lf-session-open",
                        ssh::NotFinished::Timeout,
                        timeout,
                    ),
                    None,
                ))
            })
    }

    /// Ask every host at once; each answer in order.
    fn ask_records(
        &self,
        hosts: &[Ssh],
        args: &[&str],
        timeout: Duration,
    ) -> Vec<Result<SessionRecord, Refusal>> {
        let jobs = hosts
            .iter()
            .map(|ssh| {
                let _ = ssh.prepare();
                ssh.batch_argv("lf-session-open", args, timeout)
            })
            .collect();
        let read = |stdout: &mut dyn std::io::BufRead| {
            let mut text = String::new();
            Ok(stdout.read_to_string(&mut text).map(|_| text))
        };
        let outcomes = ssh::run_all(jobs, timeout, ONE_RECORD, read);
        hosts
            .iter()
            .zip(outcomes)
            .map(|(ssh, outcome)| {
                let program = "lf-session-open";
                let finished = outcome.map_err(|not| {
                    let bound = match &not {
                        ssh::NotFinished::Exceeded(exceeded) => Some(exceeded.bound.clone()),
                        _ => None,
                    };
                    let problem = not_finished(ssh.host(), program, not, timeout);
                    match bound {
                        Some(bound) => Refusal::TooMuch(problem, bound),
                        None => Refusal::Problem(problem, None),
                    }
                })?;
                if !finished.status.success() {
                    return Err(match ssh::remote_error(&finished.stderr) {
                        Some(said) if said.kind == ErrorKind::NotFound => {
                            Refusal::NotThere(said.message, said.name)
                        }
                        said => Refusal::Problem(
                            failed(ssh.entry(), program, &finished.status, &finished.stderr),
                            said.map(|said| (said.kind, said.name)),
                        ),
                    });
                }
                let incompatible = |message: String| {
                    Refusal::Problem(
                        HostProblem {
                            host: ssh.host().to_owned(),
                            problem: crate::wire::HostProblemKind::Incompatible,
                            message,
                        },
                        None,
                    )
                };
                let text = finished.stdout.map_err(|error| {
                    incompatible(format!("cannot read what host {} sent: {error}", ssh.host()))
                })?;
                let record = serde_json::from_str::<SessionRecord>(&text).map_err(|error| {
                    incompatible(format!(
                        "host {} sent a record this lf cannot read ({}); install the same lf on both machines",
                        ssh.host(),
                        host_text(&error.to_string())
                    ))
                })?;
                adopt(ssh, record).map_err(incompatible)
            })
            .collect()
    }
}
