//! The operations every surface offers on Sessions. The binaries and the
//! Nushell plugin translate their arguments into these calls and print what
//! they return; no rule is decided outside this library.

use super::project::{self, Catalog, LiveClients, OpenCommand};
use super::rules;
use super::text;
use crate::clock::now_micros;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::ids::{RunId, SessionId, SessionSelector, quote};
use crate::liveness::ProcessIdentity;
use crate::provider::{self, Provider};
use crate::store::{ClientReceipt, NewRun, NewSessionRow, SessionRow, Store};
use crate::wire::{
    ActionKind, SessionBindingPreview, SessionKind, SessionRecord, SessionState, TitleSource,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An open Home: its store and how records name their open command.
pub struct Lf {
    store: Store,
    open: OpenCommand,
}

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
}

/// What to list. Filters that need liveness or task association are
/// applied row by row before the page size, so a page of ten is ten matches.
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

const PROMPT_MAX_CHARS: usize = 100_000;
const ARGV_MAX_ITEMS: usize = 1_000;

impl Lf {
    pub fn open(home: &Home) -> Result<Self> {
        Ok(Lf {
            store: Store::open(home)?,
            open: OpenCommand::beside_current_exe(home),
        })
    }

    /// Records name this program (instead of the one beside the running
    /// executable) in their `open_argv`.
    pub fn with_open_program(mut self, program: &Path) -> Self {
        self.open = OpenCommand::new(self.store.home(), program);
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn home(&self) -> &Home {
        self.store.home()
    }

    /// The Session a selector names. A Run id must be its Session's current
    /// Run: a historical one is refused, naming the current one.
    pub fn resolve(&self, selector: &SessionSelector) -> Result<SessionRow> {
        let id = match selector {
            SessionSelector::Session(id) => id.to_string(),
            SessionSelector::Run(run) => self
                .store
                .session_of_run(run.as_str())?
                .ok_or_else(|| Error::not_found(format!("Run {run} was not found")))?,
        };
        let row = self
            .store
            .session_row(&id)?
            .ok_or_else(|| Error::not_found(format!("Session {id} was not found")))?;
        if let SessionSelector::Run(run) = selector
            && row.current_run_id != run.as_str()
        {
            return Err(Error::conflict(format!(
                "Run {run} is a historical attempt of Session {}; its current Run is {}",
                row.id, row.current_run_id
            )));
        }
        Ok(row)
    }

    /// Parse and resolve a selector given as text.
    pub fn find(&self, selector: &str) -> Result<SessionRow> {
        self.resolve(&SessionSelector::parse(selector)?)
    }

    /// One row as its record, observing only its own clients.
    pub fn record(&self, row: SessionRow) -> Result<SessionRecord> {
        let catalog = Catalog::load(&self.store)?;
        let live = LiveClients::observe(&self.store)?;
        let facts = project::facts(&row, &catalog, &live)?;
        project::record(row, &facts, &catalog, &live, &self.open)
    }

    pub fn get(&self, selector: &str) -> Result<SessionRecord> {
        let row = self.find(selector)?;
        self.record(row)
    }

    /// Prepare a listing: the filter is checked and the lookups loaded
    /// here, so a bad filter fails before anything is printed.
    pub fn list(&self, filter: &ListFilter) -> Result<Listing<'_>> {
        let task = match &filter.task {
            Some(selector) => Some(crate::work::find_task(&self.store, selector)?.id),
            None => None,
        };
        let cwd = match &filter.cwd {
            Some(dir) => Some(crate::work::canonical_dir(dir, "directory")?),
            None => None,
        };
        let after = filter.after.as_deref().map(parse_cursor).transpose()?;
        Ok(Listing {
            lf: self,
            filter: filter.clone(),
            task,
            cwd,
            after,
            catalog: Catalog::load(&self.store)?,
            live: LiveClients::observe(&self.store)?,
        })
    }

    /// Record a new conversation and prepare its first Run.
    pub fn create(&self, request: NewConversation) -> Result<SessionRecord> {
        let model = request
            .model
            .as_deref()
            .map(provider::validate_model)
            .transpose()?;
        let prompt = match request.prompt {
            Some(prompt) => Some(validate_prompt(prompt)?),
            None => None,
        };
        match request.provider {
            Provider::Command if request.argv.is_empty() => {
                return Err(Error::usage(
                    "the command provider needs the command to run after --, e.g. lf-session-new --provider command -- htop",
                ));
            }
            Provider::Command if prompt.is_some() => {
                return Err(Error::usage(
                    "the command provider takes no prompt: put the whole command after --",
                ));
            }
            Provider::Claude | Provider::Codex if !request.argv.is_empty() => {
                return Err(Error::usage(format!(
                    "arguments after -- are only for --provider command; {} takes a PROMPT",
                    request.provider.as_str()
                )));
            }
            _ => {}
        }
        if request.argv.len() > ARGV_MAX_ITEMS || request.argv.iter().any(|arg| arg.contains('\0'))
        {
            return Err(Error::usage(
                "the command's argv is too long or contains a NUL byte",
            ));
        }
        let title = request.title.as_deref().map(text::title).transpose()?;
        let task = match &request.task {
            Some(selector) => Some(crate::work::find_task(&self.store, selector)?),
            None => None,
        };
        let cwd = match (
            &request.cwd,
            task.as_ref().and_then(|task| task.worktree.as_ref()),
        ) {
            (Some(cwd), _) => crate::work::canonical_dir(cwd, "working directory")?,
            (None, Some(worktree)) => {
                crate::work::canonical_dir(Path::new(worktree), "Task worktree")?
            }
            (None, None) => crate::work::canonical_dir(
                &std::env::current_dir().map_err(|error| {
                    Error::usage(format!(
                        "the current directory cannot be used: {error}; pass --cwd"
                    ))
                })?,
                "working directory",
            )?,
        };
        let (title, title_source) = match title {
            Some(title) => (title, TitleSource::Human),
            None => (
                default_title(request.provider, prompt.as_deref(), &request.argv, &cwd),
                TitleSource::Generated,
            ),
        };
        let session = NewSessionRow {
            id: SessionId::new(),
            kind: SessionKind::Conversation,
            title,
            title_source,
            interactive: true,
            cwd,
            provider: request.provider.as_str().to_owned(),
            model: model.clone(),
            wave_id: task.as_ref().and_then(|task| task.wave_id.clone()),
            task_id: task.map(|task| task.id),
            primary_scope: None,
            independent: true,
        };
        let run = NewRun {
            id: RunId::new(),
            chosen_native_id: request.provider.chosen_native_id(),
            provider: request.provider.as_str().to_owned(),
            model,
            argv: request.argv,
            prompt,
        };
        self.store.insert_session(&session, &run, now_micros())?;
        self.get(session.id.as_str())
    }

    /// Mark the Session of this agent ready for review. `session` and `run`
    /// come from `$LF_SESSION_ID` and `$LF_RUN_ID`.
    pub fn ready(&self, session: &str, run: &str, summary: &str) -> Result<SessionRecord> {
        let summary = text::summary(summary)?;
        let session = SessionId::parse(session).map_err(|error| error.context("LF_SESSION_ID"))?;
        let run = RunId::parse(run).map_err(|error| error.context("LF_RUN_ID"))?;
        let row = self.resolve(&SessionSelector::Session(session.clone()))?;
        if row.primary_scope.is_some() {
            return Err(Error::conflict(
                "a primary Session has no caller waiting on readiness",
            ));
        }
        if row.kind == SessionKind::Flow {
            let waiting = match &row.flow_id {
                Some(invocation) => self.waits_on(invocation, &row.id)?,
                None => false,
            };
            if !waiting {
                return Err(Error::conflict("review session is stale"));
            }
        }
        match self.store.session_of_run(run.as_str())? {
            Some(owner) if owner == row.id => {}
            _ => {
                return Err(Error::conflict(format!(
                    "Run {run} does not belong to Session {session}"
                )));
            }
        }
        self.store
            .mark_ready(session.as_str(), run.as_str(), &summary, now_micros())?;
        self.get(session.as_str())
    }

    /// Rename a Session. A generated title never replaces a human one: the
    /// returned flag says whether the title changed.
    pub fn rename(
        &self,
        selector: &str,
        title: &str,
        source: TitleSource,
    ) -> Result<(SessionRecord, bool)> {
        let title = text::title(title)?;
        let row = self.find(selector)?;
        // Under the launch lock, so a rename never interleaves with a
        // launch or completion of the same Session.
        let _lock = crate::locks::launch(self.home(), &SessionId::parse(&row.id)?)?;
        let row = self.find(selector)?;
        if row.completed_at.is_some() {
            return Err(Error::conflict(format!(
                "Session {} is already complete",
                row.id
            )));
        }
        let changed = self
            .store
            .rename_session(&row.id, &title, source, now_micros())?;
        Ok((self.get(&row.id)?, changed))
    }

    /// Stop the Session's live clients (SIGTERM, then SIGKILL after
    /// `grace`) and close it. Only one of concurrent completions wins.
    pub fn complete(&self, selector: &str, grace: Duration) -> Result<SessionRecord> {
        let selector = SessionSelector::parse(selector)?;
        let row = self.resolve(&selector)?;
        let id = SessionId::parse(&row.id)?;
        let _lock = crate::locks::launch(self.home(), &id)?;
        // Look again under the lock: another process may have won meanwhile.
        let row = self.resolve(&selector)?;
        if row.completed_at.is_some() {
            return Err(Error::conflict(format!(
                "Session {} is already complete",
                row.id
            )));
        }
        let invocation = row.flow_id.clone();
        let record = self.record(row)?;
        rules::require_action(record.kind, record.state, ActionKind::Complete)
            .map_err(Error::conflict)?;
        let review = match (record.kind, invocation) {
            (SessionKind::Flow, Some(invocation)) => {
                if !self.waits_on(&invocation, &record.id)? {
                    return Err(Error::conflict(format!(
                        "Session {} is no longer waiting",
                        record.id
                    )));
                }
                Some(invocation)
            }
            (SessionKind::Flow, None) => {
                return Err(Error::conflict(format!(
                    "Session {} is no longer waiting",
                    record.id
                )));
            }
            _ => None,
        };
        let clients = self.store.open_clients(Some(&record.id))?;
        if !clients.is_empty() {
            let boot = crate::liveness::boot_id()?;
            for client in &clients {
                client.process.stop(&boot, grace);
            }
        }
        match review {
            Some(invocation) => {
                self.store
                    .complete_review(&record.id, &invocation, now_micros())?
            }
            None => self.store.complete_session(&record.id, now_micros())?,
        }
        self.get(&record.id)
    }

    /// Whether a flow invocation still waits on this review Session.
    fn waits_on(&self, invocation: &str, session: &str) -> Result<bool> {
        Ok(self.store.flow(invocation)?.is_some_and(|flow| {
            !flow.finished && flow.pending_session_id.as_deref() == Some(session)
        }))
    }

    /// Bind a Session to a Task, permanently.
    pub fn bind(&self, selector: &str, task: &str) -> Result<SessionRecord> {
        let preview = self.preview_binding(selector, task)?;
        let task = crate::work::find_task(&self.store, &preview.task_id)?;
        self.store.bind_session(
            &preview.session_id,
            &task.id,
            task.wave_id.as_deref(),
            now_micros(),
        )?;
        self.get(&preview.session_id)
    }

    /// What binding would do, without doing it.
    pub fn preview_binding(&self, selector: &str, task: &str) -> Result<SessionBindingPreview> {
        let row = self.find(selector)?;
        let task = crate::work::find_task(&self.store, task)?;
        if let Some(existing) = &row.task_id
            && *existing != task.id
        {
            return Err(Error::conflict(format!(
                "Session {} is already bound to Task {existing}; a binding is permanent",
                row.id
            )));
        }
        Ok(SessionBindingPreview {
            session_id: row.id,
            task_id: task.id,
            identifier: task.identifier,
            title: task.title,
        })
    }

    /// Record a live process that shows this Session to a person.
    pub fn record_client(&self, selector: &str, pid: u32, terminal_id: Option<&str>) -> Result<()> {
        let row = self.find(selector)?;
        let process = ProcessIdentity::of(pid)?;
        self.store.record_client(
            &ClientReceipt {
                session_id: row.id,
                run_id: row.current_run_id,
                process,
                terminal_id: terminal_id.map(str::to_owned),
            },
            now_micros(),
        )
    }
}

/// A checked listing, ready to stream.
pub struct Listing<'a> {
    lf: &'a Lf,
    filter: ListFilter,
    task: Option<String>,
    cwd: Option<String>,
    after: Option<(i64, String)>,
    catalog: Catalog<'a>,
    live: LiveClients<'a>,
}

impl Listing<'_> {
    /// Stream matching Sessions, newest first, to `emit`. Returns the
    /// cursor of the next page when `limit` stopped the listing early.
    pub fn for_each(
        self,
        mut emit: impl FnMut(SessionRecord) -> Result<()>,
    ) -> Result<Option<String>> {
        let Listing {
            lf,
            filter,
            task,
            cwd,
            after,
            catalog,
            live,
        } = self;
        let mut conditions = Vec::new();
        if !filter.all {
            conditions.push("s.completed_at IS NULL");
        }
        if filter.kind.is_some() {
            conditions.push("s.kind = :kind");
        }
        if filter.attention {
            // A superset of rules::attention, so rows that cannot need the
            // person are never decoded; the rule itself still decides.
            conditions.push(
                "s.completed_at IS NULL AND (s.ready_summary IS NOT NULL OR s.permission_pending = 1 \
                 OR (s.interactive = 1 AND s.latest_turn = 'completed') \
                 OR (s.kind = 'flow' AND f.finished = 0 AND f.pending_session_id = s.id))",
            );
        }
        if after.is_some() {
            conditions.push("(s.created_at, s.id) < (:after_created, :after_id)");
        }
        let sql = format!(
            "SELECT {} FROM {} {} {} ORDER BY s.created_at DESC, s.id DESC",
            crate::store::sessions_columns(),
            crate::store::sessions_from(),
            if conditions.is_empty() { "" } else { "WHERE" },
            conditions.join(" AND ")
        );
        let mut statement = lf.store.conn().prepare(&sql)?;
        let kind = filter.kind.map(SessionKind::as_str);
        let mut params: Vec<(&str, &dyn rusqlite::ToSql)> = Vec::new();
        if let Some(kind) = &kind {
            params.push((":kind", kind));
        }
        if let Some((created, id)) = &after {
            params.push((":after_created", created));
            params.push((":after_id", id));
        }
        let mut rows = statement.query(params.as_slice())?;
        let mut emitted = 0usize;
        let mut last: Option<(i64, String)> = None;
        while let Some(row) = rows.next()? {
            let row = SessionRow::from_row(row)?;
            let facts = project::facts(&row, &catalog, &live)?;
            if filter.attention && rules::attention(&facts).is_none() {
                continue;
            }
            if filter
                .state
                .is_some_and(|state| rules::state(&facts) != state)
            {
                continue;
            }
            if task.is_some() || filter.orphan {
                let checkout = catalog.task_at(&row.cwd).map(|checkout| checkout.task_id);
                let belongs =
                    |id: &String| row.task_id.as_ref() == Some(id) || checkout == Some(id.as_str());
                if task.as_ref().is_some_and(|id| !belongs(id)) {
                    continue;
                }
                if filter.orphan && (row.task_id.is_some() || checkout.is_some()) {
                    continue;
                }
            }
            if let Some(dir) = &cwd
                && !Path::new(&row.cwd).starts_with(dir)
            {
                continue;
            }
            if filter.limit.is_some_and(|limit| emitted == limit) {
                return Ok(last.map(|(created, id)| format_cursor(created, &id)));
            }
            last = Some((row.created_at, row.id.clone()));
            emitted += 1;
            emit(project::record(row, &facts, &catalog, &live, &lf.open)?)?;
        }
        Ok(None)
    }
}

fn validate_prompt(prompt: String) -> Result<String> {
    if prompt.contains('\0') {
        return Err(Error::usage("a prompt cannot contain a NUL byte"));
    }
    let count = prompt.chars().count();
    if count > PROMPT_MAX_CHARS {
        return Err(Error::usage(format!(
            "a prompt has at most {PROMPT_MAX_CHARS} characters; this one has {count}"
        )));
    }
    Ok(prompt)
}

fn default_title(provider: Provider, prompt: Option<&str>, argv: &[String], cwd: &str) -> String {
    if let Some(title) = prompt.and_then(text::title_from_prompt) {
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
    text::title_from_prompt(&format!("{what} in {place}")).unwrap_or(what)
}

/// A page cursor: the creation time and id of the last Session shown.
fn format_cursor(created_at: i64, id: &str) -> String {
    format!("{created_at}.{id}")
}

fn parse_cursor(cursor: &str) -> Result<(i64, String)> {
    let parsed = cursor.split_once('.').and_then(|(created, id)| {
        let created = created.parse::<i64>().ok()?;
        let id = SessionId::parse(id).ok()?;
        Some((created, id.to_string()))
    });
    parsed.ok_or_else(|| {
        Error::usage(format!(
            "{} is not a page cursor: pass the \"next\" value of a previous page",
            quote(cursor)
        ))
    })
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
            assert_eq!(parse_cursor(bad).unwrap_err().kind, crate::ErrorKind::Usage);
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
