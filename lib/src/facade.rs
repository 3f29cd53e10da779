//! The facade: every operation of every surface is a method of [`Lf`],
//! opened for one [`Caller`]. Binaries open it for their own process, the
//! Nushell plugin for its engine. The store is opened on first use, so
//! input is checked before a database is created or changed.
//!
//! Each subject's operations are an `impl Lf` block in that subject's own
//! module, beside its rules and its store calls, and none elsewhere: a
//! change to handoffs is one file, and no 60-method file collects every
//! domain. To find what `Lf` can do, read this list (a unit test keeps it
//! complete) or `cargo doc`'s page for `Lf`:
//!
//! - Opening (here): [`Lf::open`], [`Lf::at`], [`Lf::with_open_program`],
//!   [`Lf::home`], [`Lf::caller`].
//! - Sessions (`session/ops.rs`): [`Lf::resolve`] (the one place text
//!   becomes a Session), [`Lf::show`], [`Lf::record_of`], [`Lf::create`],
//!   [`Lf::get`], [`Lf::list`], [`Lf::rename`], [`Lf::ready`], [`Lf::complete`],
//!   [`Lf::bind`], [`Lf::preview_binding`], [`Lf::record_client`].
//! - Opening a Session and its launcher (`session/launch.rs`):
//!   [`Lf::open_session`], [`Lf::go_to`], [`Lf::serve`].
//! - Worktrees, diffs and completing many (`session/worktree.rs`):
//!   [`Lf::diff`], [`Lf::diff_patch`], [`Lf::complete_many`],
//!   [`Lf::complete_removing_worktree`].
//! - Primaries (`session/primary.rs`): [`Lf::primary_scope`],
//!   [`Lf::ensure_primary`], [`Lf::replace_primary`].
//! - Restoring lost Sessions (`session/restore.rs`): [`Lf::restore`].
//! - Acting on a Session from afar (`session/act.rs`): [`Lf::send_reply`],
//!   [`Lf::answer_prompt`], [`Lf::dialog`], [`Lf::request_on_screen`].
//! - Attention (`attention.rs`): [`Lf::attention_counts`],
//!   [`Lf::next_waiting`].
//! - What a Session's pane shows (`session/pick.rs`): [`Lf::screen`].
//! - The change stream (`changes/watch.rs`): [`Lf::watch`].
//! - The live-process snapshot (`snapshot/`): [`Lf::active`].
//! - Hooks (`hook.rs`): [`Lf::receive_hook`], [`Lf::log_hook`].
//! - What Sessions used (`usage/report.rs`): [`Lf::usage`].
//! - Waves and Tasks (`work.rs`): [`Lf::add_wave`], [`Lf::waves`],
//!   [`Lf::add_task`], [`Lf::tasks`], [`Lf::finish_task`].
//! - Flows (`flow.rs`): [`Lf::review`], [`Lf::advance_flow`],
//!   [`Lf::finish_flow`], [`Lf::flows`], [`Lf::wait_review`],
//!   [`Lf::wait_review_until`].
//! - Handoffs (`handoff.rs`): [`Lf::open_handoff`], [`Lf::handoff`],
//!   [`Lf::handoffs`], [`Lf::handoffs_with_records`],
//!   [`Lf::attach_handoff`], [`Lf::finish_handoff`],
//!   [`Lf::claim_handoff_wake`].
//! - lf-web's devices (`devices.rs`): [`Lf::sign_in_device`],
//!   [`Lf::signed_in_device`], [`Lf::devices`], [`Lf::revoke_device`],
//!   [`Lf::revoke_devices`].
//! - Other machines (`remote/`): [`Lf::hosts`], [`Lf::add_host`],
//!   [`Lf::remove_host`], [`Lf::remotes`], [`Lf::configured_remotes`]
//!   (`hosts.rs`); [`Lf::list_merged`] (`list.rs`); [`Lf::locate`],
//!   [`Lf::remote_open_argv`], [`Lf::detach_remote`], [`Lf::go_remote`]
//!   (`open.rs`).
//!
//! The facade depends on no subject module: a subject depends on it, and
//! a cycle would follow (`scripts/module-cycles`). What it needs to open a
//! store, the change stream's recorder and the open command records name,
//! live below the subjects (`changes`, `session::project`).

use crate::Result;
use crate::caller::Caller;
use crate::home::Home;
use crate::session::project::OpenCommand;
use crate::store::Store;
use std::path::Path;

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
        let keep = crate::changes::keep(self.caller.var(crate::caller::EVENTS_KEEP_ENV))?;
        let store = Store::open(&self.home)?;
        store.observe_with(Box::new(crate::changes::Recorder::new(
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

#[cfg(test)]
mod tests {
    /// Every public method of an `impl Lf` block anywhere in the library
    /// is in the module docs' list, so the list is where to look.
    #[test]
    fn the_module_docs_list_every_operation() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let listed = include_str!("facade.rs");
        let mut files = vec![root];
        let mut missing = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut inside = false;
            for line in text.lines() {
                if line.starts_with("impl Lf {") || line.starts_with("impl crate::Lf {") {
                    inside = true;
                } else if line.starts_with('}') {
                    inside = false;
                } else if let Some(name) = line
                    .strip_prefix("    pub fn ")
                    .filter(|_| inside)
                    .and_then(|rest| rest.split(['(', '<']).next())
                {
                    // `store` is public only for the workspace's tests.
                    if name != "store" && !listed.contains(&format!("[`Lf::{name}`]")) {
                        missing.push(format!("{name} ({})", path.display()));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "not in facade.rs's list: {missing:?}");
    }
}
