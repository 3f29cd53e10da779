//! Summing usage the way `lf-session-usage` prints it: by Session, day,
//! folder, repository or provider, each group's tokens by kind and model,
//! turns, working and waiting time, and cost where every model's price is
//! known.

use super::price::Prices;
use super::{ModelSums, Refreshed, TimeSums, Tokens};
use crate::Result;
use crate::clock::Seconds;
use crate::error::InputError;
use crate::facade::Lf;
use crate::store::UsageSession;
use crate::wire::{ModelUsage, TokenCounts, Usage, UsageBy, UsageRow};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// What to sum, and from when.
#[derive(Debug, Clone)]
pub struct UsageQuery {
    pub by: UsageBy,
    /// The first day summed (`YYYY-MM-DD`, UTC).
    pub since: Option<String>,
}

impl UsageQuery {
    /// A query; `since` must be a day, `YYYY-MM-DD`.
    pub fn new(by: UsageBy, since: Option<&str>) -> Result<UsageQuery> {
        let since = since
            .map(|text| {
                let day = text.len() == 10
                    && text
                        .parse::<jiff::civil::Date>()
                        .is_ok_and(|date| date.to_string() == text);
                if day {
                    Ok(text.to_owned())
                } else {
                    Err(InputError::BadToken {
                        arg: crate::Arg::Since,
                        what: "day",
                        text: text.to_owned(),
                        allowed: "YYYY-MM-DD (a day in UTC)",
                    })
                }
            })
            .transpose()?;
        Ok(UsageQuery { by, since })
    }
}

/// The sums of one group, as they are gathered.
#[derive(Default)]
struct Group {
    title: Option<String>,
    sessions: BTreeSet<String>,
    models: BTreeMap<String, ModelSums>,
    time: TimeSums,
}

/// What `lf-session-usage` shows: the rows, and what could not be read.
#[derive(Debug, Clone)]
pub struct UsageReport {
    /// This Home's rows, then each host's.
    pub rows: Vec<UsageRow>,
    /// This Home's transcripts that could not be read as they are:
    /// `(path, why)`; their sums stay as they were.
    pub unread: Vec<(String, String)>,
    /// The hosts that gave no rows, and why.
    pub hosts: Vec<crate::wire::HostProblem>,
}

impl Lf {
    /// Read what the agents appended to their transcripts since the last
    /// time (only that), then sum this Home's usage as `query` asks, and
    /// that of the hosts asked (each sums its own, over ssh).
    pub fn usage(
        &self,
        query: &UsageQuery,
        remotes: &crate::remote::Remotes,
    ) -> Result<UsageReport> {
        let (mut rows, refreshed) = self.local_usage(query)?;
        let mut hosts = Vec::new();
        if !remotes.is_empty() {
            let (remote, problems) = self.remote_usage(query, remotes)?;
            rows.extend(remote);
            hosts = problems;
        }
        Ok(UsageReport {
            rows,
            unread: refreshed.problems,
            hosts,
        })
    }

    fn local_usage(&self, query: &UsageQuery) -> Result<(Vec<UsageRow>, Refreshed)> {
        let store = self.store()?;
        let refreshed = super::refresh(store)?;
        let prices = Prices::load(self.home())?;
        let sessions: HashMap<String, UsageSession> = store
            .usage_sessions()?
            .into_iter()
            .map(|session| (session.id.clone(), session))
            .collect();
        let (models, times) = store.usage_rows(query.since.as_deref())?;
        let mut repositories = HashMap::new();
        let mut groups: BTreeMap<String, Group> = BTreeMap::new();
        let mut key_of = |session_id: &str, day: &str| -> Option<(String, &UsageSession)> {
            let session = sessions.get(session_id)?;
            let key = match query.by {
                UsageBy::Session => session.id.clone(),
                UsageBy::Day => day.to_owned(),
                UsageBy::Folder => session.cwd.clone(),
                UsageBy::Repository => repositories
                    .entry(session.cwd.clone())
                    .or_insert_with(|| repository(Path::new(&session.cwd)))
                    .clone(),
                UsageBy::Provider => session.provider.clone().unwrap_or_else(|| "unknown".into()),
            };
            Some((key, session))
        };
        let group = |groups: &mut BTreeMap<String, Group>, key: String, session: &UsageSession| {
            let group = groups.entry(key).or_default();
            if query.by == UsageBy::Session {
                group.title = Some(session.title.clone());
            }
            group.sessions.insert(session.id.clone());
        };
        for row in &models {
            if let Some((key, session)) = key_of(&row.session_id, &row.day) {
                group(&mut groups, key.clone(), session);
                let group = groups.get_mut(&key).expect("just grouped");
                group
                    .models
                    .entry(row.model.clone())
                    .or_default()
                    .add(&row.sums);
            }
        }
        for row in &times {
            if let Some((key, session)) = key_of(&row.session_id, &row.day) {
                group(&mut groups, key.clone(), session);
                let group = groups.get_mut(&key).expect("just grouped");
                group.time.add(&row.sums);
            }
        }
        let mut rows: Vec<UsageRow> = groups
            .into_iter()
            .map(|(key, group)| UsageRow {
                by: query.by,
                key,
                host: None,
                title: group.title,
                sessions: group.sessions.len() as u64,
                usage: usage(&group.models, group.time, &prices),
            })
            .collect();
        if query.by != UsageBy::Day {
            rows.sort_by(|a, b| {
                b.usage
                    .tokens
                    .total
                    .cmp(&a.usage.tokens.total)
                    .then_with(|| a.key.cmp(&b.key))
            });
        }
        Ok((rows, refreshed))
    }
}

fn counts(tokens: &Tokens) -> TokenCounts {
    let count = |value: i64| u64::try_from(value).unwrap_or(0);
    TokenCounts {
        input: count(tokens.input),
        output: count(tokens.output),
        cache_creation: count(tokens.cache_creation),
        cache_read: count(tokens.cache_read),
        total: count(tokens.total()),
    }
}

/// One group's usage on the wire, priced.
pub fn usage(models: &BTreeMap<String, ModelSums>, time: TimeSums, prices: &Prices) -> Usage {
    let mut tokens = Tokens::default();
    let mut requests = 0;
    let mut unpriced = Vec::new();
    let mut cost = Some(0.0);
    let mut by_model: Vec<ModelUsage> = models
        .iter()
        .map(|(model, sums)| {
            tokens.add(&sums.tokens);
            requests = sums.requests.saturating_add(requests);
            let priced = prices.cost(model, &sums.tokens);
            match priced {
                Some(dollars) => cost = cost.map(|sum| sum + dollars),
                None => {
                    unpriced.push(model.clone());
                    cost = None;
                }
            }
            ModelUsage {
                model: model.clone(),
                requests: u64::try_from(sums.requests).unwrap_or(0),
                tokens: counts(&sums.tokens),
                cost: priced,
            }
        })
        .collect();
    by_model.sort_by_key(|model| std::cmp::Reverse(model.tokens.total));
    let seconds = |micros: i64| Seconds(u64::try_from(micros / 1_000_000).unwrap_or(0));
    Usage {
        tokens: counts(&tokens),
        requests: u64::try_from(requests).unwrap_or(0),
        turns: u64::try_from(time.turns).unwrap_or(0),
        working: seconds(time.working),
        waiting: seconds(time.waiting),
        models: by_model,
        cost,
        unpriced,
    }
}

/// The repository a folder is in: the folder holding `.git`; for a
/// linked worktree (`.git` is a file naming `…/.git/worktrees/NAME`), its
/// main checkout's. A folder in none is its own.
fn repository(folder: &Path) -> String {
    let mut dir = Some(folder);
    while let Some(here) = dir {
        let git = here.join(".git");
        if git.is_dir() {
            return here.display().to_string();
        }
        if git.is_file() {
            let main = std::fs::read_to_string(&git).ok().and_then(|text| {
                let gitdir = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
                let dot_git = gitdir.parent()?.parent()?;
                (dot_git.file_name()? == ".git").then(|| dot_git.parent().map(Path::to_path_buf))?
            });
            return main
                .unwrap_or_else(|| here.to_path_buf())
                .display()
                .to_string();
        }
        dir = here.parent();
    }
    folder.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_sums_with_its_repository() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("repo");
        std::fs::create_dir_all(main.join(".git/worktrees/feature")).unwrap();
        std::fs::create_dir_all(main.join("src")).unwrap();
        let tree = dir.path().join("repo-feature");
        std::fs::create_dir_all(tree.join("lib")).unwrap();
        std::fs::write(
            tree.join(".git"),
            format!(
                "gitdir: {}\n",
                main.join(".git/worktrees/feature").display()
            ),
        )
        .unwrap();
        assert_eq!(repository(&main.join("src")), main.display().to_string());
        assert_eq!(repository(&tree.join("lib")), main.display().to_string());
        let alone = dir.path().join("alone");
        std::fs::create_dir_all(&alone).unwrap();
        assert_eq!(repository(&alone), alone.display().to_string());
    }

    #[test]
    fn a_cost_is_whole_or_none() {
        let prices = Prices::shipped();
        let mut models = BTreeMap::new();
        let sums = ModelSums {
            tokens: Tokens {
                input: 1_000_000,
                ..Tokens::default()
            },
            requests: 1,
        };
        models.insert("claude-sonnet-4-5".to_owned(), sums);
        let priced = usage(&models, TimeSums::default(), &prices);
        assert_eq!(priced.cost, Some(3.0));
        models.insert("claude-fake".to_owned(), sums);
        let partly = usage(&models, TimeSums::default(), &prices);
        assert_eq!(partly.cost, None);
        assert_eq!(partly.unpriced, ["claude-fake"]);
        assert_eq!(partly.models[1].cost, Some(3.0));
        assert_eq!(partly.tokens.input, 2_000_000);
    }
}
