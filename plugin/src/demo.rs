//! The demo Home the commands' examples describe: its ids and texts, which
//! the examples spell out, and how it is seeded (`home`); a test engine
//! pointed at a freshly seeded demo Home, and the check that every example
//! returns the result it shows. Only the ids and texts are built outside
//! the plugin's tests; the seeding writes through the library's store,
//! which only the `testing` feature of a dev-dependency makes public, so
//! no release build carries it.

mod home;

pub use home::*;

#[cfg(test)]
pub use engine::*;

#[cfg(test)]
mod engine {
    use super::*;
    use crate::LfPlugin;
    use lf::Home;
    use nu_plugin_test_support::PluginTest;
    use nu_protocol::Value;
    use std::path::Path;

    /// A plugin test engine whose `$env.LF_HOME` is a freshly seeded demo
    /// Home, whose current directory is the demo repository and whose
    /// `LF_SESSION_ID`/`LF_RUN_ID` are those of "Explore the codebase".
    /// The Home lives as long as the returned value.
    pub struct DemoTest {
        pub test: PluginTest,
        pub home: Home,
        _dir: tempfile::TempDir,
    }

    /// Run a command's examples against a fresh demo Home; a failing
    /// example panics with the engine's diff.
    pub fn test_examples(command: &impl nu_plugin::PluginCommand) {
        let mut demo = plugin_test();
        if let Err(error) = demo.test.test_command_examples(command) {
            panic!("examples of {} failed: {error:?}", command.name());
        }
    }

    pub fn plugin_test() -> DemoTest {
        let dir = tempfile::tempdir().expect("a temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("a canonical temp dir");
        let home = seed(&root);
        let mut test = PluginTest::new("lf", LfPlugin.into()).expect("a plugin test engine");
        let state = test.engine_state_mut();
        let path = |path: &Path| Value::test_string(path.display().to_string());
        state.add_env_var("LF_HOME".into(), path(home.root()));
        state.add_env_var("PWD".into(), path(&root.join("app")));
        state.add_env_var("HOME".into(), path(&root));
        state.add_env_var("LF_SESSION_ID".into(), Value::test_string(EXPLORE));
        state.add_env_var("LF_RUN_ID".into(), Value::test_string(EXPLORE_RUN));
        DemoTest {
            test,
            home,
            _dir: dir,
        }
    }

    impl DemoTest {
        /// The error a source that must fail ends with, as text (its code
        /// and message); a source that succeeds panics.
        pub fn error_of(&mut self, source: &str) -> String {
            let error = match self.test.eval(source) {
                Ok(data) => data
                    .into_value(nu_protocol::Span::test_data())
                    .expect_err("refused"),
                Err(error) => error,
            };
            format!("{error:?}")
        }
    }
}
