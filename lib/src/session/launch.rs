//! Launching and reaching Sessions: `open` decides what getting a person to
//! a Session means right now (go to its live tmux session, resume its native
//! history, launch its prepared Run, or start a new attempt), and `serve`
//! is the launcher that runs inside the durable tmux session and owns the
//! provider process. Every decision is taken under the Session's launch
//! lock, so N concurrent opens make one launch.

use super::ops::Resolved;
use super::serve::{Action, Event, Launch, Phase, Wakers, Woken};
use crate::clock::now_micros;
use crate::error::domain::{Domain, ErrorKind};
use crate::facade::Lf;
use crate::ids::RunId;
use crate::liveness::{Presence, ProcessIdentity};
use crate::provider::{self, Mode, Provider};
use crate::session::error::SessionError;
use crate::state::{self, RunOutcome};
use crate::store::{ClientReceipt, Launched, NewRun, RunRow, SessionRow};
use crate::tmux::{self, Tmux};
use crate::{Error, Result};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an opener waits for a launch to become resumable (or to wait
/// for a person).
pub const START_TIMEOUT: Duration = Duration::from_secs(30);
pub(crate) const POLL: Duration = Duration::from_millis(10);

/// Follows an agent's transcript for what fires no hook (a refused
/// permission, Esc interrupting a turn, a Codex turn that failed). A
/// resume's first transcript is read from where it was when first seen
/// (what was there is history); a new conversation's, and one the agent
/// moved to later (`/clear`), from its start.
#[derive(Debug, Default)]
struct TranscriptWatch {
    path: Option<String>,
    offset: u64,
    partial: Vec<u8>,
    /// This launch resumed a conversation: its transcript holds history.
    resumed: bool,
}

impl TranscriptWatch {
    /// Read what was appended; whether it records an interrupt. A file
    /// that cannot be read now is read again on the next look.
    fn interrupted(&mut self, provider: Provider, path: Option<&str>) -> bool {
        use std::io::{Read, Seek, SeekFrom};
        let Some(path) = path else { return false };
        let len = std::fs::metadata(path).map(|meta| meta.len()).unwrap_or(0);
        if self.path.as_deref() != Some(path) {
            // The launch's first transcript holds the history of a resumed
            // conversation: skip it. A later one is a new conversation
            // (`/clear`): all of it is news.
            self.offset = if self.path.is_none() && self.resumed {
                len
            } else {
                0
            };
            self.path = Some(path.to_owned());
            self.partial.clear();
        }
        if len < self.offset {
            // Replaced or truncated: read it anew.
            self.offset = 0;
            self.partial.clear();
        }
        if len == self.offset {
            return false;
        }
        let Ok(mut file) = std::fs::File::open(path) else {
            return false;
        };
        let mut appended = Vec::new();
        if file.seek(SeekFrom::Start(self.offset)).is_err()
            || file.take(4 << 20).read_to_end(&mut appended).is_err()
        {
            return false;
        }
        self.offset += appended.len() as u64;
        self.partial.extend_from_slice(&appended);
        let Some(end) = self.partial.iter().rposition(|&byte| byte == b'\n') else {
            return false;
        };
        let complete: Vec<u8> = self.partial.drain(..=end).collect();
        String::from_utf8_lossy(&complete)
            .lines()
            .any(|line| provider.transcript_turn_ended(line))
    }
}

/// How long a failed launch waits for the rest of its agent's stderr.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// The agent's stderr passed through to this terminal, its end kept for a
/// failed launch's diagnostic (what the CLI itself said).
struct StderrTail {
    kept: Arc<std::sync::Mutex<Vec<u8>>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl StderrTail {
    /// The most kept of the agent's stderr.
    const KEEP: usize = 8 << 10;

    fn follow(mut from: std::process::ChildStderr) -> Self {
        use std::io::{Read, Write};
        let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (finished, done) = std::sync::mpsc::channel();
        let tail = Arc::clone(&kept);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(read) = from.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                let mut terminal = std::io::stderr().lock();
                let _ = terminal.write_all(&buffer[..read]);
                let _ = terminal.flush();
                if let Ok(mut kept) = tail.lock() {
                    kept.extend_from_slice(&buffer[..read]);
                    let excess = kept.len().saturating_sub(Self::KEEP);
                    kept.drain(..excess);
                }
            }
            let _ = finished.send(());
        });
        StderrTail { kept, done }
    }

    /// The last line the agent wrote, without terminal controls, once its
    /// stderr closed (or `wait` passed: a process it left may hold it).
    fn last_line(self, wait: Duration) -> Option<String> {
        let _ = self.done.recv_timeout(wait);
        let kept = self.kept.lock().ok()?;
        let text = String::from_utf8_lossy(&kept);
        let line = text
            .lines()
            .map(crate::screen::plain)
            .rfind(|line| !line.is_empty())?;
        Some(line.chars().take(500).collect())
    }
}

/// What `lf-session-open` may do to a Session that is live elsewhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Stop the other client and resume here ("Move here").
    pub replace: bool,
    /// Do not wait for another opener: fail at once if one holds the lock.
    pub try_lock: bool,
    /// Run the agent in this terminal instead of a durable tmux session.
    pub here: bool,
}

/// Where the person should go now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A durable tmux session (already running, or just launched).
    Tmux(String),
    /// Run this argv in this terminal (`--here`): the launcher itself.
    Exec(Vec<String>),
}

impl Destination {
    /// Run an `Exec` destination in place of this process; returns only
    /// if it could not be run.
    pub fn exec(argv: &[String]) -> Error {
        use std::os::unix::process::CommandExt;
        let source = Command::new(&argv[0]).args(&argv[1..]).exec();
        Error::CannotRun {
            program: argv[0].clone(),
            source,
        }
    }
}

impl Lf {
    /// Take the caller's terminal to a tmux session of the caller's server.
    pub fn go_to(&self, tmux_session: &str) -> Result<()> {
        self.caller.tmux().go_to(tmux_session)
    }
}

/// A launch an opener waits for: its Run, its tmux session, whether the
/// agent must confirm its conversation first, and until when.
pub(crate) struct Starting {
    pub run: String,
    pub tmux: String,
    confirms: bool,
    deadline: Instant,
}

impl Starting {
    /// The launch of this Run (a resume when it has a native id).
    pub(crate) fn new(run: &RunRow, tmux: &str) -> Result<Self> {
        let provider = Provider::parse(&run.provider)?;
        let resuming = run.native_id.is_some();
        // A resume of a provider that confirms nothing at start is confirmed
        // by lf-serve once it has kept running (`resume_settle`). A new
        // conversation of an agent that draws its prompt before it confirms
        // lf's id is let in once it runs (`opener_waits_for_new_id`).
        let confirms = (provider.confirms_native_id_at_start()
            && (resuming || provider.opener_waits_for_new_id()))
            || (resuming && provider.resume_settle().is_some());
        Ok(Starting {
            run: run.id.clone(),
            tmux: tmux.to_owned(),
            confirms,
            deadline: Instant::now() + START_TIMEOUT,
        })
    }
}

/// The launcher's argv for a Run: `lf-serve RUN`, beside this program.
fn serve_argv(run: &str) -> Vec<String> {
    vec![
        sibling_program("lf-serve").display().to_string(),
        run.to_owned(),
    ]
}

/// A program installed beside the running executable.
pub fn sibling_program(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

impl Lf {
    /// Get ready to take a person to a Session (resolved by
    /// [`Lf::resolve`] or [`Lf::locate`]); see the module docs.
    pub fn open_session(&self, session: &Resolved, options: OpenOptions) -> Result<Destination> {
        refuse_completed(&session.row)?;
        let id = session.id();
        let lock = if options.try_lock {
            crate::locks::try_launch(self.home(), id)?
                .ok_or_else(|| LaunchError::BeingOpened(id.to_string()))?
        } else {
            crate::locks::launch(self.home(), id)?
        };
        // Decide on what is true under the lock, not on what was read before.
        let row = self.session(id)?;
        refuse_completed(&row)?;
        let tmux = self.caller.tmux();
        let name = tmux::session_name(id);
        let running = tmux.has_session(&name)?;
        let clients = self.live_clients(row.id.as_str())?;
        if running || !clients.is_empty() {
            if options.replace {
                self.stop_clients(&clients)?;
                tmux.kill_session(&name)?;
            } else if running && !options.here {
                return Ok(Destination::Tmux(name));
            } else {
                return Err(SessionError::Unavailable(state::ACTIVE_ELSEWHERE.into()).into());
            }
        }
        let run = self.launchable_run(&row)?;
        if options.here {
            drop(lock);
            return Ok(Destination::Exec(serve_argv(&run.id)));
        }
        self.start_in_tmux(&row, &run, &tmux, &name)?;
        drop(lock);
        self.wait_started(&run, &tmux, &name)?;
        Ok(Destination::Tmux(name))
    }

    /// Start `lf-serve RUN` in the Session's durable tmux session `name`,
    /// detached. The caller holds the launch lock and found no such tmux
    /// session: from now on its existence keeps other openers out.
    pub(crate) fn start_in_tmux(
        &self,
        row: &SessionRow,
        run: &RunRow,
        tmux: &Tmux,
        name: &str,
    ) -> Result<()> {
        self.store()?.record_diagnostic(&run.id, None)?;
        // What runs in the session (lf-serve, the agent, an lf-session-open
        // typed there) uses this Home and this caller's tmux server, not
        // whatever the tmux server was started with; and the agent finds
        // the person's own configuration as the caller has it (a server
        // started earlier has the environment of then, or of another
        // shell): lf-serve reads it to add lf's layer to it, and the
        // agent inherits it.
        let mut environment = vec![("LF_HOME", self.home().root().display().to_string())];
        if let Some(socket) = self.caller.var(tmux::SOCKET_ENV) {
            environment.push((tmux::SOCKET_ENV, socket.to_owned()));
        }
        environment.extend(self.caller.agent_config());
        let serve = serve_argv(&run.id);
        tmux.new_session(name, std::path::Path::new(&row.cwd), &environment, &serve)
    }

    /// The Run a launch should use: the current one if it can still be
    /// resumed or was never launched, else a new attempt under the same
    /// Session (its title, summary and work stay).
    pub(crate) fn launchable_run(&self, row: &SessionRow) -> Result<RunRow> {
        let current = self.run_row(&row.current_run_id)?;
        // A resume that died before its agent confirmed it is not repeated.
        if (current.native_id.is_some() && !current.resume_failed) || !current.published {
            return Ok(current);
        }
        let provider = Provider::parse(&current.provider)?;
        let next = NewRun {
            id: self.caller.new_run_id(),
            chosen_native_id: provider.chosen_native_id(),
            provider: current.provider.clone(),
            model: current.model.clone(),
            argv: current.argv.clone(),
            prompt: current.prompt.clone(),
        };
        // Prepared, not made current: its launcher does that as the agent
        // starts, so the Session goes from lost to active with nothing in
        // between (an attempt that has not started reads `unknown`).
        self.store()?
            .prepare_attempt(&row.id, &next, now_micros())?;
        self.run_row(next.id.as_str())
    }

    /// The row of a Run (`RunNotFound` when there is none).
    pub(crate) fn run_row(&self, id: &str) -> Result<RunRow> {
        self.store()?
            .run_row(id)?
            .ok_or_else(|| SessionError::RunNotFound(id.to_string()).into())
    }

    /// Live clients of a Session, checked against `/proc`.
    /// Receipts whose process is gone are marked ended here (launch paths
    /// write anyway), so they do not pile up for listings to check. A
    /// client whose terminal hung up is no client: it is stopped (its
    /// launcher would, within seconds) before anything launches the
    /// Session again, so two agents never share one conversation.
    pub(crate) fn live_clients(&self, session: &str) -> Result<Vec<ProcessIdentity>> {
        let receipts = self.store()?.open_clients(Some(session))?;
        if receipts.is_empty() {
            return Ok(Vec::new());
        }
        let boot = crate::liveness::boot_id()?;
        let mut live = Vec::new();
        for receipt in receipts {
            match receipt.process.presence(&boot) {
                Presence::Running => live.push(receipt.process),
                Presence::HungUp => self.stop_clients(&[receipt.process])?,
                Presence::Gone => self.store()?.end_client(&receipt.process, now_micros())?,
            }
        }
        Ok(live)
    }

    pub(crate) fn stop_clients(&self, clients: &[ProcessIdentity]) -> Result<()> {
        if clients.is_empty() {
            return Ok(());
        }
        let boot = crate::liveness::boot_id()?;
        for client in clients {
            client.stop(&boot, Duration::from_secs(5));
            self.store()?.end_client(client, now_micros())?;
        }
        Ok(())
    }

    /// Wait until the launcher's Run is resumable (the provider runs and,
    /// for a provider that confirms it, confirmed its conversation for this
    /// launch) or waits for a person at a start-up dialog, or say why not:
    /// an agent that dies at once — a resume of a conversation it does not
    /// know included — is not reported as started.
    fn wait_started(&self, run: &RunRow, tmux: &Tmux, name: &str) -> Result<()> {
        let start = Starting::new(run, name)?;
        loop {
            if self.started(&start, &mut |name| tmux.has_session(name))? {
                return Ok(());
            }
            std::thread::sleep(POLL);
        }
    }

    /// Whether a launch is resumable (or waits for a person) now; an error
    /// when it failed, its launcher exited (`running` says whether a tmux
    /// session of that name runs) or its time is up.
    pub(crate) fn started(
        &self,
        start: &Starting,
        running: &mut dyn FnMut(&str) -> Result<bool>,
    ) -> Result<bool> {
        let run = start.run.as_str();
        let row = self.run_row(run)?;
        if let Some(diagnostic) = &row.diagnostic {
            return Err(LaunchError::LaunchFailed(diagnostic.clone()).into());
        }
        if row.published
            && (!start.confirms || row.confirmed || row.waits_for_person)
            && self.run_has_live_client(run)?
        {
            return Ok(true);
        }
        if !running(&start.tmux)? {
            let row = self.run_row(run)?;
            return Err(match row.diagnostic {
                Some(diagnostic) => LaunchError::LaunchFailed(diagnostic).into(),
                None => LaunchError::LauncherExited {
                    run: run.to_owned(),
                    log: self.home().runs().join(run).join("serve.log"),
                }
                .into(),
            });
        }
        if Instant::now() >= start.deadline {
            return Err(LaunchError::StartTimeout {
                run: run.to_owned(),
                seconds: START_TIMEOUT.as_secs(),
                tmux: start.tmux.clone(),
            }
            .into());
        }
        Ok(false)
    }

    fn run_has_live_client(&self, run: &str) -> Result<bool> {
        let receipts = self.store()?.open_clients_of_run(run)?;
        if receipts.is_empty() {
            return Ok(false);
        }
        let boot = crate::liveness::boot_id()?;
        Ok(receipts
            .iter()
            .any(|receipt| receipt.process.presence(&boot) == Presence::Running))
    }

    /// The launcher (`lf-serve RUN`): runs the provider for one Run in this
    /// terminal and records everything a listing needs. Returns how the
    /// provider ended. A launcher that fails leaves its reason on the Run,
    /// where the opener waiting for it reads it.
    pub fn serve(&self, run: &str) -> Result<RunOutcome> {
        self.serve_run(run).inspect_err(|error| {
            if let Ok(store) = self.store()
                && let Ok(Some(row)) = store.run_row(run)
                && row.diagnostic.is_none()
            {
                let _ = store.record_diagnostic(run, Some(&error.one_line()));
            }
        })
    }

    /// `lf-serve`'s steps, in order: admit the Run, start its agent, look
    /// after it until it ends (the state machine of `session::serve`), and
    /// record how it ended.
    fn serve_run(&self, run: &str) -> Result<RunOutcome> {
        let (admitted, lock) = self.admit(run)?;
        let argv = self.agent_argv(&admitted)?;
        let launcher = ProcessIdentity::of(std::process::id())?;
        let machine = self.launch_machine(&admitted);
        let (mut started, hangup) =
            self.start_agent(&admitted, &argv, &launcher, machine.predicted())?;
        let mut wakers = Wakers::new(started.child.id(), hangup, &admitted.run_dir)?;
        let machine = self.supervise(&admitted, machine, &launcher, &mut wakers, lock)?;
        self.record_end(&admitted, &argv, &mut started, &machine)
    }

    /// Whether this Run may be served now, under the Session's launch lock:
    /// its Session is not completed, the Run is current (or a new attempt
    /// an opener prepared, which becomes current as its agent starts), and
    /// no client holds the Session elsewhere.
    fn admit(&self, run: &str) -> Result<(Admitted, crate::locks::Lock)> {
        let run_id = RunId::parse(run)?;
        let run = self.run_row(run_id.as_str())?;
        let id = run.session_id.clone();
        let lock = crate::locks::launch(self.home(), &id)?;
        let row = self.session(&id)?;
        refuse_completed(&row)?;
        // A new attempt an opener prepared (never launched, and newer than
        // the current Run) becomes current as its agent starts.
        let adopt_from = if row.current_run_id == run.id {
            None
        } else if !run.published && run.created_at >= self.run_row(&row.current_run_id)?.created_at
        {
            Some(row.current_run_id.clone())
        } else {
            return Err(LaunchError::NotCurrentRun {
                run: run.id,
                session: id.to_string(),
                current: row.current_run_id,
            }
            .into());
        };
        if !self.live_clients(&row.id)?.is_empty() {
            return Err(SessionError::Unavailable(state::ACTIVE_ELSEWHERE.into()).into());
        }
        let run = self.run_row(run_id.as_str())?;
        let provider = Provider::parse(&run.provider)?;
        let run_dir = self.home().run_dir(&run_id);
        let admitted = Admitted {
            run_id,
            run,
            row,
            adopt_from,
            provider,
            run_dir,
        };
        Ok((admitted, lock))
    }

    /// The agent's argv: a new conversation or the resume of its native
    /// id, with lf's hooks; the Run's folder is made for what they write.
    fn agent_argv(&self, admitted: &Admitted) -> Result<Vec<String>> {
        let Admitted { run, row, .. } = admitted;
        let mode = match (&run.native_id, run.published) {
            (Some(native_id), _) => Mode::Resume { native_id },
            (None, false) => Mode::New {
                chosen_native_id: run.chosen_native_id.as_deref(),
                prompt: run.prompt.as_deref(),
            },
            (None, true) => {
                return Err(LaunchError::NoNativeHistory(run.id.clone()).into());
            }
        };
        crate::home::create_private_dir(&admitted.run_dir)?;
        let hook_program = sibling_program("lf-hook");
        admitted.provider.argv(&provider::Launch {
            mode,
            model: run.model.as_deref(),
            command: &run.argv,
            hook_program: &hook_program,
            run_dir: &admitted.run_dir,
            primary: row.primary_scope.is_some(),
            env: &admitted.provider.person_env(&self.caller),
        })
    }

    /// Start the agent in this terminal and record it as the Run's client,
    /// with this launcher, in one transaction; the terminal's hang-up is
    /// caught from before it starts. An agent that cannot be started leaves
    /// the Run started and failed.
    fn start_agent(
        &self,
        admitted: &Admitted,
        argv: &[String],
        launcher: &ProcessIdentity,
        waits_for_person: bool,
    ) -> Result<(Started, std::os::unix::net::UnixStream)> {
        let Admitted {
            run_id, run, row, ..
        } = admitted;
        let terminal = self.terminal_id();
        let label = format!("lf-serve {}", terminal.as_deref().unwrap_or("?"));
        // What the last launch was told is forgotten before the agent can
        // confirm anything (a hook may come before the launch is recorded).
        self.store()?.reset_launch(&run.id)?;
        let hangup = super::serve::catch_hangup()?;
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .current_dir(&row.cwd)
            .env("LF_HOME", self.home().root())
            .env("LF_SESSION_ID", row.id.as_str())
            .env("LF_RUN_ID", run_id.as_str());
        if admitted.provider.captures_stderr() {
            command.stderr(std::process::Stdio::piped());
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                // Started and failed, as a person opening it next sees it.
                if let Some(previous) = &admitted.adopt_from {
                    self.store()?
                        .adopt_attempt(&row.id, &run.id, previous, now_micros())?;
                }
                self.store()?
                    .mark_run_started(&run.id, &label, now_micros())?;
                let launch = self.describe_launch(&argv[0], &row.cwd, &run.id);
                return Err(self.fail(&run.id, format!("could not start {launch}: {error}")));
            }
        };
        let stderr = child.stderr.take().map(StderrTail::follow);
        let process = ProcessIdentity::of(child.id())?;
        // The Run started, by this launcher, with this agent: one
        // transaction, so the Session goes from what it was (new, lost,
        // exited) straight to `active`, never through a started Run
        // without a launcher (`lost`) or a launcher without its agent
        // (`unknown`). lf::snapshot attributes what runs beneath this process
        // to the Run from here on; the agent itself is known by its receipt.
        self.store()?.record_launch(&Launched {
            client: &ClientReceipt {
                session_id: row.id.to_string(),
                run_id: run.id.clone(),
                process: process.clone(),
                terminal_id: terminal,
            },
            label: &label,
            launcher,
            adopt_from: admitted.adopt_from.as_deref(),
            waits_for_person,
            now: now_micros(),
        })?;
        Ok((
            Started {
                child,
                stderr,
                process,
            },
            hangup,
        ))
    }

    /// The launch's state machine, decided before its agent starts: whether
    /// the agent must confirm its conversation, how long a resume settles,
    /// and whether a start-up dialog only a person can answer (Claude's
    /// workspace trust, Gemini's folder trust) is known from the provider's
    /// own files at once — recorded with the launch itself, so no opener
    /// ever reads the Run started without it.
    fn launch_machine(&self, admitted: &Admitted) -> Launch {
        let Admitted {
            run, row, provider, ..
        } = admitted;
        // Codex confirms nothing at start: a resume that keeps running this
        // long found its thread (lf-serve confirms it; a hook may first).
        let settle = run.native_id.as_ref().and(provider.resume_settle());
        let needs_confirm = provider.confirms_native_id_at_start() || settle.is_some();
        // Such a dialog fires no hook until it is answered: known from the
        // provider's own state at once, else assumed after a grace.
        let predicted = needs_confirm
            && provider.start_needs_person(
                std::path::Path::new(&row.cwd),
                &provider.person_env(&self.caller),
            ) == Some(true);
        Launch::new(Instant::now(), needs_confirm, settle, predicted)
            .with_grace(provider.start_grace())
    }

    /// Look after the agent until it ends: each wake-up (its exit, the
    /// terminal's hang-up, a hook's write to the Run, its transcript) is an
    /// event for the launch's state machine, whose actions are done here.
    /// The launch lock is held as long as the machine says, and let go at
    /// the latest when the agent ends.
    fn supervise(
        &self,
        admitted: &Admitted,
        mut machine: Launch,
        launcher: &ProcessIdentity,
        wakers: &mut Wakers,
        lock: crate::locks::Lock,
    ) -> Result<Launch> {
        let Admitted {
            run, row, provider, ..
        } = admitted;
        let provider = *provider;
        let resuming = run.native_id.as_ref();
        let mut lock = machine.holds_lock().then_some(lock);
        let mut watch = TranscriptWatch {
            resumed: resuming.is_some(),
            ..TranscriptWatch::default()
        };
        let mut transcript: Option<String> = None;
        // The file of an agent's usage records (OpenCode's database).
        let mut records: Option<String> = None;
        // The first look reads the Run (a hook may have come already) and
        // whatever the transcript holds.
        let mut woken = Woken {
            run: true,
            transcript: true,
            ..Woken::default()
        };
        loop {
            let mut events = Vec::new();
            // The hang-up first: when both come together, the agent did
            // not end by itself.
            if woken.hung_up || (woken.exited && wakers.hung_up()) {
                events.push(Event::HangUp);
            }
            if woken.exited || wakers.agent_exited() {
                events.push(Event::Exited);
            }
            if woken.run && !machine.hung_up() {
                let current = self.run_row(&run.id)?;
                transcript = current.transcript_path;
                events.push(Event::Run {
                    confirmed: current.confirmed,
                });
                woken.transcript = true;
            }
            // A new path, or its folder (or one on the way) appeared.
            if woken.transcript {
                wakers.follow_transcript(transcript.as_deref());
            }
            if woken.transcript
                && !machine.hung_up()
                && watch.interrupted(provider, transcript.as_deref())
            {
                self.store()?
                    .record_turn(&run.id, super::Turn::Completed, now_micros())?;
            }
            // The Session's usage follows its transcript (what was
            // appended only), or, for an agent that keeps it in records
            // of its own (OpenCode's database), its hooks; a failure to
            // read it costs the agent nothing and is read again on the
            // next look, or by lf-session-usage.
            if woken.run && provider.keeps_usage_records() && records.is_none() {
                // Its records' file, once a hook named them: its folder is
                // followed as a transcript's is.
                let session = [row.id.to_string()];
                records = self
                    .store()?
                    .usage_sources(Some(&session))?
                    .iter()
                    .find_map(|source| provider.usage_records_file(&source.path))
                    .map(|file| file.display().to_string());
                if records.is_some() {
                    wakers.follow_transcript(records.as_deref());
                }
            }
            if (woken.transcript && (transcript.is_some() || records.is_some()))
                || (woken.run && provider.keeps_usage_records())
            {
                let session = [row.id.to_string()];
                let _ = crate::usage::refresh_sessions(self.store()?, Some(&session));
            }
            events.push(Event::Tick);
            for event in events {
                for action in machine.on(event, Instant::now()) {
                    match action {
                        Action::Confirm => self.store()?.confirm_start(&run.id, now_micros())?,
                        Action::WaitForPerson => self
                            .store()?
                            .record_waits_for_person(&run.id, now_micros())?,
                        Action::ReleaseLock => lock = None,
                        Action::RecordHangup => {
                            self.store()?
                                .record_hangup(&run.id, launcher, now_micros())?
                        }
                        Action::Signal(signal) => wakers.signal(signal),
                    }
                }
            }
            if machine.phase() == Phase::Ended {
                break;
            }
            woken = wakers.wait(machine.deadline())?;
        }
        drop(lock);
        Ok(machine)
    }

    /// How the agent ended, recorded: a hang-up leaves the Run without an
    /// outcome (restore brings it back); an agent that ended before it
    /// confirmed its conversation fails the launch, saying what ran and
    /// what it said (a resume that failed is not repeated); otherwise its
    /// exit is the Run's outcome.
    fn record_end(
        &self,
        admitted: &Admitted,
        argv: &[String],
        started: &mut Started,
        machine: &Launch,
    ) -> Result<RunOutcome> {
        let Admitted {
            run_id,
            run,
            row,
            provider,
            ..
        } = admitted;
        let process = &started.process;
        let status = started.child.wait().map_err(|error| {
            Error::io(
                format!("cannot see how the agent of Run {run_id} ended"),
                error,
            )
        })?;
        let now = now_micros();
        let confirmed = machine.confirmed() || self.run_row(&run.id)?.confirmed;
        if machine.hung_up() || !confirmed {
            self.store()?.end_client(process, now)?;
        }
        if machine.hung_up() {
            // The agent did not end by itself: its terminal went away. The
            // Run ended without an outcome as the hang-up came (the Session
            // reads `lost`, restore brings it back); nothing more is
            // written of it, since a restore may be launching it again.
            return Ok(RunOutcome::Interrupted);
        }
        // The agent may have confirmed since the last look.
        if !confirmed {
            // Described only when a launch fails: hashing the executable
            // (Claude's is ~250 MB) would delay every start by half a second.
            let launch = self.describe_launch(&argv[0], &row.cwd, &run.id);
            // The CLI's own last word, when lf kept it.
            let said = started
                .stderr
                .take()
                .and_then(|tail| tail.last_line(STDERR_DRAIN))
                .map(|line| format!("; {} said: {line}", provider.as_str()))
                .unwrap_or_default();
            let diagnostic = match &run.native_id {
                Some(native) => {
                    self.store()?.mark_resume_failed(&run.id)?;
                    format!(
                        "{launch}: the resume of {} conversation {native} exited with {status} before {} confirmed it{said}; \
                         the next open starts a new conversation",
                        provider.as_str(),
                        provider.as_str()
                    )
                }
                None => format!("{launch}: exited with {status} before becoming resumable{said}"),
            };
            return Err(self.fail(&run.id, diagnostic));
        }
        let outcome = outcome_of(&status);
        self.store()?
            .record_exit(&run.id, process, outcome, status.code(), now)?;
        Ok(outcome)
    }

    /// The diagnostic of a launch: executable (with its sha256), cwd, Home
    /// and database. Arguments are left out: they may hold prompts.
    fn describe_launch(&self, program: &str, cwd: &str, run: &str) -> String {
        let (path, digest) = match self.caller.program(program) {
            Some(path) => {
                let digest = std::fs::read(&path)
                    .map(|bytes| {
                        use sha2::Digest;
                        sha2::Sha256::digest(bytes)
                            .iter()
                            .map(|byte| format!("{byte:02x}"))
                            .collect::<String>()
                    })
                    .unwrap_or_else(|_| "unavailable".to_owned());
                (path.display().to_string(), digest)
            }
            None => (
                format!("{program} (not found on PATH)"),
                "unavailable".to_owned(),
            ),
        };
        format!(
            "Run {run}: executable {path} (sha256 {digest}), cwd {cwd}, Home {}, database {}",
            self.home().root().display(),
            self.home().database().display()
        )
    }

    /// The terminal this launcher runs in: its tmux pane, else its tty.
    fn terminal_id(&self) -> Option<String> {
        if let Some(pane) = self.caller.tmux_pane() {
            return Some(pane.to_owned());
        }
        crate::liveness::own_terminal()
    }

    /// Record a failed launch where the next opener and the log will see it.
    fn fail(&self, run: &str, diagnostic: String) -> Error {
        let now = now_micros();
        if let Ok(store) = self.store() {
            let _ = store.record_diagnostic(run, Some(&diagnostic));
            let _ = store.record_outcome(run, RunOutcome::Failed, None, now);
        }
        if let Ok(run_id) = RunId::parse(run) {
            let log = self.home().run_dir(&run_id).join("serve.log");
            let _ = crate::home::write_private(&log, format!("{diagnostic}\n").as_bytes());
        }
        LaunchError::LaunchFailed(diagnostic).into()
    }
}

/// A Run `lf-serve` may serve, as read under its Session's launch lock.
struct Admitted {
    run_id: RunId,
    run: RunRow,
    row: SessionRow,
    /// The current Run this new attempt replaces as its agent starts.
    adopt_from: Option<String>,
    provider: Provider,
    /// The Run's folder (hooks' files, the transcript watch, serve.log).
    run_dir: PathBuf,
}

/// An agent `lf-serve` started: the child, the tail of its stderr (when
/// its provider's is kept) and its identity.
struct Started {
    child: std::process::Child,
    stderr: Option<StderrTail>,
    process: ProcessIdentity,
}

/// The refusal of an open of a completed Session: `state`'s one rule.
pub(crate) fn refuse_completed(row: &SessionRow) -> Result<()> {
    state::refuse_completed(&row.id, row.completed_at)
}

/// A signal, or the shell convention for one (128 + n), is an interrupt.
fn outcome_of(status: &std::process::ExitStatus) -> RunOutcome {
    use std::os::unix::process::ExitStatusExt;
    match (status.signal(), status.code()) {
        (Some(_), _) => RunOutcome::Interrupted,
        (None, Some(code)) if code > 128 && code <= 128 + 64 => RunOutcome::Interrupted,
        _ => RunOutcome::Exited,
    }
}

/// Launching a Run: another opener, a Run that is no longer current, and an agent that did not start.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum LaunchError {
    #[error("Session {0} is being opened by another process; try again in a moment")]
    BeingOpened(String),
    #[error(
        "Run {run} is no longer current for Session {session}; its current Run is {current}: open the Session instead"
    )]
    NotCurrentRun {
        run: String,
        session: String,
        current: String,
    },
    #[error(
        "Run {0} was already launched and has no native history; open the Session to start a new attempt"
    )]
    NoNativeHistory(String),
    /// A launch failed; the diagnostic is what lf-serve or the agent said.
    #[error("{0}")]
    LaunchFailed(String),
    #[error("the launcher of Run {run} exited before the agent was resumable; see {}", .log.display())]
    LauncherExited { run: String, log: PathBuf },
    #[error("Run {run} did not start within {seconds}s; look at the tmux session {tmux}")]
    StartTimeout {
        run: String,
        seconds: u64,
        tmux: String,
    },
    #[error("{0} Session(s) could not be restored; the line of each says why")]
    RestoreFailed(usize),
}

impl Domain for LaunchError {
    fn kind(&self) -> ErrorKind {
        use LaunchError::*;
        match self {
            BeingOpened(..) | NotCurrentRun { .. } | NoNativeHistory(..) => ErrorKind::Conflict,
            LaunchFailed(..) | LauncherExited { .. } | StartTimeout { .. } | RestoreFailed(..) => {
                ErrorKind::Operational
            }
        }
    }

    fn name(&self) -> &str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn signals_and_their_exit_codes_are_interrupts() {
        let status = |raw| std::process::ExitStatus::from_raw(raw);
        assert_eq!(outcome_of(&status(0)), RunOutcome::Exited);
        assert_eq!(outcome_of(&status(1 << 8)), RunOutcome::Exited);
        assert_eq!(outcome_of(&status(130 << 8)), RunOutcome::Interrupted);
        let sigterm = rustix::process::Signal::TERM.as_raw();
        assert_eq!(outcome_of(&status(sigterm)), RunOutcome::Interrupted);
    }
}
