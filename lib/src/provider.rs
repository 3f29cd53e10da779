//! Providers: the agent CLIs lf launches. This is the only place that knows
//! a provider's name and, as launching grows, its flags.

use crate::error::{Error, Result};
use crate::ids::quote;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Any interactive command, given as an argv.
    Command,
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::Claude, Provider::Codex, Provider::Command];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Command => "command",
        }
    }

    pub fn parse(text: &str) -> Result<Self> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str() == text)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown provider {}: choose claude, codex or command",
                    quote(text)
                ))
            })
    }
}

/// A model name passes through to the provider's `--model`: a short token
/// of letters, digits and `.-_:/@[]`, nothing a shell or a flag parser could
/// misread.
pub fn validate_model(model: &str) -> Result<String> {
    let ok = !model.is_empty()
        && model.len() <= 100
        && !model.starts_with('-')
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_:/@[]".contains(c));
    if ok {
        Ok(model.to_owned())
    } else {
        Err(Error::usage(format!(
            "{} is not a model name: use up to 100 letters, digits and . - _ : / @ [ ], not starting with -",
            quote(model)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_parse_by_name() {
        for provider in Provider::ALL {
            assert_eq!(Provider::parse(provider.as_str()).unwrap(), provider);
        }
        assert!(Provider::parse("gemini").is_err());
    }

    #[test]
    fn models_are_plain_tokens() {
        assert!(validate_model("claude-opus-4-5[1m]").is_ok());
        assert!(validate_model("gpt-5.1-codex").is_ok());
        for bad in ["", "--dangerous", "a b", "x;rm", &"m".repeat(101)] {
            assert!(validate_model(bad).is_err(), "{bad}");
        }
    }
}
