//! What to type next after an error, typed: the library says what went
//! wrong and which lf command helps, and each surface spells that command
//! in its own words. The binaries print `lf-work task list`; the Nushell
//! plugin, whose commands are spelled `lf work task list`, prints its own
//! (or the external `^lf-host list` for a command it does not have). So no
//! message names a binary, and a Nushell user is never told to type one
//! that their shell spells otherwise (docs/decisions/0027-errors-by-domain.md).

use std::borrow::Cow;
use std::fmt;

/// An lf command a hint names, with the arguments it is shown with. Its
/// `Display` is the binaries' spelling (`lf-handoff finish ID --failed
/// REASON`); another surface spells it from `program` and `words`.
#[derive(Debug, Clone, PartialEq, Eq, strum::EnumIter)]
pub enum Command {
    /// List Sessions (`--all`: the completed ones too).
    SessionList {
        all: bool,
    },
    /// Record a new Session; `command` is an example argv for the
    /// command provider.
    SessionNew {
        command: Option<&'static [&'static str]>,
    },
    /// Open a Session, of `host` when it is on another machine.
    SessionOpen {
        id: String,
        host: Option<String>,
    },
    WorkTaskList,
    /// Register a Task (`--worktree DIR`: with its checkout).
    WorkTaskAdd {
        worktree: bool,
    },
    WorkWaveList,
    WorkWaveAdd,
    HandoffList,
    HandoffShow {
        id: String,
    },
    /// Record a handoff's outcome (`failed`: as failed, with a reason).
    HandoffFinish {
        id: String,
        failed: bool,
    },
    HostList,
    /// Add a host to the host list (`bin`: naming the folder of its
    /// binaries).
    HostAdd {
        host: Option<String>,
        bin: bool,
    },
    HostRemove {
        host: Option<String>,
    },
    /// Open the repository's primary Session.
    Primary,
}

/// One word of a command as a person types it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Typed as it is: an id, a flag, a placeholder (`REASON`).
    Text(Cow<'static, str>),
    /// The argv of a command to run, which each surface passes its own way
    /// (the binaries after `--`, the plugin as `--argv [...]`).
    Argv(&'static [&'static str]),
}

impl Command {
    /// Every command a hint can name, each with every argument it can be
    /// shown with: what a surface's test checks its spelling of.
    pub fn all() -> impl Iterator<Item = Command> {
        let id = || "ID".to_owned();
        let host = || Some("HOST".to_owned());
        <Command as strum::IntoEnumIterator>::iter().map(move |command| match command {
            Command::SessionList { .. } => Command::SessionList { all: true },
            Command::SessionNew { .. } => Command::SessionNew {
                command: Some(&["htop"]),
            },
            Command::SessionOpen { .. } => Command::SessionOpen {
                id: id(),
                host: host(),
            },
            Command::WorkTaskAdd { .. } => Command::WorkTaskAdd { worktree: true },
            Command::HandoffShow { .. } => Command::HandoffShow { id: id() },
            Command::HandoffFinish { .. } => Command::HandoffFinish {
                id: id(),
                failed: true,
            },
            Command::HostAdd { .. } => Command::HostAdd {
                host: host(),
                bin: true,
            },
            Command::HostRemove { .. } => Command::HostRemove { host: host() },
            Command::WorkTaskList
            | Command::WorkWaveList
            | Command::WorkWaveAdd
            | Command::HandoffList
            | Command::HostList
            | Command::Primary => command,
        })
    }

    /// The binary that runs it and the subcommand words after it
    /// (`("lf-work", ["task", "list"])`).
    pub fn program(&self) -> (&'static str, &'static [&'static str]) {
        use Command::*;
        match self {
            SessionList { .. } => ("lf-session-list", &[]),
            SessionNew { .. } => ("lf-session-new", &[]),
            SessionOpen { .. } => ("lf-session-open", &[]),
            WorkTaskList => ("lf-work", &["task", "list"]),
            WorkTaskAdd { .. } => ("lf-work", &["task", "add"]),
            WorkWaveList => ("lf-work", &["wave", "list"]),
            WorkWaveAdd => ("lf-work", &["wave", "add"]),
            HandoffList => ("lf-handoff", &["list"]),
            HandoffShow { .. } => ("lf-handoff", &["show"]),
            HandoffFinish { .. } => ("lf-handoff", &["finish"]),
            HostList => ("lf-host", &["list"]),
            HostAdd { .. } => ("lf-host", &["add"]),
            HostRemove { .. } => ("lf-host", &["remove"]),
            Primary => ("lf-primary", &[]),
        }
    }

    /// The arguments after the command's name, the same on every surface
    /// but for an argv (`Word::Argv`).
    pub fn words(&self) -> Vec<Word> {
        let text = |word: &str| Word::Text(Cow::Owned(word.to_owned()));
        let flag = |word: &'static str| Word::Text(Cow::Borrowed(word));
        let mut words = Vec::new();
        match self {
            Command::SessionList { all: true } => words.push(flag("--all")),
            Command::SessionNew {
                command: Some(argv),
            } => words.extend([flag("--provider"), flag("command"), Word::Argv(argv)]),
            Command::SessionOpen { id, host } => {
                words.push(text(id));
                if let Some(host) = host {
                    words.extend([flag("--host"), text(host)]);
                }
            }
            Command::WorkTaskAdd { worktree: true } => {
                words.extend([flag("--worktree"), flag("DIR")]);
            }
            Command::HandoffShow { id } => words.push(text(id)),
            Command::HandoffFinish { id, failed } => {
                words.push(text(id));
                if *failed {
                    words.extend([flag("--failed"), flag("REASON")]);
                }
            }
            Command::HostAdd { host, bin } => {
                words.extend(host.as_deref().map(text));
                if *bin {
                    words.extend([flag("--bin"), flag("DIR")]);
                }
            }
            Command::HostRemove { host } => words.extend(host.as_deref().map(text)),
            _ => {}
        }
        words
    }
}

/// The binaries' spelling: `lf-work task add --worktree DIR`.
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (binary, subcommand) = self.program();
        f.write_str(binary)?;
        for word in subcommand {
            write!(f, " {word}")?;
        }
        for word in self.words() {
            match word {
                Word::Text(text) => write!(f, " {text}")?,
                Word::Argv(argv) => write!(f, " -- {}", argv.join(" "))?,
            }
        }
        Ok(())
    }
}

/// What to type next: a sentence around lf commands. The library writes
/// the sentence; `render` lets a surface spell each command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint(Vec<Part>);

/// A piece of a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(Cow<'static, str>),
    Command(Command),
}

impl Hint {
    /// A hint that starts with `text`.
    pub fn text(text: impl Into<Cow<'static, str>>) -> Self {
        Hint(vec![Part::Text(text.into())])
    }

    /// This hint, then `text`.
    pub fn then(mut self, text: impl Into<Cow<'static, str>>) -> Self {
        self.0.push(Part::Text(text.into()));
        self
    }

    /// This hint, then `command`, spelled by the surface that shows it.
    pub fn command(mut self, command: Command) -> Self {
        self.0.push(Part::Command(command));
        self
    }

    pub fn parts(&self) -> &[Part] {
        &self.0
    }

    /// The commands this hint names.
    pub fn commands(&self) -> impl Iterator<Item = &Command> {
        self.0.iter().filter_map(|part| match part {
            Part::Command(command) => Some(command),
            Part::Text(_) => None,
        })
    }

    /// The hint as a surface shows it, each command spelled by `spell`.
    pub fn render(&self, spell: impl Fn(&Command) -> String) -> String {
        let mut text = String::new();
        for part in &self.0 {
            match part {
                Part::Text(words) => text.push_str(words),
                Part::Command(command) => text.push_str(&spell(command)),
            }
        }
        text
    }
}

/// A hint that starts with `command`.
impl From<Command> for Hint {
    fn from(command: Command) -> Self {
        Hint(vec![Part::Command(command)])
    }
}

/// The binaries' words (`Command`'s `Display`).
impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Command::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binaries_spell_a_command_with_its_binary_and_words() {
        let hint = Hint::text("see ")
            .command(Command::WorkTaskList)
            .then(", or finish it with ")
            .command(Command::HandoffFinish {
                id: "handoff-1".into(),
                failed: true,
            });
        assert_eq!(
            hint.to_string(),
            "see lf-work task list, or finish it with lf-handoff finish handoff-1 --failed REASON"
        );
        let new = Command::SessionNew {
            command: Some(&["htop"]),
        };
        assert_eq!(new.to_string(), "lf-session-new --provider command -- htop");
        assert_eq!(hint.commands().count(), 2);
    }
}
