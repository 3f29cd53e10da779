use crate::{Output, Tool, open_lf};
use clap::Parser;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use lf::wire::{UsageBy, UsageRow};

/// What the sessions used: tokens, turns, time and cost.
///
/// Sums the agents' own records of every session (Claude's transcripts,
/// Codex's rollouts) by day, session, folder, repository or provider, and
/// prints a table, or the rows as JSON (see schema/usage.schema.json).
/// Each run reads only what the agents appended since the last one.
///
/// Tokens are by kind: input the model read (no cache), output it wrote,
/// what it wrote to its prompt cache (cache-w) and what the cache served
/// (cache-r). Working is time from each turn's start to the agent's last
/// work in it; waiting is from there to the person's next prompt. Days are
/// UTC. Cost is in US dollars from the price table shipped with lf
/// (share/usage/prices.json), each entry overridable in
/// $LF_HOME/prices.json; a model the table lacks shows "price unknown",
/// and so does any sum that holds it.
///
/// With --hosts (every host of lf-host list) or --host HOST, each host sums
/// its own sessions over ssh and its rows are added, one per host and
/// group; a host that fails is reported on stderr as with lf-session-list.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "\
Examples:
  lf-session-usage                          # by day, as a table
  lf-session-usage --by session --since 2026-12-01
  lf-session-usage --by repository --json | jq '.[] | {key, cost: .usage.cost}'
  lf-session-usage --by provider --hosts
  lf-session-usage --json | jq '[.[].usage.tokens.total] | add'"
)]
pub struct Cli {
    /// Sum by this.
    #[arg(long, value_name = "GROUP", default_value = "day",
          value_parser = PossibleValuesParser::new(UsageBy::NAMES).try_map(|s: String| UsageBy::parse(&s)))]
    by: UsageBy,
    /// Only from this day on (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DAY")]
    since: Option<String>,
    /// Print the rows as a JSON array.
    #[arg(long)]
    json: bool,
    /// Also sum the sessions of every host of the host list (lf-host).
    #[arg(long)]
    hosts: bool,
    /// Also sum the sessions of this host (repeatable; it need not be in the list).
    #[arg(long, value_name = "HOST")]
    host: Vec<String>,
    /// How long each host may take, in seconds (default 5).
    #[arg(long, value_name = "SECONDS",
          value_parser = super::seconds(lf::Arg::HostTimeout))]
    host_timeout: Option<std::time::Duration>,
}

impl Tool for Cli {
    const NAME: &'static str = "lf-session-usage";

    fn run(self, out: &mut Output) -> lf::Result<()> {
        let query = lf::usage::UsageQuery::new(self.by, self.since.as_deref())?;
        let lf = open_lf()?;
        let remotes = lf.remotes(self.hosts, &self.host, self.host_timeout)?;
        let report = lf.usage(&query, &remotes)?;
        for (path, why) in &report.unread {
            eprintln!("lf-session-usage: transcript {path}: {why}");
        }
        lf::remote::list::report(&report.hosts, std::io::stderr().lock());
        let rows = report.rows;
        if self.json {
            return out.json(&rows);
        }
        out.raw(&table(&rows))
    }
}

/// The rows as a table a person reads: one line per group, then the
/// total when there is more than one.
fn table(rows: &[UsageRow]) -> String {
    let hosts = rows.iter().any(|row| row.host.is_some());
    let mut lines: Vec<Vec<String>> = Vec::new();
    let by = rows.first().map_or("day", |row| row.by.as_str());
    let mut header = vec![by.to_owned()];
    if hosts {
        header.push("host".to_owned());
    }
    header.extend(
        [
            "sessions", "turns", "input", "output", "cache-w", "cache-r", "total", "working",
            "waiting", "cost", "models",
        ]
        .map(str::to_owned),
    );
    lines.push(header);
    let mut total = Total::default();
    for row in rows {
        let usage = &row.usage;
        total.add(row);
        // Text the agents or another machine wrote reaches the terminal
        // escaped (a model's name, a title, a folder).
        let shown = |text: &str| lf::error::host_text(text);
        let key = match (&row.title, row.by) {
            (Some(title), UsageBy::Session) => {
                let short: String = row.key.chars().take(8).collect();
                format!("{} {}", shown(&short), shown(title))
            }
            _ => shown(&row.key),
        };
        let mut line = vec![key];
        if hosts {
            line.push(row.host.as_deref().map_or_else(|| "-".to_owned(), shown));
        }
        line.extend([
            row.sessions.to_string(),
            usage.turns.to_string(),
            usage.tokens.input.to_string(),
            usage.tokens.output.to_string(),
            usage.tokens.cache_creation.to_string(),
            usage.tokens.cache_read.to_string(),
            usage.tokens.total.to_string(),
            duration(usage.working.0),
            duration(usage.waiting.0),
            cost(usage.cost),
            usage
                .models
                .iter()
                .map(|model| shown(&model.model))
                .collect::<Vec<_>>()
                .join(","),
        ]);
        lines.push(line);
    }
    if rows.len() > 1 {
        let mut line = vec!["total".to_owned()];
        if hosts {
            line.push(String::new());
        }
        // A Session may work on several days: by day, the total of
        // Sessions is not the sum of each day's.
        let sessions = if by == "day" {
            String::new()
        } else {
            total.sessions.to_string()
        };
        line.extend([
            sessions,
            total.turns.to_string(),
            total.input.to_string(),
            total.output.to_string(),
            total.cache_creation.to_string(),
            total.cache_read.to_string(),
            total.total.to_string(),
            duration(total.working),
            duration(total.waiting),
            cost(total.cost),
            String::new(),
        ]);
        lines.push(line);
    }
    if rows.is_empty() {
        return "no usage recorded yet\n".to_owned();
    }
    let columns = lines[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|column| {
            lines
                .iter()
                .map(|line| line[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(column, cell)| {
                let pad = widths[column] - cell.chars().count();
                // Text left, numbers right; the last column is not padded.
                if column == 0 || column == columns - 1 || (hosts && column == 1) {
                    if column == columns - 1 {
                        cell.clone()
                    } else {
                        format!("{cell}{}", " ".repeat(pad))
                    }
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

#[derive(Default)]
struct Total {
    sessions: u64,
    turns: u64,
    input: u64,
    output: u64,
    cache_creation: u64,
    cache_read: u64,
    total: u64,
    working: u64,
    waiting: u64,
    cost: Option<f64>,
    started: bool,
}

impl Total {
    fn add(&mut self, row: &UsageRow) {
        let usage = &row.usage;
        self.sessions += row.sessions;
        self.turns += usage.turns;
        self.input += usage.tokens.input;
        self.output += usage.tokens.output;
        self.cache_creation += usage.tokens.cache_creation;
        self.cache_read += usage.tokens.cache_read;
        self.total += usage.tokens.total;
        self.working += usage.working.0;
        self.waiting += usage.waiting.0;
        self.cost = match (self.started, self.cost, usage.cost) {
            (false, _, cost) => cost,
            (true, Some(sum), Some(cost)) => Some(sum + cost),
            _ => None,
        };
        self.started = true;
    }
}

fn duration(seconds: u64) -> String {
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}h{minutes:02}m")
    } else if minutes > 0 {
        format!("{minutes}m{seconds:02}s")
    } else {
        format!("{seconds}s")
    }
}

fn cost(cost: Option<f64>) -> String {
    match cost {
        Some(dollars) => format!("${dollars:.2}"),
        None => "price unknown".to_owned(),
    }
}
