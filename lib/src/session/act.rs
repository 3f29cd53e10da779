//! Acting on a Session without going there: typing a reply into its agent
//! (`lf-session-send`) and answering the request it waits on
//! (`lf-session-answer`, the page), the person never guessed for
//! (docs/decisions/0032-exact-answers.md).
//!
//! An action reaches the one thing the person saw, or nothing:
//! - an answer names its request (or there is exactly one up), and keys
//!   are pressed only while that request's own dialog is on the screen:
//!   the dialog must show what the request's hook said it is for, and be
//!   the very dialog a page showed; it is pressed again (an agent may drop
//!   a key pressed as its dialog appears) only while exactly those lines
//!   stay up and no newer request was recorded, never after they change;
//! - a reply is never typed while a dialog is up (it would answer it);
//! - nothing from a live Session's own terminal acts for the person.
//!
//! Nothing holds the store while a terminal is watched: one action at a
//! time per Session is a lock file of its own (two answers to one request
//! cannot both press, a double tap is refused), what is owed is read in a
//! short transaction, and the answer is recorded in another once the
//! agent took it, while every Session's hooks go on meanwhile.
//!
//! What reaches the agent is fixed by lf: a reply is checked text (no
//! control character, bounded) typed literally after `--`; an answer is
//! one of the provider's own keys for its dialog (`provider::Answer`).
//! Every action is an `answered` event of the change stream, naming who.

use super::error::SessionError;
use crate::clock::now_micros;
use crate::facade::Lf;
use crate::ids::{PaneId, RequestId, SessionId};
use crate::provider::{Answer, Provider};
use crate::request::Dialog;
use crate::session::project::Projection;
use crate::store::{NewEvent, SessionRow, Store};
use crate::wire::{Answered, Attention, EventKind, SessionRecord};
use crate::{Caller, Result};
use std::time::{Duration, Instant};

/// How long an agent has to take a key: a dialog still up after this
/// did not take the answer (nothing is recorded). Claude Code ignores
/// keys pressed in the first moments a dialog is up, so a key is pressed
/// again, while exactly the same dialog stays up, every [`PRESS_AGAIN`].
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

/// The request a person saw and answers: its id (`--request`, the page's
/// form), and the digest of the dialog a page showed with it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen<'a> {
    pub request: Option<&'a str>,
    pub dialog: Option<&'a str>,
}

impl Lf {
    /// Type `text` into the Session's agent and submit it (Enter), when
    /// the Session waits for a reply and no dialog is on its screen;
    /// returns its record after. The text must be one line (a newline
    /// would submit it early), at most [`crate::input::REPLY_MAX`]
    /// characters, without control characters.
    pub fn send_reply(&self, selector: &str, text: &str) -> Result<SessionRecord> {
        let text = crate::input::reply(text)?;
        let target = self.reachable(selector)?;
        let _acting = self.acting(&target.row.id)?;
        let tmux = self.caller.tmux();
        let store = self.store()?;
        let run = {
            let tx = store.write()?;
            require_owed(&tx, &target.row.id, Attention::Reply)?
        };
        // A dialog that came with no hook (the turn ended, then the agent
        // asked): a reply typed now would answer it. The Session waits on
        // that dialog from now on.
        if target
            .provider
            .dialog(&screen(&tmux, &target.pane)?)
            .is_some()
        {
            store.record_permission_prompt(&run, now_micros(), None)?;
            return Err(SessionError::DialogUp(short(&target.row.id)).into());
        }
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
        let tx = store.write()?;
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

    /// Answer the request the Session's agent waits on with the keys its
    /// provider's dialog takes: the request `seen` names (else the one up),
    /// only while its own dialog is on the screen; returns its record
    /// after.
    pub fn answer_prompt(
        &self,
        selector: &str,
        answer: Answer,
        seen: Seen<'_>,
    ) -> Result<SessionRecord> {
        let asked = seen.request.map(RequestId::parse).transpose()?;
        let target = self.reachable(selector)?;
        let id = &target.row.id;
        let _acting = self.acting(id)?;
        let tmux = self.caller.tmux();
        let store = self.store()?;
        let not_up = |up: Option<&crate::request::RequestRow>| -> crate::Error {
            SessionError::RequestNotUp {
                session: short(id),
                asked: asked.as_ref().map(ToString::to_string).unwrap_or_default(),
                up: up.map(|up| up.id.to_string()),
            }
            .into()
        };
        let queued = {
            let tx = store.write()?;
            match (require_owed(&tx, id, Attention::Approve), &asked) {
                (Ok(_), _) => tx.requests_up(id.as_str())?,
                // The request named was answered (or the agent moved on):
                // said of that request.
                (Err(_), Some(_)) => return Err(not_up(None)),
                (Err(refused), None) => return Err(refused),
            }
        };
        // The request named, which must be up; without a name, the one up
        // (with several queued, the person names the one they saw).
        let up = match (&asked, queued.as_slice()) {
            // A start-up dialog (no request): nothing lf answers.
            (_, []) => return Err(SessionError::NoPromptOnScreen(short(id)).into()),
            (Some(asked), queued) => match queued.iter().find(|up| &up.id == asked) {
                Some(up) => up.clone(),
                None => return Err(not_up(queued.first())),
            },
            (None, [only]) => only.clone(),
            (None, queued) => {
                return Err(SessionError::RequestsQueued {
                    session: short(id),
                    requests: queued.iter().map(|up| up.id.to_string()).collect(),
                }
                .into());
            }
        };
        let not_on_screen = || -> crate::Error {
            match &asked {
                Some(_) => SessionError::RequestNotOnScreen {
                    session: short(id),
                    request: up.id.to_string(),
                    shown: None,
                },
                None => SessionError::NoPromptOnScreen(short(id)),
            }
            .into()
        };
        let dialog = target
            .provider
            .dialog(&screen(&tmux, &target.pane)?)
            .ok_or_else(not_on_screen)?;
        if !dialog.is_for(&up) || seen.dialog.is_some_and(|shown| shown != dialog.digest()) {
            let shown = crate::request::shown_by(&queued, &dialog)
                .filter(|shown| shown.id != up.id)
                .map(|shown| shown.id.to_string());
            return Err(SessionError::RequestNotOnScreen {
                session: short(id),
                request: up.id.to_string(),
                shown,
            }
            .into());
        }
        let keys = target
            .provider
            .answer_keys(answer, &dialog.lines)
            .ok_or_else(|| SessionError::NoAlwaysOnPrompt(short(id)))?;
        let still_up = || -> Result<bool> {
            Ok(store
                .requests_up(id.as_str())?
                .iter()
                .any(|now| now.id == up.id))
        };
        self.press_into(&target, &dialog, keys, still_up)?;
        let tx = store.write()?;
        tx.record_request_answered(id.as_str(), &up.id, answer.answered(), now_micros())?;
        record_answer(store, id, Attention::Approve, answer.answered(), self)?;
        tx.commit()?;
        self.get(id)
    }

    /// Press `keys` into the dialog, and again while exactly it stays on
    /// the screen and `still_up` (its request was not ended by its tool's
    /// hook meanwhile), until it changes: the agent took them. Never a key
    /// after the dialog changed.
    fn press_into(
        &self,
        target: &Reachable,
        dialog: &Dialog,
        keys: &[&str],
        still_up: impl Fn() -> Result<bool>,
    ) -> Result<()> {
        let tmux = self.caller.tmux();
        let shown = || -> Result<bool> {
            Ok(target
                .provider
                .dialog(&screen(&tmux, &target.pane)?)
                .is_some_and(|now| now.same_as(dialog)))
        };
        let mut pressed = Instant::now();
        tmux.press(&target.pane, keys)?;
        let deadline = pressed + TAKEN_WITHIN;
        loop {
            std::thread::sleep(LOOK_EVERY);
            if !shown()? {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(SessionError::AnswerNotTaken(short(&target.row.id)).into());
            }
            if pressed.elapsed() >= PRESS_AGAIN {
                // The same lines, but the agent asked anew (a queued
                // request that reads the same): the first keys were taken.
                if !still_up()? || !shown()? {
                    return Ok(());
                }
                pressed = Instant::now();
                tmux.press(&target.pane, keys)?;
            }
        }
    }

    /// The dialog a Session's live pane shows now, if its agent shows one:
    /// what a page shows above its buttons, and names (by its digest) in
    /// the answer it sends.
    pub fn dialog(&self, record: &SessionRecord) -> Option<Dialog> {
        let provider = Provider::parse(record.provider.as_deref()?).ok()?;
        let pane = crate::session::pick::pane(record)?;
        provider.dialog(&screen(&self.caller.tmux(), &pane).ok()?)
    }

    /// The request whose dialog a Session's live pane shows now, and that
    /// dialog: of the requests it waits on, the one the dialog is for (an
    /// agent that asked for several at once shows them in its own order).
    pub fn request_on_screen(
        &self,
        record: &SessionRecord,
    ) -> Result<Option<(crate::wire::AttentionRequest, Dialog)>> {
        let Some(dialog) = self.dialog(record) else {
            return Ok(None);
        };
        let queued = self.store()?.requests_up(&record.id)?;
        Ok(crate::request::shown_by(&queued, &dialog)
            .map(|request| (request.on_wire(&record.cwd), dialog)))
    }

    /// One action at a time on a Session: its own lock file, held while
    /// keys are pressed (never the store); another action meanwhile is
    /// refused at once.
    fn acting(&self, session: &SessionId) -> Result<crate::locks::Lock> {
        crate::locks::try_named(self.home(), &format!("act {session}"))?
            .ok_or_else(|| SessionError::ActionInFlight(short(session)).into())
    }

    /// The Session a selector names, if an action can reach it: asked by
    /// the person (not from inside a session lf launched, nor from a live
    /// Session's terminal), not completed, an agent's, with a live client
    /// in a tmux pane.
    fn reachable(&self, selector: &str) -> Result<Reachable> {
        refuse_agent(&self.caller)?;
        self.refuse_own_terminal()?;
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

    /// Refuse a caller that runs in a live Session's own terminal, with or
    /// without lf's variables: its tmux pane (`TMUX_PANE`) is a Session's,
    /// one of its ancestors is a Session's agent, or its controlling
    /// terminal is an agent's.
    fn refuse_own_terminal(&self) -> Result<()> {
        let Ok(boot) = crate::liveness::boot_id() else {
            return Ok(());
        };
        let clients = self.store()?.open_clients(None)?;
        let refuse = |session: &str, how| {
            Err(SessionError::FromSessionsOwnTerminal(short(session), how).into())
        };
        let pane = self.caller.var("TMUX_PANE");
        let mine = std::process::id();
        let own = crate::liveness::read_stat(mine);
        let mut ancestors = Vec::new();
        let mut pid = own.as_ref().map(|stat| stat.ppid).unwrap_or(0);
        while pid > 1 && ancestors.len() < 64 {
            let Some(stat) = crate::liveness::read_stat(pid) else {
                break;
            };
            ancestors.push((pid, stat.starttime));
            pid = stat.ppid;
        }
        for client in &clients {
            let process = &client.process;
            let Some(stat) = crate::liveness::read_stat(process.pid) else {
                continue;
            };
            if process.boot_id != boot || stat.starttime != process.starttime {
                continue;
            }
            if pane.is_some() && client.terminal_id.as_deref() == pane {
                return refuse(&client.session_id, "its tmux pane");
            }
            if ancestors.contains(&(process.pid, process.starttime)) {
                return refuse(&client.session_id, "a process of its agent");
            }
            if let Some(own) = &own
                && own.tty_nr != 0
                && own.tty_nr == stat.tty_nr
            {
                return refuse(&client.session_id, "its agent's terminal");
            }
        }
        Ok(())
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
