//! Acting on a Session without going there: typing a reply into its agent
//! (`lf-session-send`) and answering its permission prompt
//! (`lf-session-answer`), the person never guessed for.
//!
//! An action is taken only when the Session waits for exactly it: its
//! attention (the one rule, kept by every write) is read in the write
//! transaction that records the action, so of two answers to one prompt
//! the second waits for the first's commit and is refused — even before
//! the agent's own hook says what happened. For a prompt, the provider's
//! dialog must also be on the pane's screen before any key is pressed
//! (a prompt the person answered at the terminal is not answered again),
//! and must be gone after: keys the agent did not take are rolled back
//! with the transaction, and nothing is recorded.
//!
//! What reaches the agent is fixed by lf: a reply is checked text (no
//! control character, bounded) typed literally after `--`; an answer is
//! one of the provider's own keys for its dialog (`provider::Answer`).
//! Every action is an `answered` event of the change stream, naming who.

use super::error::SessionError;
use crate::clock::now_micros;
use crate::facade::Lf;
use crate::ids::{PaneId, SessionId};
use crate::provider::{Answer, Provider};
use crate::session::project::Projection;
use crate::store::{NewEvent, SessionRow, Store};
use crate::wire::{Answered, Attention, EventKind, SessionRecord};
use crate::{Caller, Result};
use std::time::{Duration, Instant};

/// How long an agent has to take a key: a dialog still up after this
/// did not take the answer (the transaction is rolled back). Claude Code
/// ignores keys pressed in the first moments a dialog is up, so a key is
/// pressed again, while the same dialog stays up, every [`PRESS_AGAIN`].
const TAKEN_WITHIN: Duration = Duration::from_secs(3);
const PRESS_AGAIN: Duration = Duration::from_millis(1000);
/// How often the screen is looked at while waiting.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// A Session an action may reach: an agent's, open, with a live client in
/// a tmux pane.
struct Reachable {
    row: SessionRow,
    provider: Provider,
    pane: PaneId,
}

impl Lf {
    /// Type `text` into the Session's agent and submit it (Enter), when
    /// the Session waits for a reply; returns its record after. The text
    /// must be one line (a newline would submit it early), at most
    /// [`crate::input::REPLY_MAX`] characters, without control characters.
    pub fn send_reply(&self, selector: &str, text: &str) -> Result<SessionRecord> {
        let text = crate::input::reply(text)?;
        let target = self.reachable(selector)?;
        let tmux = self.caller.tmux();
        let store = self.store()?;
        let tx = store.write()?;
        let run = require_owed(&tx, &target.row.id, Attention::Reply)?;
        tmux.type_text(&target.pane, &text)?;
        // Enter once the text is on screen: an Enter that comes with the
        // text may be taken as part of a paste (a new line, not a submit).
        let start: String = text.chars().take(20).collect();
        wait_for(|| {
            Ok(screen(&tmux, &target.pane)?
                .iter()
                .any(|l| l.contains(&start)))
        })?;
        tmux.press(&target.pane, &["Enter"])?;
        tx.record_reply(&run, now_micros())?;
        record_answer(
            store,
            &target.row.id,
            Attention::Reply,
            Answered::Sent,
            self,
        )?;
        tx.commit()?;
        self.get(&target.row.id)
    }

    /// Answer the Session's waiting permission prompt with the keys its
    /// provider's dialog takes, when it waits for exactly that and the
    /// dialog is on its screen; returns its record after.
    pub fn answer_prompt(&self, selector: &str, answer: Answer) -> Result<SessionRecord> {
        let target = self.reachable(selector)?;
        let tmux = self.caller.tmux();
        let store = self.store()?;
        let tx = store.write()?;
        require_owed(&tx, &target.row.id, Attention::Approve)?;
        let lines = screen(&tmux, &target.pane)?;
        let shown = |lines: &[String]| target.provider.shows_permission_prompt(lines);
        if !shown(&lines) {
            return Err(SessionError::NoPromptOnScreen(short(&target.row.id)).into());
        }
        let keys = target
            .provider
            .answer_keys(answer, &lines)
            .ok_or_else(|| SessionError::NoAlwaysOnPrompt(short(&target.row.id)))?;
        // Pressed again only while the same dialog stays up: once it was
        // gone, a key would reach whatever comes next.
        let mut pressed = Instant::now();
        tmux.press(&target.pane, keys)?;
        let deadline = pressed + TAKEN_WITHIN;
        loop {
            std::thread::sleep(LOOK_EVERY);
            if !shown(&screen(&tmux, &target.pane)?) {
                break;
            }
            if Instant::now() >= deadline {
                return Err(SessionError::AnswerNotTaken(short(&target.row.id)).into());
            }
            if pressed.elapsed() >= PRESS_AGAIN {
                pressed = Instant::now();
                tmux.press(&target.pane, keys)?;
            }
        }
        tx.record_prompt_answered(&target.row.id, now_micros())?;
        record_answer(
            store,
            &target.row.id,
            Attention::Approve,
            answer.answered(),
            self,
        )?;
        tx.commit()?;
        self.get(&target.row.id)
    }

    /// The Session a selector names, if an action can reach it: asked by
    /// the person (not from inside a session lf launched), not completed,
    /// an agent's, with a live client in a tmux pane.
    fn reachable(&self, selector: &str) -> Result<Reachable> {
        refuse_agent(&self.caller)?;
        let row = self.find(selector)?;
        crate::state::refuse_completed(&row.id, row.completed_at)?;
        let provider = match row.provider.as_deref().map(Provider::parse) {
            Some(Ok(provider)) if provider.is_agent() => provider,
            _ => return Err(SessionError::NoAgentToAnswer(short(&row.id)).into()),
        };
        let record = self.record(row.clone())?;
        let pane = record
            .terminal_ids
            .iter()
            .find_map(|id| PaneId::parse(id))
            .filter(|_| record.alive);
        match pane {
            Some(pane) => Ok(Reachable {
                row,
                provider,
                pane,
            }),
            None => Err(SessionError::NotLive(short(&record.id)).into()),
        }
    }
}

/// Refuse unless the Session owes exactly `wanted` now (read in the write
/// transaction that records the action); its current Run.
fn require_owed(tx: &crate::store::Write<'_>, session: &str, wanted: Attention) -> Result<String> {
    let (attention, run) = tx
        .owed(session)?
        .ok_or_else(|| SessionError::SessionNotFound(session.to_owned()))?;
    if attention == Some(wanted) {
        return Ok(run);
    }
    Err(SessionError::NotWaitingFor {
        session: short(session),
        wanted,
        attention,
    }
    .into())
}

/// Record an action in the change stream, with the Session's record after
/// it (read in the transaction that made it).
fn record_answer(
    store: &Store,
    session: &SessionId,
    from: Attention,
    answered: Answered,
    lf: &Lf,
) -> Result<()> {
    let row = store
        .session_row(session)?
        .ok_or_else(|| SessionError::SessionNotFound(session.to_string()))?;
    let projection = Projection::on_demand(&lf.open);
    let facts = projection.facts(store, &row)?;
    let record = serde_json::to_string(&projection.record(store, row, &facts)?)?;
    let by = person(&lf.caller);
    store.insert_event(&NewEvent {
        at: now_micros(),
        session_id: session.as_str(),
        kind: EventKind::Answered,
        from: Some(from.as_str()),
        to: Some(answered.as_str()),
        record: &record,
        by: Some(&by),
    })?;
    Ok(())
}

/// Who acts: this machine's person, by the user name their shell says
/// (`$USER`), else by their uid.
pub fn person(caller: &crate::Caller) -> String {
    match caller.var("USER") {
        Some(name) => name.to_owned(),
        None => format!("uid {}", rustix::process::getuid().as_raw()),
    }
}

/// A pane's screen as plain text, a line each (`screen::plain`: what the
/// agent printed is untrusted and never interpreted).
fn screen(tmux: &crate::tmux::Tmux, pane: &PaneId) -> Result<Vec<String>> {
    let shown = tmux.capture_pane(pane)?;
    Ok(shown.lines().map(crate::screen::plain).collect())
}

/// Wait until `done`, for at most [`TAKEN_WITHIN`] (an agent that never
/// shows what was typed is not waited for longer: Enter is pressed then).
fn wait_for(done: impl Fn() -> Result<bool>) -> Result<()> {
    let deadline = Instant::now() + TAKEN_WITHIN;
    while !done()? && Instant::now() < deadline {
        std::thread::sleep(LOOK_EVERY);
    }
    Ok(())
}

fn short(id: &str) -> String {
    crate::ids::short_id(id).to_owned()
}

/// The person acts, never an agent: a process inside a session lf launched
/// (its `LF_RUN_ID` or `LF_SESSION_ID` set) may not answer for the person,
/// not for itself, not for another agent, nor serve the page that does
/// (lf-web refuses to start with this).
pub fn refuse_agent(caller: &Caller) -> Result<()> {
    match ["LF_RUN_ID", "LF_SESSION_ID"]
        .into_iter()
        .find(|name| caller.var(name).is_some())
    {
        Some(variable) => Err(SessionError::AgentActsForPerson { variable }.into()),
        None => Ok(()),
    }
}
