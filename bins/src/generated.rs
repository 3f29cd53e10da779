//! Shell completions and man pages, rendered from the same clap definitions
//! the binaries parse with ([`crate::commands`]). One renderer serves both
//! the files kept in the repository (`completions/`, `man/`, held current by
//! `tests/generated.rs`) and `lf-install-shell`, which puts them where each
//! shell and `man` look; so what a person gets is what the repository shows.

use clap_complete::Shell;

/// What a generated file is for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Man,
    Bash,
    Zsh,
    Fish,
    Nushell,
    /// The tmux kit, `share/tmux/lf.tmux`: not rendered but carried as it
    /// is (see [`crate::install::tmux_kit`]), installed beside the rest.
    Tmux,
}

/// One rendered file: for a shell, the completion of one binary (`name` is
/// the binary); for `man`, one page (`name` is the page, such as
/// `lf-work-wave-add`, a binary or one of its subcommands).
#[derive(Debug, Clone)]
pub struct Generated {
    pub target: Target,
    pub name: String,
    pub content: Vec<u8>,
}

/// Every completion and man page of every binary.
pub fn render_all() -> Vec<Generated> {
    let mut files = Vec::new();
    for command in crate::commands() {
        let name = command.get_name().to_owned();
        for (target, shell) in [
            (Target::Bash, Shell::Bash),
            (Target::Zsh, Shell::Zsh),
            (Target::Fish, Shell::Fish),
        ] {
            let mut content = Vec::new();
            clap_complete::generate(shell, &mut command.clone(), &name, &mut content);
            files.push(Generated {
                target,
                name: name.clone(),
                content,
            });
        }
        let mut content = Vec::new();
        clap_complete::generate(
            clap_complete_nushell::Nushell,
            &mut command.clone(),
            &name,
            &mut content,
        );
        files.push(Generated {
            target: Target::Nushell,
            name,
            content,
        });
        man_pages(command, &mut files);
    }
    files
}

/// Man pages for a command and, recursively, its visible subcommands
/// (`lf-work-wave-add`), named as `clap_mangen` names them. Every page names
/// the installed binary and its version as its source.
fn man_pages(command: clap::Command, files: &mut Vec<Generated>) {
    fn render(command: &clap::Command, source: &str, files: &mut Vec<Generated>) {
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            render(sub, source, files);
        }
        let man = clap_mangen::Man::new(command.clone()).source(source);
        let file = man.get_filename();
        let mut content = Vec::new();
        man.render(&mut content)
            .expect("rendering into memory cannot fail");
        files.push(Generated {
            target: Target::Man,
            name: file.strip_suffix(".1").unwrap_or(&file).to_owned(),
            content,
        });
    }
    let source = format!(
        "{} {}",
        command.get_name(),
        command.get_version().unwrap_or_default()
    );
    let mut command = command.disable_help_subcommand(true);
    command.build();
    render(&command, source.trim_end(), files);
}
