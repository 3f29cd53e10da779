//! Claude Code: a new conversation gets the UUID lf chose
//! (`--session-id`), a resume names it (`--resume`), and lf's hooks arrive
//! through `--settings`, a JSON file written for this launch only.

use super::{HookEvent, Launch, Mode, instructions, is_uuid, shell_quote};
use crate::error::{Error, Result};
use serde_json::{Value, json};

/// The hook events lf listens to.
const EVENTS: [&str; 5] = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "Notification",
    "SessionEnd",
];

pub(super) fn argv(launch: &Launch<'_>) -> Result<Vec<String>> {
    let settings = launch.run_dir.join("claude-settings.json");
    crate::home::write_private(
        &settings,
        settings_json(launch.hook_program).to_string().as_bytes(),
    )?;
    let mut argv = vec!["claude".to_owned()];
    match launch.mode {
        Mode::New {
            chosen_native_id, ..
        } => {
            let id = chosen_native_id
                .ok_or_else(|| Error::operational("a Claude Run has no chosen session id"))?;
            argv.extend(["--session-id".to_owned(), id.to_owned()]);
        }
        Mode::Resume { native_id } => argv.extend(["--resume".to_owned(), native_id.to_owned()]),
    }
    argv.extend(["--settings".to_owned(), settings.display().to_string()]);
    argv.extend([
        "--append-system-prompt".to_owned(),
        instructions(launch.primary).to_owned(),
    ]);
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
    Ok(argv)
}

fn settings_json(hook_program: &std::path::Path) -> Value {
    let command = format!(
        "{} claude",
        shell_quote(&hook_program.display().to_string())
    );
    let hooks: serde_json::Map<String, Value> = EVENTS
        .iter()
        .map(|event| {
            (
                (*event).to_owned(),
                json!([{ "hooks": [{ "type": "command", "command": command }] }]),
            )
        })
        .collect();
    json!({ "hooks": hooks })
}

/// Claude's hook JSON (on stdin) to what it means.
pub(super) fn parse_hook(payload: &[u8]) -> std::result::Result<HookEvent, String> {
    let value: Value =
        serde_json::from_slice(payload).map_err(|error| format!("payload is not JSON: {error}"))?;
    let object = value.as_object().ok_or("payload is not a JSON object")?;
    let text = |key: &str| object.get(key).and_then(Value::as_str);
    let event = text("hook_event_name").ok_or("payload has no hook_event_name")?;
    let native_id = match text("session_id") {
        Some(id) if is_uuid(id) => Some(id.to_ascii_lowercase()),
        Some(id) => {
            return Err(format!(
                "session_id {} is not a UUID",
                crate::ids::quote(id)
            ));
        }
        None => None,
    };
    Ok(match event {
        "SessionStart" => HookEvent::SessionStarted {
            native_id: native_id.ok_or("SessionStart has no session_id")?,
        },
        "UserPromptSubmit" => HookEvent::TurnStarted { native_id },
        "Stop" => HookEvent::TurnCompleted { native_id },
        "Notification" => match text("notification_type") {
            Some("permission_prompt") => HookEvent::PermissionPrompt,
            Some(other) => HookEvent::Ignored(format!("Notification {other}")),
            None => HookEvent::Ignored("Notification without a type".to_owned()),
        },
        "SessionEnd" => HookEvent::SessionEnded,
        other => HookEvent::Ignored(crate::ids::quote(other)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const ID: &str = "4b6f1a52-7c1e-4c1b-9a2f-1f0e3d2c1b0a";

    #[test]
    fn a_new_conversation_presets_its_id_and_injects_hooks_for_this_launch() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            mode: Mode::New {
                chosen_native_id: Some(ID),
                prompt: Some("Fix it"),
            },
            model: Some("opus"),
            command: &[],
            hook_program: Path::new("/opt/lf bin/lf-hook"),
            run_dir: dir.path(),
            primary: false,
        };
        let argv = argv(&launch).unwrap();
        let settings = dir
            .path()
            .join("claude-settings.json")
            .display()
            .to_string();
        assert_eq!(
            argv,
            [
                "claude",
                "--session-id",
                ID,
                "--settings",
                &settings,
                "--append-system-prompt",
                instructions(false),
                "--model",
                "opus",
                "Fix it"
            ]
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        for event in EVENTS {
            assert_eq!(
                written["hooks"][event][0]["hooks"][0]["command"],
                "'/opt/lf bin/lf-hook' claude"
            );
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&settings).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_resume_names_the_conversation_and_sends_no_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            mode: Mode::Resume { native_id: ID },
            model: None,
            command: &[],
            hook_program: Path::new("/bin/lf-hook"),
            run_dir: dir.path(),
            primary: true,
        };
        let argv = argv(&launch).unwrap();
        assert_eq!(&argv[..3], ["claude", "--resume", ID]);
        assert_eq!(argv.last().unwrap(), instructions(true));
    }

    #[test]
    fn hook_payloads_map_to_events() {
        let parse = |json: &str| parse_hook(json.as_bytes());
        let start = format!(
            r#"{{"hook_event_name":"SessionStart","session_id":"{ID}","source":"startup"}}"#
        );
        assert_eq!(
            parse(&start),
            Ok(HookEvent::SessionStarted {
                native_id: ID.to_owned()
            })
        );
        let stop = format!(r#"{{"hook_event_name":"Stop","session_id":"{ID}"}}"#);
        assert_eq!(
            parse(&stop),
            Ok(HookEvent::TurnCompleted {
                native_id: Some(ID.to_owned())
            })
        );
        assert_eq!(
            parse(r#"{"hook_event_name":"Notification","notification_type":"permission_prompt"}"#),
            Ok(HookEvent::PermissionPrompt)
        );
        assert!(matches!(
            parse(r#"{"hook_event_name":"Notification","notification_type":"idle_prompt"}"#),
            Ok(HookEvent::Ignored(_))
        ));
        for bad in [
            "",
            "{",
            "[]",
            r#"{"session_id":"x"}"#,
            r#"{"hook_event_name":"Stop","session_id":"../x"}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
