use crate::{Output, Tool, open_lf};
use clap::Parser;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use lf::wire::{Usage, UsageBy, UsageRow};

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
    if rows.is_empty() {
        return "no usage recorded yet\n".to_owned();
    }
    let hosts = rows.iter().any(|row| row.host.is_some());
    let by = rows[0].by;
    let mut header = vec![by.as_str().to_owned()];
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
    let mut lines = vec![header];
    let mut total = Total::default();
    for row in rows {
        total.add(&row.usage, row.sessions);
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
        let models: Vec<String> = row.usage.models.iter().map(|m| shown(&m.model)).collect();
        line.extend(total_of(
            &Total::of(&row.usage, row.sessions),
            Some(row.sessions),
        ));
        line.push(models.join(","));
        lines.push(line);
    }
    if rows.len() > 1 {
        let mut line = vec!["total".to_owned()];
        if hosts {
            line.push(String::new());
        }
        // A Session may work on several days: by day, the total of
        // Sessions is not the sum of each day's.
        let sessions = (by != UsageBy::Day).then_some(total.sessions);
        line.extend(total_of(&total, sessions));
        line.push(String::new());
        lines.push(line);
    }
    render(&lines, if hosts { 2 } else { 1 })
}

/// Lines of cells as aligned text: the first `text_columns` and the last
/// column left-aligned (the last unpadded), numbers right-aligned.
fn render(lines: &[Vec<String>], text_columns: usize) -> String {
    let columns = lines[0].len();
    let width = |column: usize| {
        lines
            .iter()
            .map(|line| line[column].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut text = String::new();
    for line in lines {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(column, cell)| {
                let pad = " ".repeat(widths[column] - cell.chars().count());
                if column == columns - 1 {
                    cell.clone()
                } else if column < text_columns {
                    format!("{cell}{pad}")
                } else {
                    format!("{pad}{cell}")
                }
            })
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// The numbers of a row or of the total, summed.
#[derive(Default)]
struct Total {
    sessions: u64,
    turns: u64,
    tokens: [u64; 5],
    working: u64,
    waiting: u64,
    cost: Option<f64>,
    started: bool,
}

impl Total {
    fn of(usage: &Usage, sessions: u64) -> Total {
        let mut total = Total::default();
        total.add(usage, sessions);
        total
    }

    fn add(&mut self, usage: &Usage, sessions: u64) {
        let tokens = &usage.tokens;
        let kinds = [
            tokens.input,
            tokens.output,
            tokens.cache_creation,
            tokens.cache_read,
            tokens.total,
        ];
        for (sum, count) in self.tokens.iter_mut().zip(kinds) {
            *sum += count;
        }
        self.sessions += sessions;
        self.turns += usage.turns;
        self.working += usage.working.0;
        self.waiting += usage.waiting.0;
        // Whole or unknown: one row without a price makes the sum unknown.
        self.cost = match (self.started, self.cost, usage.cost) {
            (false, _, cost) => cost,
            (true, Some(sum), Some(cost)) => Some(sum + cost),
            _ => None,
        };
        self.started = true;
    }
}

/// The number cells: sessions (blank when they do not sum), turns,
/// tokens by kind and in all, working, waiting and cost.
fn total_of(total: &Total, sessions: Option<u64>) -> Vec<String> {
    let mut cells = vec![
        sessions.map(|count| count.to_string()).unwrap_or_default(),
        total.turns.to_string(),
    ];
    cells.extend(total.tokens.iter().map(u64::to_string));
    cells.extend([
        duration(total.working),
        duration(total.waiting),
        cost(total.cost),
    ]);
    cells
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
