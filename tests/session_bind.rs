use crate::util::*;
use lf::wire::{SessionBindingPreview, SessionRecord, WorkRef};

pub(crate) fn setup() -> (Env, SessionRecord, lf::wire::TaskRecord) {
    let env = Env::new();
    env.run(
        "lf-work",
        &[
            "wave",
            "add",
            "product",
            "--repo",
            env.work().to_str().unwrap(),
        ],
    )
    .ok();
    let task = env
        .run(
            "lf-work",
            &[
                "task",
                "add",
                "LOO-291",
                "--title",
                "Rewrite the parser",
                "--wave",
                "product",
            ],
        )
        .json();
    let session = env.new_session(&["--title", "parser"]);
    (env, session, task)
}

#[test]
fn preview_shows_the_binding_and_binds_nothing() {
    let (env, session, task) = setup();
    let preview: SessionBindingPreview = env
        .run("lf-session-bind", &[&session.id, "LOO-291", "--preview"])
        .json();
    assert_eq!(
        preview,
        SessionBindingPreview {
            session_id: session.id.clone(),
            task_id: task.id,
            identifier: "LOO-291".into(),
            title: "Rewrite the parser".into(),
        }
    );
    assert_eq!(env.show(&session.id).work, None);
}

#[test]
fn binding_is_permanent_and_shows_the_work() {
    let (env, session, task) = setup();
    let ran = env.run("lf-session-bind", &[&session.id, &task.id]);
    let bound: SessionRecord = ran.json();
    // A note for the person, one line (tests/messages.rs pins it).
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert_eq!(bound.work, Some(WorkRef::Task(task.id.clone())));
    assert_eq!(bound.work_path.as_deref(), Some("product / LOO-291"));
    assert_eq!(bound.task_ids, [task.id.as_str()]);
    // The same Task again is fine; another is refused.
    env.run("lf-session-bind", &[&session.id, "LOO-291"]).ok();
    env.run("lf-work", &["task", "add", "LOO-292", "--title", "Other"])
        .ok();
    let error = env
        .attempt("lf-session-bind", &[&session.id, "LOO-292"])
        .fails_with(4, "already_bound");
    assert_eq!(error.arg.as_deref(), Some("id"), "{error:?}");
    env.attempt("lf-session-bind", &[&session.id, "LOO-292", "--preview"])
        .fails_with(4, "already_bound");
    assert_eq!(env.show(&session.id).work, Some(WorkRef::Task(task.id)));
}

#[test]
fn binding_accepts_the_current_run_and_names_unknown_tasks() {
    let (env, session, _) = setup();
    let run = env.current_run(&session.id);
    let preview: SessionBindingPreview = env
        .run("lf-session-bind", &[&run, "LOO-291", "--preview"])
        .json();
    assert_eq!(preview.session_id, session.id);
    env.attempt("lf-session-bind", &[&session.id, "LOO-404"])
        .fails_with(3, "task_not_found");
}

#[test]
fn a_closed_session_binds_like_an_open_one() {
    let (env, session, task) = setup();
    env.run("lf-session-complete", &[&session.id]).ok();
    let bound: SessionRecord = env.run("lf-session-bind", &[&session.id, "LOO-291"]).json();
    assert_eq!(bound.work, Some(WorkRef::Task(task.id)));
}
