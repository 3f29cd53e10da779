//! The host list: `$LF_HOME/hosts.json`, `{"hosts": [HostEntry…]}`, the
//! same entries `lf-host list` prints. It is small and a person may edit
//! it, so it is read whole and checked entry by entry on every use (a bad
//! entry is an error naming the file, not a host skipped in silence), and
//! written through a temporary file and a rename under a lock, owner-only.

use crate::error::domain::{Arg, What};
use crate::facade::Lf;
use crate::home::Home;
use crate::remote::RemoteError;
use crate::wire::HostEntry;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// How long a host may take to answer, unless the caller says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest host name lf passes on (DNS names are at most 253).
const MAX_HOST: usize = 255;

#[derive(Debug, Default, Serialize, Deserialize)]
struct HostFile {
    hosts: Vec<HostEntry>,
}

impl Home {
    /// The host list.
    pub fn hosts_file(&self) -> PathBuf {
        self.root().join("hosts.json")
    }

    /// The folder of lf's ControlMaster sockets (0700).
    pub fn ssh_dir(&self) -> PathBuf {
        self.root().join("ssh")
    }
}

/// A host name as lf passes it to ssh: what ssh accepts as a destination
/// (an alias, a name or address, `user@host`), and nothing that ssh could
/// read as an option or a shell could split.
pub fn host_name(text: &str) -> Result<String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._@:[]%".contains(c);
    let ok = !text.is_empty()
        && text.len() <= MAX_HOST
        && !text.starts_with('-')
        && text.chars().all(allowed);
    if ok {
        Ok(text.to_owned())
    } else {
        Err(RemoteError::BadHost(text.to_owned()).into())
    }
}

/// A path on another machine, as lf puts it into a remote command line:
/// absolute or under `~/`, and without what single quotes cannot carry
/// the same way in every common login shell (see `ssh::word`).
pub fn remote_path(arg: Arg, what: What, text: &str) -> Result<String> {
    let ok = (text.starts_with('/') || text.starts_with("~/"))
        && text.len() <= 4096
        && !text
            .chars()
            .any(|c| c.is_control() || c == '\'' || c == '\\');
    if ok {
        Ok(text.trim_end_matches('/').to_owned()).map(|path| {
            if path.is_empty() {
                "/".to_owned()
            } else {
                path
            }
        })
    } else {
        Err(RemoteError::BadRemotePath {
            arg,
            what,
            text: text.to_owned(),
        }
        .into())
    }
}

/// An entry, checked.
pub fn check(entry: HostEntry) -> Result<HostEntry> {
    Ok(HostEntry {
        host: host_name(&entry.host)?,
        home: entry
            .home
            .map(|home| remote_path(Arg::Home, "lf Home", &home))
            .transpose()?,
        bin: entry
            .bin
            .map(|bin| remote_path(Arg::Bin, "folder of lf's binaries", &bin))
            .transpose()?,
        control_master: entry.control_master,
    })
}

/// The host list of a Home (empty when there is no file).
pub fn load(home: &Home) -> Result<Vec<HostEntry>> {
    let path = home.hosts_file();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(RemoteError::BadHostList {
                path,
                problem: error.to_string(),
            }
            .into());
        }
    };
    let bad = |problem: String| RemoteError::BadHostList {
        path: path.clone(),
        problem,
    };
    let file: HostFile = serde_json::from_str(&text).map_err(|error| bad(error.to_string()))?;
    file.hosts
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            check(entry).map_err(|error| bad(format!("entry {}: {error}", index + 1)))
        })
        .collect::<std::result::Result<_, _>>()
        .map_err(Error::from)
}

fn save(home: &Home, hosts: Vec<HostEntry>) -> Result<()> {
    home.ensure()?;
    let path = home.hosts_file();
    let mut text = serde_json::to_string_pretty(&HostFile { hosts })?;
    text.push('\n');
    let temporary = home.root().join("hosts.json.new");
    crate::home::write_private(&temporary, text.as_bytes())?;
    std::fs::rename(&temporary, &path)
        .map_err(|source| Error::io(format!("cannot replace {}", path.display()), source))
}

/// The hosts one command asks, and how long each may take.
#[derive(Debug, Clone)]
pub struct Remotes {
    pub hosts: Vec<HostEntry>,
    pub timeout: Duration,
}

impl Remotes {
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }
}

impl Lf {
    /// The host list.
    pub fn hosts(&self) -> Result<Vec<HostEntry>> {
        load(self.home())
    }

    /// Add a host to the list; it must not be there already.
    pub fn add_host(&self, entry: HostEntry) -> Result<HostEntry> {
        let entry = check(entry)?;
        self.home().ensure()?;
        let _lock = crate::locks::named(self.home(), "hosts")?;
        let mut hosts = load(self.home())?;
        if hosts.iter().any(|known| known.host == entry.host) {
            return Err(RemoteError::HostExists(entry.host).into());
        }
        hosts.push(entry.clone());
        save(self.home(), hosts)?;
        Ok(entry)
    }

    /// Remove a host from the list, and close its ControlMaster if lf
    /// keeps one; returns the entry removed.
    pub fn remove_host(&self, host: &str) -> Result<HostEntry> {
        let host = host_name(host)?;
        let _lock = crate::locks::named(self.home(), "hosts")?;
        let mut hosts = load(self.home())?;
        let at = hosts
            .iter()
            .position(|known| known.host == host)
            .ok_or_else(|| RemoteError::HostNotFound(host.clone()))?;
        let entry = hosts.remove(at);
        save(self.home(), hosts)?;
        self.ssh(&entry).close_master();
        Ok(entry)
    }

    /// The hosts a command asks: every listed one (`all`), and those named
    /// (a named host not in the list is asked with the defaults), each once.
    pub fn remotes(
        &self,
        all: bool,
        named: &[String],
        timeout: Option<Duration>,
    ) -> Result<Remotes> {
        let named = named
            .iter()
            .map(|name| host_name(name))
            .collect::<Result<Vec<_>>>()?;
        let listed = if all || !named.is_empty() {
            self.hosts()?
        } else {
            Vec::new()
        };
        let mut hosts: Vec<HostEntry> = Vec::new();
        let wanted = listed
            .iter()
            .filter(|entry| all || named.contains(&entry.host))
            .cloned()
            .chain(named.iter().map(|name| HostEntry {
                host: name.clone(),
                home: None,
                bin: None,
                control_master: true,
            }));
        for entry in wanted {
            if !hosts.iter().any(|known| known.host == entry.host) {
                hosts.push(entry);
            }
        }
        Ok(Remotes {
            hosts,
            timeout: timeout.unwrap_or(DEFAULT_TIMEOUT),
        })
    }

    /// Every host of the list, for the commands that include remote
    /// Sessions whenever hosts are configured (the picker, next).
    pub fn configured_remotes(&self) -> Result<Remotes> {
        self.remotes(true, &[], None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_cannot_be_options_or_words() {
        for good in [
            "build-box",
            "me@10.0.0.7",
            "[::1]",
            "vm.example.org",
            "a_b%eth0",
        ] {
            assert_eq!(host_name(good).unwrap(), good);
        }
        for bad in [
            "",
            "-oProxyCommand=sh",
            "a b",
            "a\tb",
            "host;rm",
            "h\u{1b}[2J",
            "$(x)",
            "a'b",
        ] {
            assert!(
                matches!(host_name(bad), Err(crate::Error::Remote(RemoteError::BadHost(text))) if text == bad)
            );
        }
    }

    #[test]
    fn remote_paths_are_absolute_and_quotable() {
        let check = |text| remote_path(Arg::Home, "lf Home", text);
        assert_eq!(check("/srv/lf home/").unwrap(), "/srv/lf home");
        assert_eq!(check("~/.cargo/bin").unwrap(), "~/.cargo/bin");
        for bad in ["relative", "~user/x", "/a'b", "/a\\b", "/a\nb", ""] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
    }
}
