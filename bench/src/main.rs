//! `lf-bench-seed --home DIR --sessions N [--live-pid PID ...]`
//!
//! Seeds a Home with a realistic registry for benchmarks: Waves and Tasks
//! with real (possibly nested) worktrees beside the Home, conversations and
//! flow reviews with a mix of providers, work, flows, turns, permission
//! prompts, ready summaries, outcomes and completions, and client receipts:
//! live ones for the given pids and stale ones (reaped pids, reused pids,
//! another boot). What the library offers is written through its API (one
//! transaction per call, as the binaries do); what it has no API for yet
//! (flows, sessions' flow columns, runs' launch details) through plain SQL
//! in one transaction. Deterministic for a given `--seed`, apart from ids,
//! pids and the time it runs.

use anyhow::{Context, Result, bail};
use clap::Parser;
use lf::ids::{RunId, SessionId};
use lf::liveness::ProcessIdentity;
use lf::session::{RunOutcome, Turn};
use lf::store::{ClientReceipt, NewRun, NewSessionRow};
use lf::wire::{SessionKind, TitleSource};
use lf::work::NewTask;
use rusqlite::params;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Seed a new Home with a realistic registry, for benchmarks.
#[derive(clap::Parser)]
#[command(name = "lf-bench-seed")]
struct Args {
    /// The Home to create; its parent gets the repositories and worktrees.
    #[arg(long)]
    home: PathBuf,
    /// How many Sessions.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    sessions: u32,
    /// A running process to record as a live client of a recent Session
    /// (repeatable).
    #[arg(long = "live-pid", value_name = "PID")]
    live: Vec<u32>,
    /// How many stale client receipts.
    #[arg(long, default_value_t = 400)]
    stale: usize,
    /// How many Waves.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    waves: u32,
    /// How many Tasks.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
    tasks: u32,
    /// The seed of everything but ids, pids and times.
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

/// SplitMix64: small, fast and reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const AREAS: &[&str] = &[
    "payments",
    "search",
    "onboarding",
    "billing",
    "infra",
    "mobile",
    "auth",
    "reports",
    "editor",
    "sync",
];
const VERBS: &[&str] = &[
    "Fix",
    "Refactor",
    "Add",
    "Investigate",
    "Speed up",
    "Document",
    "Remove",
    "Test",
    "Migrate",
    "Review",
];
const OBJECTS: &[&str] = &[
    "the flaky retry in the upload queue",
    "pagination of the audit log",
    "the websocket reconnect path",
    "error messages of the CLI",
    "the schema migration for invoices",
    "N+1 queries in the dashboard",
    "dark mode contrast issues",
    "the release checklist",
    "caching of the feature flags",
    "timeouts in the integration tests",
    "the importer for CSV exports",
    "memory growth in the worker",
];
const STEPS: &[&str] = &[
    "review-design",
    "review-plan",
    "review-code",
    "approve-merge",
    "Request for input",
];
const FLOW_NAMES: &[&str] = &["feature", "bugfix", "refactor", "release", "spike"];
const CLAUDE_MODELS: &[&str] = &["opus", "sonnet", "claude-opus-4-1", "claude-sonnet-4-5"];
const CODEX_MODELS: &[&str] = &["gpt-5-codex", "gpt-5", "o3"];
const COMMANDS: &[&[&str]] = &[
    &["htop"],
    &["bash", "-l"],
    &["npm", "run", "dev"],
    &["make", "watch"],
    &["python3", "-m", "http.server", "8000"],
    &["aider", "--model", "sonnet"],
];

/// The seeder's temporary index (see where it is created).
const SEED_INDEX: &str = "lf_bench_seed_current_run";

struct Task {
    id: String,
    wave_id: Option<String>,
    worktree: String,
}

struct Flow {
    id: String,
    name: String,
    task: Option<usize>,
    size: usize,
    members: Vec<usize>,
}

/// Where a flow invocation stands.
struct FlowState {
    finished: bool,
    /// The Run of its current attempt, if one is reserved.
    current_run: Option<String>,
    /// The review Session it waits on.
    pending: Option<String>,
    /// A reserved Run that no review Session has yet.
    extra: Option<RunId>,
}

struct Plan {
    id: SessionId,
    run: RunId,
    kind: SessionKind,
    title: String,
    title_source: TitleSource,
    interactive: bool,
    cwd: String,
    provider: String,
    model: Option<String>,
    argv: Vec<String>,
    prompt: Option<String>,
    task: Option<usize>,
    wave_id: Option<String>,
    primary_scope: Option<String>,
    created: i64,
    updated: i64,
    flow: Option<usize>,
    step: Option<String>,
    node: Option<u32>,
    iterations: Option<String>,
    /// Earlier attempts, oldest first; `run` is the current one.
    history: Vec<RunId>,
    outcome: Option<RunOutcome>,
    latest_turn: Option<Turn>,
    permission: bool,
    ready: Option<String>,
    completed: Option<i64>,
    pending: bool,
}

fn main() {
    if let Err(error) = run() {
        eprintln!("lf-bench-seed: {error:#}");
        std::process::exit(1);
    }
}

fn mkdir(path: &Path) -> Result<String> {
    std::fs::create_dir_all(path).with_context(|| format!("cannot create {}", path.display()))?;
    let canonical = std::fs::canonicalize(path)?;
    Ok(canonical.to_str().context("non-UTF-8 path")?.to_owned())
}

fn run() -> Result<()> {
    let args = Args::parse();
    let started = Instant::now();
    let mut rng = Rng(args.seed);
    std::fs::create_dir_all(&args.home)?;
    let home_dir = std::fs::canonicalize(&args.home)?;
    let home = lf::Home::at(&home_dir);
    if home.database().exists() {
        bail!("{} already holds a database", home.database().display());
    }
    let lf = lf::Lf::at(home.clone(), lf::Caller::default());
    let store = lf.store()?;
    let base = home_dir
        .parent()
        .context("the Home needs a parent directory")?
        .join("bench-work");
    let work = seed_work(&lf, &mut rng, &args, &base)?;
    let work_done = started.elapsed();

    // Plan every Session first, so that completion, primaries and flows
    // can be decided over the whole history.
    let n = args.sessions as usize;
    let now = lf::clock::now_micros();
    let (mut plans, flows) = plan_sessions(&mut rng, n, &work, now);
    let flow_state = plan_flows(&mut rng, &flows, &mut plans);
    choose_primaries(&work.waves, &mut plans);
    let live_sessions = choose_live(&mut rng, &args.live, &plans);
    choose_completed(&mut rng, &mut plans, &flow_state, &live_sessions, now);

    // The hooks' writes find a Session by its current Run, which has no
    // index: over ten thousand Sessions each call would scan the table.
    // A temporary index keeps seeding fast; it is dropped at the end, so
    // the benchmarked schema is exactly lf's.
    let mut conn = rusqlite::Connection::open(home.database())?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.execute_batch(&format!(
        "CREATE INDEX IF NOT EXISTS {SEED_INDEX} ON sessions (current_run_id);"
    ))?;

    // Write: Sessions and their attempts through the API.
    let t_sessions = Instant::now();
    write_sessions(store, &plans, &work.tasks)?;
    let sessions_took = t_sessions.elapsed();

    // What has no API yet: plain SQL, one transaction.
    let t_sql = Instant::now();
    write_flows(
        &mut conn,
        &mut rng,
        &flows,
        &flow_state,
        &plans,
        &work.tasks,
    )?;
    let sql_took = t_sql.elapsed();

    // Turns, outcomes and permission prompts, as hooks and lf-serve record them.
    let t_rest = Instant::now();
    let ready = write_facts(store, &plans)?;
    write_receipts(store, &mut rng, &args, &plans, &live_sessions)?;
    // Completion closes the Session's receipts too.
    let mut completed = 0;
    for plan in &plans {
        if let Some(at) = plan.completed {
            store.complete_session(plan.id.as_str(), at)?;
            completed += 1;
        }
    }
    let rest_took = t_rest.elapsed();
    conn.execute_batch(&format!(
        "DROP INDEX {SEED_INDEX}; PRAGMA wal_checkpoint(TRUNCATE);"
    ))?;
    let count = |sql: &str| -> Result<i64> { Ok(conn.query_row(sql, [], |row| row.get(0))?) };
    let summary = serde_json::json!({
        "home": home_dir,
        "sessions": n,
        "open": n - completed,
        "completed": completed,
        "flow_reviews": plans.iter().filter(|p| p.kind == SessionKind::Flow).count(),
        "flows": count("SELECT count(*) FROM flows")?,
        "runs": count("SELECT count(*) FROM runs")?,
        "waves": work.waves.len(),
        "tasks": work.tasks.len(),
        "ready": ready,
        "permission_pending_open": count("SELECT count(*) FROM sessions WHERE permission_pending = 1 AND completed_at IS NULL")?,
        "live_receipts": args.live.len(),
        "open_receipts": count("SELECT count(*) FROM clients WHERE ended_at IS NULL")?,
        "ended_receipts": count("SELECT count(*) FROM clients WHERE ended_at IS NOT NULL")?,
        "seconds": {
            "work": work_done.as_secs_f64(),
            "sessions_and_attempts_api": sessions_took.as_secs_f64(),
            "sql": sql_took.as_secs_f64(),
            "turns_outcomes_ready_receipts_completion_api": rest_took.as_secs_f64(),
            "total": started.elapsed().as_secs_f64(),
        },
    });
    println!("{summary}");
    Ok(())
}

/// What Sessions work in: repositories, Waves over them, Tasks with
/// worktrees, scratch folders.
struct Work {
    repos: Vec<String>,
    waves: Vec<String>,
    tasks: Vec<Task>,
    scratch: Vec<String>,
}

/// Waves over a handful of repositories, Tasks with worktrees (some nested
/// in another Task's worktree), scratch folders for the rest.
fn seed_work(lf: &lf::Lf, rng: &mut Rng, args: &Args, base: &Path) -> Result<Work> {
    let repos: Vec<String> = (0..8)
        .map(|k| mkdir(&base.join("repos").join(format!("repo-{k}"))))
        .collect::<Result<_>>()?;
    let mut waves = Vec::new();
    let mut wave_repo = Vec::new();
    for k in 0..args.waves as usize {
        let repo = rng.below(repos.len());
        let name = format!("{}-{:02}", AREAS[k % AREAS.len()], k);
        waves.push(lf.add_wave(&name, Path::new(&repos[repo]))?.id);
        wave_repo.push(repo);
    }
    let mut tasks: Vec<Task> = Vec::new();
    for n in 0..args.tasks as usize {
        let identifier = format!("LOO-{}", 100 + n);
        let wave = rng.chance(0.9).then(|| rng.below(waves.len()));
        let repo = wave.map_or_else(|| rng.below(repos.len()), |w| wave_repo[w]);
        let dir = if !tasks.is_empty() && rng.chance(0.1) {
            let outer = &tasks[rng.below(tasks.len())];
            Path::new(&outer.worktree).join("nested").join(&identifier)
        } else {
            Path::new(&repos[repo]).join(".worktrees").join(&identifier)
        };
        mkdir(&dir.join("src/app"))?;
        let title = format!("{} {}", rng.pick(VERBS), rng.pick(OBJECTS));
        let record = lf.add_task(NewTask {
            identifier: &identifier,
            title: &title,
            worktree: Some(&dir),
            wave: wave.map(|w| waves[w].as_str()),
        })?;
        if rng.chance(0.2) {
            lf.finish_task(&record.id)?;
        }
        tasks.push(Task {
            id: record.id,
            wave_id: record.wave_id,
            worktree: record.worktree.context("a task without worktree")?,
        });
    }
    let scratch: Vec<String> = (0..20)
        .map(|k| mkdir(&base.join("scratch").join(format!("proj-{k}"))))
        .collect::<Result<_>>()?;
    Ok(Work {
        repos,
        waves,
        tasks,
        scratch,
    })
}

/// Every Session's plan, oldest first, and the flow invocations their
/// reviews belong to.
fn plan_sessions(rng: &mut Rng, n: usize, work: &Work, now: i64) -> (Vec<Plan>, Vec<Flow>) {
    let Work {
        repos,
        waves,
        tasks,
        scratch,
    } = work;
    let span: i64 = 120 * 86_400 * 1_000_000;
    let step = span / n as i64;
    let mut flows: Vec<Flow> = Vec::new();
    let mut active_flows: Vec<usize> = Vec::new();
    let mut plans: Vec<Plan> = Vec::with_capacity(n);
    for i in 0..n {
        let created = now - span + i as i64 * step + rng.below(step.max(1) as usize) as i64;
        let flow_review = rng.chance(0.15);
        let kind = if flow_review {
            SessionKind::Flow
        } else {
            SessionKind::Conversation
        };
        let (provider, model, argv) = provider(rng, flow_review);
        let what = format!("{} {}", rng.pick(VERBS), rng.pick(OBJECTS));
        let prompt = (provider != "command" && rng.chance(0.6)).then(|| {
            format!(
                "{what}\n\nContext: see the failing job and the notes in the ticket. \
                 Keep the change small and add a regression test."
            )
        });
        let (title, title_source) = if rng.chance(0.3) {
            (what.clone(), TitleSource::Human)
        } else {
            let words: Vec<&str> = what.split(' ').take(6).collect();
            (words.join(" "), TitleSource::Generated)
        };

        let mut flow = None;
        let mut task = None;
        let mut wave_id = None;
        if flow_review {
            let index = join_flow(rng, &mut flows, &mut active_flows, tasks.len(), i);
            task = flows[index].task;
            flow = Some(index);
        } else {
            match rng.below(100) {
                0..35 => task = Some(rng.below(tasks.len())),
                35..43 => wave_id = Some(waves[rng.below(waves.len())].clone()),
                _ => {}
            }
        }
        if let Some(t) = task {
            wave_id = tasks[t].wave_id.clone();
        }
        // Bound Sessions mostly work in their Task's worktree; some
        // unbound ones too (associated by checkout only).
        let cwd = match task {
            Some(t) if rng.chance(0.7) => in_worktree(rng, &tasks[t]),
            None if rng.chance(0.4) => {
                let t = rng_task(rng, tasks);
                in_worktree(rng, t)
            }
            _ if rng.chance(0.5) => rng.pick(repos).clone(),
            _ => rng.pick(scratch).clone(),
        };
        let iterations = flow_review.then(|| {
            let a = 1 + rng.below(5);
            let b = rng.below(3);
            format!("[[{a}],[{b}]]")
        });
        plans.push(Plan {
            id: SessionId::new(),
            run: RunId::new(),
            kind,
            title,
            title_source,
            interactive: !flow_review || rng.chance(0.8),
            cwd,
            provider: provider.to_owned(),
            model,
            argv,
            prompt,
            task,
            wave_id,
            primary_scope: None,
            created,
            updated: (created + rng.below(3_600_000_000) as i64).min(now),
            flow,
            step: flow_review.then(|| rng.pick(STEPS).to_string()),
            node: flow_review.then(|| 1 + rng.below(12) as u32),
            iterations,
            history: if rng.chance(0.1) {
                (0..1 + rng.below(3)).map(|_| RunId::new()).collect()
            } else {
                Vec::new()
            },
            outcome: match rng.below(100) {
                0..40 => Some(RunOutcome::Exited),
                40..46 => Some(RunOutcome::Interrupted),
                46..48 => Some(RunOutcome::Failed),
                _ => None,
            },
            latest_turn: match rng.below(100) {
                0..30 => Some(Turn::Completed),
                30..55 => Some(Turn::Started),
                _ => None,
            },
            // An agent that ended waits on no prompt: the permission flag
            // is only for runs still going (about 3% of all).
            permission: rng.chance(0.06),
            ready: rng.chance(0.1).then(|| summary(rng, &what)),
            completed: None,
            pending: false,
        });
    }

    (plans, flows)
}

/// A Session's provider, model and argv: reviews are Claude's.
fn provider(rng: &mut Rng, flow_review: bool) -> (&'static str, Option<String>, Vec<String>) {
    match (flow_review, rng.below(100)) {
        (true, roll) | (false, roll @ 0..55) => {
            let model = (roll % 5 < 3).then(|| rng.pick(CLAUDE_MODELS).to_string());
            ("claude", model, Vec::new())
        }
        (false, roll @ 55..85) => {
            let model = (roll % 2 == 0).then(|| rng.pick(CODEX_MODELS).to_string());
            ("codex", model, Vec::new())
        }
        (false, _) => {
            let argv = rng.pick(COMMANDS).iter().map(|s| s.to_string()).collect();
            ("command", None, argv)
        }
    }
}

/// The flow invocation review `i` belongs to: a new one while fewer than
/// six take members (and now and then anyway), else one of those; a flow
/// stops taking members once it has its size.
fn join_flow(
    rng: &mut Rng,
    flows: &mut Vec<Flow>,
    active_flows: &mut Vec<usize>,
    tasks: usize,
    i: usize,
) -> usize {
    let index = if active_flows.len() < 6 || rng.chance(0.25) {
        flows.push(Flow {
            id: format!("inv-{}", &RunId::new().as_str()[4..]),
            name: rng.pick(FLOW_NAMES).to_string(),
            task: rng.chance(0.85).then(|| rng.below(tasks)),
            size: 1 + rng.below(4),
            members: Vec::new(),
        });
        active_flows.push(flows.len() - 1);
        flows.len() - 1
    } else {
        active_flows[rng.below(active_flows.len())]
    };
    flows[index].members.push(i);
    if flows[index].members.len() >= flows[index].size {
        active_flows.retain(|&f| f != index);
    }
    index
}

/// Flow positions: older flows mostly finished; the rest wait on their
/// newest review, or run a new attempt (current or earlier), or neither.
fn plan_flows(rng: &mut Rng, flows: &[Flow], plans: &mut [Plan]) -> Vec<FlowState> {
    let n = plans.len();
    let mut flow_state: Vec<FlowState> = Vec::new();
    for flow in flows {
        let last = *flow.members.last().expect("a flow has a member");
        let old = last < n * 7 / 10;
        let finished = rng.chance(if old { 0.8 } else { 0.25 });
        let (current_run, pending, extra) = match rng.below(100) {
            0..45 => (None, Some(plans[last].id.to_string()), None),
            45..75 => (Some(plans[last].run.to_string()), None, None),
            75..90 => {
                let run = RunId::new();
                (Some(run.to_string()), None, Some(run))
            }
            _ => (None, None, None),
        };
        if !finished && pending.is_some() {
            plans[last].pending = true;
        }
        flow_state.push(FlowState {
            finished,
            current_run,
            pending,
            extra,
        });
    }

    flow_state
}

/// One primary conversation per Wave: its newest Wave-bound one.
fn choose_primaries(waves: &[String], plans: &mut [Plan]) {
    for wave in waves {
        if let Some(plan) = plans.iter_mut().rev().find(|plan| {
            plan.kind == SessionKind::Conversation
                && plan.task.is_none()
                && plan.wave_id.as_deref() == Some(wave)
        }) {
            plan.primary_scope = Some(format!("wave:{wave}"));
            plan.ready = None;
        }
    }
}

/// Live clients go to recent open conversations.
fn choose_live(rng: &mut Rng, live: &[u32], plans: &[Plan]) -> Vec<usize> {
    let n = plans.len();
    let recent = n - n * 3 / 10;
    let mut live_sessions = Vec::new();
    for _ in live {
        loop {
            let i = recent + rng.below(n - recent);
            if plans[i].kind == SessionKind::Conversation {
                live_sessions.push(i);
                break;
            }
        }
    }

    live_sessions
}

/// A third completed, older ones far more likely; never a primary, a
/// pending review or a Session with a live client.
fn choose_completed(
    rng: &mut Rng,
    plans: &mut [Plan],
    flow_state: &[FlowState],
    live_sessions: &[usize],
    now: i64,
) {
    let n = plans.len();
    let mut scores: Vec<(f64, usize)> = plans
        .iter()
        .enumerate()
        .filter(|(i, plan)| {
            plan.primary_scope.is_none() && !plan.pending && !live_sessions.contains(i)
        })
        .map(|(i, plan)| {
            let age = 1.0 - i as f64 / n as f64;
            let finished_flow = plan.flow.is_some_and(|f| flow_state[f].finished);
            let score = rng.unit() * 0.6 + age * 0.8 + if finished_flow { 0.5 } else { 0.0 };
            (score, i)
        })
        .collect();
    scores.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(_, i) in scores.iter().take(n / 3) {
        let plan = &mut plans[i];
        let latest = (plan.updated + 86_400_000_000).min(now - 1);
        plan.completed = Some(latest.max(plan.updated));
    }
}

/// Sessions and their attempts, through the API.
fn write_sessions(store: &lf::store::Store, plans: &[Plan], tasks: &[Task]) -> Result<()> {
    let new_run = |plan: &Plan, id: &RunId| NewRun {
        id: id.clone(),
        chosen_native_id: (plan.provider == "claude").then(|| uuid(&SessionId::new())),
        provider: plan.provider.clone(),
        model: plan.model.clone(),
        argv: plan.argv.clone(),
        prompt: plan.prompt.clone(),
    };
    for plan in plans {
        let task = plan.task.map(|t| &tasks[t]);
        let first = plan.history.first().unwrap_or(&plan.run);
        store.insert_session(
            &NewSessionRow {
                id: plan.id.clone(),
                kind: plan.kind,
                title: plan.title.clone(),
                title_source: plan.title_source,
                interactive: plan.interactive,
                cwd: plan.cwd.clone(),
                provider: plan.provider.clone(),
                model: plan.model.clone(),
                task_id: task.map(|task| task.id.clone()),
                wave_id: plan.wave_id.clone(),
                primary_scope: plan.primary_scope.clone(),
                independent: plan.kind == SessionKind::Conversation,
            },
            &new_run(plan, first),
            plan.created,
        )?;
        // Earlier attempts that failed or ended, each replaced by the next.
        let attempts: Vec<&RunId> = plan.history.iter().chain([&plan.run]).collect();
        for (k, pair) in attempts.windows(2).enumerate() {
            let at = plan.created + k as i64 * 1_000_000;
            let (outcome, code) = if k % 2 == 0 {
                (RunOutcome::Failed, Some(1))
            } else {
                (RunOutcome::Exited, Some(0))
            };
            store.record_outcome(pair[0].as_str(), outcome, code, at)?;
            store.new_attempt(&plan.id, pair[0].as_str(), &new_run(plan, pair[1]), at + 1)?;
        }
    }
    Ok(())
}

/// What has no API yet, in one transaction: flows, Sessions' flow columns
/// and Runs' launch details.
fn write_flows(
    conn: &mut rusqlite::Connection,
    rng: &mut Rng,
    flows: &[Flow],
    flow_state: &[FlowState],
    plans: &[Plan],
    tasks: &[Task],
) -> Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    {
        let mut insert_flow = tx.prepare(
            "INSERT INTO flows (id, name, task_id, finished, current_run_id, pending_session_id, \
             created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        // A flow's new attempt that has no review Session yet.
        let mut insert_run = tx.prepare(
            "INSERT INTO runs (id, session_id, provider, model, prepared, created_at) \
             VALUES (?1, ?2, ?3, ?4, 1, ?5)",
        )?;
        for (flow, state) in flows.iter().zip(flow_state) {
            let FlowState {
                finished,
                current_run,
                pending,
                extra,
            } = state;
            let first = &plans[flow.members[0]];
            let last = &plans[*flow.members.last().expect("a member")];
            // A flow may have been deleted since: its reviews then show
            // "metadata unavailable".
            if rng.chance(0.01) {
                continue;
            }
            insert_flow.execute(params![
                flow.id,
                flow.name,
                flow.task.map(|t| tasks[t].id.as_str()),
                finished,
                current_run,
                pending,
                first.created,
                last.updated,
            ])?;
            if let Some(run) = extra {
                insert_run.execute(params![
                    run.as_str(),
                    last.id.as_str(),
                    last.provider,
                    last.model,
                    last.updated,
                ])?;
            }
        }
        let mut update_session = tx.prepare(
            "UPDATE sessions SET flow_id = ?2, step = ?3, node = ?4, iterations = ?5 WHERE id = ?1",
        )?;
        let mut update_run = tx.prepare(
            "UPDATE runs SET native_id = COALESCE(chosen_native_id, ?2), published = 1, \
             launcher = 'tmux', started_at = ?3 WHERE session_id = ?1",
        )?;
        for plan in plans {
            if let Some(f) = plan.flow {
                update_session.execute(params![
                    plan.id.as_str(),
                    flows[f].id.as_str(),
                    plan.step,
                    plan.node,
                    plan.iterations,
                ])?;
            }
            let native = (plan.provider == "codex").then(|| uuid(&SessionId::new()));
            update_run.execute(params![plan.id.as_str(), native, plan.created + 500_000])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Turns, outcomes and permission prompts, as hooks and lf-serve record
/// them, and ready summaries through the API (fenced on the current Run);
/// returns how many are ready.
fn write_facts(store: &lf::store::Store, plans: &[Plan]) -> Result<usize> {
    for plan in plans {
        let run = plan.run.as_str();
        if let Some(turn) = plan.latest_turn {
            store.record_turn(run, turn, plan.updated - 2)?;
        }
        if let Some(outcome) = plan.outcome {
            let code = match outcome {
                RunOutcome::Exited => Some(0),
                RunOutcome::Interrupted => Some(130),
                RunOutcome::Failed => Some(1),
            };
            store.record_outcome(run, outcome, code, plan.updated - 1)?;
        } else if plan.permission {
            store.record_permission_prompt(run, plan.updated - 1, None)?;
        }
    }

    let mut ready = 0;
    for plan in plans {
        if let Some(summary) = &plan.ready {
            store.mark_ready(plan.id.as_str(), plan.run.as_str(), summary, plan.updated)?;
            ready += 1;
        }
    }

    Ok(ready)
}

/// Client receipts: live ones for the given pids, then stale ones.
fn write_receipts(
    store: &lf::store::Store,
    rng: &mut Rng,
    args: &Args,
    plans: &[Plan],
    live_sessions: &[usize],
) -> Result<()> {
    let n = plans.len();
    let receipt = |plan: &Plan, process: ProcessIdentity, terminal: Option<String>| {
        store.record_client(
            &ClientReceipt {
                session_id: plan.id.to_string(),
                run_id: plan.run.to_string(),
                process,
                terminal_id: terminal,
            },
            plan.updated,
        )
    };
    for (k, (&pid, &i)) in args.live.iter().zip(live_sessions).enumerate() {
        let process = ProcessIdentity::of(pid)
            .with_context(|| format!("--live-pid {pid} is not a running process"))?;
        receipt(&plans[i], process, Some(format!("%{}", 10 + k)))?;
    }
    let boot = lf::liveness::boot_id()?;
    let stale_target = |rng: &mut Rng| -> usize {
        // Most stale receipts stay open (the process died without its
        // receipt being closed); some belong to Sessions completed later.
        loop {
            let i = rng.below(n);
            if plans[i].completed.is_none() == rng.chance(0.85) {
                return i;
            }
        }
    };
    let terminal = |rng: &mut Rng| match rng.below(10) {
        0..7 => Some(format!("%{}", rng.below(500))),
        7..9 => Some(format!("/dev/pts/{}", rng.below(40))),
        _ => None,
    };
    let dead = args.stale * 6 / 10;
    let reused = args.stale * 3 / 10;
    let other_boot = args.stale - dead - reused;
    for process in reaped_processes(dead)? {
        let i = stale_target(rng);
        let t = terminal(rng);
        receipt(&plans[i], process, t)?;
    }
    let running = running_processes();
    for k in 0..reused {
        let (pid, starttime) = running[k % running.len()];
        let wrong = starttime.saturating_sub(1 + k as u64 * 7 + rng.below(1000) as u64);
        let i = stale_target(rng);
        let t = terminal(rng);
        let process = ProcessIdentity {
            boot_id: boot.clone(),
            pid,
            starttime: if wrong == starttime {
                starttime + 1
            } else {
                wrong
            },
        };
        receipt(&plans[i], process, t)?;
    }
    for _ in 0..other_boot {
        let i = stale_target(rng);
        let t = terminal(rng);
        let process = ProcessIdentity {
            boot_id: format!("{:032x}", rng.next() as u128 * rng.next() as u128),
            pid: 300 + rng.below(400_000) as u32,
            starttime: rng.below(100_000_000) as u64,
        };
        receipt(&plans[i], process, t)?;
    }

    Ok(())
}

/// A UUID-shaped native id (Claude's session ids, Codex's thread ids).
fn uuid(id: &SessionId) -> String {
    let hex = id.as_str();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

fn rng_task<'a>(rng: &mut Rng, tasks: &'a [Task]) -> &'a Task {
    &tasks[rng.below(tasks.len())]
}

fn in_worktree(rng: &mut Rng, task: &Task) -> String {
    if rng.chance(0.3) {
        format!("{}/src/app", task.worktree)
    } else {
        task.worktree.clone()
    }
}

fn summary(rng: &mut Rng, what: &str) -> String {
    let mut text = format!("{what}: done.\n\nChanges:\n");
    for k in 0..1 + rng.below(5) {
        text.push_str(&format!("- {} ({} files)\n", rng.pick(OBJECTS), k + 1));
    }
    text.push_str("\nTests: the suite passes; one flaky test was retried.");
    text
}

/// Identities of processes that ran and were reaped: their pids are free
/// (or reused by now), so the receipts are stale.
fn reaped_processes(count: usize) -> Result<Vec<ProcessIdentity>> {
    let mut identities = Vec::with_capacity(count);
    while identities.len() < count {
        let batch = (count - identities.len()).min(64);
        let mut children = Vec::with_capacity(batch);
        for _ in 0..batch {
            let child = std::process::Command::new("sleep")
                .arg("3600")
                .spawn()
                .context("cannot spawn sleep")?;
            identities.push(ProcessIdentity::of(child.id())?);
            children.push(child);
        }
        for mut child in children {
            child.kill()?;
            child.wait()?;
        }
    }
    Ok(identities)
}

/// `(pid, starttime)` of running processes, for receipts of reused pids.
fn running_processes() -> Vec<(u32, u64)> {
    let mut found: Vec<(u32, u64)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, lf::liveness::read_stat(pid)?.starttime)))
        .collect();
    found.sort();
    if found.is_empty() {
        found.push((1, 1));
    }
    found
}
