//! The facade: every operation of every surface is a method of [`Lf`],
//! opened for one [`Caller`]. Binaries open it for their own process, the
//! Nushell plugin for its engine; the operations live beside their subject
//! (`session`, `work`, `flow`, `handoff`, `live`, `hook`) as `impl Lf`
//! blocks. The store is opened on first use, so input is checked before a
//! database is created or changed.

use crate::Result;
use crate::caller::Caller;
use crate::home::Home;
use crate::store::Store;
use std::path::{Path, PathBuf};

/// lf, opened for one caller: every operation of every surface is a
/// method of this type. It holds the Home's store, the caller's context
/// (see `caller`), and how records name their open command.
pub struct Lf {
    home: Home,
    pub(crate) caller: Caller,
    /// Opened on first use, so input is checked before a database is
    /// created or changed.
    store: std::cell::OnceCell<Store>,
    pub(crate) open: OpenCommand,
}

impl Lf {
    /// Open the Home the caller names.
    pub fn open(caller: Caller) -> Result<Self> {
        Ok(Self::at(caller.home()?, caller))
    }

    /// A given Home, for a caller.
    pub fn at(home: Home, caller: Caller) -> Self {
        Lf {
            open: OpenCommand::beside_current_exe(&home),
            home,
            caller,
            store: std::cell::OnceCell::new(),
        }
    }

    /// Records name this program (instead of the one beside the running
    /// executable) in their `open_argv`.
    pub fn with_open_program(mut self, program: &Path) -> Self {
        self.open = OpenCommand::new(&self.home, program);
        self
    }

    /// The Home's database, opened (and created or migrated) on first use.
    #[cfg(not(feature = "testing"))]
    pub(crate) fn store(&self) -> Result<&Store> {
        self.opened_store()
    }

    /// The store, for the workspace's tests (feature `testing`).
    #[cfg(feature = "testing")]
    pub fn store(&self) -> Result<&Store> {
        self.opened_store()
    }

    fn opened_store(&self) -> Result<&Store> {
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let keep = crate::events::keep(self.caller.var(crate::events::KEEP_ENV))?;
        let store = Store::open(&self.home)?;
        store.observe_with(Box::new(crate::events::Recorder::new(
            &self.home, &self.open, keep,
        )));
        Ok(self.store.get_or_init(|| store))
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    pub fn caller(&self) -> &Caller {
        &self.caller
    }
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
