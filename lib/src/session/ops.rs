//! The operations every surface offers on Sessions. The binaries and the
//! Nushell plugin translate their arguments into these calls and print what
//! they return; no rule is decided outside this library.

use super::project::Projection;
use crate::Result;
use crate::clock::now_micros;
use crate::error::domain::Arg;
use crate::error::hint::Command;
use crate::facade::Lf;
use crate::ids::{RunId, SessionId, SessionSelector};
use crate::input;
use crate::input::InputError;
use crate::liveness::{AgentStopping, ProcessIdentity};
use crate::provider::Provider;
use crate::session::error::SessionError;
use crate::session::worktree::WorktreeError;
use crate::state;
use crate::store::{ClientReceipt, ListQuery, NewRun, NewSessionRow, SessionRow, Store, TaskRow};
use crate::wire::{
    ActionKind, SessionBindingPreview, SessionKind, SessionRecord, SessionState, TitleSource,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `lf-session-new` asks for.
#[derive(Debug, Clone)]
pub struct NewConversation {
    pub provider: Provider,
    pub model: Option<String>,
    pub title: Option<String>,
    /// Defaults to the Task's worktree when a Task is given.
    pub cwd: Option<PathBuf>,
    pub task: Option<String>,
    pub prompt: Option<String>,
    /// The argv of the `command` provider.
    pub argv: Vec<String>,
    /// It will be launched at once: its program must be installed.
    pub launch: bool,
    /// Work in a new git worktree and branch of `cwd`'s repository,
    /// registered as the Session's Task.
    pub worktree: Option<super::worktree::WorktreeRequest>,
}

/// What to list. Attention and kind are decided in SQL (attention by the
/// column every write keeps); filters that need liveness or task
/// association are applied row by row before the page size, so a page of
/// ten is ten matches.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub attention: bool,
    pub state: Option<SessionState>,
    pub kind: Option<SessionKind>,
    /// A Task id or identifier.
    pub task: Option<String>,
    pub orphan: bool,
    /// Sessions whose working directory is this directory or below it.
    pub cwd: Option<PathBuf>,
    /// Include closed Sessions.
    pub all: bool,
    pub limit: Option<usize>,
    /// A cursor from a previous page's `next`.
    pub after: Option<String>,
}

/// A Session of this Home as one operation resolved it (jj's
/// `resolve_single_rev`): the text a surface was given (a Session id, a
/// Run id, or a unique prefix of either) parsed once, pinned once and its
/// row read once, by [`Lf::resolve`]. Only this flows into the rest of the
/// operation, which reads the Session again by its typed id where it must
/// (under its launch lock, or after a write), never by the text.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub(crate) row: SessionRow,
}

impl Resolved {
    pub fn id(&self) -> &SessionId {
        &self.row.id
    }
}

/// What a selector names once its prefix is pinned.
enum Pinned {
    Session(SessionId),
    Run(RunId),
}

impl Lf {
    /// The one place a surface's text becomes a Session: parse it, pin a
    /// prefix to the one id it begins (none is "not found", exit 3; more
    /// than one a usage error naming them, exit 2), and read the Session's
    /// row. A Run id must be its Session's current Run: a historical one
    /// is refused, naming the current one.
    pub fn resolve(&self, text: &str) -> Result<Resolved> {
        let row = self.resolve_selector(SessionSelector::parse(text)?)?;
        Ok(Resolved { row })
    }

    /// [`Lf::resolve`] of a selector already parsed.
    pub(crate) fn resolve_selector(&self, selector: SessionSelector) -> Result<SessionRow> {
        let (id, run) = match self.pin(selector)? {
            Pinned::Session(id) => (id, None),
            Pinned::Run(run) => {
                let id = self
                    .store()?
                    .session_of_run(&run)?
                    .ok_or_else(|| SessionError::RunNotFound(run.to_string()))?;
                (id, Some(run))
            }
        };
        let row = self.session(&id)?;
        if let Some(run) = run
            && row.current_run_id != run.as_str()
        {
            return Err(SessionError::HistoricalRun {
                run: run.to_string(),
                session: row.id.to_string(),
                current: row.current_run_id,
            }
            .into());
        }
        Ok(row)
    }

    /// The exact id a selector names: a prefix pinned to the one Session
    /// (or Run) whose id it begins, so a Session created meanwhile with the
    /// same prefix never changes what an operation acts on.
    fn pin(&self, selector: SessionSelector) -> Result<Pinned> {
        /// Candidates an ambiguous prefix names: a bounded list.
        const SHOWN: usize = 5;
        let limit = SHOWN as i64 + 1;
        match selector {
            SessionSelector::Session(id) => Ok(Pinned::Session(id)),
            SessionSelector::Run(run) => Ok(Pinned::Run(run)),
            SessionSelector::SessionPrefix(prefix) => {
                let mut found = self.store()?.sessions_by_prefix(&prefix, limit)?;
                match found.len() {
                    0 => Err(SessionError::SessionNotFound(prefix).into()),
                    1 => Ok(Pinned::Session(found.remove(0).0)),
                    _ => Err(InputError::AmbiguousPrefix {
                        candidates: candidates(&found, SHOWN, |(id, title)| {
                            (id.as_str(), crate::error::untrusted::quote(title))
                        }),
                        text: prefix,
                        what: "Session",
                    }
                    .into()),
                }
            }
            SessionSelector::RunPrefix(prefix) => {
                let mut found = self.store()?.runs_by_prefix(&prefix, limit)?;
                match found.len() {
                    0 => Err(SessionError::RunNotFound(prefix).into()),
                    1 => Ok(Pinned::Run(found.remove(0).0)),
                    _ => Err(InputError::AmbiguousPrefix {
                        candidates: candidates(&found, SHOWN, |(run, session, title)| {
                            (
                                run.as_str(),
                                format!(
                                    "of Session {} {}",
                                    crate::ids::short_id(session.as_str()),
                                    crate::error::untrusted::quote(title)
                                ),
                            )
                        }),
                        text: prefix,
                        what: "Run",
                    }
                    .into()),
                }
            }
        }
    }

    /// The Session of this id as it is now: how an operation reads again
    /// what it resolved (under its lock, or after a write).
    pub(crate) fn session(&self, id: &SessionId) -> Result<SessionRow> {
        self.store()?
            .session_row(id)?
            .ok_or_else(|| SessionError::SessionNotFound(id.to_string()).into())
    }

    /// A Session known by its id (one lf stored or was handed by its own
    /// environment), resolved: its row read once.
    pub(crate) fn resolve_id(&self, id: &SessionId) -> Result<Resolved> {
        Ok(Resolved {
            row: self.session(id)?,
        })
    }

    /// Resolve text and return the Session's row: for an operation that
    /// reads its Session once.
    pub(crate) fn find(&self, text: &str) -> Result<SessionRow> {
        Ok(self.resolve(text)?.row)
    }

    /// One row as its record, reading only what it needs.
    pub(crate) fn record(&self, row: SessionRow) -> Result<SessionRecord> {
        let store = self.store()?;
        let projection = Projection::on_demand(&self.open);
        let facts = projection.facts(store, &row)?;
        projection.record(store, row, &facts)
    }

    /// The record of a resolved Session, as it was resolved (no read).
    pub fn show(&self, session: Resolved) -> Result<SessionRecord> {
        self.record(session.row)
    }

    /// The record of the Session of this id as it is now.
    pub fn record_of(&self, id: &SessionId) -> Result<SessionRecord> {
        self.record(self.session(id)?)
    }

    pub fn get(&self, text: &str) -> Result<SessionRecord> {
        self.show(self.resolve(text)?)
    }

    /// Prepare a listing: the filter is checked and the lookups loaded
    /// here, so a bad filter fails before anything is printed.
    pub fn list(self, filter: &ListFilter) -> Result<Listing> {
        let after = filter.after.as_deref().map(parse_cursor).transpose()?;
        let cwd = match &filter.cwd {
            Some(dir) => Some(self.dir(dir, Arg::Cwd, "directory")?),
            None => None,
        };
        let store = self.store()?;
        let task = match &filter.task {
            Some(selector) => Some(crate::work::find_task(store, selector)?.id),
            None => None,
        };
        let projection = Projection::load(store, &self.open)?;
        Ok(Listing {
            query: ListQuery {
                all: filter.all,
                kind: filter.kind,
                attention: filter.attention,
            },
            after,
            rows: Default::default(),
            exhausted: false,
            select: Selection {
                filter: filter.clone(),
                task,
                cwd,
                projection,
                emitted: 0,
                last: None,
                next: None,
                stale: Vec::new(),
            },
            done: false,
            lf: self,
        })
    }

    /// A directory the caller named (relative to its own directory), as
    /// stored: absolute, with symlinks resolved.
    pub(crate) fn dir(
        &self,
        path: &Path,
        arg: Arg,
        what: crate::error::domain::What,
    ) -> Result<String> {
        crate::work::canonical_dir(&self.caller.path(path)?, arg, what)
    }

    /// Record a new conversation and prepare its first Run: the request
    /// checked, its working directory found (or its worktree planned), its
    /// title chosen, then both rows stored at once.
    pub fn create(&self, request: NewConversation) -> Result<SessionRecord> {
        let request = self.checked(request)?;
        let task = match &request.task {
            Some(selector) => Some(crate::work::find_task(self.store()?, selector)?),
            None => None,
        };
        let mut cwd = self.working_dir(request.cwd.as_deref(), task.as_ref())?;
        let id = self.caller.new_session_id();
        let worktree = match &request.worktree {
            Some(worktree) => Some(self.plan_worktree(worktree, &cwd, &id)?),
            None => None,
        };
        let place = match &worktree {
            Some(plan) => plan.path.display().to_string(),
            None => cwd.clone(),
        };
        let (title, title_source) = match request.title {
            Some(title) => (title, TitleSource::Human),
            None => (
                default_title(
                    request.provider,
                    request.prompt.as_deref(),
                    &request.argv,
                    &place,
                ),
                TitleSource::Generated,
            ),
        };
        let task = match &worktree {
            Some(plan) => {
                let task = self.create_worktree(plan, &title)?;
                cwd = task.worktree.clone().unwrap_or(place);
                Some(task)
            }
            None => task,
        };
        let session = NewSessionRow {
            id,
            kind: SessionKind::Conversation,
            title,
            title_source,
            interactive: true,
            cwd,
            provider: request.provider.as_str().to_owned(),
            model: request.model.clone(),
            wave_id: task.as_ref().and_then(|task| task.wave_id.clone()),
            task_id: task.map(|task| task.id),
            primary_scope: None,
            independent: true,
        };
        let run = NewRun {
            id: self.caller.new_run_id(),
            chosen_native_id: request.provider.chosen_native_id(),
            provider: request.provider.as_str().to_owned(),
            model: request.model,
            argv: request.argv,
            prompt: request.prompt,
        };
        if let Err(error) = self.store()?.insert_session(&session, &run, now_micros()) {
            if let Some(plan) = &worktree {
                self.discard_worktree(plan);
            }
            return Err(error);
        }
        self.record_of(&session.id)
    }

    /// A new conversation's request with every field checked, in the
    /// order a person reads the refusals: model, prompt, the command's
    /// argv, the program installed, title, then the flags that exclude
    /// each other.
    fn checked(&self, mut request: NewConversation) -> Result<NewConversation> {
        request.model = request
            .model
            .as_deref()
            .map(|model| input::MODEL.check(model))
            .transpose()?;
        // An agent's prompt may also come after `--`, alone: how a person
        // gives one that starts with `-` (before `--` it reads as a flag).
        if request.provider != Provider::Command
            && request.prompt.is_none()
            && request.argv.len() == 1
        {
            request.prompt = request.argv.pop();
        }
        request.prompt = request.prompt.map(input::prompt).transpose()?;
        match request.provider {
            Provider::Command if request.argv.is_empty() => {
                return Err(InputError::BadCommand {
                    problem: "the command provider needs the command to run",
                    example: Some(Command::SessionNew {
                        command: Some(&["htop"]),
                    }),
                }
                .into());
            }
            Provider::Command if request.prompt.is_some() => {
                return Err(InputError::BadCommand {
                    problem: "the command provider takes no prompt: put the whole command after --",
                    example: None,
                }
                .into());
            }
            provider if provider.is_agent() && !request.argv.is_empty() => {
                return Err(SessionError::ArgvNotForAgent(request.provider.as_str()).into());
            }
            _ => {}
        }
        input::argv(&request.argv)?;
        if request.launch {
            request
                .provider
                .require_installed(&request.argv, &self.caller)?;
        }
        request.title = request
            .title
            .as_deref()
            .map(crate::input::title)
            .transpose()?;
        if request.worktree.is_some() && request.task.is_some() {
            return Err(WorktreeError::WorktreeWithTask.into());
        }
        Ok(request)
    }

    /// Where a new Session works: the directory given, else its Task's
    /// worktree, else the caller's directory; absolute, symlinks resolved.
    fn working_dir(&self, cwd: Option<&Path>, task: Option<&TaskRow>) -> Result<String> {
        match (cwd, task.and_then(|task| task.worktree.as_ref())) {
            (Some(cwd), _) => self.dir(cwd, Arg::Cwd, "working directory"),
            (None, Some(worktree)) => {
                crate::work::canonical_dir(Path::new(worktree), Arg::Task, "Task worktree")
            }
            (None, None) => {
                crate::work::canonical_dir(self.caller.cwd()?, Arg::Cwd, "working directory")
            }
        }
    }

    /// Mark the Session of the agent this caller is (`$LF_SESSION_ID`,
    /// `$LF_RUN_ID`) ready for review.
    pub fn ready(&self, summary: &str) -> Result<SessionRecord> {
        let summary = crate::input::summary(summary)?;
        let variable = |name| {
            self.caller
                .var(name)
                .ok_or(SessionError::NotLaunchedByLf { name })
        };
        let (session, run) = (variable("LF_SESSION_ID")?, variable("LF_RUN_ID")?);
        let session =
            SessionId::parse(session).map_err(|error| error.in_variable("LF_SESSION_ID"))?;
        let run = RunId::parse(run).map_err(|error| error.in_variable("LF_RUN_ID"))?;
        let row = self.session(&session)?;
        if row.primary_scope.is_some() {
            return Err(SessionError::PrimaryNotReviewed.into());
        }
        if row.kind == SessionKind::Flow {
            let waiting = match &row.flow_id {
                Some(invocation) => self.waits_on(invocation, &row.id)?,
                None => false,
            };
            if !waiting {
                return Err(SessionError::StaleReview.into());
            }
        }
        match self.store()?.session_of_run(&run)? {
            Some(owner) if owner == row.id => {}
            _ => {
                return Err(SessionError::RunOfOtherSession {
                    run: run.to_string(),
                    session: session.to_string(),
                }
                .into());
            }
        }
        self.store()?
            .mark_ready(session.as_str(), run.as_str(), &summary, now_micros())?;
        self.record_of(&session)
    }

    /// Rename a Session. A generated title never replaces a human one: the
    /// returned flag says whether the title changed.
    pub fn rename(
        &self,
        selector: &str,
        title: &str,
        source: TitleSource,
    ) -> Result<(SessionRecord, bool)> {
        let title = crate::input::title(title)?;
        let id = self.resolve(selector)?.row.id;
        // Under the launch lock, so a rename never interleaves with a
        // launch or completion of the same Session.
        let _lock = crate::locks::launch(self.home(), &id)?;
        let row = self.session(&id)?;
        state::refuse_completed(row.id.as_str(), row.completed_at)?;
        let changed = self
            .store()?
            .rename_session(id.as_str(), &title, source, now_micros())?;
        Ok((self.record_of(&id)?, changed))
    }

    /// Stop the Session's live clients (SIGTERM, then SIGKILL after
    /// `grace`) and close it. Only one of concurrent completions wins. A
    /// client slow to exit is told to `tell` (see [`AgentStopping`]).
    pub fn complete(
        &self,
        selector: &str,
        grace: Duration,
        tell: &mut dyn FnMut(&AgentStopping),
    ) -> Result<SessionRecord> {
        let id = self.resolve(selector)?.row.id;
        self.complete_resolved(&id, grace, tell)
    }

    /// [`Lf::complete`] of a Session already resolved.
    pub(crate) fn complete_resolved(
        &self,
        id: &SessionId,
        grace: Duration,
        tell: &mut dyn FnMut(&AgentStopping),
    ) -> Result<SessionRecord> {
        let _lock = crate::locks::launch(self.home(), id)?;
        // Look again under the lock: another process may have won meanwhile.
        let row = self.session(id)?;
        let invocation = row.flow_id.clone();
        let record = self.record(row)?;
        state::require_action(
            &record.id,
            record.kind,
            record.state,
            record.completed_at.map(|at| at.micros()),
            ActionKind::Complete,
        )?;
        let review = match (record.kind, invocation) {
            (SessionKind::Flow, Some(invocation)) => {
                if !self.waits_on(&invocation, &record.id)? {
                    return Err(SessionError::NoLongerWaiting(record.id).into());
                }
                Some(invocation)
            }
            (SessionKind::Flow, None) => {
                return Err(SessionError::NoLongerWaiting(record.id).into());
            }
            _ => None,
        };
        let clients = self.store()?.open_clients(Some(&record.id))?;
        if !clients.is_empty() {
            let boot = crate::liveness::boot_id()?;
            for client in &clients {
                let pid = client.process.pid;
                let command = crate::liveness::table::command(pid).join(" ");
                client.process.stop_telling(&boot, grace, &mut |stage| {
                    tell(&AgentStopping {
                        session: record.id.clone(),
                        pid,
                        command: command.clone(),
                        stage,
                    })
                });
            }
        }
        match review {
            Some(invocation) => {
                self.store()?
                    .complete_review(&record.id, &invocation, now_micros())?
            }
            None => self.store()?.complete_session(&record.id, now_micros())?,
        }
        self.record_of(id)
    }

    /// Whether a flow invocation still waits on this review Session.
    fn waits_on(&self, invocation: &str, session: &str) -> Result<bool> {
        Ok(self.store()?.flow(invocation)?.is_some_and(|flow| {
            !flow.finished && flow.pending_session_id.as_deref() == Some(session)
        }))
    }

    /// Bind a Session to a Task, permanently.
    pub fn bind(&self, selector: &str, task: &str) -> Result<SessionRecord> {
        let (row, task) = self.binding(selector, task)?;
        self.store()?.bind_session(
            row.id.as_str(),
            &task.id,
            task.wave_id.as_deref(),
            now_micros(),
        )?;
        self.record_of(&row.id)
    }

    /// What binding would do, without doing it.
    pub fn preview_binding(&self, selector: &str, task: &str) -> Result<SessionBindingPreview> {
        let (row, task) = self.binding(selector, task)?;
        Ok(SessionBindingPreview {
            session_id: row.id.into(),
            task_id: task.id,
            identifier: task.identifier,
            title: task.title,
        })
    }

    /// The Session and the Task a binding names, each resolved once; a
    /// Session bound to another Task is refused.
    fn binding(&self, selector: &str, task: &str) -> Result<(SessionRow, TaskRow)> {
        let row = self.find(selector)?;
        let task = crate::work::find_task(self.store()?, task)?;
        if let Some(existing) = &row.task_id
            && *existing != task.id
        {
            return Err(SessionError::AlreadyBound {
                session: row.id.into(),
                task: existing.clone(),
            }
            .into());
        }
        Ok((row, task))
    }

    /// Record a live process that shows this Session to a person.
    pub fn record_client(&self, selector: &str, pid: u32, terminal_id: Option<&str>) -> Result<()> {
        let row = self.find(selector)?;
        let process = ProcessIdentity::of(pid)?;
        self.store()?.record_client(
            &ClientReceipt {
                session_id: row.id.into(),
                run_id: row.current_run_id,
                process,
                terminal_id: terminal_id.map(str::to_owned),
            },
            now_micros(),
        )
    }
}

/// A checked listing of matching Sessions, newest first, that owns
/// everything it needs. Iterate it (a surface that streams it elsewhere,
/// such as the Nushell plugin: rows are read in batches, so it holds no
/// statement), or `write` it (the binaries: one statement, row by row, the
/// cheapest way through ten thousand rows). Both stop at the filter's
/// limit, after which [`Listing::next_page`] gives the next page's cursor.
pub struct Listing {
    lf: Lf,
    query: ListQuery,
    /// The last row read from the database.
    after: Option<(i64, String)>,
    rows: std::collections::VecDeque<SessionRow>,
    exhausted: bool,
    select: Selection,
    done: bool,
}

/// Which rows a listing shows, and how far it got: the one place its
/// filters and its limit are decided, whichever way the rows are read.
struct Selection {
    filter: ListFilter,
    task: Option<String>,
    cwd: Option<String>,
    projection: Projection,
    emitted: usize,
    last: Option<(i64, String)>,
    next: Option<String>,
    /// Sessions whose state is not what their latest event told (a client
    /// died): looked at again once the listing is done (see `changes`).
    stale: Vec<SessionId>,
}

/// What one row means for a listing.
enum Step {
    Skip,
    Show(Box<SessionRecord>),
    /// The limit was reached before this row.
    Stop,
}

/// Rows an iterating listing reads per batch (a first batch of a page is
/// the page size and one, if smaller): each batch re-runs the query from
/// the keyset, so smaller batches cost more (128 rows: +7% instructions
/// over 10,000 Sessions); the buffer is reused.
const LIST_BATCH: usize = 1024;

impl Selection {
    /// Have the change stream record the Sessions whose state the listing
    /// found changed without a write (a client that died). Best effort: a
    /// listing shows what is, whether or not this can be recorded now.
    fn look_again(&mut self, store: &Store) {
        let stale = std::mem::take(&mut self.stale);
        let _ = store.observe_again(&stale);
    }

    fn step(&mut self, store: &Store, row: SessionRow) -> Result<Step> {
        let facts = self.projection.facts(store, &row)?;
        if row.seen_state != Some(state::state(&facts)) {
            self.stale.push(row.id.clone());
        }
        if self
            .filter
            .state
            .is_some_and(|wanted| state::state(&facts) != wanted)
        {
            return Ok(Step::Skip);
        }
        if self.task.is_some() || self.filter.orphan {
            let checkout = self
                .projection
                .catalog
                .task_at(store, &row.cwd)?
                .map(|checkout| checkout.task_id);
            let belongs =
                |id: &String| row.task_id.as_ref() == Some(id) || checkout.as_ref() == Some(id);
            if self.task.as_ref().is_some_and(|id| !belongs(id)) {
                return Ok(Step::Skip);
            }
            if self.filter.orphan && (row.task_id.is_some() || checkout.is_some()) {
                return Ok(Step::Skip);
            }
        }
        if let Some(dir) = &self.cwd
            && !Path::new(&row.cwd).starts_with(dir)
        {
            return Ok(Step::Skip);
        }
        if self.filter.limit.is_some_and(|limit| self.emitted == limit) {
            self.next = self
                .last
                .as_ref()
                .map(|(created, id)| format_cursor(*created, id));
            return Ok(Step::Stop);
        }
        self.last = Some((row.created_at, row.id.to_string()));
        self.emitted += 1;
        let record = self.projection.record(store, row, &facts)?;
        Ok(Step::Show(Box::new(record)))
    }
}

impl Listing {
    /// The cursor of the next page, once the listing stopped at its limit.
    pub fn next_page(&self) -> Option<&str> {
        self.select.next.as_deref()
    }

    /// Hand every matching record to `show`, reading the rows through one
    /// statement. Returns the cursor of the next page, if the limit stopped it.
    pub fn write(
        mut self,
        mut show: impl FnMut(SessionRecord) -> Result<()>,
    ) -> Result<Option<String>> {
        let store = self.lf.store()?;
        let select = &mut self.select;
        store.session_rows_after(&self.query, self.after.as_ref(), None, |row| {
            Ok(match select.step(store, row)? {
                Step::Skip => true,
                Step::Show(record) => {
                    show(*record)?;
                    true
                }
                Step::Stop => false,
            })
        })?;
        self.select.look_again(store);
        Ok(self.select.next)
    }

    fn advance(&mut self) -> Result<Option<SessionRecord>> {
        let store = self.lf.store()?;
        loop {
            let Some(row) = self.rows.pop_front() else {
                if self.exhausted {
                    self.select.look_again(store);
                    return Ok(None);
                }
                let size = match (&self.select.last, self.select.filter.limit) {
                    (None, Some(limit)) => limit.saturating_add(1).min(LIST_BATCH),
                    _ => LIST_BATCH,
                };
                let rows = &mut self.rows;
                let read = store.session_rows_after(
                    &self.query,
                    self.after.as_ref(),
                    Some(size),
                    |row| {
                        rows.push_back(row);
                        Ok(true)
                    },
                )?;
                self.exhausted = read < size;
                if let Some(last) = self.rows.back() {
                    self.after = Some((last.created_at, last.id.to_string()));
                }
                continue;
            };
            match self.select.step(store, row)? {
                Step::Skip => continue,
                Step::Show(record) => return Ok(Some(*record)),
                Step::Stop => {
                    self.select.look_again(store);
                    return Ok(None);
                }
            }
        }
    }
}

impl Iterator for Listing {
    type Item = Result<SessionRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.advance().transpose();
        self.done = !matches!(next, Some(Ok(_)));
        next
    }
}

fn default_title(provider: Provider, prompt: Option<&str>, argv: &[String], cwd: &str) -> String {
    if let Some(title) = prompt.and_then(crate::input::title_from_prompt) {
        return title;
    }
    let what = match provider {
        Provider::Command => argv
            .first()
            .and_then(|program| Path::new(program).file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| "command".to_owned()),
        other => other.as_str().to_owned(),
    };
    let place = Path::new(cwd)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| cwd.to_owned());
    crate::input::title_from_prompt(&format!("{what} in {place}")).unwrap_or(what)
}

/// At most `shown` of the ids an ambiguous prefix begins, each as short as
/// tells it from the others (at least `SHORT_ID` characters) with what
/// it is, and "and more" when there were more.
fn candidates<T>(found: &[T], shown: usize, describe: impl Fn(&T) -> (&str, String)) -> String {
    let described: Vec<(&str, String)> = found.iter().map(describe).collect();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut listed: Vec<String> = described
        .iter()
        .take(shown)
        .map(|(id, what)| {
            let needed = described
                .iter()
                .filter(|(other, _)| other != id)
                .map(|(other, _)| common(id, other) + 1)
                .max()
                .unwrap_or(0);
            let body = id.len() - id.trim_start_matches(RunId::PREFIX).len();
            let length = needed.max(body + crate::ids::SHORT_ID).min(id.len());
            format!("{} {what}", &id[..length])
        })
        .collect();
    if found.len() > shown {
        listed.push("and more".to_owned());
    }
    listed.join(", ")
}

/// A page cursor: the creation time and id of the last Session shown.
pub(crate) fn format_cursor(created_at: i64, id: &str) -> String {
    format!("{created_at}.{id}")
}

pub(crate) fn parse_cursor(cursor: &str) -> Result<(i64, String)> {
    let parsed = cursor.split_once('.').and_then(|(created, id)| {
        let created = created.parse::<i64>().ok()?;
        let id = SessionId::parse(id).ok()?;
        Some((created, id.to_string()))
    });
    parsed.ok_or_else(|| InputError::BadCursor(cursor.to_owned()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let id = SessionId::new();
        let cursor = format_cursor(42, id.as_str());
        assert_eq!(parse_cursor(&cursor).unwrap(), (42, id.to_string()));
        for bad in ["", "42", "x.y", "42.notanid", "42.' OR 1=1 --"] {
            assert!(
                matches!(parse_cursor(bad), Err(crate::Error::Input(InputError::BadCursor(text))) if text == bad)
            );
        }
    }

    #[test]
    fn default_titles_come_from_the_prompt_or_the_place() {
        assert_eq!(
            default_title(Provider::Claude, Some("Fix it\nplease"), &[], "/w/repo"),
            "Fix it"
        );
        assert_eq!(
            default_title(Provider::Codex, None, &[], "/w/repo"),
            "codex in repo"
        );
        assert_eq!(
            default_title(Provider::Command, None, &["/usr/bin/htop".into()], "/"),
            "htop in /"
        );
    }
}
