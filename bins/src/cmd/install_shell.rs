use crate::generated::{self, Target};
use crate::install::{self, Action, Places, Report};
use crate::{Output, Tool};
use clap::{Parser, ValueEnum};
use std::path::Path;

/// Install lf's man pages and shell completions for you (no root needed).
///
/// Man pages go beside the binaries (~/.cargo/share/man/man1), where man
/// finds them through PATH. Completions go where each shell looks for a
/// user's: bash-completion's user folder; for zsh
/// ${XDG_DATA_HOME:-~/.local/share}/zsh/site-functions, put on fpath by a
/// marked block at the top of .zshrc; fish's vendor_completions.d and
/// Nushell's vendor/autoload under ${XDG_DATA_HOME:-~/.local/share}. It
/// installs for each of bash, zsh, fish and nu found on PATH, and the tmux
/// kit as ${XDG_DATA_HOME:-~/.local/share}/loopflow/tmux/lf.tmux (for
/// `run-shell` in ~/.tmux.conf). A file there that is not lf's is kept,
/// and named; running it again changes nothing. It warns (on stderr, and
/// in --json's "warnings") when bash or zsh will not load the completions:
/// no bash-completion, or none sourced by ~/.bashrc; a .zshrc without
/// compinit; each warning names the line to add. Open a new shell
/// afterwards.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  cargo install --locked --path bins && cargo install --locked --path plugin && lf-install-shell
  lf-install-shell --shell zsh --shell fish
  lf-install-shell --json | jq -r '.changes[] | select(.action != \"unchanged\") | .path'
  lf-install-shell --json | jq -r '.warnings[] | \"\\(.file): \\(.add // .message)\"'
  lf-install-shell --uninstall"
)]
pub struct Cli {
    /// Install for this shell only (repeatable); default: every one on PATH.
    #[arg(long, value_enum, value_name = "SHELL")]
    shell: Vec<ShellName>,
    /// Remove lf's completions, man pages, tmux kit and .zshrc block (files of yours stay).
    #[arg(long, conflicts_with = "shell")]
    uninstall: bool,
    /// Print what was done as JSON: {"changes": [{target, path, action}], "notes": [...],
    /// "warnings": [{kind, target, file, add, message}]}.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShellName {
    Bash,
    Zsh,
    Fish,
    #[value(alias = "nu")]
    Nushell,
}

impl ShellName {
    const ALL: [ShellName; 4] = [
        ShellName::Bash,
        ShellName::Zsh,
        ShellName::Fish,
        ShellName::Nushell,
    ];

    fn program(self) -> &'static str {
        match self {
            ShellName::Bash => "bash",
            ShellName::Zsh => "zsh",
            ShellName::Fish => "fish",
            ShellName::Nushell => "nu",
        }
    }

    fn target(self) -> Target {
        match self {
            ShellName::Bash => Target::Bash,
            ShellName::Zsh => Target::Zsh,
            ShellName::Fish => Target::Fish,
            ShellName::Nushell => Target::Nushell,
        }
    }
}

impl Tool for Cli {
    const NAME: &'static str = "lf-install-shell";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        let exe = std::env::current_exe().map_err(|error| {
            lf::Error::io("cannot find where lf-install-shell is installed", error)
        })?;
        let bin = exe.parent().unwrap_or(Path::new("/")).to_owned();
        let mut notes = Vec::new();
        let shells: Vec<ShellName> = if self.uninstall {
            Vec::new()
        } else if self.shell.is_empty() {
            let path = var("PATH").unwrap_or_default();
            ShellName::ALL
                .into_iter()
                .filter(|shell| {
                    let found = on_path(&path, shell.program());
                    if !found {
                        notes.push(format!(
                            "{} is not on PATH, so nothing was installed for it (lf-install-shell --shell {} installs it anyway)",
                            shell.program(),
                            shell.program()
                        ));
                    }
                    found
                })
                .collect()
        } else {
            ShellName::ALL
                .into_iter()
                .filter(|shell| self.shell.contains(shell))
                .collect()
        };
        let asks_zsh = self.uninstall || shells.contains(&ShellName::Zsh);
        let zdotdir = asks_zsh.then(install::zsh_dotdir).flatten();
        let places = Places::for_user(var, &bin, zdotdir)?;
        let mut report = if self.uninstall {
            install::uninstall(&places)?
        } else {
            let targets: Vec<Target> = std::iter::once(Target::Man)
                .chain(shells.iter().map(|shell| shell.target()))
                .chain([Target::Tmux])
                .collect();
            let mut files = generated::render_all();
            files.push(install::tmux_kit());
            let mut report = install::install(&places, &targets, &files)?;
            report.notes.extend(install::man_notes(&places, var));
            if shells.contains(&ShellName::Bash) {
                let root = Path::new("/");
                report
                    .warnings
                    .extend(install::bash_warnings(&places, root, var));
            }
            if shells.contains(&ShellName::Zsh) {
                report.warnings.extend(install::zsh_warnings(&places));
            }
            report
        };
        report.notes.splice(0..0, notes);
        for note in &report.notes {
            eprintln!("{}: {note}", Self::NAME);
        }
        for warning in &report.warnings {
            eprintln!("{}: {}", Self::NAME, warning.message);
        }
        if self.json {
            out.json(&report)
        } else {
            out.raw(&summary(&report, &places))
        }
    }
}

/// Whether an executable file of this name is in a folder on PATH.
fn on_path(path: &str, program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.split(':').filter(|dir| !dir.is_empty()).any(|dir| {
        std::fs::metadata(Path::new(dir).join(program))
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// One line per folder (and one for `.zshrc`) for a person: where lf's
/// files are and what changed.
fn summary(report: &Report, places: &Places) -> String {
    let place_of = |change: &install::Change| {
        if change.path == places.zshrc {
            format!("{} (lf's fpath block)", places.zshrc.display())
        } else {
            let dir = change.path.parent().unwrap_or(Path::new(""));
            dir.display().to_string()
        }
    };
    let mut places_seen: Vec<(Target, String)> = Vec::new();
    for change in &report.changes {
        let key = (change.target, place_of(change));
        if !places_seen.contains(&key) {
            places_seen.push(key);
        }
    }
    let mut text = String::new();
    for (target, place) in places_seen {
        let here: Vec<Action> = report
            .changes
            .iter()
            .filter(|change| change.target == target && place_of(change) == place)
            .map(|change| change.action)
            .collect();
        let counts: Vec<String> = [
            (Action::Created, "created"),
            (Action::Updated, "updated"),
            (Action::Unchanged, "unchanged"),
            (Action::Removed, "removed"),
            (Action::Kept, "kept (yours)"),
        ]
        .into_iter()
        .filter_map(|(action, word)| {
            let count = here.iter().filter(|&&done| done == action).count();
            (count > 0).then(|| format!("{count} {word}"))
        })
        .collect();
        let label = match target {
            Target::Man => "man",
            Target::Bash => "bash",
            Target::Zsh => "zsh",
            Target::Fish => "fish",
            Target::Nushell => "nushell",
            Target::Tmux => "tmux",
        };
        text.push_str(&format!("{label}: {place}: {}\n", counts.join(", ")));
    }
    if text.is_empty() {
        text.push_str("nothing of lf's was there\n");
    }
    text
}
