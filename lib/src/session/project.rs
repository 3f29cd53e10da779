//! Projection: a stored Session row, plus what is known of its work and its
//! clients, becomes the `SessionRecord` people see. A listing loads every
//! Task worktree once (`Projection::load`); a command about a few Sessions
//! (a hook's change stream, one record) reads only the worktrees that could
//! contain their cwds (`Projection::on_demand`). Task and Wave labels are
//! read when a Session first names them, and clients (`LiveClients`) are
//! read and checked against `/proc` only for the Sessions that have open
//! receipts — each once, so a page of 100 does not pay for the other ten
//! thousand.

use crate::Result;
use crate::clock::Timestamp;
use crate::home::Home;
use crate::liveness::Presence;
use crate::state::{self, Facts, StepFacts};
use crate::store::{SessionRow, Store, TaskLabel};
use crate::wire::{Attention, SessionRecord, WorkRef, Workspace};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};

/// Tasks and Waves by id, as far as they were asked for, and Task
/// worktrees by path. The maps hash with FxHash: they are looked up several
/// times per listed Session (once per ancestor of its cwd), and their keys
/// are lf's own.
#[derive(Default)]
pub struct Catalog {
    tasks: RefCell<HashMap<String, Option<TaskLabel>>>,
    waves: RefCell<HashMap<String, Option<String>>>,
    worktrees: Worktrees,
}

/// Where a Catalog finds Task worktrees.
enum Worktrees {
    /// Every one, loaded up front: worktree path to Task id (a listing
    /// asks about many cwds).
    All(HashMap<String, String>),
    /// Read for each cwd asked about, and remembered (a command about a
    /// few Sessions need not read every Task).
    Asked(RefCell<HashMap<String, Option<Checkout>>>),
}

impl Default for Worktrees {
    fn default() -> Self {
        Worktrees::Asked(RefCell::default())
    }
}

/// The Task whose worktree contains a Session's cwd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub task_id: String,
    pub worktree: String,
}

impl Catalog {
    /// A Catalog with every Task worktree loaded, for a listing.
    pub fn load(store: &Store) -> Result<Self> {
        Ok(Catalog {
            worktrees: Worktrees::All(store.task_worktrees()?.into_iter().collect()),
            ..Catalog::default()
        })
    }

    /// A Catalog that reads what it is asked about, for a few Sessions.
    pub fn on_demand() -> Self {
        Catalog::default()
    }

    /// A Task's label, read once.
    fn task(&self, store: &Store, id: &str) -> Result<Option<TaskLabel>> {
        remembered(&self.tasks, id, || store.task_label(id))
    }

    /// A Wave's name, read once.
    fn wave(&self, store: &Store, id: &str) -> Result<Option<String>> {
        remembered(&self.waves, id, || store.wave_name(id))
    }

    /// The Task whose worktree most closely contains `cwd` (the innermost,
    /// when worktrees nest; of two Tasks registered on one worktree, the
    /// later). Both paths were canonicalised when stored, so the ancestors
    /// are the prefixes that end before a `/`.
    pub fn task_at(&self, store: &Store, cwd: &str) -> Result<Option<Checkout>> {
        match &self.worktrees {
            Worktrees::All(worktrees) => {
                if worktrees.is_empty() {
                    return Ok(None);
                }
                Ok(ancestors(cwd)
                    .find_map(|dir| worktrees.get_key_value(dir))
                    .map(|(worktree, task_id)| Checkout {
                        task_id: task_id.clone(),
                        worktree: worktree.clone(),
                    }))
            }
            Worktrees::Asked(asked) => remembered(asked, cwd, || {
                let dirs: Vec<&str> = ancestors(cwd).collect();
                let found = store.task_worktrees_among(&dirs)?;
                Ok(dirs.iter().find_map(|dir| {
                    found
                        .iter()
                        .find(|(worktree, _)| worktree == dir)
                        .map(|(worktree, task_id)| Checkout {
                            task_id: task_id.clone(),
                            worktree: worktree.clone(),
                        })
                }))
            }),
        }
    }
}

/// `cwd` and the folders above it, innermost first: the prefixes that end
/// before a `/` (a trailing `/` is not a folder of its own).
fn ancestors(cwd: &str) -> impl Iterator<Item = &str> {
    let cwd = cwd
        .strip_suffix('/')
        .filter(|dir| !dir.is_empty())
        .unwrap_or(cwd);
    std::iter::once(cwd.len())
        .chain(cwd.rmatch_indices('/').map(|(at, _)| at.max(1)))
        .map(move |end| &cwd[..end])
}

/// The value remembered for `id`, or `read` it once and remember it.
fn remembered<T: Clone>(
    memo: &RefCell<HashMap<String, T>>,
    id: &str,
    read: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if let Some(known) = memo.borrow().get(id) {
        return Ok(known.clone());
    }
    let value = read()?;
    memo.borrow_mut().insert(id.to_owned(), value.clone());
    Ok(value)
}

/// Which Sessions have a live client right now, and in which terminals:
/// the open receipts of a Session are read and checked against `/proc`
/// when it is first asked about, and remembered.
pub struct LiveClients {
    /// The Sessions with open receipts, when read for all at once (a
    /// listing skips the others without a query); `None`: a Session's
    /// receipts are read when it is asked about.
    receipts: Option<HashSet<String>>,
    boot: OnceCell<String>,
    checked: RefCell<HashMap<String, Checked>>,
}

/// What a Session's open receipts say, checked once.
#[derive(Debug, Clone, Default)]
struct Checked {
    /// The terminals of its live clients, if one lives.
    live: Option<Vec<String>>,
    /// A client's process still runs although its terminal hung up: it
    /// shows the Session to nobody, and is being stopped.
    lingering: bool,
}

impl LiveClients {
    /// Which Sessions have open receipts, read for all at once.
    pub fn observe(store: &Store) -> Result<Self> {
        Ok(LiveClients {
            receipts: Some(store.sessions_with_open_clients()?.into_iter().collect()),
            boot: OnceCell::new(),
            checked: RefCell::default(),
        })
    }

    /// Nothing read yet: each Session's receipts are read when it is
    /// first asked about (for a few Sessions, that is fewer rows).
    pub fn on_demand() -> Self {
        LiveClients {
            receipts: None,
            boot: OnceCell::new(),
            checked: RefCell::default(),
        }
    }

    /// The terminals of a Session's live clients (empty when none lives).
    pub fn terminals(&self, store: &Store, row: &SessionRow) -> Result<Vec<String>> {
        Ok(self.check(store, row)?.live.unwrap_or_default())
    }

    /// A client shows the Session to a person (in a terminal that is there).
    pub fn is_live(&self, store: &Store, row: &SessionRow) -> Result<bool> {
        Ok(self.check(store, row)?.live.is_some())
    }

    /// A client's process runs, in its terminal or after it hung up.
    pub fn runs(&self, store: &Store, row: &SessionRow) -> Result<bool> {
        let checked = self.check(store, row)?;
        Ok(checked.live.is_some() || checked.lingering)
    }

    /// This boot's id, read once.
    fn boot(&self) -> Result<&str> {
        if let Some(boot) = self.boot.get() {
            return Ok(boot);
        }
        let boot = crate::liveness::boot_id()?;
        Ok(self.boot.get_or_init(|| boot))
    }

    /// Why the Session's agent is gone without having ended by itself, if
    /// it is (`state::lost`). The launcher is looked up in `/proc` only for
    /// a Run that started, has no outcome and no live client.
    pub fn lost(
        &self,
        row: &SessionRow,
        live_client: bool,
    ) -> Result<Option<crate::wire::LostReason>> {
        if !may_be_lost(row, live_client) {
            return Ok(None);
        }
        Ok(lost(row, live_client, self.boot()?))
    }

    /// What the Session's open receipts say, checked once.
    fn check(&self, store: &Store, row: &SessionRow) -> Result<Checked> {
        if self
            .receipts
            .as_ref()
            .is_some_and(|receipts| !receipts.contains(row.id.as_str()))
        {
            return Ok(Checked::default());
        }
        remembered(&self.checked, &row.id, || {
            let mut checked = Checked::default();
            let receipts = store.open_clients(Some(&row.id))?;
            if receipts.is_empty() {
                return Ok(checked);
            }
            let boot = self.boot()?;
            // A receipt from another boot is dead without looking; a
            // client whose terminal hung up shows the Session to nobody.
            for receipt in receipts {
                if receipt.process.boot_id != *boot {
                    continue;
                }
                match receipt.process.presence(boot) {
                    Presence::Gone => {}
                    Presence::HungUp => checked.lingering = true,
                    Presence::Running => {
                        let terminals = checked.live.get_or_insert_with(Vec::new);
                        if let Some(terminal) = receipt.terminal_id
                            && !terminals.contains(&terminal)
                        {
                            terminals.push(terminal);
                        }
                    }
                }
            }
            Ok(checked)
        })
    }
}

/// Whether a row can be lost at all, from what the database says alone.
fn may_be_lost(row: &SessionRow, live_client: bool) -> bool {
    row.launch.started && row.outcome.is_none() && !live_client && row.completed_at.is_none()
}

/// Why a Session's agent is gone without having ended by itself
/// (`state::lost`), on the boot `boot`; a completed Session is never lost.
pub(crate) fn lost(
    row: &SessionRow,
    live_client: bool,
    boot: &str,
) -> Option<crate::wire::LostReason> {
    if !may_be_lost(row, live_client) {
        return None;
    }
    let launch = &row.launch;
    let (other_boot, presence) = match &launch.launcher {
        Some(launcher) => (launcher.boot_id != boot, launcher.presence(boot)),
        None => (false, Presence::Gone),
    };
    state::lost(
        row.outcome,
        live_client,
        state::LaunchFacts {
            started: launch.started,
            ended: launch.ended,
            other_boot,
            launcher_alive: presence == Presence::Running,
            hung_up: presence == Presence::HungUp,
        },
    )
}

/// What turns rows into records: the lookups loaded once per command
/// (owned, so a listing that holds them can be streamed), and how records
/// name their open command.
pub struct Projection {
    pub catalog: Catalog,
    pub live: LiveClients,
    pub open: OpenCommand,
}

impl Projection {
    /// For a listing: every Task worktree and which Sessions have open
    /// receipts, read up front.
    pub fn load(store: &Store, open: &OpenCommand) -> Result<Self> {
        Ok(Projection {
            catalog: Catalog::load(store)?,
            live: LiveClients::observe(store)?,
            open: open.clone(),
        })
    }

    /// For a few Sessions (a write's change stream, one record): nothing
    /// read up front, only what each Session projected needs. Projects
    /// every Session exactly as `load` does.
    pub fn on_demand(open: &OpenCommand) -> Self {
        Projection {
            catalog: Catalog::on_demand(),
            live: LiveClients::on_demand(),
            open: open.clone(),
        }
    }

    pub fn facts(&self, store: &Store, row: &SessionRow) -> Result<Facts> {
        facts(store, row, &self.catalog, &self.live)
    }

    pub fn record(&self, store: &Store, row: SessionRow, facts: &Facts) -> Result<SessionRecord> {
        record(store, row, facts, &self.catalog, &self.live, &self.open)
    }
}

/// The facts the rules need, from a row and the loaded lookups.
fn facts(store: &Store, row: &SessionRow, catalog: &Catalog, live: &LiveClients) -> Result<Facts> {
    let flow = row.flow.as_ref();
    let live_client = live.is_live(store, row)?;
    Ok(Facts {
        kind: row.kind,
        interactive: row.interactive,
        completed: row.completed_at.is_some(),
        ready: row.ready_summary.is_some() && !row.ready_superseded,
        live_client,
        outcome: row.outcome,
        lost: live.lost(row, live_client)?,
        latest_turn: row.latest_turn,
        permission_pending: row.permission_pending,
        pending_review: state::is_pending_review(&row.id, flow),
        task_finished: match row.task_id.as_deref() {
            Some(id) => catalog.task(store, id)?.is_some_and(|task| task.finished),
            None => false,
        },
    })
}

/// A row as the record every surface shows.
fn record(
    store: &Store,
    row: SessionRow,
    facts: &Facts,
    catalog: &Catalog,
    live: &LiveClients,
    open: &OpenCommand,
) -> Result<SessionRecord> {
    let state = state::state(facts);
    let attention = state::attention(facts);
    let step = row.flow_id.as_deref().map(|invocation_id| StepFacts {
        invocation_id,
        step: row.step.as_deref().unwrap_or_default(),
        node: row.node,
        iterations: row.iterations.clone(),
    });
    let flow_membership = state::membership(
        &row.id,
        &row.current_run_id,
        row.independent,
        step,
        row.flow.as_ref(),
    );
    let work = match (&row.task_id, &row.wave_id) {
        (Some(task), _) => Some(WorkRef::Task(task.clone())),
        (None, Some(wave)) => Some(WorkRef::Wave(wave.clone())),
        (None, None) => None,
    };
    let work_path = work_path(store, &row, catalog)?;
    let (task_ids, workspace) = checkout(store, &row, catalog)?;
    let attention_since = attention.map(|attention| attention_since(attention, &row));
    let attention_request = match (attention, &row.request) {
        (Some(Attention::Approve), Some(request)) => Some(request.on_wire(&row.cwd)),
        _ => None,
    };
    let detail = state::detail(
        row.kind,
        row.provider.as_deref(),
        row.model.as_deref(),
        row.step.as_deref(),
    );
    Ok(SessionRecord {
        open_argv: open.argv(&row.id),
        terminal_ids: live.terminals(store, &row)?,
        // Its agent's process, even while it is stopped after its
        // terminal hung up (the Session reads lost meanwhile).
        alive: live.runs(store, &row)?,
        lost: facts.lost,
        title: row.title,
        title_source: row.title_source,
        kind: row.kind,
        interactive: row.interactive,
        state,
        attention,
        attention_since,
        attention_request,
        actions: state::actions(&row.id, row.kind, state, row.completed_at),
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
        created_at: Timestamp(row.created_at),
        updated_at: Timestamp(row.updated_at),
        completed_at: row.completed_at.map(Timestamp),
        id: row.id.into(),
    })
}

/// The Session's Wave and Task by name (`product/LOO-291`), when it has
/// either.
fn work_path(store: &Store, row: &SessionRow, catalog: &Catalog) -> Result<Option<String>> {
    let wave_name = match row.wave_id.as_deref() {
        Some(id) => catalog.wave(store, id)?,
        None => None,
    };
    let task = match row.task_id.as_deref() {
        Some(id) => catalog.task(store, id)?,
        None => None,
    };
    Ok(state::work_path(
        row.wave_id.as_deref().map(|id| (id, wave_name.as_deref())),
        row.task_id
            .as_deref()
            .map(|id| (id, task.as_ref().map(|task| task.identifier.as_str()))),
    ))
}

/// The Tasks the Session is bound to or works in (its folder in a Task's
/// worktree), and that worktree.
fn checkout(
    store: &Store,
    row: &SessionRow,
    catalog: &Catalog,
) -> Result<(Vec<String>, Option<Workspace>)> {
    let checkout = catalog.task_at(store, &row.cwd)?;
    let mut task_ids: Vec<String> = row.task_id.iter().cloned().collect();
    if let Some(checkout) = &checkout
        && !task_ids.contains(&checkout.task_id)
    {
        task_ids.push(checkout.task_id.clone());
    }
    let workspace = checkout.map(|checkout| Workspace {
        home_id: None,
        task_id: Some(checkout.task_id),
        worktree: Some(checkout.worktree),
        unavailable: None,
    });
    Ok((task_ids, workspace))
}

/// Since when the Session has owed `attention`.
fn attention_since(attention: Attention, row: &SessionRow) -> Timestamp {
    Timestamp(state::attention_since(
        attention,
        row.kind,
        &state::Moments {
            created: row.created_at,
            updated: row.updated_at,
            ready: row.ready_at,
            permission: row.permission_at,
            turn_completed: row.turn_completed_at,
        },
    ))
}

/// Builds the argv a fresh terminal runs to open a Session.
#[derive(Debug, Clone)]
pub struct OpenCommand {
    home: String,
    /// The program: given, or `lf-session-open` beside the running
    /// executable, found when a record first names it (most processes, a
    /// hook's among them, build none). Shared by the clones.
    program: std::sync::Arc<std::sync::OnceLock<String>>,
}

impl OpenCommand {
    /// `lf-session-open` beside the running executable, with this Home.
    pub fn beside_current_exe(home: &Home) -> Self {
        OpenCommand {
            home: home_assignment(home),
            program: Default::default(),
        }
    }

    pub fn new(home: &Home, program: &Path) -> Self {
        OpenCommand {
            home: home_assignment(home),
            program: std::sync::Arc::new(program.display().to_string().into()),
        }
    }

    pub fn argv(&self, id: &str) -> Vec<String> {
        let program = self.program.get_or_init(|| {
            std::env::current_exe()
                .ok()
                .and_then(|exe| Some(exe.parent()?.join("lf-session-open")))
                .unwrap_or_else(|| PathBuf::from("lf-session-open"))
                .display()
                .to_string()
        });
        vec![
            "/usr/bin/env".to_owned(),
            self.home.clone(),
            program.clone(),
            id.to_owned(),
        ]
    }
}

fn home_assignment(home: &Home) -> String {
    format!("LF_HOME={}", home.root().display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Home;
    use crate::store::TaskRow;

    /// A listing's Catalog (every worktree loaded) and a few Sessions'
    /// (each cwd's ancestors read) find the same Task for every cwd.
    #[test]
    fn both_catalogs_pick_the_innermost_worktree_and_the_later_task() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&Home::at(dir.path())).unwrap();
        for (n, (task, worktree)) in [
            ("outer", Some("/repo")),
            ("inner", Some("/repo/sub/wt")),
            ("none", None),
            ("first", Some("/shared")),
            ("second", Some("/shared")),
        ]
        .into_iter()
        .enumerate()
        {
            store
                .insert_task(&TaskRow {
                    id: task.to_owned(),
                    identifier: task.to_owned(),
                    title: task.to_owned(),
                    worktree: worktree.map(str::to_owned),
                    wave_id: None,
                    created_at: n as i64,
                    finished_at: None,
                })
                .unwrap();
        }
        let expected = [
            ("/repo/sub/wt/src", Some(("inner", "/repo/sub/wt"))),
            ("/repo/sub/wt", Some(("inner", "/repo/sub/wt"))),
            ("/repo/sub/wt/", Some(("inner", "/repo/sub/wt"))),
            ("/repo/sub", Some(("outer", "/repo"))),
            ("/repo/", Some(("outer", "/repo"))),
            ("/repository", None),
            ("/elsewhere", None),
            ("/", None),
            ("/shared/x", Some(("second", "/shared"))),
        ];
        let all = Catalog::load(&store).unwrap();
        let asked = Catalog::on_demand();
        for catalog in [&all, &asked, &asked] {
            for (cwd, want) in expected {
                let found = catalog.task_at(&store, cwd).unwrap();
                let found = found
                    .as_ref()
                    .map(|c| (c.task_id.as_str(), c.worktree.as_str()));
                assert_eq!(found, want, "{cwd}");
            }
        }
    }

    /// A worktree at the root contains every cwd, in both Catalogs.
    #[test]
    fn a_worktree_at_the_root_contains_everything() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&Home::at(dir.path())).unwrap();
        store
            .insert_task(&TaskRow {
                id: "root".to_owned(),
                identifier: "root".to_owned(),
                title: "root".to_owned(),
                worktree: Some("/".to_owned()),
                wave_id: None,
                created_at: 0,
                finished_at: None,
            })
            .unwrap();
        for catalog in [Catalog::load(&store).unwrap(), Catalog::on_demand()] {
            for cwd in ["/", "/a", "/a/b/"] {
                let found = catalog.task_at(&store, cwd).unwrap();
                assert_eq!(found.map(|c| c.task_id), Some("root".to_owned()), "{cwd}");
            }
        }
    }
}
