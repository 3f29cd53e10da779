//! lf-session-count and lf-session-next: the Sessions that wait for the
//! person, counted for a status line and taken one after the other.

use crate::util::Env;
use lf::state::Turn;
use lf::wire::{AttentionCounts, SessionRecord};

/// Sessions that owe each kind of attention, created in this order: an
/// older reply, a review, an approval, a newer reply, and one that owes
/// nothing.
fn waiting(env: &Env) -> [String; 4] {
    let store = || env.lf();
    let new = |title: &str| env.new_session(&["--title", title]).id;
    let old_reply = new("old reply");
    store()
        .store()
        .unwrap()
        .record_turn(&env.current_run(&old_reply), Turn::Completed, 100)
        .unwrap();
    let review = new("review");
    store()
        .store()
        .unwrap()
        .mark_ready(&review, &env.current_run(&review), "done", 200)
        .unwrap();
    let approve = new("approve");
    store()
        .store()
        .unwrap()
        .record_permission_prompt(&env.current_run(&approve), 300)
        .unwrap();
    let new_reply = new("new reply");
    store()
        .store()
        .unwrap()
        .record_turn(&env.current_run(&new_reply), Turn::Completed, 400)
        .unwrap();
    new("nothing");
    [approve, old_reply, new_reply, review]
}

#[test]
fn counts_come_short_formatted_or_as_json() {
    let env = Env::new();
    let empty = env.run("lf-session-count", &[]);
    assert_eq!((empty.code, empty.stdout.as_str()), (Some(0), "\n"));
    assert!(
        !env.home().join("loopflow.db").exists(),
        "counting creates no database"
    );
    waiting(&env);
    assert_eq!(
        env.run("lf-session-count", &[]).stdout,
        "1 approve 2 reply 1 review\n"
    );
    let counts: AttentionCounts = env.run("lf-session-count", &["--json"]).json();
    assert_eq!(
        counts,
        AttentionCounts {
            review: 1,
            approve: 1,
            reply: 2,
            total: 4
        }
    );
    let formatted = env.run(
        "lf-session-count",
        &[
            "--format",
            "#[fg=red]{approve}#[default] {reply}/{review} of {total}",
        ],
    );
    assert_eq!(formatted.stdout, "#[fg=red]1#[default] 2/1 of 4\n");
    // The same sessions as the listing's --attention.
    let listed: Vec<SessionRecord> = env.list(&["--attention"]);
    assert_eq!(listed.len() as u64, counts.total);
}

#[test]
fn next_takes_approvals_then_replies_then_reviews_longest_waiting_first() {
    let env = Env::new();
    let nothing = env.run("lf-session-next", &[]);
    assert_eq!(nothing.code, Some(0), "nothing waiting is no error");
    assert_eq!(nothing.stderr, "lf-session-next: nothing needs you\n");
    let [approve, old_reply, _, _] = waiting(&env);
    let first: SessionRecord = env.run("lf-session-next", &["--print"]).json();
    assert_eq!(first.id, approve);
    // Once the approval is answered, the longest-waiting reply is next.
    env.lf()
        .store()
        .unwrap()
        .record_tool_finished(&env.current_run(&approve), 500)
        .unwrap();
    let second: SessionRecord = env.run("lf-session-next", &["--print"]).json();
    assert_eq!(second.id, old_reply);
    assert_eq!(
        second.attention_since,
        Some(lf::clock::Timestamp(100)),
        "a reply waits since its turn completed"
    );
}
