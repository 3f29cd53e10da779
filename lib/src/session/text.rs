//! Validation of the text people and agents hand us: titles and ready
//! summaries. Untrusted text is trimmed, bounded and free of control
//! characters before it is stored, so a title can never rewrite a terminal.

use crate::error::{Error, Result};

pub const TITLE_MAX_CHARS: usize = 200;
pub const SUMMARY_MAX_CHARS: usize = 20_000;

/// A title: trimmed, 1–200 characters, no control characters.
pub fn title(text: &str) -> Result<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::usage("a title cannot be empty"));
    }
    let count = trimmed.chars().count();
    if count > TITLE_MAX_CHARS {
        return Err(Error::usage(format!(
            "a title has at most {TITLE_MAX_CHARS} characters; this one has {count}"
        )));
    }
    if let Some(bad) = trimmed.chars().find(|c| c.is_control()) {
        return Err(Error::usage(format!(
            "a title cannot contain control characters (found {:?})",
            bad
        )));
    }
    Ok(trimmed.to_owned())
}

/// A ready summary: trimmed, not empty, bounded; newlines and tabs are
/// allowed, other control characters are not.
pub fn summary(text: &str) -> Result<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::usage("ready summary cannot be empty"));
    }
    let count = trimmed.chars().count();
    if count > SUMMARY_MAX_CHARS {
        return Err(Error::usage(format!(
            "a ready summary has at most {SUMMARY_MAX_CHARS} characters; this one has {count}"
        )));
    }
    if let Some(bad) = trimmed
        .chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
    {
        return Err(Error::usage(format!(
            "a ready summary cannot contain control characters (found {:?})",
            bad
        )));
    }
    Ok(trimmed.to_owned())
}

/// A generated title from a prompt: its first line, shortened, with
/// control characters dropped. `None` when nothing printable is left.
pub fn title_from_prompt(prompt: &str) -> Option<String> {
    let line: String = prompt
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())?
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let limit = 80;
    Some(if line.chars().count() > limit {
        let cut: String = line.chars().take(limit - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        line.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_trimmed_bounded_and_printable() {
        assert_eq!(title("  Fix the parser \n").unwrap(), "Fix the parser");
        assert_eq!(title(&"é".repeat(200)).unwrap().chars().count(), 200);
        assert!(title(&"é".repeat(201)).is_err());
        assert!(title(&"x".repeat(10_000)).is_err());
        assert!(title("   ").is_err());
        assert!(title("a\u{1b}[2Jb").is_err());
        assert!(title("two\nlines").is_err());
        assert_eq!(title("\u{7}").unwrap_err().kind, crate::ErrorKind::Usage);
    }

    #[test]
    fn summaries_keep_lines_but_refuse_escapes() {
        assert_eq!(summary(" done\n\tnext ").unwrap(), "done\n\tnext");
        assert_eq!(
            summary("  ").unwrap_err().message,
            "ready summary cannot be empty"
        );
        assert!(summary("a\u{1b}b").is_err());
        assert!(summary(&"x".repeat(SUMMARY_MAX_CHARS + 1)).is_err());
    }

    #[test]
    fn prompts_give_short_generated_titles() {
        assert_eq!(
            title_from_prompt("\n  Fix the bug\nmore").as_deref(),
            Some("Fix the bug")
        );
        assert_eq!(title_from_prompt("\u{1b}"), None);
        assert_eq!(title_from_prompt(""), None);
        let long = title_from_prompt(&"word ".repeat(50)).unwrap();
        assert!(long.chars().count() <= 80 && long.ends_with('…'));
    }
}
