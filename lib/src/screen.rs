//! A terminal's text made safe to show: what an agent's pane or a CLI's
//! stderr printed is untrusted, so it is parsed as a terminal would parse
//! it (the `vte` crate, Alacritty's parser) and only text is kept — every
//! escape sequence, string and control character taken out, never
//! interpreted — or, for a view lf draws on a terminal itself, text and
//! the colours of SGR sequences (digits, `;` and `:` only).

use unicode_width::UnicodeWidthChar;

/// A line of terminal output as plain text, trimmed: every escape
/// sequence and control character removed.
pub fn plain(line: &str) -> String {
    let mut text = Text::new(None);
    vte::Parser::new().advance(&mut text, line.as_bytes());
    text.shown.trim().to_owned()
}

/// The last `count` lines of a captured screen that show anything, as
/// plain text (see [`plain`]): what a page shows of a Session's pane.
pub fn last_lines(captured: &str, count: usize) -> Vec<String> {
    let mut lines: Vec<String> = captured.lines().map(plain_untrimmed).collect();
    while lines.last().is_some_and(|line| line.trim().is_empty()) {
        lines.pop();
    }
    let skip = lines.len().saturating_sub(count);
    lines.split_off(skip)
}

/// [`plain`], keeping the line's indentation (a screen's columns).
fn plain_untrimmed(line: &str) -> String {
    let mut text = Text::new(None);
    vte::Parser::new().advance(&mut text, line.as_bytes());
    text.shown.trim_end().to_owned()
}

/// A line to draw in `width` columns of a terminal: its text and colours
/// (SGR), every other sequence and control character removed, a tab
/// expanded to the next multiple of 8 columns, cut at `width`, and ending
/// with its colours reset; and whether it shows nothing.
pub fn colored(line: &str, width: usize) -> (String, bool) {
    let mut text = Text::new(Some(width));
    vte::Parser::new().advance(&mut text, line.as_bytes());
    text.shown.push_str("\x1b[0m");
    (text.shown, text.blank)
}

/// The longest SGR sequence kept (its parameters, in bytes).
const SGR_MAX: usize = 64;

/// What a line shows, as the parser goes through it.
struct Text {
    shown: String,
    /// Colours kept, tabs expanded and the line cut at this many columns.
    width: Option<usize>,
    used: usize,
    blank: bool,
}

impl Text {
    fn new(width: Option<usize>) -> Self {
        Text {
            shown: String::new(),
            width,
            used: 0,
            blank: true,
        }
    }

    /// Show `c` in `columns` columns, if they fit.
    fn show(&mut self, c: char, columns: usize) -> bool {
        if self.width.is_some_and(|width| self.used + columns > width) {
            self.used = usize::MAX / 2;
            return false;
        }
        self.shown.push(c);
        self.used += columns;
        self.blank &= c.is_whitespace();
        true
    }
}

impl vte::Perform for Text {
    fn print(&mut self, c: char) {
        if !crate::input::is_unsafe(c) {
            self.show(c, c.width().unwrap_or(0));
        }
    }

    fn execute(&mut self, byte: u8) {
        if byte == b'\t'
            && let Some(width) = self.width
        {
            let spaces = (8 - self.used % 8).min(width.saturating_sub(self.used));
            for _ in 0..spaces {
                self.show(' ', 1);
            }
        }
    }

    fn csi_dispatch(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        ignore: bool,
        action: char,
    ) {
        if self.width.is_none() || action != 'm' || ignore || !intermediates.is_empty() {
            return;
        }
        let sgr = params
            .iter()
            .map(|sub| sub.iter().map(u16::to_string).collect::<Vec<_>>().join(":"))
            .collect::<Vec<_>>()
            .join(";");
        if sgr.len() <= SGR_MAX && self.used <= self.width.unwrap_or(0) {
            self.shown.push_str("\x1b[");
            self.shown.push_str(&sgr);
            self.shown.push('m');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_the_text_alone() {
        assert_eq!(
            plain("\u{1b}[1;31mERROR:\u{1b}[0m No saved session found\r"),
            "ERROR: No saved session found"
        );
        assert_eq!(plain("\u{1b}(Bok\u{7}"), "ok");
        assert_eq!(plain("\u{1b}]0;title\u{7}done"), "done");
        assert_eq!(
            plain("a\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\b"),
            "alinkb"
        );
        assert_eq!(plain("\u{202e}evil\u{2066}"), "evil");
        assert_eq!(plain("   "), "");
    }

    #[test]
    fn last_lines_are_plain_and_end_with_what_shows_something() {
        let captured = "one\n  \x1b[1mtwo\x1b[0m\n\x1b]0;title\x07three\x1b[2J\n\n  \n";
        assert_eq!(last_lines(captured, 2), ["  two", "three"]);
        assert_eq!(last_lines(captured, 9), ["one", "  two", "three"]);
        assert!(last_lines("\n\n", 3).is_empty());
        assert!(last_lines("x", 0).is_empty());
    }

    #[test]
    fn colored_text_keeps_colours_alone_and_fits_the_width() {
        let text = |line: &str, width: usize| colored(line, width).0;
        assert_eq!(
            text("\x1b[1;31mred\x1b[0m plain", 40),
            "\x1b[1;31mred\x1b[0m plain\x1b[0m"
        );
        assert_eq!(
            text(
                "\x1b[2J\x1b[Hcleared\x1b[10;1Hmoved\x1b[?1049l\x1b]0;title\x07\x1bcreset",
                40
            ),
            "clearedmovedreset\x1b[0m"
        );
        assert_eq!(
            text("\x08\r\x1b[>4;1m\x1b[38:5:1mx", 40),
            "\x1b[38:5:1mx\x1b[0m"
        );
        assert_eq!(text("a\tb", 40), "a       b\x1b[0m");
        assert_eq!(text("\tx", 3), "   \x1b[0m");
        assert_eq!(text("three", 3), "thr\x1b[0m");
        assert_eq!(text("\x1b[1m界界", 3), "\x1b[1m界\x1b[0m");
        let long = format!("\x1b[{}mx", "1;".repeat(40));
        assert_eq!(text(&long, 40), "x\x1b[0m", "an SGR too long to keep");
        assert!(colored(" \t ", 40).1, "blank");
        assert!(!colored("\x1b[1m.", 40).1);
    }
}
