//! Text lf did not write, made safe to show: an argument, a title, what
//! another machine said. One rule for every message (`quote`,
//! `host_text`), so a hostile argument cannot rewrite the user's terminal.

/// Quote untrusted text for a message: bounded and with control characters
/// escaped, so a hostile argument cannot rewrite the user's terminal.
pub fn quote(text: &str) -> String {
    escape(text, 80, true)
}

/// The most characters of another machine's text a message shows. A
/// remote lf's own message (a sentence that may quote a path or two, and
/// for a lookup the problems of that machine's hosts) stays well below
/// it; `quote`'s 80 would cut such a message mid-sentence.
pub const HOST_TEXT_MAX: usize = 2_000;

/// Text another machine sent, for a message: a remote lf's error, the
/// last words of ssh or the remote shell, a decoder's complaint that holds
/// the host's bytes. Everything a host says is untrusted (a hostile or
/// broken machine can say anything), so it is escaped by the same rule as
/// `quote`, only bounded more generously and without quotes around it:
/// it is a sentence of its own, which may hold quotes of its own.
pub fn host_text(text: &str) -> String {
    escape(text, HOST_TEXT_MAX, false)
}

/// The one rule for showing text lf did not write: every character that
/// Rust's `{:?}` escapes is shown as its escape (`\u{1b}`, `\n`), so it
/// reaches a terminal as plain characters. That is every control
/// character (ESC, BEL, the C1 CSI), the bidi controls U+202A–U+202E and
/// U+2066–U+2069 (which reorder what follows on the line), the other
/// invisible format characters, and line separators; the tests below pin
/// it. At most `max` characters, then `…`. `quoted` puts the text in
/// double quotes and escapes quotes and backslashes within, so it reads as
/// `{:?}` does; without it they stay as they are (they act on no terminal).
fn escape(text: &str, max: usize, quoted: bool) -> String {
    let mut shown = String::new();
    if quoted {
        shown.push('"');
    }
    for (count, c) in text.chars().enumerate() {
        if count == max {
            shown.push('…');
            break;
        }
        match c {
            '"' | '\\' if quoted => {
                shown.push('\\');
                shown.push(c);
            }
            '"' | '\'' | '\\' => shown.push(c),
            _ => shown.extend(c.escape_debug()),
        }
    }
    if quoted {
        shown.push('"');
    }
    shown
}

/// A character that reorders or hides text where it is shown: the
/// bidirectional controls (embeddings and overrides U+202A–U+202E,
/// isolates U+2066–U+2069, the marks U+200E, U+200F and U+061C) and the
/// invisible format characters (zero-width space, non-joiner and joiner
/// U+200B–U+200D, word joiner and invisible operators U+2060–U+2064, the
/// deprecated format controls U+206A–U+206F, the byte-order mark U+FEFF,
/// the soft hyphen U+00AD, the Mongolian vowel separator U+180E, the line
/// and paragraph separators U+2028 and U+2029, the interlinear
/// annotation controls U+FFF9–U+FFFB). A file named
/// `invoice\u{202e}fdp.exe` reads as `invoiceexe.pdf` where it is drawn.
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

/// The display filter: text lf did not write (a file name, a screen's
/// line, a title, a message quoting a path), made safe to draw on a page
/// or a terminal as it is. Every control character (C0, DEL, C1: ESC,
/// BEL, CSI) but a newline and a tab, and every character `is_hidden`
/// names, is shown as its escape, `\u{202e}`: visible where it was,
/// acting on nothing. The rest (every script, emoji, quotes) is kept.
/// Text with nothing to escape is returned as it is.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let shown = |c: char| (c.is_control() && c != '\n' && c != '\t') || is_hidden(c);
    if !text.chars().any(shown) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if shown(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_bounds_and_escapes_untrusted_text() {
        assert_eq!(quote("a\u{1b}[2J"), "\"a\\u{1b}[2J\"");
        assert!(quote(&"x".repeat(10_000)).len() < 100);
        // Quotes and backslashes as `{:?}` shows them.
        let text = "it's \"x\" \\ \u{7}\n\u{202e}";
        assert_eq!(quote(text), format!("{text:?}"));
    }

    #[test]
    fn visible_shows_what_reorders_or_hides_text_as_its_escape() {
        assert_eq!(visible("invoice\u{202e}fdp.exe"), "invoice\\u{202e}fdp.exe");
        assert_eq!(
            visible("a\u{1b}[2Jb\u{9b}c\u{7f}"),
            "a\\u{1b}[2Jb\\u{9b}c\\u{7f}"
        );
        for c in [
            '\u{202a}', '\u{202d}', '\u{2066}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{61c}',
            '\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{ad}', '\u{2028}',
        ] {
            assert_eq!(
                visible(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", c as u32)
            );
        }
        // Lines, tabs, other scripts and quotes are text.
        let kept = "Sitzung für 日本\n\t\"it's\" <b> \\ 👍";
        assert!(matches!(visible(kept), std::borrow::Cow::Borrowed(_)));
        assert_eq!(visible(kept), kept);
    }

    #[test]
    fn host_text_escapes_what_acts_on_a_terminal_and_is_bounded() {
        assert_eq!(
            host_text("on \"x\": \u{1b}]2;pwned\u{7}\u{1b}[2J\u{9b}1m\tend\n"),
            "on \"x\": \\u{1b}]2;pwned\\u{7}\\u{1b}[2J\\u{9b}1m\\tend\\n"
        );
        // Bidi controls (embeddings, overrides, isolates, marks) and
        // other invisible characters: Rust's escape_debug escapes them all.
        for c in [
            '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{61c}', '\u{2028}', '\u{feff}',
        ] {
            let shown = host_text(&format!("a{c}b"));
            assert_eq!(shown, format!("a\\u{{{:x}}}b", c as u32));
            assert!(quote(&c.to_string()).is_ascii(), "{shown}");
        }
        // Other scripts stay readable.
        assert_eq!(host_text("Sitzung für 日本"), "Sitzung für 日本");
        let long = host_text(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), HOST_TEXT_MAX + 1);
        assert!(long.ends_with('…'));
        assert_eq!(
            host_text(&"x".repeat(HOST_TEXT_MAX)),
            "x".repeat(HOST_TEXT_MAX)
        );
    }
}
