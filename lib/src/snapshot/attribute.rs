//! The rules that attribute live processes to Sessions, on a process table
//! and the recorded evidence, with nothing else: no database, no `/proc`.
//!
//! Evidence is exact or it is nothing. A record names one process by
//! `(boot_id, pid, starttime)` and one Session:
//! - a **client receipt** (the provider process `lf-serve` started, or any
//!   client recorded for the Session) claims that process and, by
//!   containment, the processes beneath it;
//! - a **launcher** record (the `lf-serve` process serving a Run) claims the
//!   processes beneath it, never itself: lf's own machinery is no agent.
//!
//! Each live process belongs to its nearest claimant: itself if it holds a
//! receipt, else its closest recorded ancestor. So a launcher started
//! beneath another Session's agent owns its own subtree, and an exact
//! receipt is never overruled by the launcher it runs under. A claimant that
//! names two Sessions attributes nothing: every process it would claim is a
//! gap, never a guess, and never broadcast to both. A process whose receipt
//! lf has ended (a client it stopped or let go) is retired: it and its
//! subtree belong to no Session, and no launcher above may borrow them.
//!
//! Dead processes disappear: a record of another boot, of a pid that no
//! longer exists or of a zombie claims nothing and says nothing. A record
//! whose pid now names a process that started at another time is stale
//! (the pid was reused) and is reported as a gap.

use crate::Result;
use crate::liveness::table::ProcessTable;
use crate::store::Evidence;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A process attributed to exactly one Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attributed {
    pub pid: u32,
    pub provider: String,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Attribution {
    /// Session id → its processes, sorted by pid.
    pub sessions: BTreeMap<String, Vec<Attributed>>,
    pub gaps: Vec<String>,
}

/// What a record says of its process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// It is the Session's client: it and what runs beneath it.
    Client,
    /// It launched the Session's Run: what runs beneath it.
    Launcher,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::Client => "client",
            Role::Launcher => "launcher",
        }
    }
}

/// A live process that some record claims.
#[derive(Debug, Default)]
struct Claimant {
    sessions: BTreeSet<String>,
    /// It holds a client receipt, so it claims itself too.
    client: bool,
    provider: Option<String>,
}

pub(crate) fn unresolved(pid: u32, sessions: usize) -> String {
    format!(
        "Live process {pid} has {sessions} possible current Sessions; attribution is unresolved"
    )
}

/// Attribute every live process of `table` that the evidence reaches.
/// `retired(pid, starttime)` says whether lf ended a receipt of exactly
/// that process on this boot.
pub(crate) fn attribute(
    boot: &str,
    table: &ProcessTable,
    evidence: &Evidence,
    mut retired: impl FnMut(u32, u64) -> Result<bool>,
) -> Result<Attribution> {
    let mut attribution = Attribution::default();
    let claimants = claimants(boot, table, evidence, &mut attribution.gaps);
    let children = table.children();
    let mut visited = HashSet::new();
    let mut order: Vec<&u32> = claimants.keys().collect();
    order.sort();
    for &pid in order {
        let claimant = &claimants[&pid];
        if claimant.client {
            attribution.assign(claimant, pid);
        }
        visited.insert(pid);
        let mut pending: Vec<u32> = children.get(&pid).cloned().unwrap_or_default();
        while let Some(child) = pending.pop() {
            // A nearer claimant owns its own subtree.
            if claimants.contains_key(&child) || !visited.insert(child) {
                continue;
            }
            let Some(live) = table.get(child) else {
                continue;
            };
            if retired(child, live.starttime)? {
                continue;
            }
            attribution.assign(claimant, child);
            if let Some(grandchildren) = children.get(&child) {
                pending.extend(grandchildren);
            }
        }
    }
    for processes in attribution.sessions.values_mut() {
        processes.sort_by_key(|process| process.pid);
    }
    attribution.gaps.sort();
    attribution.gaps.dedup();
    Ok(attribution)
}

/// The live processes the records claim, by pid; a record whose pid now
/// names a process started at another time is a gap.
fn claimants(
    boot: &str,
    table: &ProcessTable,
    evidence: &Evidence,
    gaps: &mut Vec<String>,
) -> HashMap<u32, Claimant> {
    let mut claimants: HashMap<u32, Claimant> = HashMap::new();
    let records = evidence
        .clients
        .iter()
        .map(|claim| (claim, Role::Client))
        .chain(
            evidence
                .launchers
                .iter()
                .map(|claim| (claim, Role::Launcher)),
        );
    for (claim, role) in records {
        let process = &claim.process;
        // Another boot's processes, and exited ones, are simply gone.
        if process.boot_id != boot {
            continue;
        }
        let Some(live) = table.get(process.pid) else {
            continue;
        };
        if live.starttime != process.starttime {
            gaps.push(format!(
                "Session {}: recorded {} {} has no matching live PID/start evidence; \
                 the receipt is stale and claims nothing",
                claim.session,
                role.as_str(),
                process.pid
            ));
            continue;
        }
        if live.is_dead() {
            continue;
        }
        let claimant = claimants.entry(process.pid).or_default();
        claimant.sessions.insert(claim.session.clone());
        if role == Role::Client {
            claimant.client = true;
        }
        // Clients come first: a process's own receipt names its provider.
        claimant
            .provider
            .get_or_insert_with(|| claim.provider.clone());
    }
    claimants
}

impl Attribution {
    /// `pid` is `claimant`'s: its one Session's, or a gap when it names
    /// several.
    fn assign(&mut self, claimant: &Claimant, pid: u32) {
        match claimant.sessions.first() {
            Some(session) if claimant.sessions.len() == 1 => self
                .sessions
                .entry(session.clone())
                .or_default()
                .push(Attributed {
                    pid,
                    provider: claimant.provider.clone().unwrap_or_default(),
                }),
            _ => self.gaps.push(unresolved(pid, claimant.sessions.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The scenarios of the original design (`003_…`), on synthetic process
    //! tables. Its Exec (a process hosting conversations one after another)
    //! is lf's launcher, which serves exactly one Run of one Session; its
    //! engine identity and native clients are both lf's client receipts;
    //! its trace id has no counterpart, and the boot id takes its place.
    //! `tests/active.rs` runs the same scenarios with real processes.

    use super::*;
    use crate::liveness::ProcessIdentity;
    use crate::liveness::table::Proc;
    use crate::store::Claim;

    const BOOT: &str = "boot";

    fn table(rows: &[(u32, u32)]) -> ProcessTable {
        ProcessTable {
            procs: rows
                .iter()
                .map(|&(pid, ppid)| {
                    (
                        pid,
                        Proc {
                            ppid,
                            state: 'S',
                            exiting: false,
                            starttime: 100,
                        },
                    )
                })
                .collect(),
        }
    }

    fn claim(pid: u32, session: &str) -> Claim {
        Claim {
            process: ProcessIdentity {
                boot_id: BOOT.to_owned(),
                pid,
                starttime: 100,
            },
            session: session.to_owned(),
            provider: "codex".to_owned(),
        }
    }

    fn started(mut claim: Claim, starttime: u64) -> Claim {
        claim.process.starttime = starttime;
        claim
    }

    fn observe(table: &ProcessTable, evidence: &Evidence, retired: &[(u32, u64)]) -> Attribution {
        attribute(BOOT, table, evidence, |pid, start| {
            Ok(retired.contains(&(pid, start)))
        })
        .unwrap()
    }

    fn pids(attribution: &Attribution, session: &str) -> Vec<u32> {
        attribution.sessions[session]
            .iter()
            .map(|process| process.pid)
            .collect()
    }

    #[test]
    fn sequential_sessions_do_not_borrow_a_retained_client() {
        // Launcher 50 serves "second"; 51 is a client "first" let go of.
        let processes = table(&[(50, 1), (51, 50), (52, 50)]);
        let evidence = Evidence {
            clients: vec![],
            launchers: vec![claim(50, "second")],
        };
        let snapshot = observe(&processes, &evidence, &[(51, 100)]);
        assert!(snapshot.gaps.is_empty(), "{snapshot:?}");
        assert_eq!(snapshot.sessions.keys().collect::<Vec<_>>(), ["second"]);
        assert_eq!(pids(&snapshot, "second"), [52]);

        // The old receipt's pid started at another time: 51 is new, not retired.
        let reused = observe(&processes, &evidence, &[(51, 1)]);
        assert_eq!(pids(&reused, "second"), [51, 52]);

        // A stale open receipt of "first" cannot hide 51 either, and says so.
        let stale = Evidence {
            clients: vec![started(claim(51, "first"), 1)],
            ..evidence.clone()
        };
        let rejected = observe(&processes, &stale, &[]);
        assert_eq!(pids(&rejected, "second"), [51, 52]);
        assert_eq!(
            rejected.gaps,
            [
                "Session first: recorded client 51 has no matching live PID/start evidence; \
              the receipt is stale and claims nothing"
            ]
        );

        // One launcher recorded for both Sessions: nothing is borrowed.
        let shared = Evidence {
            clients: vec![],
            launchers: vec![claim(50, "first"), claim(50, "second")],
        };
        let unresolved = observe(&processes, &shared, &[(51, 100)]);
        assert!(unresolved.sessions.is_empty());
        assert_eq!(unresolved.gaps, [super::unresolved(52, 2)]);

        // With an exact receipt, "first" keeps its own process; the rest is a gap.
        let ambiguous = Evidence {
            clients: vec![claim(51, "first")],
            ..shared
        };
        let ambiguous = observe(&processes, &ambiguous, &[]);
        assert_eq!(ambiguous.sessions.keys().collect::<Vec<_>>(), ["first"]);
        assert_eq!(pids(&ambiguous, "first"), [51]);
        assert_eq!(
            ambiguous.gaps,
            ["Live process 52 has 2 possible current Sessions; attribution is unresolved"]
        );
    }

    #[test]
    fn a_child_launcher_is_distinct_and_pid_or_boot_mismatch_cannot_claim_work() {
        let processes = table(&[(50, 1), (51, 50), (60, 51), (61, 60), (62, 61)]);
        let evidence = Evidence {
            clients: vec![claim(51, "root"), claim(61, "child")],
            launchers: vec![claim(50, "root"), claim(60, "child")],
        };
        let snapshot = observe(&processes, &evidence, &[]);
        assert!(snapshot.gaps.is_empty(), "{snapshot:?}");
        assert_eq!(pids(&snapshot, "root"), [51]);
        assert_eq!(pids(&snapshot, "child"), [61, 62]);

        // Without receipts, containment alone gives the same answer.
        let launchers_only = Evidence {
            clients: vec![],
            ..evidence.clone()
        };
        let snapshot = observe(&processes, &launchers_only, &[]);
        assert_eq!(pids(&snapshot, "root"), [51]);
        assert_eq!(pids(&snapshot, "child"), [61, 62]);

        // A reused pid and another boot claim nothing.
        let mut other_boot = claim(60, "child");
        other_boot.process.boot_id = "another boot".to_owned();
        let mismatched = Evidence {
            clients: vec![],
            launchers: vec![started(claim(50, "root"), 1), other_boot],
        };
        let snapshot = observe(&processes, &mismatched, &[]);
        assert!(snapshot.sessions.is_empty(), "{snapshot:?}");
        assert_eq!(
            snapshot.gaps,
            [
                "Session root: recorded launcher 50 has no matching live PID/start evidence; \
              the receipt is stale and claims nothing"
            ]
        );
    }

    #[test]
    fn a_shared_engine_is_not_broadcast_and_native_clients_survive_their_launcher() {
        // 51 runs outside any launcher and is claimed by two Sessions.
        let processes = table(&[(50, 1), (51, 1), (70, 1), (71, 1)]);
        let shared = Evidence {
            clients: vec![claim(51, "first"), claim(51, "second")],
            launchers: vec![claim(50, "first"), claim(50, "second")],
        };
        let snapshot = observe(&processes, &shared, &[]);
        assert!(snapshot.sessions.is_empty());
        assert_eq!(snapshot.gaps, [super::unresolved(51, 2)]);

        // Their launchers exited (gone from the table); the clients remain.
        let processes = table(&[(51, 1), (70, 1), (71, 1)]);
        let native = Evidence {
            clients: vec![claim(70, "first"), claim(71, "second")],
            launchers: vec![claim(50, "first"), claim(50, "second")],
        };
        let snapshot = observe(&processes, &native, &[]);
        assert!(snapshot.gaps.is_empty(), "{snapshot:?}");
        assert_eq!(pids(&snapshot, "first"), [70]);
        assert_eq!(pids(&snapshot, "second"), [71]);
    }

    #[test]
    fn a_launcher_alone_zombies_and_the_dead_are_no_conversation() {
        let mut processes = table(&[(50, 1), (51, 1), (52, 51)]);
        processes.procs.get_mut(&51).unwrap().state = 'Z';
        let evidence = Evidence {
            clients: vec![claim(51, "zombie"), claim(99, "gone")],
            launchers: vec![claim(50, "idle")],
        };
        let snapshot = observe(&processes, &evidence, &[]);
        assert_eq!(snapshot, Attribution::default());
    }

    #[test]
    fn a_retired_process_takes_its_subtree_with_it() {
        let processes = table(&[(50, 1), (51, 50), (52, 51), (53, 50)]);
        let evidence = Evidence {
            clients: vec![],
            launchers: vec![claim(50, "current")],
        };
        let snapshot = observe(&processes, &evidence, &[(51, 100)]);
        assert_eq!(pids(&snapshot, "current"), [53]);
        assert!(snapshot.gaps.is_empty());
    }
}
