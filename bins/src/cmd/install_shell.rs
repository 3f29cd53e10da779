use crate::generated::{self, Target};
use crate::install::{self, Action, Places, Report};
use crate::{Output, Tool};
use clap::{Parser, ValueEnum};
use std::path::{Path, PathBuf};

/// Install lf's shell completions and man pages for you (no root needed).
///
/// Puts every lf-* binary's man page beside the binaries
/// (~/.cargo/share/man/man1, where man finds it through PATH) and its
/// completions where each shell looks for a user's: bash-completion's
/// ${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-~/.local/share}/bash-completion}/completions,
/// zsh: ${XDG_DATA_HOME:-~/.local/share}/zsh/site-functions, put on fpath by
/// a marked block at the top of ${ZDOTDIR:-~}/.zshrc; fish:
/// ${XDG_DATA_HOME:-~/.local/share}/fish/vendor_completions.d; Nushell: the
/// externs in ${XDG_DATA_HOME:-~/.local/share}/nushell/vendor/autoload,
/// which Nushell sources at start. By default for every shell found on
/// PATH (bash, zsh, fish, nu). A file there that is not lf's is kept, and
/// said; running it again changes nothing. Open a new shell afterwards.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  cargo install --locked --path bins && cargo install --locked --path plugin && lf-install-shell
  lf-install-shell --shell zsh --shell fish
  lf-install-shell --json | jq -r '.changes[] | select(.action != \"unchanged\") | .path'
  lf-install-shell --uninstall"
)]
pub struct Cli {
    /// Install for this shell only (repeatable); default: every one on PATH.
    #[arg(long, value_enum, value_name = "SHELL")]
    shell: Vec<ShellName>,
    /// Remove lf's completions, man pages and .zshrc block (files of yours stay).
    #[arg(long, conflicts_with = "shell")]
    uninstall: bool,
    /// Print what was done as JSON: {"changes": [{target, path, action}], "notes": [...]}.
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
            self.shell.clone()
        };
        let asks_zsh = self.uninstall || shells.contains(&ShellName::Zsh);
        let zdotdir = asks_zsh.then(|| install::zsh_dotdir(var)).flatten();
        let places = Places::for_user(var, &bin, zdotdir)?;
        let mut report = if self.uninstall {
            install::uninstall(&places)?
        } else {
            let targets: Vec<Target> = std::iter::once(Target::Man)
                .chain(shells.iter().map(|shell| shell.target()))
                .collect();
            let mut report = install::install(&places, &targets, &generated::render_all())?;
            report.notes.extend(install::man_notes(&places, var));
            report
        };
        report.notes.splice(0..0, notes);
        for note in &report.notes {
            eprintln!("{}: {note}", Self::NAME);
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

/// One line per folder for a person: what is there now and what changed.
fn summary(report: &Report, places: &Places) -> String {
    let mut text = String::new();
    let mut dirs: Vec<(Target, PathBuf)> = Vec::new();
    for change in &report.changes {
        let dir = change.path.parent().unwrap_or(Path::new("")).to_owned();
        if !dirs.contains(&(change.target, dir.clone())) {
            dirs.push((change.target, dir));
        }
    }
    for (target, dir) in dirs {
        let here: Vec<Action> = report
            .changes
            .iter()
            .filter(|change| change.target == target && change.path.parent() == Some(&dir))
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
        };
        let what = if target == Target::Zsh && dir == places.zshrc.parent().unwrap_or(&dir) {
            format!("{} (lf's fpath block)", places.zshrc.display())
        } else {
            dir.display().to_string()
        };
        text.push_str(&format!("{label}: {what}: {}\n", counts.join(", ")));
    }
    if text.is_empty() {
        text.push_str("nothing of lf's was installed\n");
    }
    text
}
