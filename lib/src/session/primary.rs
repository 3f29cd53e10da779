//! Primary Sessions: the one ongoing conversation of a repository or of a
//! wave. `ensure` is idempotent and launches once; a failed start keeps the
//! Session for the next `ensure`. `replace` stops and closes the
//! predecessor and gives the scope a successor; repeating it returns the
//! same successor.

use super::launch::OpenOptions;
use crate::Result;
use crate::clock::now_micros;
use crate::error::domain::Arg;
use crate::facade::Lf;
use crate::ids::SessionId;
use crate::provider::Provider;
use crate::session::error::SessionError;
use crate::store::{NewRun, NewSessionRow};
use crate::tmux;
use crate::wire::{SessionKind, SessionRecord, TitleSource};
use std::path::{Path, PathBuf};

/// What a primary Session is primary for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// A repository, by its canonical root.
    Repository(String),
    /// A wave, by id.
    Wave {
        id: String,
        name: String,
        repo: String,
    },
}

impl Scope {
    /// The value stored in `primary_scope`.
    pub fn key(&self) -> String {
        match self {
            Scope::Repository(root) => format!("repository:{root}"),
            Scope::Wave { id, .. } => format!("wave:{id}"),
        }
    }

    fn cwd(&self) -> &str {
        match self {
            Scope::Repository(root) => root,
            Scope::Wave { repo, .. } => repo,
        }
    }

    fn title(&self) -> String {
        match self {
            Scope::Repository(root) => Path::new(root)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| root.clone()),
            Scope::Wave { name, .. } => name.clone(),
        }
    }
}

/// The root of the git checkout containing `dir` (the nearest ancestor
/// holding `.git`, a directory or a worktree's file), canonicalised.
pub fn repository_root(dir: &Path) -> Result<String> {
    let start = crate::work::canonical_dir(dir, Arg::Cwd, "directory")?;
    let root: Option<PathBuf> = Path::new(&start)
        .ancestors()
        .find(|candidate| candidate.join(".git").exists())
        .map(Path::to_path_buf);
    root.map(|root| root.display().to_string())
        .ok_or(SessionError::NotInRepository(start).into())
}

impl Lf {
    /// The scope for a wave (by id or name), or for the repository of
    /// `dir` (else of the caller's directory).
    pub fn primary_scope(&self, wave: Option<&str>, dir: Option<&Path>) -> Result<Scope> {
        match wave {
            Some(selector) => {
                let wave = crate::work::find_wave(self.store()?, selector)?;
                Ok(Scope::Wave {
                    id: wave.id,
                    name: wave.name,
                    repo: wave.repo,
                })
            }
            None => Ok(Scope::Repository(repository_root(match dir {
                Some(dir) => dir,
                None => self.caller.cwd()?,
            })?)),
        }
    }

    /// Find or create the scope's primary conversation and make sure it is
    /// running. Safe to repeat and to run concurrently: one Session, one
    /// launch.
    pub fn ensure_primary(&self, scope: &Scope, provider: Provider) -> Result<SessionRecord> {
        let _scope_lock = crate::locks::named(self.home(), &format!("primary:{}", scope.key()))?;
        let id = match self.store()?.primary_session(&scope.key())? {
            Some(id) => id,
            None => self.admit_primary(scope, provider)?,
        };
        self.start_primary(&id)
    }

    /// Replace a primary Session: stop and close it, and give its scope a
    /// successor. Repeating it returns the same successor.
    pub fn replace_primary(&self, selector: &str) -> Result<SessionRecord> {
        let row = self.find(selector)?;
        let scope_key = row
            .primary_scope
            .clone()
            .ok_or_else(|| SessionError::NotPrimary(row.id.to_string()))?;
        let _scope_lock = crate::locks::named(self.home(), &format!("primary:{scope_key}"))?;
        if let Some(successor) = self.store()?.replaced_by(row.id.as_str())? {
            return self.record_of(&successor);
        }
        let id = row.id.clone();
        if row.completed_at.is_none() {
            let _launch = crate::locks::launch(self.home(), &id)?;
            let clients = self.live_clients(&row.id)?;
            self.stop_clients(&clients).map_err(|error| {
                error.during(format!(
                    "cannot stop primary Session {id}; it remains primary"
                ))
            })?;
            self.caller.tmux().kill_session(&tmux::session_name(&id))?;
            self.store()?.complete_session(&row.id, now_micros())?;
        }
        let provider = Provider::parse(row.provider.as_deref().unwrap_or("claude"))?;
        let scope = match scope_key.split_once(':') {
            Some(("wave", wave)) => self.primary_scope(Some(wave), Some(Path::new(&row.cwd)))?,
            _ => Scope::Repository(row.cwd.clone()),
        };
        let successor = match self.store()?.primary_session(&scope.key())? {
            Some(existing) => existing,
            None => self.admit_primary(&scope, provider)?,
        };
        self.store()?
            .set_replaced_by(row.id.as_str(), successor.as_str())?;
        self.start_primary(&successor)
    }

    fn admit_primary(&self, scope: &Scope, provider: Provider) -> Result<SessionId> {
        if !provider.is_agent() {
            return Err(SessionError::NeedsAgent("primary Session").into());
        }
        let (wave_id, cwd) = match scope {
            Scope::Wave { id, repo, .. } => (Some(id.clone()), repo.clone()),
            Scope::Repository(root) => (None, root.clone()),
        };
        let session = NewSessionRow {
            id: self.caller.new_session_id(),
            kind: SessionKind::Conversation,
            title: crate::input::title(&scope.title()).unwrap_or_else(|_| "primary".to_owned()),
            title_source: TitleSource::Generated,
            interactive: true,
            cwd,
            provider: provider.as_str().to_owned(),
            model: None,
            task_id: None,
            wave_id,
            primary_scope: Some(scope.key()),
            independent: true,
        };
        let run = NewRun {
            id: self.caller.new_run_id(),
            chosen_native_id: provider.chosen_native_id(),
            provider: provider.as_str().to_owned(),
            model: None,
            argv: Vec::new(),
            prompt: None,
        };
        self.store()?.insert_session(&session, &run, now_micros())?;
        debug_assert_eq!(scope.cwd(), session.cwd);
        Ok(session.id)
    }

    /// Launch the Session unless it already runs; a failed start leaves it
    /// for the next call.
    fn start_primary(&self, id: &SessionId) -> Result<SessionRecord> {
        self.resolve_id(id)
            .and_then(|session| self.open_session(&session, OpenOptions::default()))
            .map_err(|error| {
                error.during(format!(
                    "cannot start primary Session {id}; run the same command to retry"
                ))
            })?;
        self.record_of(id)
    }
}
