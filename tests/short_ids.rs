//! Short ids: the first characters of a Session (or Run) id name it
//! wherever an id is taken, as the README's `.id[0:8]` prints them; a
//! prefix that names more than one is refused naming them.

use crate::util::*;
use lf::wire::{SessionRecord, SessionState};

/// Two Sessions whose ids share their first 8 characters (`be336cc7`), and
/// whose Runs share `run-01jx4q8z`.
pub(crate) const FIRST: &str = "be336cc70f1e4a2b9c3d5e6f7a8b9c0d";
pub(crate) const SECOND: &str = "be336cc7a1b2c3d4e5f60718293a4b5c";
const FIRST_RUN: &str = "run-01jx4q8z000000000000000000";
const SECOND_RUN: &str = "run-01jx4q8zzzzzzzzzzzzzzzzzzz";

pub(crate) fn twins(env: &Env) {
    env.seed_conversation(FIRST, FIRST_RUN, "Fix the parser");
    env.seed_conversation(SECOND, SECOND_RUN, "Add a --json flag");
}

#[test]
fn an_eight_character_prefix_opens_renames_and_completes_its_session() {
    let env = Env::new();
    let record = env.new_session(&["--title", "Fix the parser"]);
    let other = env.new_session(&["--title", "Something else"]);
    assert_ne!(record.id[..8], other.id[..8]);
    let short = &record.id[..8];

    let printed: SessionRecord = env.run("lf-session-open", &[short, "--print"]).json();
    assert_eq!(printed.id, record.id, "the record carries the whole id");
    let renamed: SessionRecord = env
        .run("lf-session-rename", &[short, "Rewrite the parser"])
        .json();
    assert_eq!(
        (renamed.id.as_str(), renamed.title.as_str()),
        (record.id.as_str(), "Rewrite the parser")
    );
    // Six characters are enough; the full id still works as before.
    env.run("lf-work", &["task", "add", "LOO-1", "--title", "Parser"])
        .ok();
    let preview: lf::wire::SessionBindingPreview = env
        .run("lf-session-bind", &[&record.id[..6], "LOO-1", "--preview"])
        .json();
    assert_eq!(preview.session_id, record.id);

    let closed: SessionRecord = env.run("lf-session-complete", &[short]).json();
    assert_eq!(
        (closed.id.as_str(), closed.state),
        (record.id.as_str(), SessionState::Closed)
    );
    assert!(env.show(&other.id).completed_at.is_none(), "only that one");
}

#[test]
fn a_prefix_launches_its_session() {
    let env = Env::new();
    let record = env.new_session(&["--title", "Launch me"]);
    let opened: SessionRecord = env
        .run("lf-session-open", &[&record.id[..8], "--detach"])
        .json();
    assert_eq!(opened.id, record.id);
    assert!(
        env.tmux_has(&format!("lf-{}", &record.id[..12])),
        "it runs in its durable tmux session"
    );
}

#[test]
fn a_run_id_prefix_names_its_session() {
    let env = Env::new();
    twins(&env);
    let printed: SessionRecord = env
        .run("lf-session-open", &["run-01jx4q8zz", "--print"])
        .json();
    assert_eq!(printed.id, SECOND);
    let error = env
        .attempt("lf-session-open", &["run-01jx4q8z", "--print"])
        .fails_with(2, "ambiguous_prefix");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    assert_eq!(
        env.run("lf-session-complete", &["run-01jx4q8z0"])
            .json::<SessionRecord>()
            .id,
        FIRST
    );
}
