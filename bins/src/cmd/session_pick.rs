use crate::{Output, Tool, open_lf};
use clap::Parser;
use lf::session::pick;
use lf::wire::SessionRecord;
use std::io::{Read, Write};

/// Pick a session with the keyboard and open it (for a tmux popup).
///
/// Shows open sessions, those that need you first (review, approve,
/// reply), then the rest, newest first. Type to filter (every word must
/// match the title, work path, id or directory), Up/Down or Ctrl-P/Ctrl-N
/// to move, Enter to open the choice with lf-session-open, Esc or Ctrl-C to
/// leave. The picker draws on the terminal (/dev/tty), so --print can send
/// the chosen record to stdout instead of opening it.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  tmux bind-key a display-popup -E 'lf-session-pick --attention'
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
        let filter = lf::ListFilter {
            attention: self.attention,
            task: self.task,
            ..Default::default()
        };
        let mut records = lf.list(&filter)?.collect::<lf::Result<Vec<_>>>()?;
        if records.is_empty() {
            return Err(lf::Error::NothingToPick);
        }
        pick::order(&mut records);
        let Some(chosen) = Terminal::open()?.choose(&records)? else {
            return Ok(());
        };
        if self.print {
            return out.json(chosen);
        }
        let program = lf::session::launch::sibling_program("lf-session-open");
        Err(lf::session::Destination::exec(&[
            program.display().to_string(),
            chosen.id.clone(),
        ]))
    }
}

/// The controlling terminal in raw mode; restored when dropped.
struct Terminal {
    tty: std::fs::File,
    saved: rustix::termios::Termios,
}

impl Terminal {
    fn open() -> lf::Result<Self> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|_| lf::Error::NoTerminal)?;
        use rustix::termios::{OptionalActions, tcgetattr, tcsetattr};
        let saved = tcgetattr(&tty).map_err(|_| lf::Error::NoTerminal)?;
        let mut raw = saved.clone();
        raw.make_raw();
        tcsetattr(&tty, OptionalActions::Now, &raw)
            .map_err(|error| lf::Error::Terminal("put in raw mode", error.into()))?;
        let mut terminal = Terminal { tty, saved };
        // The alternate screen, so the picker leaves the screen as it was.
        terminal.write("\x1b[?1049h")?;
        Ok(terminal)
    }

    fn write(&mut self, text: &str) -> lf::Result<()> {
        self.tty
            .write_all(text.as_bytes())
            .and_then(|()| self.tty.flush())
            .map_err(|error| lf::Error::Terminal("write to", error))
    }

    fn size(&self) -> (usize, usize) {
        match rustix::termios::tcgetwinsize(&self.tty) {
            Ok(size) if size.ws_col > 0 && size.ws_row > 0 => {
                (size.ws_col as usize, size.ws_row as usize)
            }
            _ => (80, 24),
        }
    }

    fn draw(&mut self, query: &str, shown: &[&SessionRecord], selected: usize) -> lf::Result<()> {
        let (width, height) = self.size();
        let rows = height.saturating_sub(2).max(1);
        let first = selected.saturating_sub(rows - 1);
        let mut screen = String::from("\x1b[H\x1b[2J");
        screen.push_str(&format!("> {query}\r\n"));
        for (index, record) in shown.iter().enumerate().skip(first).take(rows) {
            let line = pick::line(record, width.saturating_sub(2));
            if index == selected {
                screen.push_str(&format!("\x1b[7m> {line}\x1b[0m\r\n"));
            } else {
                screen.push_str(&format!("  {line}\r\n"));
            }
        }
        if shown.is_empty() {
            screen.push_str("  (no session matches)\r\n");
        }
        self.write(&screen)
    }

    /// Let the person choose; `None` when they leave without choosing.
    fn choose<'a>(
        &mut self,
        records: &'a [SessionRecord],
    ) -> lf::Result<Option<&'a SessionRecord>> {
        let mut query = String::new();
        let mut selected = 0usize;
        let mut buffer = [0u8; 64];
        loop {
            let shown: Vec<&SessionRecord> = records
                .iter()
                .filter(|record| pick::matches(record, &query))
                .collect();
            selected = selected.min(shown.len().saturating_sub(1));
            self.draw(&query, &shown, selected)?;
            let count = self
                .tty
                .read(&mut buffer)
                .map_err(|error| lf::Error::Terminal("read", error))?;
            if count == 0 {
                return Ok(None);
            }
            let keys = &buffer[..count];
            match keys {
                [b'\r'] | [b'\n'] => return Ok(shown.get(selected).copied()),
                [0x1b] | [3] | [4] => return Ok(None),
                [0x1b, b'[', b'A'] | [0x1b, b'O', b'A'] | [16] => {
                    selected = selected.saturating_sub(1)
                }
                [0x1b, b'[', b'B'] | [0x1b, b'O', b'B'] | [14] => selected += 1,
                [127] | [8] => {
                    query.pop();
                }
                [0x1b, ..] => {}
                _ => {
                    for c in String::from_utf8_lossy(keys).chars() {
                        if c == '\r' || c == '\n' {
                            let shown: Vec<&SessionRecord> = records
                                .iter()
                                .filter(|record| pick::matches(record, &query))
                                .collect();
                            return Ok(shown.get(selected).copied());
                        }
                        if !c.is_control() {
                            query.push(c);
                            selected = 0;
                        }
                    }
                }
            }
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.write("\x1b[?1049l");
        let _ = rustix::termios::tcsetattr(
            &self.tty,
            rustix::termios::OptionalActions::Now,
            &self.saved,
        );
    }
}
