//! Every way an lf operation can fail. Each domain's enum lives beside the
//! rule that raises it (`input::InputError`, `home::HomeError`,
//! `handoff::HandoffError`, …), so a newcomer finds a failure next to its
//! rule; `lf::Error`, defined at the crate root above all of them, holds
//! one (`?` converts), or says what was being done (`During`), which
//! argument it is about (`About`) or which variable held it
//! (`InVariable`), or is a plain I/O failure. This module names them all
//! in one place and holds what they share, in modules that depend on
//! nothing: `domain` (kinds and exit codes, the argument an error is
//! about, the `Domain` trait the join asks), `hint` (what to type next,
//! typed) and `untrusted` (quoting text lf did not write).
//!
//! Each message is written once, in its variant, for a person: what
//! happened, to which session or file. What to type next is a typed
//! `Hint`, which each surface spells in its own words. `kind()` gives the
//! documented exit code, `arg()` the argument an error is about (so the
//! plugin can put its label under it without reading the message),
//! `name()` the variant's stable name, and `source()` the lower-level I/O
//! or SQLite error, which surfaces print as `Caused by:`
//! (docs/decisions/0027-errors-by-domain.md).

pub mod domain;
pub mod hint;
pub mod untrusted;

pub use crate::changes::EventsError;
pub use crate::devices::DeviceError;
pub use crate::flow::FlowError;
pub use crate::git::GitError;
pub use crate::handoff::HandoffError;
pub use crate::home::HomeError;
pub use crate::hook::HookError;
pub use crate::input::InputError;
pub use crate::liveness::LivenessError;
pub use crate::provider::ProviderError;
pub use crate::remote::RemoteError;
pub use crate::session::error::SessionError;
pub use crate::session::launch::LaunchError;
pub use crate::session::pick::PickError;
pub use crate::session::worktree::WorktreeError;
pub use crate::tmux::TmuxError;
pub use crate::usage::UsageError;
pub use crate::work::WorkError;
pub use domain::{Arg, Domain, ErrorKind, What};
pub use hint::{Command, Hint};
pub use untrusted::{HOST_TEXT_MAX, host_text, quote};

pub use crate::{Error, Result};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_have_stable_snake_case_names() {
        assert_eq!(
            Error::from(SessionError::SessionNotFound("x".into())).name(),
            "session_not_found"
        );
        let complete = Error::from(SessionError::AlreadyComplete {
            session: "x".into(),
            at: "y".into(),
        });
        assert_eq!(complete.name(), "already_complete");
        assert_eq!(Error::from(HomeError::NoHome).name(), "no_home");
        assert_eq!(
            Error::from(WorkError::WaveNotFound("w".into()))
                .about(Arg::Parent)
                .name(),
            "wave_not_found"
        );
        let io = std::io::Error::other("x");
        assert_eq!(Error::io("reading", io).name(), "io");
    }

    #[test]
    fn a_remote_refusal_is_named_and_kinded_as_the_remote_said() {
        let refused = |name: Option<&str>| {
            Error::from(RemoteError::RemoteRefused {
                host: "box".into(),
                kind: ErrorKind::Conflict,
                message: "on host box: no".into(),
                name: name.map(str::to_owned),
            })
        };
        assert_eq!(refused(Some("already_complete")).name(), "already_complete");
        assert_eq!(refused(None).name(), "remote_refused");
        assert_eq!(refused(None).kind(), ErrorKind::Conflict);
    }

    /// Every variant's name, as it was when the one enum was split
    /// (docs/decisions/0027-errors-by-domain.md): names are a contract
    /// (`LF_ERROR_FORMAT=json`'s `error`), so none changes and none is
    /// given twice.
    #[test]
    fn every_variant_keeps_its_name_across_the_domains() {
        use strum::VariantNames;
        let domains = [
            InputError::VARIANTS,
            HomeError::VARIANTS,
            SessionError::VARIANTS,
            LaunchError::VARIANTS,
            WorkError::VARIANTS,
            FlowError::VARIANTS,
            HandoffError::VARIANTS,
            RemoteError::VARIANTS,
            TmuxError::VARIANTS,
            ProviderError::VARIANTS,
            GitError::VARIANTS,
            WorktreeError::VARIANTS,
            LivenessError::VARIANTS,
            HookError::VARIANTS,
            EventsError::VARIANTS,
            PickError::VARIANTS,
            UsageError::VARIANTS,
            DeviceError::VARIANTS,
        ];
        let own = [
            "in_variable",
            "about",
            "during",
            "io",
            "cannot_run",
            "output",
            "json",
        ];
        assert!(own.iter().all(|name| Error::VARIANTS.contains(name)));
        let mut names: Vec<&str> = domains.concat();
        names.extend(own);
        names.sort_unstable();
        let before = [
            "about",
            "action_in_flight",
            "agent_acts_for_person",
            "already_bound",
            "already_complete",
            "always_only_allows",
            "ambiguous_prefix",
            "answer_not_taken",
            "argument_needs",
            "arguments_conflict",
            "argv_not_for_agent",
            "attach_command",
            "attach_failed",
            "attach_program_missing",
            "bad_command",
            "bad_cursor",
            "bad_event",
            "bad_events_keep",
            "bad_hook",
            "bad_host",
            "bad_host_list",
            "bad_id",
            "bad_parent",
            "bad_prices",
            "bad_remote_path",
            "bad_seconds",
            "bad_selector",
            "bad_token",
            "bad_variable_name",
            "bad_variable_value",
            "base_not_a_branch",
            "being_opened",
            "branch_exists",
            "cannot_run",
            "cannot_watch",
            "changed_meanwhile",
            "command_line",
            "control_character",
            "database",
            "database_unreadable",
            "detached_base",
            "device_not_found",
            "dialog_up",
            "during",
            "empty_text",
            "forbidden_stored_variables",
            "forbidden_variable",
            "foreign_git_dir",
            "from_sessions_own_terminal",
            "git",
            "handoff_cwd_gone",
            "handoff_elsewhere",
            "handoff_ended",
            "handoff_not_found",
            "historical_run",
            "home_file",
            "home_not_a_folder",
            "home_read_only",
            "hook_of_other_provider",
            "host_exists",
            "host_not_found",
            "host_sent_too_much",
            "host_unavailable",
            "identifier_looks_like_id",
            "in_variable",
            "invocation_finished",
            "invocation_not_found",
            "invocation_of_other_flow",
            "io",
            "json",
            "launch_failed",
            "launcher_exited",
            "local_only_filter",
            "lock",
            "lock_file",
            "migration",
            "needs_agent",
            "newer_schema",
            "no_agent_to_answer",
            "no_always_on_prompt",
            "no_argv",
            "no_boot_time",
            "no_chosen_id",
            "no_current_dir",
            "no_gemini_home",
            "no_git",
            "no_home",
            "no_longer_waiting",
            "no_native_history",
            "no_outcome_yet",
            "no_prompt_on_screen",
            "no_terminal",
            "no_tmux",
            "no_user_home",
            "no_worktree",
            "not_a_directory",
            "not_a_git_repository",
            "not_a_terminal",
            "not_a_variable",
            "not_current_run",
            "not_in_repository",
            "not_launched_by_lf",
            "not_live",
            "not_on_path",
            "not_ours",
            "not_primary",
            "not_stored",
            "not_utf8",
            "not_waiting_for",
            "nothing_to_pick",
            "nowhere_found",
            "nul_byte",
            "outcome_lost",
            "outcome_stands",
            "output",
            "own_config",
            "parent_busy",
            "parent_without_worktree",
            "prefix_too_short",
            "primary_not_reviewed",
            "proc",
            "process_not_found",
            "remote_refused",
            "replay_differs",
            "request_not_on_screen",
            "request_not_up",
            "requests_queued",
            "restore_failed",
            "run_not_found",
            "run_of_other_session",
            "session_not_found",
            "shared_folder",
            "shared_prices",
            "sqlite",
            "stale_review",
            "start_timeout",
            "superseded_run",
            "task_exists",
            "task_not_found",
            "terminal",
            "text_too_long",
            "tmux",
            "tmux_failed",
            "tmux_session_exists",
            "too_many_variables",
            "unavailable",
            "unknown_name",
            "unusable_dir",
            "variable_twice",
            "wait_stopped",
            "wait_timeout",
            "wave_exists",
            "wave_not_found",
            "worktree_dir_exists",
            "worktree_in_use",
            "worktree_with_task",
            "would_lose_work",
        ];
        assert_eq!(names, before);
    }

    #[test]
    fn kinds_keep_their_documented_exit_codes() {
        use ErrorKind::*;
        let codes = [Operational, Usage, NotFound, Conflict].map(ErrorKind::exit_code);
        assert_eq!(codes, [1, 2, 3, 4]);
    }

    #[test]
    fn causes_follow_the_message_and_wrapped_errors_keep_kind_and_arg() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let error = Error::from(InputError::UnusableDir {
            arg: Arg::Cwd,
            what: "working directory",
            path: "/x".into(),
            source: io,
        })
        .during("review Session 1 was recorded but did not start");
        assert_eq!(error.kind(), ErrorKind::Usage);
        assert_eq!(error.arg(), Some(Arg::Cwd));
        assert_eq!(error.name(), "unusable_dir");
        assert_eq!(
            error.report(),
            "review Session 1 was recorded but did not start: the working directory \"/x\" cannot be used\nCaused by: denied"
        );
    }

    #[test]
    fn the_hint_follows_the_message_in_the_binaries_words_and_wrappers_keep_it() {
        let error = Error::from(WorkError::TaskNotFound("LOO-1".into(), true)).about(Arg::Parent);
        assert_eq!(error.to_string(), "Task \"LOO-1\" is not registered");
        let hint = error.hint().expect("a hint");
        assert_eq!(
            hint.commands().cloned().collect::<Vec<_>>(),
            [
                Command::WorkTaskList,
                Command::WorkTaskAdd { worktree: false }
            ]
        );
        assert_eq!(
            error.one_line(),
            "Task \"LOO-1\" is not registered; see lf-work task list, or register it with lf-work task add"
        );
        assert_eq!(error.one_line_without_hint(), error.to_string());
    }
}
