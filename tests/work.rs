use crate::util::*;
use lf::wire::{TaskRecord, WaveRecord};

#[test]
fn waves_and_tasks_are_registered_listed_and_finished() {
    let env = Env::new();
    let repo = env.mkdir("repo");
    let wave: WaveRecord = env
        .run(
            "lf-work",
            &["wave", "add", "product", "--repo", repo.to_str().unwrap()],
        )
        .json();
    assert_eq!(
        (wave.name.as_str(), wave.repo.as_str()),
        ("product", repo.to_str().unwrap())
    );
    assert!(wave.id.starts_with("wave-"));
    let worktree = env.mkdir("repo-loo-1");
    let task: TaskRecord = env
        .run(
            "lf-work",
            &[
                "task",
                "add",
                "LOO-1",
                "--title",
                "First",
                "--worktree",
                worktree.to_str().unwrap(),
                "--wave",
                &wave.id,
            ],
        )
        .json();
    assert_eq!(task.work_path.as_deref(), Some("product / LOO-1"));
    assert_eq!(task.worktree.as_deref(), worktree.to_str());
    assert!(!task.finished);
    let waves: Vec<WaveRecord> = env.run("lf-work", &["wave", "list"]).json();
    assert_eq!(waves, [wave]);
    let finished: TaskRecord = env.run("lf-work", &["task", "finish", "LOO-1"]).json();
    assert!(finished.finished && finished.finished_at.is_some());
    let tasks: Vec<TaskRecord> = env.run("lf-work", &["task", "list"]).json();
    assert_eq!(tasks, [finished]);
}

#[test]
fn duplicates_unknown_references_and_bad_paths_are_refused() {
    let env = Env::new();
    let repo = env.mkdir("repo");
    env.run(
        "lf-work",
        &["wave", "add", "product", "--repo", repo.to_str().unwrap()],
    )
    .ok();
    env.attempt(
        "lf-work",
        &["wave", "add", "product", "--repo", repo.to_str().unwrap()],
    )
    .fails_with(4, "wave_exists");
    env.run("lf-work", &["task", "add", "LOO-1", "--title", "x"])
        .ok();
    env.attempt("lf-work", &["task", "add", "LOO-1", "--title", "y"])
        .fails_with(4, "task_exists");
    env.attempt(
        "lf-work",
        &["task", "add", "LOO-2", "--title", "y", "--wave", "nope"],
    )
    .fails_with(3, "wave_not_found");
    let missing = env.work().join("missing");
    env.attempt(
        "lf-work",
        &[
            "task",
            "add",
            "LOO-3",
            "--title",
            "y",
            "--worktree",
            missing.to_str().unwrap(),
        ],
    )
    .fails_with(2, "unusable_dir");
    env.attempt("lf-work", &["task", "add", "LOO 4;rm", "--title", "y"])
        .fails_with(2, "bad_token");
    env.attempt("lf-work", &["task", "add", "LOO-5", "--title", "a\u{1b}b"])
        .fails_with(2, "control_character");
    env.attempt("lf-work", &["task", "finish", "LOO-404"])
        .fails_with(3, "task_not_found");
    let tasks: Vec<TaskRecord> = env.run("lf-work", &["task", "list"]).json();
    assert_eq!(tasks.len(), 1);
}

#[test]
fn a_session_in_a_symlinked_worktree_is_associated() {
    let env = Env::new();
    let real = env.mkdir("real-wt");
    let link = env.work().join("link-wt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    // The Task is registered through the link, the session through the real path.
    let task: TaskRecord = env
        .run(
            "lf-work",
            &[
                "task",
                "add",
                "LOO-7",
                "--title",
                "x",
                "--worktree",
                link.to_str().unwrap(),
            ],
        )
        .json();
    assert_eq!(task.worktree.as_deref(), real.to_str());
    let sub = env.mkdir("real-wt/src");
    let session = env.new_session(&["--cwd", sub.to_str().unwrap()]);
    assert_eq!(session.task_ids, [task.id.as_str()]);
    assert_eq!(session.workspace.unwrap().task_id, Some(task.id));
    assert_eq!(session.work, None, "association is not a binding");
}
