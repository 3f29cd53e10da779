//! OpenCode: it has no shell hooks, so lf's hook is a small plugin written
//! into the Run's own directory for this launch only and named, with lf's
//! instructions file, in `OPENCODE_CONFIG_CONTENT` (the argv starts with
//! `env`). OpenCode adds that inline config on top of the person's own
//! (global, project and `OPENCODE_CONFIG` files): its `plugin` and
//! `instructions` lists are joined, not replaced, so nothing of theirs is
//! hidden. A person's own `OPENCODE_CONFIG_CONTENT` is kept: lf adds its
//! two entries to it.
//!
//! What the real OpenCode 1.18.33 does (docs/agents/opencode.md): a new
//! conversation exists only from the first prompt (`session.created`
//! names it); every turn, however it ends (answered, Esc, a refused
//! permission, a failed model request), ends in `session.idle`. A resume
//! (`-s ID`) of a conversation it does not have exits 1 saying
//! "Session not found"; one it has is confirmed by the plugin at start.

use super::{Answer, Hook, HookEvent, Launch, Mode, SessionSource, instructions};
use crate::Result;
use serde_json::{Value, json};

pub(super) struct OpenCode;

/// The plugin, with `__LF_HOOK__` (lf-hook's argv as a JSON array) and
/// `__LF_RESUME__` (the resumed conversation's id, or `null`) filled in.
/// It hands lf-hook one event at a time, in order, as the last argument
/// (never through a shell); sub-agent sessions (a `parentID`) are left
/// out, and a session's status only when it becomes busy.
const PLUGIN: &str = r#"// Written by lf for one launch of OpenCode; hands its events to lf-hook.
import { spawn } from "node:child_process";

const HOOK = __LF_HOOK__;
const RESUME = __LF_RESUME__;
const FORWARD = new Set([
  "session.idle",
  "permission.asked",
  "permission.replied",
  "question.asked",
  "question.replied",
  "question.rejected",
]);

export const LfHook = async ({ client }) => {
  let queue = Promise.resolve();
  const send = (payload) => {
    queue = queue.then(
      () =>
        new Promise((resolve) => {
          const child = spawn(HOOK[0], [...HOOK.slice(1), JSON.stringify(payload)], {
            stdio: "ignore",
          });
          child.on("error", resolve);
          child.on("close", resolve);
        }),
    );
  };
  const children = new Set();
  const busy = new Set();
  if (RESUME) {
    setTimeout(async () => {
      try {
        const found = await client.session.get({ path: { id: RESUME } });
        if (found?.data?.id === RESUME) send({ type: "lf.resumed", sessionID: RESUME });
      } catch {}
    }, 0);
  }
  return {
    event: async ({ event }) => {
      const properties = event?.properties ?? {};
      const session = properties.sessionID;
      if (event?.type === "session.created") {
        if (properties.info?.parentID) children.add(session);
        else send({ type: event.type, sessionID: session });
        return;
      }
      if (children.has(session)) return;
      if (event?.type === "session.status") {
        const status = properties.status?.type;
        if (status === "busy" && !busy.has(session)) {
          busy.add(session);
          send({ type: event.type, sessionID: session, status });
        }
        if (status === "idle") busy.delete(session);
        return;
      }
      if (event?.type === "permission.asked") {
        // What its dialog asks for: the permission (`bash`) and, for a
        // command, the command the dialog shows (`metadata.command`).
        const command = properties.metadata?.command;
        send({
          type: event.type,
          sessionID: session,
          permission: properties.permission,
          command: typeof command === "string" ? command : undefined,
        });
        return;
      }
      if (FORWARD.has(event?.type)) send({ type: event.type, sessionID: session });
    },
  };
};
"#;

impl super::Agent for OpenCode {
    fn program(&self) -> &'static str {
        "opencode"
    }

    fn install(&self) -> &'static str {
        "install OpenCode (npm install -g opencode-ai) or choose another --provider"
    }

    fn config_env(&self) -> &'static [&'static str] {
        // Its config layers (an inline one, a file, a folder; lf's inline
        // config is the person's with lf's plugin added), its permission
        // rules and where it keeps its config and data.
        &[
            "OPENCODE_CONFIG_CONTENT",
            "OPENCODE_CONFIG",
            "OPENCODE_CONFIG_DIR",
            "OPENCODE_PERMISSION",
            "OPENCODE_DISABLE_PROJECT_CONFIG",
            "OPENCODE_TUI_CONFIG",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
        ]
    }

    fn argv(&self, launch: &Launch<'_>) -> Result<Vec<String>> {
        let resume = match launch.mode {
            Mode::Resume { native_id } => Some(native_id),
            Mode::New { .. } => None,
        };
        let plugin = launch.run_dir.join("lf-opencode-plugin.js");
        crate::home::write_private(&plugin, plugin_source(launch, resume).as_bytes())?;
        let told = launch.run_dir.join("lf-instructions.md");
        crate::home::write_private(&told, instructions(launch.primary).as_bytes())?;
        let content = config_content(launch.env, &file_url(&plugin), &told.display().to_string())?;
        let mut argv = vec![
            "env".to_owned(),
            format!("OPENCODE_CONFIG_CONTENT={content}"),
            "opencode".to_owned(),
        ];
        if let Some(native_id) = resume {
            argv.extend(["--session".to_owned(), native_id.to_owned()]);
        }
        if let Some(model) = launch.model {
            argv.extend(["--model".to_owned(), model.to_owned()]);
        }
        if let Mode::New {
            prompt: Some(prompt),
            ..
        } = launch.mode
        {
            // One argument with `=`: a prompt that starts with `-` is a
            // prompt, not a flag.
            argv.push(format!("--prompt={prompt}"));
        }
        Ok(argv)
    }

    fn parse_hook(&self, payload: &[u8]) -> std::result::Result<Hook, String> {
        parse_hook(payload)
    }

    /// A resume is confirmed by the plugin as soon as OpenCode has the
    /// conversation; OpenCode exits with "Session not found" for one it
    /// does not have, but only once it has started, which under load took
    /// over 20 s. So this fallback is as long as an opener waits at all
    /// (`session::launch::START_TIMEOUT`): an open is never reported as
    /// started before OpenCode itself said so.
    fn resume_settle(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(30))
    }

    /// OpenCode shows no start-up dialog (none with a provider configured,
    /// and none without: it starts at its prompt either way), and under
    /// load it takes far longer than lf's default grace to get to where a
    /// resume fails: the grace is the settle's.
    fn start_grace(&self) -> Option<std::time::Duration> {
        self.resume_settle()
    }

    /// OpenCode says why a resume failed ("Error: Session not found: …")
    /// on its stderr as it exits.
    fn captures_stderr(&self) -> bool {
        true
    }

    /// OpenCode keeps its conversations in its database, not in a file
    /// its events name: the source is the database's path and the
    /// conversation's id, `DB#ses_…`.
    fn usage_records(
        &self,
        native_id: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let id = session_id(Some(native_id.to_owned())).ok()??;
        Some(format!("{}#{id}", database(env)?.display()))
    }

    fn keeps_usage_records(&self) -> bool {
        true
    }

    /// The hooks alone may come before an answer's row is complete (seen
    /// once in three runs): lf-serve follows the database's folder (its
    /// WAL is beside it) too.
    fn usage_records_file(&self, source: &str) -> Option<std::path::PathBuf> {
        let (database, _) = source.rsplit_once('#')?;
        Some(database.into())
    }

    fn read_usage_records(
        &self,
        source: &str,
        read_to: u64,
        carry: &mut crate::usage::Carry,
        tally: &mut crate::usage::Tally,
    ) -> Option<std::result::Result<Option<u64>, String>> {
        Some(read_usage_records(source, read_to, carry, tally))
    }

    fn shows_permission_prompt(&self, lines: &[String]) -> bool {
        shows_permission_prompt(lines)
    }

    fn answer_keys(&self, answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
        answer_keys(answer, lines)
    }
}

/// The plugin's source for this launch: lf-hook's path and the resumed id
/// as JSON literals (JSON is valid JavaScript).
fn plugin_source(launch: &Launch<'_>, resume: Option<&str>) -> String {
    let hook = json!([launch.hook_program.display().to_string(), "opencode"]);
    PLUGIN
        .replace("__LF_HOOK__", &hook.to_string())
        .replace("__LF_RESUME__", &json!(resume).to_string())
}

/// A `file://` URL of an absolute path, each byte other than an
/// unreserved one or `/` percent-encoded (a path may hold `#`, `?`, `%`).
fn file_url(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut url = "file://".to_owned();
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

/// The inline config of this launch: the person's own
/// `OPENCODE_CONFIG_CONTENT` (JSON with comments, as OpenCode reads it)
/// with lf's plugin and instructions added to its lists (a single entry
/// of theirs stays first), else lf's alone (OpenCode then reads the
/// person's files as always). Text lf cannot read as a JSON object is
/// refused, not dropped: OpenCode would have applied it.
fn config_content(
    env: &dyn Fn(&str) -> Option<String>,
    plugin: &str,
    told: &str,
) -> Result<String> {
    const VARIABLE: &str = "OPENCODE_CONFIG_CONTENT";
    let refuse = |why: String| super::ProviderError::OwnConfig {
        variable: VARIABLE,
        why,
    };
    let mut config = match env(VARIABLE) {
        None => json!({}),
        Some(text) => match super::jsonc(&text) {
            Ok(config @ Value::Object(_)) => config,
            Ok(_) => return Err(refuse("it is not a JSON object".to_owned()).into()),
            Err(error) => return Err(refuse(format!("it is not JSON ({error})")).into()),
        },
    };
    for (list, entry) in [("plugin", plugin), ("instructions", told)] {
        let value = &mut config[list];
        let mut items = match value.take() {
            Value::Null => Vec::new(),
            Value::Array(items) => items,
            one @ Value::String(_) => vec![one],
            _ => return Err(refuse(format!("its {list:?} is not a list")).into()),
        };
        items.push(Value::from(entry));
        *value = Value::Array(items);
    }
    Ok(config.to_string())
}

/// The plugin's payload: an OpenCode event's type and session; for a
/// `permission.asked`, what it asks for (a plugin of an earlier lf, still
/// running in an agent, sends neither).
#[derive(serde::Deserialize)]
struct Payload {
    #[serde(rename = "type", deserialize_with = "super::event")]
    kind: Event,
    #[serde(default, rename = "sessionID", deserialize_with = "super::text")]
    session: Option<String>,
    /// The permission's kind (`bash`, `edit`, …).
    #[serde(default, deserialize_with = "super::text")]
    permission: Option<String>,
    /// The command a `bash` permission's dialog shows.
    #[serde(default, deserialize_with = "super::text")]
    command: Option<String>,
}

/// The events the plugin hands on, and any other (a newer plugin's).
#[derive(serde::Deserialize)]
enum Event {
    #[serde(rename = "session.created")]
    Created,
    #[serde(rename = "lf.resumed")]
    Resumed,
    #[serde(rename = "session.status")]
    Busy,
    #[serde(rename = "session.idle")]
    Idle,
    #[serde(rename = "permission.asked", alias = "question.asked")]
    Asked,
    #[serde(
        rename = "permission.replied",
        alias = "question.replied",
        alias = "question.rejected"
    )]
    Answered,
    #[serde(other)]
    Other,
}

/// An OpenCode session id: `ses_` and letters and digits.
fn session_id(id: Option<String>) -> std::result::Result<Option<String>, String> {
    let Some(id) = id else { return Ok(None) };
    let ok = id.len() <= 64
        && id.strip_prefix("ses_").is_some_and(|rest| {
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric())
        });
    if ok {
        Ok(Some(id))
    } else {
        Err(format!(
            "sessionID {} is not an OpenCode session id",
            crate::error::untrusted::quote(&id)
        ))
    }
}

fn parse_hook(payload: &[u8]) -> std::result::Result<Hook, String> {
    let Payload {
        kind,
        session,
        permission,
        command,
    } = super::read_payload(payload)?;
    let native_id = session_id(session)?;
    let started = |source| {
        native_id
            .clone()
            .map(|native_id| HookEvent::SessionStarted { native_id, source })
            .ok_or("the event names no session")
    };
    let event = match kind {
        Event::Created => started(SessionSource::New)?,
        Event::Resumed => started(SessionSource::Resume)?,
        Event::Busy => HookEvent::TurnStarted {
            native_id: native_id.clone(),
        },
        Event::Idle => HookEvent::TurnCompleted {
            native_id: native_id.clone(),
        },
        // OpenCode asks for every call of a parallel batch at once (two
        // `permission.asked` within milliseconds) and shows their dialogs
        // one after the other, in that order: each one that names its
        // command is a request of its own, queued. One that names none
        // (a question, a permission without a command) is the request up.
        Event::Asked => HookEvent::PermissionPrompt(
            permission
                .zip(command.filter(|command| !command.trim().is_empty()))
                .and_then(|(tool, command)| crate::request::Asked::new(&tool, &command)),
        ),
        // A reply names no command: it is for the dialog shown, the
        // oldest request up (OpenCode shows them in the order it asked).
        Event::Answered => HookEvent::ToolFinished(None),
        Event::Other => HookEvent::Ignored,
    };
    Ok(Hook {
        event,
        transcript: None,
        native_id,
    })
}

/// OpenCode's database: `opencode/opencode.db` in `$XDG_DATA_HOME`, else in
/// `~/.local/share` (each only when absolute, as OpenCode's `xdg-basedir`).
fn database(env: &dyn Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    let absolute = |key| {
        env(key)
            .map(std::path::PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let data =
        absolute("XDG_DATA_HOME").or_else(|| Some(absolute("HOME")?.join(".local/share")))?;
    Some(data.join("opencode/opencode.db"))
}

/// One row of OpenCode's `message` table (its `data` column): a person's
/// message, or one model request's answer with its usage.
#[derive(serde::Deserialize)]
struct Message {
    role: String,
    #[serde(default, rename = "modelID")]
    model: Option<String>,
    #[serde(default)]
    tokens: Option<MessageTokens>,
    time: MessageTime,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(serde::Deserialize)]
struct MessageTime {
    /// Milliseconds.
    created: i64,
    #[serde(default)]
    completed: Option<i64>,
}

/// OpenCode's own split of a request's usage: `input` without the cached
/// tokens, `output` without the reasoning ones.
#[derive(serde::Deserialize, Default)]
struct MessageTokens {
    #[serde(default)]
    input: i64,
    #[serde(default)]
    output: i64,
    #[serde(default)]
    reasoning: i64,
    #[serde(default)]
    cache: MessageCache,
}

#[derive(serde::Deserialize, Default)]
struct MessageCache {
    #[serde(default)]
    read: i64,
    #[serde(default)]
    write: i64,
}

/// Read a conversation's messages added since the last read (rowid above
/// `read_to`), its sub-agents' (sessions whose `parent_id` leads to it)
/// included, from OpenCode's database, opened read-only and never
/// written.
fn read_usage_records(
    source: &str,
    read_to: u64,
    carry: &mut crate::usage::Carry,
    tally: &mut crate::usage::Tally,
) -> std::result::Result<Option<u64>, String> {
    use rusqlite::{Connection, OpenFlags};
    let Some((database, conversation)) = source.rsplit_once('#') else {
        return Err("it names no OpenCode conversation (DATABASE#ses_…)".to_owned());
    };
    if !std::path::Path::new(database).exists() {
        return Ok(None);
    }
    let rows = (|| {
        // Read-only down to its `-shm`: a reader that finds no other
        // connection (OpenCode not started yet, or killed) would otherwise
        // reset the `-shm` and take its lock. That wakes lf-serve, which
        // follows this folder, to read again (a loop), and an OpenCode
        // starting meanwhile met a busy database and hung, its screen
        // blank. With `readonly_shm` SQLite reads the WAL itself then.
        // Without a WAL (OpenCode closed the database cleanly) that cannot
        // open at all, and a plain reader would make both files: the
        // database alone holds every row then, read as it stands (a WAL
        // OpenCode starts meanwhile changes the folder, so lf-serve reads
        // again).
        let database = std::path::Path::new(database);
        let mut wal = database.as_os_str().to_owned();
        wal.push("-wal");
        let mode = if std::path::Path::new(&wal).exists() {
            "readonly_shm=1"
        } else {
            "immutable=1"
        };
        let uri = format!("{}?mode=ro&{mode}", file_url(database));
        let conn = Connection::open_with_flags(
            uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(std::time::Duration::from_secs(2))?;
        let mut statement = conn.prepare(
            "WITH RECURSIVE tree(id) AS (SELECT ?1 \
               UNION SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id) \
             SELECT rowid, session_id, data FROM message \
             WHERE session_id IN tree AND rowid > ?2 ORDER BY rowid",
        )?;
        let rows = statement
            .query_map(rusqlite::params![conversation, read_to as i64], |row| {
                Ok(Row {
                    rowid: row.get(0)?,
                    own: row.get::<_, String>(1)? == conversation,
                    data: row.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok::<_, rusqlite::Error>(rows)
    })()
    .map_err(|error| format!("OpenCode's database cannot be read: {error}"))?;
    Ok(read_messages(&rows, read_to, carry, tally))
}

/// One message row read.
struct Row {
    rowid: i64,
    /// Of the conversation itself, not of one of its sub-agents.
    own: bool,
    data: String,
}

/// Count messages in order; the rowid read up to, or `None` when nothing
/// new was complete. A person's message in the conversation starts a turn
/// (a sub-agent's prompt is none: the turn that called it holds its time);
/// every answer is a model request. An answer still streaming (no
/// completion time and no error) stops the read there, to be read once it
/// is complete, unless a person's message of the same conversation
/// follows it (a killed OpenCode left it so: counted as it stands).
fn read_messages(
    rows: &[Row],
    read_to: u64,
    carry: &mut crate::usage::Carry,
    tally: &mut crate::usage::Tally,
) -> Option<u64> {
    let parsed: Vec<Option<Message>> = rows
        .iter()
        .map(|row| serde_json::from_str(&row.data).ok())
        .collect();
    let mut last = read_to;
    for (index, (row, message)) in rows.iter().zip(&parsed).enumerate() {
        let Ok(rowid) = u64::try_from(row.rowid) else {
            continue;
        };
        let Some(message) = message else {
            last = rowid;
            continue;
        };
        let created = message.time.created.saturating_mul(1000);
        match message.role.as_str() {
            "user" if row.own => tally.turn_started(carry, created),
            "assistant" => {
                let finished = message.time.completed.is_some() || message.error.is_some();
                let abandoned = || {
                    rows[index + 1..]
                        .iter()
                        .zip(&parsed[index + 1..])
                        .any(|(later, parsed)| {
                            later.own == row.own
                                && parsed.as_ref().is_some_and(|later| later.role == "user")
                        })
                };
                if !finished && !abandoned() {
                    break;
                }
                let tokens = message
                    .tokens
                    .as_ref()
                    .map_or_else(Default::default, |tokens| {
                        let fields = [
                            tokens.input,
                            tokens.output,
                            tokens.reasoning,
                            tokens.cache.write,
                            tokens.cache.read,
                        ];
                        crate::usage::Tokens::derived(&fields, || {
                            Some(crate::usage::Tokens {
                                input: tokens.input,
                                output: tokens.output.checked_add(tokens.reasoning)?,
                                cache_creation: tokens.cache.write,
                                cache_read: tokens.cache.read,
                            })
                        })
                    });
                let model = message.model.as_deref().unwrap_or("unknown");
                tally.message(carry, &rowid.to_string(), created, model, tokens);
                tally.worked(carry, created);
                if let Some(completed) = message.time.completed {
                    tally.worked(carry, completed.saturating_mul(1000));
                }
            }
            _ => {}
        }
        last = rowid;
    }
    (last > read_to).then_some(last)
}

/// OpenCode's permission prompt (1.18.33): "△ Permission required" over
/// its options "Allow once   Allow always   Reject" on one line.
fn shows_permission_prompt(lines: &[String]) -> bool {
    lines
        .iter()
        .any(|line| line.contains("Permission required"))
        && lines.iter().any(|line| {
            line.contains("Allow once") && line.contains("Allow always") && line.contains("Reject")
        })
}

/// The prompt's keys (1.18.33): Enter takes the selected option, "Allow
/// once" when it opens; Right moves to "Allow always", whose Enter asks
/// again ("Confirm   Cancel", Confirm selected); Esc rejects.
fn answer_keys(answer: Answer, lines: &[String]) -> Option<&'static [&'static str]> {
    if !shows_permission_prompt(lines) {
        return None;
    }
    Some(match answer {
        Answer::Allow => &["Enter"],
        Answer::AllowAlways => &["Right", "Enter", "Enter"],
        Answer::Deny => &["Escape"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Agent;
    use std::path::Path;

    const ID: &str = "ses_dc8e4919effenUbQznZZPiH0PM";

    fn with_launch<T>(
        mode: Mode<'_>,
        env: &dyn Fn(&str) -> Option<String>,
        f: impl FnOnce(Vec<String>, &Path) -> T,
    ) -> T {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            mode,
            model: Some("fake/model"),
            command: &[],
            hook_program: Path::new("/opt/lf bin/lf-hook"),
            run_dir: dir.path(),
            primary: false,
            env,
        };
        let argv = OpenCode.argv(&launch).unwrap();
        f(argv, dir.path())
    }

    fn content(argv: &[String]) -> Value {
        let text = argv[1].strip_prefix("OPENCODE_CONFIG_CONTENT=").unwrap();
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_plugin_and_instructions_are_added_for_this_launch_only() {
        with_launch(
            Mode::New {
                chosen_native_id: None,
                prompt: Some("-go"),
            },
            &|_| None,
            |argv, dir| {
                assert_eq!(argv[0], "env");
                assert_eq!(argv[2], "opencode");
                assert_eq!(argv[3..], ["--model", "fake/model", "--prompt=-go"]);
                let config = content(&argv);
                let plugin = dir.join("lf-opencode-plugin.js");
                assert_eq!(
                    config["plugin"],
                    json!([format!("file://{}", plugin.display())])
                );
                let told = dir.join("lf-instructions.md");
                assert_eq!(config["instructions"], json!([told.display().to_string()]));
                assert!(
                    std::fs::read_to_string(&told)
                        .unwrap()
                        .contains("lf-session-ready")
                );
                let source = std::fs::read_to_string(&plugin).unwrap();
                assert!(
                    source.contains(r#"const HOOK = ["/opt/lf bin/lf-hook","opencode"];"#),
                    "{source}"
                );
                assert!(source.contains("const RESUME = null;"), "{source}");
                assert_eq!(
                    file_url(Path::new("/a b/#%é.js")),
                    "file:///a%20b/%23%25%C3%A9.js"
                );
            },
        );
    }

    #[test]
    fn a_resume_names_its_session_and_the_plugin_confirms_it() {
        with_launch(Mode::Resume { native_id: ID }, &|_| None, |argv, dir| {
            assert_eq!(argv[3..], ["--session", ID, "--model", "fake/model"]);
            let source = std::fs::read_to_string(dir.join("lf-opencode-plugin.js")).unwrap();
            assert!(source.contains(&format!("const RESUME = \"{ID}\";")));
        });
    }

    #[test]
    fn the_persons_own_inline_config_is_kept_and_added_to() {
        let own = r#"{"plugin":["theirs"],"model":"a/b","instructions":"odd"}"#;
        let env = |key: &str| (key == "OPENCODE_CONFIG_CONTENT").then(|| own.to_owned());
        with_launch(
            Mode::New {
                chosen_native_id: None,
                prompt: None,
            },
            &env,
            |argv, _| {
                let config = content(&argv);
                assert_eq!(config["model"], "a/b");
                assert_eq!(config["plugin"][0], "theirs");
                assert_eq!(config["plugin"].as_array().unwrap().len(), 2);
                assert_eq!(config["instructions"][0], "odd", "theirs kept, first");
                assert_eq!(config["instructions"].as_array().unwrap().len(), 2);
            },
        );
    }

    /// Issue 34, item 14: the person's `OPENCODE_CONFIG_CONTENT`, set in
    /// the shell lf is run from, reaches the launch through its Caller
    /// (it was missing from its variables, and lf's inline config
    /// replaced the person's `"bash": "deny"`); one that is JSON with
    /// comments is added to, and one lf cannot add to refuses the launch.
    #[test]
    fn i34_the_persons_own_rules_reach_the_launch_from_their_shell() {
        let new = Mode::New {
            chosen_native_id: None,
            prompt: None,
        };
        for own in [
            r#"{"permission":{"bash":"deny"}}"#,
            "{\n  // theirs\n  \"permission\": {\"bash\": \"deny\"}, /* kept */\n}",
        ] {
            let caller = crate::Caller::new(None, |name| {
                (name == "OPENCODE_CONFIG_CONTENT").then(|| own.to_owned())
            });
            let env = crate::provider::Provider::Opencode.person_env(&caller);
            with_launch(new, &env, |argv, _| {
                let config = content(&argv);
                assert_eq!(config["permission"], json!({"bash": "deny"}), "{own}");
                assert_eq!(config["plugin"].as_array().unwrap().len(), 1);
            });
        }
        let dir = tempfile::tempdir().unwrap();
        for own in ["bash: deny", "[1]", r#"{"plugin": 3}"#] {
            let env = |name: &str| (name == "OPENCODE_CONFIG_CONTENT").then(|| own.to_owned());
            let error = OpenCode
                .argv(&Launch {
                    mode: new,
                    model: None,
                    command: &[],
                    hook_program: Path::new("/opt/lf/lf-hook"),
                    run_dir: dir.path(),
                    primary: false,
                    env: &env,
                })
                .unwrap_err();
            assert_eq!(error.name(), "own_config", "{own}");
            assert!(
                error.to_string().contains("OPENCODE_CONFIG_CONTENT"),
                "{error}"
            );
        }
    }

    #[test]
    fn plugin_payloads_map_to_events_of_their_session() {
        let parse = |json: String| parse_hook(json.as_bytes());
        let event = |kind: &str| {
            parse(format!(
                r#"{{"type":"{kind}","sessionID":"{ID}","status":"busy"}}"#
            ))
            .unwrap()
            .event
        };
        let id = || Some(ID.to_owned());
        assert_eq!(
            event("session.created"),
            HookEvent::SessionStarted {
                native_id: ID.to_owned(),
                source: SessionSource::New
            }
        );
        assert_eq!(
            event("lf.resumed"),
            HookEvent::SessionStarted {
                native_id: ID.to_owned(),
                source: SessionSource::Resume
            }
        );
        assert_eq!(
            event("session.status"),
            HookEvent::TurnStarted { native_id: id() }
        );
        assert_eq!(
            event("session.idle"),
            HookEvent::TurnCompleted { native_id: id() }
        );
        assert_eq!(event("permission.asked"), HookEvent::PermissionPrompt(None));
        // As the plugin forwards OpenCode 1.18.33's `permission.asked` of
        // a `bash` call: what its dialog shows.
        let asked = |extra: &str| {
            parse(format!(
                r#"{{"type":"permission.asked","sessionID":"{ID}"{extra}}}"#
            ))
            .unwrap()
            .event
        };
        assert_eq!(
            asked(r#","permission":"bash","command":"touch one.txt""#),
            HookEvent::PermissionPrompt(crate::request::Asked::new("bash", "touch one.txt"))
        );
        for nameless in [
            r#","permission":"bash""#,
            r#","command":"touch one.txt""#,
            r#","permission":"bash","command":"  ""#,
            r#","permission":"bash","command":{"a":1}"#,
        ] {
            assert_eq!(
                asked(nameless),
                HookEvent::PermissionPrompt(None),
                "{nameless}"
            );
        }
        assert_eq!(event("question.asked"), HookEvent::PermissionPrompt(None));
        for answered in [
            "permission.replied",
            "question.replied",
            "question.rejected",
        ] {
            assert_eq!(event(answered), HookEvent::ToolFinished(None), "{answered}");
        }
        assert_eq!(event("session.error"), HookEvent::Ignored);
        for bad in [
            r#"{"type":"session.idle","sessionID":"../x"}"#,
            r#"{"type":"session.idle","sessionID":"ses_"}"#,
            r#"{"type":"session.idle","sessionID":"-ses_a"}"#,
            r#"{"type":"session.created"}"#,
            r#"{"type":7}"#,
            "not json",
        ] {
            assert!(parse(bad.to_owned()).is_err(), "{bad}");
        }
    }

    /// The prompt as OpenCode 1.18.33 draws it, and the keys of each answer.
    #[test]
    fn the_permission_prompt_is_seen_and_answered_with_its_keys() {
        let screen: Vec<String> = [
            "  ┃  △ Permission required",
            "  ┃    # Shell command",
            "  ┃  $ touch a.txt",
            "  ┃   Allow once   Allow always   Reject          ctrl+f fullscreen  ⇆ select  enter confirm",
        ]
        .map(str::to_owned)
        .to_vec();
        assert!(shows_permission_prompt(&screen));
        assert_eq!(answer_keys(Answer::Allow, &screen), Some(&["Enter"][..]));
        assert_eq!(
            answer_keys(Answer::AllowAlways, &screen),
            Some(&["Right", "Enter", "Enter"][..])
        );
        assert_eq!(answer_keys(Answer::Deny, &screen), Some(&["Escape"][..]));
        let quoted = ["  ┃  Permission required, said the log".to_owned()];
        assert!(!shows_permission_prompt(&quoted));
        assert_eq!(answer_keys(Answer::Allow, &quoted), None);
    }

    /// Rows as OpenCode 1.18.33 wrote them against the fake chat server
    /// (answers reporting 1001 + 3001 cached prompt tokens, 41 completion
    /// tokens of which 3 reasoning): a turn, then a turn with a tool (two
    /// answers), `/compact`'s summary answer, and an answer streaming.
    const SES: &str = "ses_dc897f094ffe7k10XAY2vOjIkU";
    const ROWS: [&str; 8] = [
        r#"{"role":"user","time":{"created":1796225896667},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"},"summary":{"diffs":[]}}"#,
        r#"{"parentID":"msg_2376810db001BWKPGFDawiguVF","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/r","root":"/"},"cost":0,"tokens":{"total":4043,"input":1001,"output":38,"reasoning":3,"cache":{"write":0,"read":3001}},"modelID":"fake-model","providerID":"fake","time":{"created":1796225897869,"completed":1796225900660},"finish":"stop"}"#,
        r#"{"role":"user","time":{"created":1796225901618},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"},"summary":{"diffs":[]}}"#,
        r#"{"parentID":"msg_2376824320019zkSI8w1wrM6JQ","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/r","root":"/"},"cost":0,"tokens":{"total":4046,"input":1002,"output":39,"reasoning":3,"cache":{"write":0,"read":3002}},"modelID":"fake-model","providerID":"fake","time":{"created":1796225902173,"completed":1796225903715},"finish":"tool-calls"}"#,
        r#"{"parentID":"msg_2376824320019zkSI8w1wrM6JQ","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/r","root":"/"},"cost":0,"tokens":{"total":4049,"input":1003,"output":40,"reasoning":3,"cache":{"write":5,"read":3003}},"modelID":"other-model","providerID":"fake","time":{"created":1796225903731,"completed":1796225903968},"finish":"stop"}"#,
        r#"{"role":"user","model":{"providerID":"fake","modelID":"fake-model"},"agent":"build","time":{"created":1796225925467}}"#,
        r#"{"role":"assistant","parentID":"msg_23768815b001dU6Mx8z6krPKpc","mode":"compaction","agent":"compaction","summary":true,"path":{"cwd":"/r","root":"/"},"cost":0,"tokens":{"output":42,"input":1005,"reasoning":3,"cache":{"read":3005,"write":0}},"modelID":"fake-model","providerID":"fake","time":{"created":1796225925535,"completed":1796225925931},"finish":"stop"}"#,
        r#"{"role":"user","time":{"created":1796225930000},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}"#,
    ];
    const STREAMING: &str = r#"{"parentID":"m","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/r","root":"/"},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"modelID":"fake-model","providerID":"fake","time":{"created":1796225931000}}"#;
    const DONE: &str = r#"{"parentID":"m","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/r","root":"/"},"cost":0,"tokens":{"total":4061,"input":1006,"output":40,"reasoning":3,"cache":{"read":3006,"write":0}},"modelID":"fake-model","providerID":"fake","time":{"created":1796225931000,"completed":1796225933000},"finish":"stop"}"#;

    fn sums(tally: &crate::usage::Tally, model: &str) -> crate::usage::ModelSums {
        tally
            .models
            .iter()
            .filter(|((_, name), _)| name == model)
            .fold(crate::usage::ModelSums::default(), |mut all, (_, sums)| {
                all.tokens.add(&sums.tokens);
                all.requests += sums.requests;
                all
            })
    }

    /// OpenCode's `message` table, as 1.18.33 creates it.
    fn database(dir: &Path) -> (std::path::PathBuf, rusqlite::Connection) {
        let path = dir.join("opencode/opencode.db");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE `session` (`id` text PRIMARY KEY, `parent_id` text);
             CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL,
               `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
             CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);",
        )
        .unwrap();
        (path, conn)
    }

    fn insert(conn: &rusqlite::Connection, session: &str, id: &str, data: &str) {
        conn.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, 0, 0, ?3)",
            rusqlite::params![id, session, data],
        )
        .unwrap();
    }

    /// Each answer counts once with lf's kinds (input without the cache,
    /// output with the reasoning), by its model; a person's message is a
    /// turn; an answer still streaming is read once it is complete, and
    /// only rows after the offset are read.
    #[test]
    fn usage_is_read_from_the_database_after_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = database(dir.path());
        for (index, row) in ROWS.iter().enumerate() {
            insert(&conn, SES, &format!("msg_{index}"), row);
        }
        // Another conversation's rows are not this one's.
        insert(&conn, "ses_other", "msg_x", ROWS[1]);
        // A sub-agent's conversation (its `task`): its prompt and answer.
        conn.execute_batch(&format!(
            "INSERT INTO session VALUES ('{SES}', NULL), ('ses_child', '{SES}'), ('ses_other', NULL);"
        ))
        .unwrap();
        insert(&conn, "ses_child", "msg_c0", ROWS[0]);
        insert(
            &conn,
            "ses_child",
            "msg_c1",
            &ROWS[1].replace("\"fake-model\"", "\"child-model\""),
        );
        insert(&conn, SES, "msg_streaming", STREAMING);
        let source = OpenCode
            .usage_records(SES, &|key| {
                (key == "XDG_DATA_HOME").then(|| dir.path().display().to_string())
            })
            .unwrap();
        assert_eq!(source, format!("{}#{SES}", path.display()));
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        let (mut carry, mut tally) = Default::default();
        let read_to = OpenCode
            .read_usage_records(&source, 0, &mut carry, &mut tally)
            .unwrap()
            .unwrap();
        assert_eq!(read_to, Some(11), "up to the streaming answer");
        let child = sums(&tally, "child-model");
        assert_eq!((child.tokens.input, child.requests), (1001, 1));
        let fake = sums(&tally, "fake-model");
        assert_eq!(
            (fake.tokens, fake.requests),
            (
                crate::usage::Tokens {
                    input: 1001 + 1002 + 1005,
                    output: 41 + 42 + 45,
                    cache_creation: 0,
                    cache_read: 3001 + 3002 + 3005,
                },
                3
            )
        );
        let other = sums(&tally, "other-model");
        assert_eq!((other.tokens.input, other.tokens.cache_creation), (1003, 5));
        let time: Vec<_> = tally.time.values().collect();
        assert_eq!(
            time.iter().map(|time| time.turns).sum::<i64>(),
            4,
            "the sub-agent's prompt is no turn"
        );
        // Working: each turn's start to its last answer's completion.
        let working: i64 = time.iter().map(|time| time.working).sum();
        assert_eq!(
            working,
            ((1796225900660 - 1796225896667)
                + (1796225903968 - 1796225901618)
                + (1796225925931 - 1796225925467))
                * 1000
        );
        // Nothing new: nothing read.
        let mut again = crate::usage::Tally::default();
        assert_eq!(
            OpenCode
                .read_usage_records(&source, 11, &mut carry, &mut again)
                .unwrap(),
            Ok(None)
        );
        // The answer completes in place (its rowid stays): read now.
        conn.execute(
            "UPDATE message SET data = ?1 WHERE id = 'msg_streaming'",
            [DONE],
        )
        .unwrap();
        let mut later = crate::usage::Tally::default();
        assert_eq!(
            OpenCode
                .read_usage_records(&source, 11, &mut carry, &mut later)
                .unwrap(),
            Ok(Some(12))
        );
        assert_eq!(sums(&later, "fake-model").tokens.output, 43);
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            written,
            "the database is never written by a read"
        );
        // A database that is gone: nothing to read, no problem.
        let gone = format!("{}#{SES}", dir.path().join("none.db").display());
        assert_eq!(
            OpenCode.read_usage_records(&gone, 0, &mut carry, &mut later),
            Some(Ok(None))
        );
    }

    /// The files in a folder: each one's name, size and time.
    fn files(dir: &Path) -> Vec<(std::ffi::OsString, u64, std::time::SystemTime)> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| {
                let entry = entry.unwrap();
                let meta = entry.metadata().unwrap();
                (entry.file_name(), meta.len(), meta.modified().unwrap())
            })
            .collect();
        files.sort();
        files
    }

    /// A database in `dir` whose conversation `SES` holds a person's
    /// message and one answer, still open as OpenCode holds it.
    fn a_person_and_an_answer(dir: &Path) -> (std::path::PathBuf, rusqlite::Connection) {
        let (path, conn) = database(dir);
        insert(&conn, SES, "msg_0", ROWS[0]);
        insert(&conn, SES, "msg_1", ROWS[1]);
        (path, conn)
    }

    /// Read the conversation `SES` of the database in `dir` as lf-serve
    /// does with OpenCode gone: its two messages are read, and nothing in
    /// the folder lf-serve follows appears, changes size or is touched.
    fn read_leaves_the_folder_as_it_was(dir: &Path, files_there: usize) {
        let before = files(dir);
        assert_eq!(before.len(), files_there, "{before:?}");
        // File times tick in steps of a few milliseconds.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let source = format!("{}#{SES}", dir.join("opencode.db").display());
        let (mut carry, mut tally) = Default::default();
        assert_eq!(
            OpenCode.read_usage_records(&source, 0, &mut carry, &mut tally),
            Some(Ok(Some(2))),
            "the rows are read"
        );
        assert_eq!(sums(&tally, "fake-model").requests, 1);
        assert_eq!(files(dir), before, "nothing beside the database changed");
    }

    /// With OpenCode killed (its `-wal` and `-shm` left beside the
    /// database, no connection open), the rows its WAL holds are read.
    #[test]
    fn a_read_with_opencode_killed_writes_nothing_beside_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = a_person_and_an_answer(dir.path());
        // The three files as they stood while OpenCode ran, as its kill
        // leaves them.
        let left = dir.path().join("left");
        std::fs::create_dir(&left).unwrap();
        for suffix in ["", "-wal", "-shm"] {
            let name = format!("opencode.db{suffix}");
            std::fs::copy(path.with_file_name(&name), left.join(&name)).unwrap();
        }
        drop(conn);
        read_leaves_the_folder_as_it_was(&left, 3);
    }

    /// With OpenCode closed cleanly (its WAL checkpointed and removed),
    /// the database alone is read: a reader of the WAL could not open it,
    /// and a plain one would make a `-wal` and a `-shm`.
    #[test]
    fn a_read_with_opencode_closed_writes_nothing_beside_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = a_person_and_an_answer(dir.path());
        drop(conn);
        read_leaves_the_folder_as_it_was(path.parent().unwrap(), 1);
    }

    /// An answer a killed OpenCode left unfinished is counted as it stands
    /// once the person's next message in its conversation follows it (it
    /// never completes).
    #[test]
    fn an_answer_left_unfinished_counts_once_a_message_follows() {
        let (mut carry, mut tally) = Default::default();
        let row = |rowid, own, data: &str| Row {
            rowid,
            own,
            data: data.to_owned(),
        };
        let mut rows = vec![row(1, true, STREAMING), row(2, false, ROWS[0])];
        // A sub-agent's prompt follows it: still streaming (it waits on
        // the sub-agent), and nothing after it is read yet.
        assert_eq!(read_messages(&rows, 0, &mut carry, &mut tally), None);
        rows.push(row(3, true, ROWS[0]));
        assert_eq!(read_messages(&rows, 0, &mut carry, &mut tally), Some(3));
        assert_eq!(sums(&tally, "fake-model").requests, 1);
        assert_eq!(
            tally.time.values().map(|time| time.turns).sum::<i64>(),
            1,
            "the sub-agent's prompt is no turn"
        );
    }

    /// The database is where OpenCode keeps it: `$XDG_DATA_HOME`, else
    /// `~/.local/share`; a relative one is not used, nor an id that is
    /// not OpenCode's.
    #[test]
    fn the_usage_source_names_the_database_and_the_conversation() {
        let home = |key: &str| (key == "HOME").then(|| "/h".to_owned());
        assert_eq!(
            OpenCode.usage_records(ID, &home).as_deref(),
            Some(format!("/h/.local/share/opencode/opencode.db#{ID}").as_str())
        );
        let relative = |key: &str| match key {
            "HOME" => Some("/h".to_owned()),
            "XDG_DATA_HOME" => Some("data".to_owned()),
            _ => None,
        };
        assert_eq!(
            OpenCode.usage_records(ID, &relative).as_deref(),
            Some(format!("/h/.local/share/opencode/opencode.db#{ID}").as_str())
        );
        assert_eq!(OpenCode.usage_records("../x", &home), None);
        assert_eq!(OpenCode.usage_records(ID, &|_| None), None);
    }
}
