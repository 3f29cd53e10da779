//! The words a person reads in Nushell, as it renders them. Elsewhere the
//! plugin's tests match an error's code and the source under its labels;
//! the library's sentences themselves are pinned once, for the binaries,
//! in tests/messages.rs, and the plugin shows the same (its tests hold the
//! two surfaces equal).

use super::{Env, seed};

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
