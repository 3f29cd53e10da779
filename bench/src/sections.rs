//! `lf-bench-sections [--limit N] [--attention] [--reps N] [--cold]`
//!
//! Where the time of one `lf-session-list` goes, section by section, in
//! the Home named by `LF_HOME`: opening the store, loading the catalog,
//! checking client receipts against `/proc`, and the query with projection
//! and serialisation. Each section is timed cold (first call in this
//! process) and as the median of `--reps` repeats.
//!
//! `--cold` instead does what `lf-session-list` does once, in a fresh
//! process, and prints one JSON line: milliseconds to open the Home, to
//! list (cold), to list again (warm) and to close the database.

use anyhow::{Context, Result};
use lf::session::project::{Catalog, LiveClients};
use std::io::Write;
use std::time::Instant;

fn main() -> Result<()> {
    let mut limit = None;
    let mut attention = false;
    let mut reps = 30usize;
    let mut cold = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--limit" => limit = Some(args.next().context("--limit N")?.parse()?),
            "--attention" => attention = true,
            "--reps" => reps = args.next().context("--reps N")?.parse()?,
            "--cold" => cold = true,
            other => anyhow::bail!("unknown argument {other:?}"),
        }
    }
    let home = lf::Home::from_env()?;
    let filter = lf::ListFilter {
        attention,
        limit,
        ..Default::default()
    };
    if cold {
        return cold_run(&home, &filter);
    }
    let mut rows = 0usize;
    let mut bytes = 0usize;
    let sections: Vec<Section<'_>> = vec![
        (
            "Lf::open (store, migration check)",
            Box::new(|| {
                lf::Lf::open(&home)?;
                Ok(())
            }),
        ),
        (
            "Catalog::load (task worktrees)",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                move || {
                    Catalog::load(lf.store())?;
                    Ok(())
                }
            }),
        ),
        (
            "  Store::waves",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                move || {
                    lf.store().waves()?;
                    Ok(())
                }
            }),
        ),
        (
            "  Store::tasks",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                move || {
                    lf.store().tasks()?;
                    Ok(())
                }
            }),
        ),
        (
            "  Store::flows",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                move || {
                    lf.store().flows()?;
                    Ok(())
                }
            }),
        ),
        (
            "Store::open_clients (receipts only)",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                move || {
                    lf.store().open_clients(None)?;
                    Ok(())
                }
            }),
        ),
        (
            "LiveClients::observe (sessions with open receipts)",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                move || {
                    LiveClients::observe(lf.store())?;
                    Ok(())
                }
            }),
        ),
        (
            "  /proc checks as lf does them (read_to_string)",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                let receipts = lf.store().open_clients(None)?;
                let boot = lf::liveness::boot_id()?;
                move || {
                    let alive = receipts.iter().filter(|r| r.process.is_alive(&boot));
                    std::hint::black_box(alive.count());
                    Ok(())
                }
            }),
        ),
        (
            "  /proc checks with one read into a buffer",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                let receipts = lf.store().open_clients(None)?;
                let boot = lf::liveness::boot_id()?;
                move || {
                    let alive = receipts
                        .iter()
                        .filter(|r| alive_one_read(&r.process, &boot));
                    std::hint::black_box(alive.count());
                    Ok(())
                }
            }),
        ),
        (
            "  /proc checks of the listed sessions only",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                let mut listed = std::collections::HashSet::new();
                lf.list(&filter)?.for_each(|record| {
                    listed.insert(record.id);
                    Ok(())
                })?;
                let receipts: Vec<_> = lf
                    .store()
                    .open_clients(None)?
                    .into_iter()
                    .filter(|r| listed.contains(&r.session_id))
                    .collect();
                let boot = lf::liveness::boot_id()?;
                move || {
                    let alive = receipts.iter().filter(|r| r.process.is_alive(&boot));
                    std::hint::black_box(alive.count());
                    Ok(())
                }
            }),
        ),
        (
            "the listing query alone (rusqlite, every column)",
            Box::new({
                let conn = rusqlite::Connection::open(home.database())?;
                let sql = format!(
                    "SELECT {COLUMNS} FROM sessions s LEFT JOIN runs r ON r.id = s.current_run_id \
                     WHERE s.completed_at IS NULL ORDER BY s.created_at DESC, s.id DESC {}",
                    limit.map(|n| format!("LIMIT {n}")).unwrap_or_default()
                );
                move || {
                    let mut statement = conn.prepare(&sql)?;
                    let mut rows = statement.query([])?;
                    let mut touched = 0usize;
                    while let Some(row) = rows.next()? {
                        for index in 0..24 {
                            touched += match row.get_ref(index)? {
                                rusqlite::types::ValueRef::Text(text) => text.len(),
                                _ => 1,
                            };
                        }
                    }
                    std::hint::black_box(touched);
                    Ok(())
                }
            }),
        ),
        (
            "Lf::list + for_each, records dropped",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                let filter = filter.clone();
                move || {
                    lf.list(&filter)?.for_each(|record| {
                        std::hint::black_box(record);
                        Ok(())
                    })?;
                    Ok(())
                }
            }),
        ),
        (
            "Lf::list + for_each to a sink (all + rows)",
            Box::new({
                let lf = lf::Lf::open(&home)?;
                let filter = filter.clone();
                let rows = &mut rows;
                let bytes = &mut bytes;
                move || {
                    let mut sink = CountingSink(0);
                    *rows = 0;
                    lf.list(&filter)?.for_each(|record| {
                        *rows += 1;
                        serde_json::to_writer(&mut sink, &record)?;
                        sink.write_all(b"\n")?;
                        Ok(())
                    })?;
                    *bytes = sink.0;
                    Ok(())
                }
            }),
        ),
    ];
    println!("{:46} {:>9} {:>11}", "section", "cold ms", "median ms");
    for (name, mut section) in sections {
        let start = Instant::now();
        section()?;
        let cold = start.elapsed().as_secs_f64() * 1000.0;
        let mut times: Vec<f64> = (0..reps)
            .map(|_| {
                let start = Instant::now();
                section().map(|()| start.elapsed().as_secs_f64() * 1000.0)
            })
            .collect::<Result<_>>()?;
        times.sort_by(f64::total_cmp);
        let median = times.get(times.len() / 2).copied().unwrap_or(cold);
        println!("{name:46} {cold:9.2} {median:11.2}");
    }
    // Heap allocations are counted outside, without an allocator of our
    // own (the workspace has no unsafe code):
    //   valgrind --tool=callgrind lf-session-list, then grep malloc.
    println!("rows {rows}, bytes {bytes}");
    Ok(())
}

fn list_to_sink(lf: &lf::Lf, filter: &lf::ListFilter) -> Result<usize> {
    let mut sink = CountingSink(0);
    lf.list(filter)?.for_each(|record| {
        serde_json::to_writer(&mut sink, &record)?;
        sink.write_all(b"\n")?;
        Ok(())
    })?;
    Ok(sink.0)
}

fn cold_run(home: &lf::Home, filter: &lf::ListFilter) -> Result<()> {
    let ms = |start: Instant| start.elapsed().as_secs_f64() * 1000.0;
    let start = Instant::now();
    let lf = lf::Lf::open(home)?;
    let open = ms(start);
    let start = Instant::now();
    let bytes = list_to_sink(&lf, filter)?;
    let list_cold = ms(start);
    let start = Instant::now();
    list_to_sink(&lf, filter)?;
    let list_warm = ms(start);
    let start = Instant::now();
    drop(lf);
    let close = ms(start);
    println!(
        "{}",
        serde_json::json!({
            "open": open, "list_cold": list_cold, "list_warm": list_warm,
            "close": close, "bytes": bytes,
        })
    );
    Ok(())
}

/// `ProcessIdentity::is_alive` with one `read` into a stack buffer
/// instead of `read_to_string` (which stats the file and reads repeatedly).
fn alive_one_read(process: &lf::liveness::ProcessIdentity, boot: &str) -> bool {
    use std::io::Read;
    if process.boot_id != boot {
        return false;
    }
    let Ok(mut file) = std::fs::File::open(format!("/proc/{}/stat", process.pid)) else {
        return false;
    };
    let mut buffer = [0u8; 1024];
    let Ok(length) = file.read(&mut buffer) else {
        return false;
    };
    std::str::from_utf8(&buffer[..length])
        .ok()
        .and_then(lf::liveness::parse_stat)
        .is_some_and(|stat| stat.starttime == process.starttime && stat.state != 'Z')
}

/// The columns `lf` reads for a listing (`SessionRow`).
const COLUMNS: &str = "s.id, s.kind, s.title, s.title_source, s.interactive, s.cwd, s.provider, \
    s.model, s.task_id, s.wave_id, s.primary_scope, s.ready_summary, s.flow_id, s.step, s.node, \
    s.iterations, s.independent, s.current_run_id, s.latest_turn, s.permission_pending, \
    s.created_at, s.updated_at, s.completed_at, r.outcome";

/// A named section: a closure that runs it once.
type Section<'a> = (&'static str, Box<dyn FnMut() -> Result<()> + 'a>);

struct CountingSink(usize);

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
