//! Integration tests: each runs the built `lf-*` binaries in a sealed
//! environment (its own `LF_HOME` and `HOME` in a temp dir, a cleared
//! environment) and decodes their JSON into the library's own wire types.

mod util;

/// lf-session-active: live processes attributed by exact evidence.
mod active;
/// Exact answers: each answer reaches the one request the person saw (the stand-in Claude's queued dialogs).
mod answer;
/// --help, --version, exit codes, error formats, closed and full stdout.
mod edges;
/// lf-flow: reviews of flow positions, their occurrence and feedback.
mod flow;
/// Completions and man pages are generated from the clap definitions.
mod generated;
/// lf-handoff: interactive handoffs, their races and their wire.
mod handoff;
/// lf-hook: fuzzed payloads, fencing on the current Run.
mod hooks;
/// Hostile input (issue 20): folders, repositories, hosts and handoffs that cannot run anything.
mod hostile;
/// lf-install-shell: completions and man pages reach bash, zsh, fish, Nushell and man.
mod install_shell;
/// Launching with fake agents in a private tmux server.
mod launch;
/// The exact sentences a person reads when something is refused.
mod messages;
/// Fake model servers (Anthropic Messages, OpenAI Responses) for the real CLIs.
mod model;
/// lf-session-pick: the keyboard picker, driven through a tmux pane.
mod pick;
/// lf-primary: the one ongoing conversation of a repository or wave.
mod primary;
/// Owner-only files in the Home, whatever the umask.
mod privacy;
/// lf-session-count and lf-session-next: who waits, counted and taken in turn.
mod queue;
/// Every example of README.md runs as written, or says why it cannot.
mod readme;
/// The real Claude Code and Codex CLIs through lf, end to end.
mod real;
/// Remote Homes over a real sshd: the host list, one merged list, one jump.
mod remote;
/// lf-session-restore: lost Sessions brought back, once.
mod restore;
/// Shared helpers of the JSON-contract tests: fixtures, schemas, a validator.
mod schema;
/// lf-session-bind: preview, permanence, run ids.
mod session_bind;
/// lf-session-complete: stopping clients, flow readiness, races.
mod session_complete;
/// lf-session-list: filters, paging, streaming, liveness.
mod session_list;
/// lf-session-new: validation and what is recorded.
mod session_new;
/// lf-session-ready and lf-session-rename.
mod session_ready_rename;
/// lf-session-send and lf-session-answer: what they refuse, and a reply typed literally.
mod session_send;
/// Short ids: a unique prefix of a Session or Run id names it; an ambiguous one is refused.
mod short_ids;
/// Many processes at once, killed writers, corrupt and newer databases.
mod stress;
/// lf-session-usage: tokens, turns, time and cost from the agents' own records.
mod usage;
/// lf-session-watch: the change stream, resumed, filtered, run per event, pruned.
mod watch;
/// lf-web: its guard over real HTTP, its page in a real headless Chromium.
mod web;
/// The JSON contract: schema and fixtures.
mod wire;
/// lf-work: waves and tasks, association by worktree.
mod work;
/// A git worktree per Session: creation, diff, removal.
mod worktree;
