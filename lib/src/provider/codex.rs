//! Codex CLI: lf's notifier is injected with `-c notify=[…]` for this launch
//! only. No flag presets the thread id, so lf learns it from the first
//! notification; a resume is `codex resume <thread-id>`.

use super::{HookEvent, Launch, Mode, native_token};
use serde_json::Value;

pub(super) fn argv(launch: &Launch<'_>) -> Vec<String> {
    let mut argv = vec!["codex".to_owned()];
    if let Mode::Resume { native_id } = launch.mode {
        argv.extend(["resume".to_owned(), native_id.to_owned()]);
    }
    // A TOML array of basic strings; JSON string escapes are valid TOML.
    let notify = format!(
        "notify=[{},{}]",
        Value::from(launch.hook_program.display().to_string()),
        Value::from("codex")
    );
    argv.extend(["-c".to_owned(), notify]);
    if let Some(model) = launch.model {
        argv.extend(["--model".to_owned(), model.to_owned()]);
    }
    if let Mode::New {
        prompt: Some(prompt),
        ..
    } = launch.mode
    {
        argv.push(prompt.to_owned());
    }
    argv
}

/// Codex's notification (one JSON argument) to what it means.
pub(super) fn parse_notify(payload: &[u8]) -> Result<HookEvent, String> {
    let value: Value =
        serde_json::from_slice(payload).map_err(|error| format!("payload is not JSON: {error}"))?;
    let object = value.as_object().ok_or("payload is not a JSON object")?;
    match object.get("type").and_then(Value::as_str) {
        Some("agent-turn-complete") => {
            let thread = object
                .get("thread-id")
                .and_then(Value::as_str)
                .ok_or("agent-turn-complete has no thread-id")?;
            Ok(HookEvent::TurnCompleted {
                native_id: Some(native_token(thread)?),
            })
        }
        Some(other) => Ok(HookEvent::Ignored(crate::error::quote(other))),
        None => Err("payload has no type".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn notify_is_injected_for_this_launch_and_resume_names_the_thread() {
        let launch = |mode| Launch {
            mode,
            model: Some("gpt-5.1-codex"),
            command: &[],
            hook_program: Path::new("/opt/lf/lf-hook"),
            run_dir: Path::new("/nonexistent"),
            primary: false,
        };
        assert_eq!(
            argv(&launch(Mode::New {
                chosen_native_id: None,
                prompt: Some("go")
            })),
            [
                "codex",
                "-c",
                r#"notify=["/opt/lf/lf-hook","codex"]"#,
                "--model",
                "gpt-5.1-codex",
                "go"
            ]
        );
        assert_eq!(
            argv(&launch(Mode::Resume { native_id: "t-1" }))[..3],
            ["codex", "resume", "t-1"]
        );
    }

    #[test]
    fn turn_completions_carry_the_thread_id() {
        let payload = br#"{"type":"agent-turn-complete","thread-id":"019a7f","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"ok"}"#;
        assert_eq!(
            parse_notify(payload),
            Ok(HookEvent::TurnCompleted {
                native_id: Some("019a7f".to_owned())
            })
        );
        assert!(parse_notify(br#"{"type":"agent-turn-complete","thread-id":"../../x"}"#).is_err());
        assert!(parse_notify(b"not json").is_err());
        assert!(matches!(
            parse_notify(br#"{"type":"other"}"#),
            Ok(HookEvent::Ignored(_))
        ));
    }
}
