//! Usage on remote Homes: each host runs its own `lf-session-usage --json`
//! with the same grouping and day (so it reads its own transcripts, only
//! what was appended there), all hosts at once within the timeout; its
//! rows are taken if they decode strictly, and named after the host.

use super::hosts::Remotes;
use super::list::received_from;
use super::ssh::{self, Exceeded, Limit, Ssh};
use crate::Result;
use crate::error::untrusted::host_text;
use crate::facade::Lf;
use crate::usage::UsageQuery;
use crate::wire::{HostProblem, UsageRow};
use std::io::BufRead;

/// The most lf reads of one host's usage: a row is a few hundred bytes,
/// and a Home has at most a row per Session.
const USAGE: Limit = Limit {
    bytes: 64 * 1024 * 1024,
    advice: "sum by something coarser (--by day, --by provider) or from a later day (--since)",
};

impl Lf {
    /// The usage rows of the hosts asked, each named after its host, and
    /// the hosts that gave none.
    pub(crate) fn remote_usage(
        &self,
        query: &UsageQuery,
        remotes: &Remotes,
    ) -> Result<(Vec<UsageRow>, Vec<HostProblem>)> {
        let mut args = vec!["--json", "--by", query.by.as_str()];
        if let Some(since) = &query.since {
            args.extend(["--since", since.as_str()]);
        }
        let hosts: Vec<Ssh> = remotes.hosts.iter().map(|entry| self.ssh(entry)).collect();
        let jobs = hosts
            .iter()
            .map(|ssh| {
                let _ = ssh.prepare();
                ssh.batch_argv("lf-session-usage", &args, remotes.timeout)
            })
            .collect();
        let outcomes = ssh::run_all(jobs, remotes.timeout, USAGE, read_rows);
        let mut rows = Vec::new();
        let mut problems = Vec::new();
        for (ssh, outcome) in hosts.iter().zip(outcomes) {
            match received_from(ssh.entry(), "lf-session-usage", outcome, remotes.timeout) {
                Ok(taken) => rows.extend(taken.into_iter().filter(|row| row.by == query.by).map(
                    |mut row| {
                        row.host = Some(ssh.host().to_owned());
                        row
                    },
                )),
                Err(problem) => problems.push(problem),
            }
        }
        Ok((rows, problems))
    }
}

/// A host's rows: one JSON array.
fn read_rows(stdout: &mut dyn BufRead) -> Result<Result<Vec<UsageRow>, String>, Exceeded> {
    let mut text = String::new();
    if let Err(error) = stdout.read_to_string(&mut text) {
        return Ok(Err(format!("cannot read its output: {error}")));
    }
    Ok(serde_json::from_str::<Vec<UsageRow>>(&text).map_err(|error| host_text(&error.to_string())))
}
