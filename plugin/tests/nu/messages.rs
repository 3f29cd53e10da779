//! The words a person reads in Nushell, as it renders them. Elsewhere the
//! plugin's tests match an error's code and the source under its labels;
//! the library's sentences themselves are pinned once, for the binaries,
//! in tests/messages.rs, and the plugin shows the same (its tests hold the
//! two surfaces equal).

use super::{Env, caught, seed};

#[test]
fn an_uncaught_error_is_rendered_with_its_label_under_the_argument() {
    let env = Env::new();
    seed(&env);
    let ran = env.nu("lf session rename nothex 'A title'");
    assert_eq!(ran.code, Some(1), "{}", ran.describe());
    assert_eq!(
        ran.stderr,
        r#"Error: lf::usage

  x "nothex" is not a Session id (32 lowercase hexadecimal characters, or the
  | first 6 or more of them) or a Run id (run- and 26 base32 characters, or
  | the first 6 or more of them)
   ,-[source:1:19]
 1 | lf session rename nothex 'A title'
   :                   ^^^|^^
   :                      `-- not valid here
   `----

"#
    );
}

#[test]
fn an_unknown_task_is_a_labeled_error_under_the_flag_value() {
    let env = Env::new();
    env.session("Something", &env.mkdir("repo"));
    let error = caught(&env, "lf active --task NOPE-1");
    assert_eq!(error.msg, "Task \"NOPE-1\" is not registered");
    // What to type next is the help, as Nushell spells the command.
    assert_eq!(error.help.as_deref(), Some("see lf work task list"));
    assert_eq!(error.code.as_deref(), Some("lf::not_found"));
    assert_eq!(error.labels.len(), 1, "{error:?}");
    assert_eq!(error.labels[0].source, "NOPE-1");
    // The binary says the same, and names the binary to type.
    let binary = env.binary_in(&env.work(), "lf-session-active", &["--task", "NOPE-1"]);
    assert_eq!(
        binary.stderr.trim(),
        format!("lf-session-active: {}; see lf-work task list", error.msg)
    );
}

/// Outside tmux, an open says where the Session runs and how to get there.
#[test]
fn an_open_outside_tmux_says_how_to_attach() {
    let env = Env::new();
    let work = env.mkdir("repo");
    let launched: lf::wire::SessionRecord = env
        .nu_in(
            &work,
            "lf session new --provider command --argv [sleep 600] | to json -r",
        )
        .json();
    let (id, name) = (&launched.id, format!("lf-{}", &launched.id[..12]));
    let opened = env.nu_in(&work, &format!("lf session open {id} | ignore"));
    assert_eq!(
        opened.stderr,
        format!(
            "lf session open: {id} runs in the tmux session {name}; attach with: lf-session-open \
             {id}  (or: tmux attach -t ={name})\n"
        )
    );
    env.nu(&format!("lf session complete {id} --grace 1 | ignore"));
}
