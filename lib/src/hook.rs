//! The hook receiver (`lf-hook PROVIDER`): providers call it on every turn
//! of every agent, so it is short and it never disturbs the agent. A hook's
//! exit code and stdout change the agent's behaviour, so whatever the input,
//! it prints nothing and succeeds; problems go to `$LF_HOME/hook.log`.
//!
//! The Run comes from `$LF_RUN_ID` (set by `lf-serve` for the agent and
//! inherited by its hooks). Every write is fenced on that Run being its
//! Session's current one, so a superseded agent changes nothing.

use crate::Result;
use crate::clock::{now_micros, rfc3339};
use crate::error::domain::{Domain, ErrorKind};
use crate::error::untrusted::quote;
use crate::home::Home;
use crate::ids::RunId;
use crate::provider::{Hook, HookEvent, Provider, SessionSource};
use crate::session::error::SessionError;
use crate::state::Turn;
use crate::store::Store;
use std::io::Write;

/// The most a payload may be; larger input is refused, not read on.
pub const MAX_PAYLOAD: usize = 1 << 20;

/// Apply one hook call. `Ok(note)` carries something worth logging that is
/// not a failure (a mismatched native id), `Err` a refused input. The
/// store opens only once the input is known good.
fn receive(
    lf: &crate::Lf,
    provider: Provider,
    run: Option<&str>,
    payload: &[u8],
) -> Result<Option<String>> {
    let run = run.ok_or(SessionError::NotLaunchedByLf { name: "LF_RUN_ID" })?;
    let run = RunId::parse(run)?;
    let Hook {
        event,
        transcript,
        native_id,
    } = provider.parse_hook(payload).map_err(HookError::BadHook)?;
    let store = lf.store()?;
    let row = store
        .hook_target(run.as_str())?
        .ok_or_else(|| SessionError::RunNotFound(run.to_string()))?;
    if row.provider != provider.as_str() {
        return Err(HookError::HookOfOtherProvider {
            hook: provider.as_str(),
            run: run.to_string(),
            runs: row.provider,
        }
        .into());
    }
    if !row.current {
        return Ok(Some(format!(
            "Run {run} is no longer its Session's current Run; the hook changed nothing"
        )));
    }
    let mut call = Call {
        store,
        provider,
        run: &run,
        // The conversation the Run has now: the one it moved to (`/clear`),
        // or the one lf chose for it; updated as this call adopts or moves it.
        conversation: row
            .native_id
            .clone()
            .or_else(|| row.chosen_native_id.clone()),
        adopted: row.native_id.as_deref(),
        now: now_micros(),
        note: None,
    };
    call.apply(event)?;
    // An agent whose hooks name no transcript (OpenCode) says where its
    // conversation's usage is recorded; the hook runs in its environment.
    if let Some(conversation) = call.conversation.as_deref()
        && native_id
            .as_deref()
            .is_none_or(|native| native == conversation)
        && let Some(source) = provider.usage_records(conversation, &|key| std::env::var(key).ok())
    {
        store.record_usage_source(run.as_str(), &source)?;
    }
    // The transcript of the Run's own conversation only.
    if let Some(path) = transcript
        && native_id.is_none_or(|native| call.conversation.as_deref() == Some(native.as_str()))
    {
        let path = path.display().to_string();
        if row.transcript_path.as_deref() != Some(path.as_str()) {
            store.record_transcript(run.as_str(), &path)?;
        }
    }
    Ok(call.note)
}

/// One hook call for its Run, the Session's current one.
struct Call<'a> {
    store: &'a Store,
    provider: Provider,
    run: &'a RunId,
    /// The native conversation the Run had adopted before this call.
    adopted: Option<&'a str>,
    conversation: Option<String>,
    now: i64,
    /// Worth logging, not a failure.
    note: Option<String>,
}

impl Call<'_> {
    fn apply(&mut self, event: HookEvent) -> Result<()> {
        let (store, run, now) = (self.store, self.run.as_str(), self.now);
        match event {
            // `/clear`, Codex's `/new` (and a compaction that changed the
            // id) continue this Run's agent in a new native conversation:
            // the Run moves with it.
            HookEvent::SessionStarted { native_id, source }
                if matches!(
                    source,
                    SessionSource::Clear | SessionSource::Compact | SessionSource::New
                ) && self
                    .conversation
                    .as_deref()
                    .is_some_and(|expected| expected != native_id) =>
            {
                store.move_native_id(run, &native_id)?;
                store.confirm_start(run, now)?;
                self.conversation = Some(native_id);
            }
            HookEvent::SessionStarted { native_id, .. } => {
                if self.adopt(&native_id)? {
                    store.confirm_start(run, now)?;
                }
            }
            HookEvent::TurnStarted { native_id } => self.turn(Turn::Started, native_id)?,
            HookEvent::TurnCompleted { native_id } => self.turn(Turn::Completed, native_id)?,
            HookEvent::PermissionPrompt(asked) => {
                store.record_permission_prompt(run, now, asked.as_ref())?
            }
            HookEvent::ToolFinished(asked) => {
                store.record_tool_finished(run, now, asked.as_ref())?
            }
            HookEvent::SessionEnded => store.record_session_end(run, now)?,
            HookEvent::Ignored => {}
            HookEvent::Unknown(what) => {
                self.note = Some(format!(
                    "{} sent {what}, which this lf does not know; nothing was recorded (a newer {0}? see docs/turn-ends.md)",
                    self.provider.as_str()
                ));
            }
        }
        Ok(())
    }

    /// Only the Run's own conversation's turns count (Codex's title
    /// thread, and any other, are not the conversation).
    fn turn(&mut self, turn: Turn, native_id: Option<String>) -> Result<()> {
        let counts = match &native_id {
            Some(native) => self.adopt(native)?,
            None => true,
        };
        if counts {
            return self.store.record_turn(self.run.as_str(), turn, self.now);
        }
        self.note = Some(format!(
            "{} reported a turn of {} but Run {}'s conversation is {}; not counted",
            self.provider.as_str(),
            quote(native_id.as_deref().unwrap_or_default()),
            self.run,
            self.conversation.as_deref().unwrap_or("not known yet")
        ));
        Ok(())
    }

    /// Whether `native` is (now) the Run's conversation: adopted once, a
    /// different one is refused.
    fn adopt(&mut self, native: &str) -> Result<bool> {
        let expected = match self.conversation.as_deref() {
            // Already adopted: nothing to write.
            _ if self.adopted == Some(native) => return Ok(true),
            Some(expected) if expected != native => expected.to_owned(),
            _ => {
                let stored = self.store.record_native_id(self.run.as_str(), native)?;
                if stored.as_deref() == Some(native) {
                    self.conversation = Some(native.to_owned());
                    return Ok(true);
                }
                stored.unwrap_or_default()
            }
        };
        self.note = Some(format!(
            "{} reported native id {} but Run {} has {expected}; not adopted",
            self.provider.as_str(),
            quote(native),
            self.run
        ));
        Ok(false)
    }
}

/// Append one line to the hook log. Failing to log is not worth failing for.
/// `provider` is whatever the caller passed: a name lf does not know is
/// quoted, as the run is, so the log shows no escape sequence raw.
pub fn log(home: &Home, now: i64, provider: &str, run: Option<&str>, message: &str) {
    let provider = match Provider::parse(provider) {
        Ok(known) => known.as_str().to_owned(),
        Err(_) => quote(provider),
    };
    let line = format!(
        "{} {} run={} {}\n",
        rfc3339(now),
        provider,
        run.map(quote).unwrap_or_else(|| "-".to_owned()),
        message.replace('\n', " ")
    );
    if home.ensure().is_err() {
        return;
    }
    if let Ok(mut file) = crate::home::open_private(
        &home.hook_log(),
        std::fs::OpenOptions::new().create(true).append(true),
    ) {
        let _ = file.write_all(line.as_bytes());
    }
}
impl crate::Lf {
    /// Apply one hook call of the agent this caller is (`$LF_RUN_ID`).
    pub fn receive_hook(&self, provider: Provider, payload: &[u8]) -> Result<Option<String>> {
        receive(self, provider, self.caller().var("LF_RUN_ID"), payload)
    }

    /// Note in the hook log what a hook call of this caller changed nothing for.
    pub fn log_hook(&self, provider: &str, message: &str) {
        log(
            self.home(),
            self.caller().now().micros(),
            provider,
            self.caller().var("LF_RUN_ID"),
            message,
        );
    }
}

/// A provider's hook that lf cannot take.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum HookError {
    #[error("{0}")]
    BadHook(String),
    #[error("a {hook} hook arrived for Run {run}, which runs {runs}")]
    HookOfOtherProvider {
        hook: &'static str,
        run: String,
        runs: String,
    },
}

impl Domain for HookError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Usage
    }

    fn name(&self) -> &str {
        self.into()
    }
}
