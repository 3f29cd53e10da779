//! Projection: a stored Session row, plus what is known of its work and its
//! clients, becomes the `SessionRecord` people see. The lookups (`Catalog`)
//! and the liveness snapshot (`LiveClients`) are loaded once per command, so
//! listing ten thousand Sessions costs one pass over the rows.

use super::rules::{self, Facts, StepFacts};
use crate::clock::rfc3339;
use crate::error::Result;
use crate::home::Home;
use crate::store::{ClientReceipt, SessionRow, Store, TaskRow, WaveRow};
use crate::wire::{SessionRecord, WorkRef, Workspace};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Waves and Tasks by id, and Task worktrees by path. (A Session's flow
/// comes joined to its row.)
#[derive(Debug, Default)]
pub struct Catalog {
    pub waves: HashMap<String, WaveRow>,
    pub tasks: HashMap<String, TaskRow>,
    worktrees: HashMap<PathBuf, String>,
}

impl Catalog {
    pub fn load(store: &Store) -> Result<Self> {
        let waves = store
            .waves()?
            .into_iter()
            .map(|wave| (wave.id.clone(), wave))
            .collect();
        let tasks: HashMap<String, TaskRow> = store
            .tasks()?
            .into_iter()
            .map(|task| (task.id.clone(), task))
            .collect();
        let worktrees = tasks
            .values()
            .filter_map(|task| Some((PathBuf::from(task.worktree.as_ref()?), task.id.clone())))
            .collect();
        Ok(Catalog {
            waves,
            tasks,
            worktrees,
        })
    }

    /// The Task whose worktree most closely contains `cwd` (the innermost,
    /// when worktrees nest). Both paths were canonicalised when stored.
    pub fn task_at(&self, cwd: &Path) -> Option<&TaskRow> {
        cwd.ancestors()
            .find_map(|dir| self.worktrees.get(dir))
            .and_then(|id| self.tasks.get(id))
    }
}

/// Which Sessions have a live client right now, and in which terminals.
/// Receipts are loaded at once (one small query) but checked against
/// `/proc` only for the Sessions asked about, once each: a page of 100
/// does not pay for the stale receipts of the other ten thousand.
#[derive(Debug, Default)]
pub struct LiveClients {
    receipts: HashMap<String, Vec<ClientReceipt>>,
    boot: String,
    checked: RefCell<HashMap<String, Option<Vec<String>>>>,
}

impl LiveClients {
    /// The open receipts of one Session, or of all.
    pub fn observe(store: &Store, session: Option<&str>) -> Result<Self> {
        let receipts = store.open_clients(session)?;
        if receipts.is_empty() {
            return Ok(LiveClients::default());
        }
        let boot = crate::liveness::boot_id()?;
        let mut by_session: HashMap<String, Vec<ClientReceipt>> = HashMap::new();
        // A receipt from another boot is dead without looking.
        for receipt in receipts
            .into_iter()
            .filter(|receipt| receipt.process.boot_id == boot)
        {
            by_session
                .entry(receipt.session_id.clone())
                .or_default()
                .push(receipt);
        }
        Ok(LiveClients {
            receipts: by_session,
            boot,
            checked: RefCell::default(),
        })
    }

    /// The terminals of a Session's live clients (empty when none lives).
    pub fn terminals(&self, session: &str) -> Vec<String> {
        self.check(session).unwrap_or_default()
    }

    pub fn is_live(&self, session: &str) -> bool {
        self.check(session).is_some()
    }

    /// `Some(terminals)` when a client of the Session lives, checked once.
    fn check(&self, session: &str) -> Option<Vec<String>> {
        let receipts = self.receipts.get(session)?;
        if let Some(known) = self.checked.borrow().get(session) {
            return known.clone();
        }
        let live: Vec<&ClientReceipt> = receipts
            .iter()
            .filter(|receipt| receipt.process.is_alive(&self.boot))
            .collect();
        let found = (!live.is_empty()).then(|| {
            let mut terminals: Vec<String> = Vec::new();
            for terminal in live
                .iter()
                .filter_map(|receipt| receipt.terminal_id.as_ref())
            {
                if !terminals.contains(terminal) {
                    terminals.push(terminal.clone());
                }
            }
            terminals
        });
        self.checked
            .borrow_mut()
            .insert(session.to_owned(), found.clone());
        found
    }
}

/// Builds the argv a fresh terminal runs to open a Session.
#[derive(Debug, Clone)]
pub struct OpenCommand {
    home: String,
    program: String,
}

impl OpenCommand {
    /// `lf-session-open` beside the running executable, with this Home.
    pub fn beside_current_exe(home: &Home) -> Self {
        let program = std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.join("lf-session-open")))
            .unwrap_or_else(|| PathBuf::from("lf-session-open"));
        OpenCommand::new(home, &program)
    }

    pub fn new(home: &Home, program: &Path) -> Self {
        OpenCommand {
            home: format!("LF_HOME={}", home.root().display()),
            program: program.display().to_string(),
        }
    }

    pub fn argv(&self, id: &str) -> Vec<String> {
        vec![
            "/usr/bin/env".to_owned(),
            self.home.clone(),
            self.program.clone(),
            id.to_owned(),
        ]
    }
}

/// The facts the rules need, from a row and the loaded lookups.
pub fn facts(row: &SessionRow, catalog: &Catalog, live: &LiveClients) -> Facts {
    let flow = row.flow.as_ref();
    Facts {
        kind: row.kind,
        interactive: row.interactive,
        completed: row.completed_at.is_some(),
        ready: row.ready_summary.is_some() && !row.ready_superseded,
        live_client: live.is_live(&row.id),
        outcome: row.outcome,
        latest_turn: row.latest_turn,
        permission_pending: row.permission_pending,
        pending_review: rules::is_pending_review(&row.id, flow),
        task_finished: row
            .task_id
            .as_ref()
            .and_then(|id| catalog.tasks.get(id))
            .is_some_and(|task| task.finished_at.is_some()),
    }
}

/// A row as the record every surface shows.
pub fn record(
    row: SessionRow,
    facts: &Facts,
    catalog: &Catalog,
    live: &LiveClients,
    open: &OpenCommand,
) -> SessionRecord {
    let state = rules::state(facts);
    let flow = row.flow.as_ref();
    let step = row.flow_id.as_deref().map(|invocation_id| StepFacts {
        invocation_id,
        step: row.step.as_deref().unwrap_or_default(),
        node: row.node,
        iterations: row.iterations.clone(),
    });
    let flow_membership =
        rules::membership(&row.id, &row.current_run_id, row.independent, step, flow);
    let work = match (&row.task_id, &row.wave_id) {
        (Some(task), _) => Some(WorkRef::Task(task.clone())),
        (None, Some(wave)) => Some(WorkRef::Wave(wave.clone())),
        (None, None) => None,
    };
    let wave_label = row
        .wave_id
        .as_deref()
        .map(|id| (id, catalog.waves.get(id).map(|wave| wave.name.as_str())));
    let task_label = row.task_id.as_deref().map(|id| {
        (
            id,
            catalog.tasks.get(id).map(|task| task.identifier.as_str()),
        )
    });
    let work_path = rules::work_path(wave_label, task_label);
    let checkout = catalog.task_at(Path::new(&row.cwd));
    let mut task_ids: Vec<String> = row.task_id.iter().cloned().collect();
    if let Some(task) = checkout
        && !task_ids.contains(&task.id)
    {
        task_ids.push(task.id.clone());
    }
    let workspace = checkout.map(|task| Workspace {
        task_id: task.id.clone(),
        worktree: task.worktree.clone().unwrap_or_default(),
    });
    let detail = rules::detail(
        row.kind,
        row.provider.as_deref(),
        row.model.as_deref(),
        row.step.as_deref(),
    );
    SessionRecord {
        open_argv: open.argv(&row.id),
        terminal_ids: live.terminals(&row.id),
        alive: facts.live_client,
        title: row.title,
        title_source: row.title_source,
        kind: row.kind,
        interactive: row.interactive,
        state,
        attention: rules::attention(facts),
        actions: rules::actions(row.kind, state),
        ready_summary: row.ready_summary,
        provider: row.provider,
        detail,
        cwd: row.cwd,
        work,
        wave_id: row.wave_id,
        work_path,
        task_ids,
        primary_scope: row.primary_scope,
        flow_membership,
        workspace,
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
        completed_at: row.completed_at.map(rfc3339),
        id: row.id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, worktree: &str) -> TaskRow {
        TaskRow {
            id: id.to_owned(),
            identifier: id.to_uppercase(),
            title: id.to_owned(),
            worktree: Some(worktree.to_owned()),
            wave_id: None,
            created_at: 0,
            finished_at: None,
        }
    }

    #[test]
    fn nested_worktrees_pick_the_innermost() {
        let mut catalog = Catalog::default();
        for task in [task("outer", "/repo"), task("inner", "/repo/sub/wt")] {
            catalog.worktrees.insert(
                PathBuf::from(task.worktree.clone().unwrap()),
                task.id.clone(),
            );
            catalog.tasks.insert(task.id.clone(), task);
        }
        let at = |path: &str| {
            catalog
                .task_at(Path::new(path))
                .map(|task| task.id.as_str())
        };
        assert_eq!(at("/repo/sub/wt/src"), Some("inner"));
        assert_eq!(at("/repo/sub/wt"), Some("inner"));
        assert_eq!(at("/repo/sub"), Some("outer"));
        assert_eq!(at("/repository"), None);
        assert_eq!(at("/elsewhere"), None);
    }
}
