//! Shell completions (`completions/`) and man pages (`man/`) are generated
//! from the same clap definitions the binaries parse with
//! (`lf_bins::commands()`), and the files in the repository must be exactly
//! what those definitions render now. To refresh them after changing a
//! command, run from the workspace root:
//!
//! ```sh
//! LF_BLESS=1 cargo test -p lf-bins --test tests generated
//! ```
//!
//! Blessing writes every generated file and removes generated files of
//! commands that no longer exist (any file under `completions/<shell>/`,
//! and `man/*.1`).

use lf_bins::generated::{self, Generated, Target};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const REFRESH: &str = "LF_BLESS=1 cargo test -p lf-bins --test tests generated";

/// The directories whose files are all generated.
const GENERATED_DIRS: &[&str] = &[
    "completions/bash",
    "completions/zsh",
    "completions/fish",
    "completions/nushell",
    "man",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_owned()
}

/// A name may be installed beside a popular file manager called `lf`:
/// nothing generated is named `lf` or `lf …`.
fn assert_not_bare_lf(name: &str) {
    assert!(
        name.starts_with("lf-"),
        "generated documentation for {name:?}: every name must start with `lf-` \
         (a bare `lf` belongs to the lf file manager and the Nushell plugin)"
    );
}

/// Every generated file, by its path relative to the workspace root (the
/// same rendering `lf-install-shell` installs, named as the repository
/// keeps it).
fn render_all() -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for Generated {
        target,
        name,
        content,
    } in generated::render_all()
    {
        assert_not_bare_lf(&name);
        let path = match target {
            Target::Bash => format!("completions/bash/{name}.bash"),
            Target::Zsh => format!("completions/zsh/_{name}"),
            Target::Fish => format!("completions/fish/{name}.fish"),
            Target::Nushell => {
                for line in String::from_utf8_lossy(&content).lines() {
                    if let Some(rest) = line.trim_start().strip_prefix("export extern \"") {
                        assert_not_bare_lf(rest.split('"').next().unwrap_or_default());
                    }
                }
                format!("completions/nushell/{name}.nu")
            }
            Target::Man => format!("man/{name}.1"),
            Target::Tmux => unreachable!("the tmux kit is not rendered"),
        };
        files.insert(PathBuf::from(path), content);
    }
    files
}

/// Files in the generated directories, whether or not they are still generated.
fn files_on_disk() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in GENERATED_DIRS {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.expect("read a generated directory");
            let relative = Path::new(dir).join(entry.file_name());
            // Under man/ only the pages (`*.1`) are generated.
            let generated = *dir != "man" || relative.extension().is_some_and(|ext| ext == "1");
            if entry.file_type().is_ok_and(|kind| kind.is_file()) && generated {
                found.push(relative);
            }
        }
    }
    found
}

#[test]
fn completions_and_man_pages_are_current() {
    let root = root();
    let rendered = render_all();
    let bless = std::env::var("LF_BLESS").as_deref() == Ok("1");
    let mut stale = Vec::new();
    for (relative, content) in &rendered {
        let path = root.join(relative);
        if std::fs::read(&path).ok().as_ref() == Some(content) {
            continue;
        }
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content)
                .unwrap_or_else(|error| panic!("write {}: {error}", path.display()));
        } else {
            stale.push(format!("  {} (missing or out of date)", relative.display()));
        }
    }
    for relative in files_on_disk() {
        if rendered.contains_key(&relative) {
            continue;
        }
        if bless {
            std::fs::remove_file(root.join(&relative)).unwrap();
        } else {
            stale.push(format!(
                "  {} (no command generates it any more)",
                relative.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "completions or man pages do not match the clap definitions:\n{}\n\
         Refresh them from the workspace root with:\n  {REFRESH}",
        stale.join("\n")
    );
}

#[test]
fn every_binary_has_a_clap_definition() {
    let bin_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/bin");
    let mut binaries: Vec<String> = std::fs::read_dir(&bin_dir)
        .expect("read bins/src/bin")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    // lf-web is the web crate's one binary (web/src/main.rs), its command
    // line defined here with the others.
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/src/main.rs");
    if web.is_file() {
        binaries.push("lf-web".to_owned());
    }
    binaries.sort();
    let mut commands: Vec<String> = lf_bins::commands()
        .iter()
        .map(|command| command.get_name().to_owned())
        .collect();
    commands.sort();
    assert_eq!(
        binaries, commands,
        "the binaries under bins/src/bin and lf-web (left) and lf_bins::commands() (right) differ; \
         every binary needs its clap definition there so its completions and man page exist"
    );
}

#[test]
fn bash_completions_are_valid_bash() {
    let Some(bash) = which_bash() else {
        eprintln!("no bash: skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (relative, content) in render_all() {
        if relative.extension().is_some_and(|ext| ext == "bash") {
            let path = dir.path().join(relative.file_name().unwrap());
            std::fs::write(&path, content).unwrap();
            let output = std::process::Command::new(&bash)
                .arg("-n")
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{} is not valid bash: {}",
                relative.display(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

fn which_bash() -> Option<PathBuf> {
    ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
}
