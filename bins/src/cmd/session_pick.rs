use crate::{Output, Tool, open_lf};
use clap::Parser;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::{Attribute, Print, SetAttribute};
use crossterm::terminal::{self, ClearType};
use crossterm::{cursor, queue};
use lf::clock::Timestamp;
use lf::ids::PaneId;
use lf::session::pick::{self, Area, Choices, Layout};
use lf::tmux::Tmux;
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Pick a session with the keyboard and open it (for a tmux popup).
///
/// Shows open sessions, those that need you first (review, approve,
/// reply) with how long each has waited, then the rest, newest first.
/// Type to match: each word fuzzily matches the title, work path or
/// directory, best matches first. Up/Down (or Ctrl-P/Ctrl-N, Tab) move,
/// Ctrl-U clears, Enter opens the choice with lf-session-open, Esc or
/// Ctrl-C leaves. Where the terminal has room, the selected session's tmux
/// pane is shown beside or below the list (text and colours only). The
/// picker draws on the terminal (/dev/tty), so --print can send the chosen
/// record to stdout instead of opening it. When hosts are configured
/// (lf-host), their sessions are listed too and open through ssh.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  tmux bind-key a display-popup -E -w 90% -h 80% 'lf-session-pick --attention'
  lf-session-pick --task LOO-291
  lf-session-pick --print | jq -r .cwd"
)]
pub struct Cli {
    /// Only sessions that need you now.
    #[arg(long)]
    attention: bool,
    /// Only sessions of this Task (id or identifier).
    #[arg(long, value_name = "TASK")]
    task: Option<String>,
    /// Print the chosen session's record instead of opening it.
    #[arg(long)]
    print: bool,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-pick";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let lf = open_lf()?;
        let tmux = lf.caller().tmux();
        let filter = lf::ListFilter {
            attention: self.attention,
            task: self.task,
            ..Default::default()
        };
        // Sessions of the hosts of the list too (a --task is this
        // machine's); a host that does not answer is left out in silence.
        let remotes = match filter.task {
            Some(_) => lf.remotes(false, &[], None)?,
            None => lf.configured_remotes()?,
        };
        let records = lf
            .list_merged(&filter, &remotes)?
            .collect::<lf::Result<Vec<_>>>()?;
        if records.is_empty() {
            return Err(lf::error::PickError::NothingToPick.into());
        }
        let mut choices = Choices::new(records);
        // The terminal is restored when this statement ends, before the
        // choice is printed or opened.
        let chosen = Terminal::open()?.choose(&mut choices, tmux)?;
        let Some(chosen) = chosen.map(|index| &choices.records()[index]) else {
            return Ok(());
        };
        if self.print {
            return out.json(chosen);
        }
        let program = lf::session::launch::sibling_program("lf-session-open");
        let mut argv = vec![program.display().to_string(), chosen.id.clone()];
        if let Some(host) = chosen.workspace.as_ref().and_then(|w| w.home_id.clone()) {
            argv.extend(["--host".to_owned(), host]);
        }
        Err(lf::session::Destination::exec(&argv))
    }
}

/// Whether the terminal is in the picker's modes, so it is restored once,
/// by whichever exit comes first: a return, an error, or a panic.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Put the terminal back as it was: the main screen, the cursor, line
/// wrapping, cooked mode. Safe to call at any time, from anywhere.
fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = crossterm::execute!(
            tty,
            terminal::EnableLineWrap,
            cursor::Show,
            terminal::LeaveAlternateScreen
        );
    }
    let _ = terminal::disable_raw_mode();
}

/// The controlling terminal in raw mode on the alternate screen, until
/// dropped. Besides keys it wakes for a resize (SIGWINCH), a request to
/// stop (SIGTERM, SIGINT) and a preview that arrived.
struct Terminal {
    tty: std::fs::File,
    /// crossterm reads keys from stdin when it is a terminal, else from
    /// /dev/tty; this is that same input, watched for a hang-up.
    stdin: Option<std::io::Stdin>,
    resized: UnixStream,
    stopped: UnixStream,
    signals: Vec<signal_hook::SigId>,
}

/// What woke the picker.
enum Step {
    Key(KeyEvent),
    Resize,
    Stop,
    Preview,
    Timeout,
}

impl Terminal {
    fn open() -> lf::Result<Self> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|_| lf::error::PickError::NoTerminal)?;
        let stdin = std::io::stdin();
        let stdin = rustix::termios::isatty(&stdin).then_some(stdin);
        let (resized, resize_writer) = wake_pair()?;
        let (stopped, stop_writer) = wake_pair()?;
        let mut signals = Vec::new();
        for (signal, writer) in [
            (signal_hook::consts::SIGWINCH, resize_writer),
            (signal_hook::consts::SIGTERM, clone(&stop_writer)?),
            (signal_hook::consts::SIGINT, stop_writer),
        ] {
            let id = signal_hook::low_level::pipe::register(signal, writer)
                .map_err(|error| lf::error::PickError::Terminal("watch", error))?;
            signals.push(id);
        }
        terminal::enable_raw_mode()
            .map_err(|error| lf::error::PickError::Terminal("put in raw mode", error))?;
        ACTIVE.store(true, Ordering::SeqCst);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        let mut terminal = Terminal {
            tty,
            stdin,
            resized,
            stopped,
            signals,
        };
        // The alternate screen, so the picker leaves the screen as it was;
        // no wrapping, so nothing drawn can spill onto the next row.
        let mut setup = Vec::new();
        queue!(
            setup,
            terminal::EnterAlternateScreen,
            terminal::DisableLineWrap
        )
        .map_err(|error| lf::error::PickError::Terminal("write to", error))?;
        terminal.write(&setup)?;
        Ok(terminal)
    }

    fn write(&mut self, bytes: &[u8]) -> lf::Result<()> {
        self.tty
            .write_all(bytes)
            .and_then(|()| self.tty.flush())
            .map_err(|error| lf::error::PickError::Terminal("write to", error).into())
    }

    /// Wait for the next thing to act on, until `deadline` at the latest.
    ///
    /// crossterm reads a terminal that hung up in a busy loop that never
    /// returns (crossterm-rs/crossterm#793), so it is asked for keys only
    /// while `poll` has just seen the input alive.
    fn next(&mut self, preview: &UnixStream, deadline: Option<Instant>) -> lf::Result<Step> {
        let mut wait = Some(Duration::ZERO);
        loop {
            let ready = self.poll(preview, wait)?;
            if ready[1] {
                drain(&self.resized);
                return Ok(Step::Resize);
            }
            if ready[2] {
                return Ok(Step::Stop);
            }
            if ready[3] {
                drain(preview);
                return Ok(Step::Preview);
            }
            // Keys crossterm read earlier come first, then what is ready.
            let read = |error| lf::error::PickError::Terminal("read", error);
            if event::poll(Duration::ZERO).map_err(read)? {
                match event::read().map_err(read)? {
                    Event::Key(key) if key.kind != KeyEventKind::Release => {
                        return Ok(Step::Key(key));
                    }
                    Event::Resize(..) => return Ok(Step::Resize),
                    _ => {
                        wait = Some(Duration::ZERO);
                        continue;
                    }
                }
            }
            let now = Instant::now();
            if deadline.is_some_and(|deadline| deadline <= now) {
                return Ok(Step::Timeout);
            }
            wait = deadline.map(|deadline| deadline - now);
        }
    }

    /// Which of input, resize, stop and preview are ready within `wait`
    /// (`None`: until one is); an error once the input hung up.
    fn poll(&self, preview: &UnixStream, wait: Option<Duration>) -> lf::Result<[bool; 4]> {
        use rustix::event::{PollFd, PollFlags, Timespec};
        let input = match &self.stdin {
            Some(stdin) => stdin.as_fd(),
            None => self.tty.as_fd(),
        };
        let mut fds = [
            PollFd::new(&input, PollFlags::IN),
            PollFd::new(&self.resized, PollFlags::IN),
            PollFd::new(&self.stopped, PollFlags::IN),
            PollFd::new(preview, PollFlags::IN),
        ];
        let timeout = wait.and_then(|wait| Timespec::try_from(wait).ok());
        // A signal interrupts the wait; what it wrote is seen on the retry.
        loop {
            match rustix::event::poll(&mut fds, timeout.as_ref()) {
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(error) => {
                    return Err(lf::error::PickError::Terminal("wait for", error.into()).into());
                }
            }
        }
        let hung_up = PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL;
        if fds[0].revents().intersects(hung_up) {
            let closed = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "it was closed");
            return Err(lf::error::PickError::Terminal("read", closed).into());
        }
        Ok(fds.map(|fd| !fd.revents().is_empty()))
    }

    /// Let the person choose; the index of the chosen record, or `None`
    /// when they leave without choosing.
    fn choose(&mut self, choices: &mut Choices, tmux: Tmux) -> lf::Result<Option<usize>> {
        let (preview_ready, preview_wake) = wake_pair()?;
        let mut preview = Preview::start(tmux, preview_wake);
        let mut view = View {
            query: String::new(),
            shown: choices.matching(""),
            selected: 0,
            top: 0,
        };
        let mut dirty = true;
        loop {
            let layout = size();
            view.scroll(layout.list.height);
            let record = view.selected().map(|index| &choices.records()[index]);
            let wanted = layout.preview.and(record.and_then(pick::pane));
            preview.want(wanted);
            if dirty {
                let frame = view.frame(choices, &layout, &preview)?;
                self.write(&frame)?;
                dirty = false;
            }
            let step = self.next(&preview_ready, preview.deadline())?;
            match step {
                Step::Key(key) => match action(key) {
                    Action::Choose => return Ok(view.selected()),
                    Action::Leave => return Ok(None),
                    Action::Move(by) => view.move_by(by, layout.list.height),
                    Action::Edit(edit) => {
                        if edit.apply(&mut view.query) {
                            view.shown = choices.matching(&view.query);
                            view.selected = 0;
                            view.top = 0;
                        }
                    }
                    Action::Nothing => continue,
                },
                Step::Resize => {}
                Step::Stop => return Ok(None),
                Step::Preview => {
                    if !preview.receive() {
                        continue;
                    }
                }
                Step::Timeout => continue,
            }
            dirty = true;
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        for id in self.signals.drain(..) {
            signal_hook::low_level::unregister(id);
        }
        restore();
    }
}

/// The terminal's size and what goes where; a terminal that cannot say
/// its size is taken as 80 × 24.
fn size() -> Layout {
    let (width, height) = terminal::size().unwrap_or((80, 24));
    pick::layout(width, height)
}

/// A socket pair that wakes `poll`: the reader (non-blocking, drained
/// after each wake) and the writer.
fn wake_pair() -> lf::Result<(UnixStream, UnixStream)> {
    let watch = |error| lf::error::PickError::Terminal("watch", error);
    let (reader, writer) = UnixStream::pair().map_err(watch)?;
    reader.set_nonblocking(true).map_err(watch)?;
    writer.set_nonblocking(true).map_err(watch)?;
    Ok((reader, writer))
}

fn clone(writer: &UnixStream) -> lf::Result<UnixStream> {
    writer
        .try_clone()
        .map_err(|error| lf::error::PickError::Terminal("watch", error).into())
}

fn drain(mut reader: &UnixStream) {
    let mut buffer = [0u8; 64];
    while matches!(std::io::Read::read(&mut reader, &mut buffer), Ok(count) if count > 0) {}
}

/// What a key does.
enum Action {
    Choose,
    Leave,
    Move(isize),
    Edit(Edit),
    Nothing,
}

/// A change to the query.
enum Edit {
    Type(char),
    Erase,
    EraseWord,
    Clear,
}

impl Edit {
    /// Apply it; whether the query changed.
    fn apply(self, query: &mut String) -> bool {
        let kept = match self {
            Edit::Type(c) => {
                query.push(c);
                return true;
            }
            Edit::Erase => query.char_indices().last().map_or(0, |(at, _)| at),
            Edit::EraseWord => query.trim_end().rfind(' ').map_or(0, |space| space + 1),
            Edit::Clear => 0,
        };
        let changed = kept < query.len();
        query.truncate(kept);
        changed
    }
}

fn action(key: KeyEvent) -> Action {
    let control = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let page = 10;
    match key.code {
        KeyCode::Enter => Action::Choose,
        // Ctrl-J is a newline, which used to choose too.
        KeyCode::Char('j' | 'm') if control => Action::Choose,
        KeyCode::Esc => Action::Leave,
        KeyCode::Char('c' | 'd' | 'g') if control => Action::Leave,
        KeyCode::Up | KeyCode::BackTab => Action::Move(-1),
        KeyCode::Char('p') if control => Action::Move(-1),
        KeyCode::Down | KeyCode::Tab => Action::Move(1),
        KeyCode::Char('n') if control => Action::Move(1),
        KeyCode::PageUp => Action::Move(-page),
        KeyCode::PageDown => Action::Move(page),
        KeyCode::Home => Action::Move(isize::MIN),
        KeyCode::End => Action::Move(isize::MAX),
        KeyCode::Backspace => Action::Edit(Edit::Erase),
        KeyCode::Char('h') if control => Action::Edit(Edit::Erase),
        KeyCode::Char('w') if control => Action::Edit(Edit::EraseWord),
        KeyCode::Char('u') if control => Action::Edit(Edit::Clear),
        KeyCode::Char(c) if !control && !alt && !c.is_control() => Action::Edit(Edit::Type(c)),
        _ => Action::Nothing,
    }
}

/// What the list shows: the query, the matching records (indices, in the
/// order shown), the selected one and the first one on screen.
struct View {
    query: String,
    shown: Vec<usize>,
    selected: usize,
    top: usize,
}

impl View {
    fn selected(&self) -> Option<usize> {
        self.shown.get(self.selected).copied()
    }

    fn move_by(&mut self, by: isize, rows: u16) {
        let last = self.shown.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(by).min(last);
        self.scroll(rows);
    }

    /// Keep the selected row on screen.
    fn scroll(&mut self, rows: u16) {
        let rows = usize::from(rows).max(1);
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
        if self.selected < self.top {
            self.top = self.selected;
        } else if self.selected >= self.top + rows {
            self.top = self.selected + 1 - rows;
        }
    }

    /// Everything on screen, as bytes to write at once.
    fn frame(&self, choices: &Choices, layout: &Layout, preview: &Preview) -> lf::Result<Vec<u8>> {
        self.queue_frame(choices, layout, preview)
            .map_err(|error| lf::error::PickError::Terminal("write to", error).into())
    }

    fn queue_frame(
        &self,
        choices: &Choices,
        layout: &Layout,
        preview: &Preview,
    ) -> std::io::Result<Vec<u8>> {
        let mut frame = Vec::new();
        let width = usize::from(layout.width);
        queue!(frame, cursor::Hide, cursor::MoveTo(0, 0))?;
        if width == 0 {
            return Ok(frame);
        }
        // The prompt, and how many match on the right where there is room.
        let typed = format!("> {}", self.query);
        let count = format!(" {}/{}", self.shown.len(), choices.records().len());
        let prompt = if pick::columns(&typed) + count.len() < width {
            pick::fit(&typed, width - count.len()) + &count
        } else {
            pick::fit(&typed, width)
        };
        queue!(frame, Print(prompt))?;

        let list = layout.list;
        let now = Timestamp::now();
        let row_width = usize::from(list.width).saturating_sub(2);
        let lines = preview.lines(layout.preview, self.selected().is_some());
        let beside = layout.preview.filter(|area| area.y == list.y);
        for row in 0..list.height {
            queue!(frame, cursor::MoveTo(0, list.y + row))?;
            let index = self.top + usize::from(row);
            match self.shown.get(index) {
                Some(&record) => {
                    let line = pick::line(&choices.records()[record], now, row_width);
                    if index == self.selected {
                        queue!(
                            frame,
                            SetAttribute(Attribute::Reverse),
                            Print(pick::fit(&format!("> {line}"), list.width.into())),
                            SetAttribute(Attribute::Reset)
                        )?;
                    } else {
                        queue!(
                            frame,
                            Print(pick::fit(&format!("  {line}"), list.width.into()))
                        )?;
                    }
                }
                None if row == 0 && self.shown.is_empty() => {
                    let none = pick::fit("  (no session matches)", list.width.into());
                    queue!(frame, Print(none))?;
                }
                None => queue!(frame, Print(pick::fit("", list.width.into())))?,
            }
            if let Some(area) = beside {
                let text = lines.get(usize::from(row)).map_or("", String::as_str);
                queue!(
                    frame,
                    Print("│ "),
                    cursor::MoveTo(area.x, area.y + row),
                    Print(text)
                )?;
            }
            queue!(frame, terminal::Clear(ClearType::UntilNewLine))?;
        }
        if let Some(area) = layout.preview.filter(|area| area.y != list.y) {
            queue!(
                frame,
                cursor::MoveTo(0, area.y - 1),
                Print("─".repeat(width)),
            )?;
            for row in 0..area.height {
                let text = lines.get(usize::from(row)).map_or("", String::as_str);
                queue!(
                    frame,
                    cursor::MoveTo(area.x, area.y + row),
                    Print(text),
                    terminal::Clear(ClearType::UntilNewLine)
                )?;
            }
        }
        // The cursor where the next typed character goes.
        let column = u16::try_from(2 + pick::columns(&self.query)).unwrap_or(u16::MAX);
        queue!(
            frame,
            cursor::MoveTo(column.min(layout.width - 1), 0),
            cursor::Show
        )?;
        Ok(frame)
    }
}

/// At most this often a pane is captured...
const CAPTURE_GAP: Duration = Duration::from_millis(200);
/// ...and the pane on show is captured again this often.
const REFRESH: Duration = Duration::from_millis(500);

/// The preview of the selected Session's pane. Panes are captured on a
/// thread of their own, so a slow tmux never holds up typing.
struct Preview {
    requests: mpsc::Sender<PaneId>,
    results: mpsc::Receiver<(PaneId, Result<String, String>)>,
    /// The pane the preview should show now.
    wanted: Option<PaneId>,
    /// The pane on show, its text (or why it cannot be shown) and when it
    /// was captured.
    shown: Option<(PaneId, Result<String, String>, Instant)>,
    /// When the last capture was asked for, and whether it is still out.
    asked: Option<Instant>,
    waiting: bool,
}

impl Preview {
    fn start(tmux: Tmux, wake: UnixStream) -> Self {
        let (requests, inbox) = mpsc::channel::<PaneId>();
        let (outbox, results) = mpsc::channel();
        std::thread::spawn(move || {
            let mut wake = wake;
            while let Ok(mut pane) = inbox.recv() {
                // Only the newest request matters.
                while let Ok(newer) = inbox.try_recv() {
                    pane = newer;
                }
                let captured = tmux.capture_pane(&pane).map_err(|error| error.to_string());
                if outbox.send((pane, captured)).is_err() {
                    return;
                }
                let _ = wake.write(&[1]);
            }
        });
        Preview {
            requests,
            results,
            wanted: None,
            shown: None,
            asked: None,
            waiting: false,
        }
    }

    /// Show this pane (or none); ask for a capture when one is due.
    fn want(&mut self, pane: Option<PaneId>) {
        self.wanted = pane;
        let due = self.deadline().is_some_and(|due| due <= Instant::now());
        if let Some(pane) = self.wanted.clone().filter(|_| due)
            && self.requests.send(pane).is_ok()
        {
            self.waiting = true;
            self.asked = Some(Instant::now());
        }
    }

    /// When the next capture is due: `None` while one is out or nothing is
    /// to be shown.
    fn deadline(&self) -> Option<Instant> {
        let wanted = self.wanted.as_ref()?;
        if self.waiting {
            return None;
        }
        let earliest = self
            .asked
            .map_or_else(Instant::now, |asked| asked + CAPTURE_GAP);
        Some(match &self.shown {
            Some((pane, _, at)) if pane == wanted => earliest.max(*at + REFRESH),
            _ => earliest,
        })
    }

    /// Take a capture that arrived; whether the preview changed.
    fn receive(&mut self) -> bool {
        let mut changed = false;
        while let Ok((pane, captured)) = self.results.try_recv() {
            self.waiting = false;
            let same = matches!(&self.shown, Some((shown, text, _)) if *shown == pane && *text == captured);
            changed |= !same;
            self.shown = Some((pane, captured, Instant::now()));
        }
        changed
    }

    /// The lines to show in `area`: the wanted pane's text, or why there
    /// is none (no Session is selected, or the selected one has no pane).
    fn lines(&self, area: Option<Area>, selected: bool) -> Vec<String> {
        let Some(area) = area else {
            return Vec::new();
        };
        let (width, height) = (usize::from(area.width), usize::from(area.height));
        let text = match (&self.wanted, &self.shown) {
            (None, _) if !selected => "(no session matches)",
            (None, _) => "(no tmux pane: the session is not running in tmux)",
            (Some(wanted), Some((pane, captured, _))) if wanted == pane => match captured {
                Ok(text) => text,
                Err(why) => why,
            },
            // Captured soon; an old pane's text would mislead meanwhile.
            _ => "",
        };
        pick::preview(text, width, height)
    }
}
