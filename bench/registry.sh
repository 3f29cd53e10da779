#!/usr/bin/env bash
# Benchmark of the session registry.
#
# Seeds a temporary Home with SESSIONS sessions (two thirds open, a mix of
# kinds, work, summaries, attention, live clients and stale receipts), ages
# it as a user's Home ages — AGED_CREATES of those sessions are created by
# separate `lf-session-new` processes among AGED_HOOKS separate `lf-hook`
# processes (lf-bench-soak), so the database and its WAL are what a user's
# are after weeks, not what one seeding process leaves — then
# in one run times `lf-session-list` (all open), `--limit 100` and
# `--attention` against `sqlite3 -json` selecting the same rows from the same
# database file, and measures the peak RSS of `lf-session-list --jsonl` for
# Homes of several sizes.
#
# Goal: each lf command's median at most GOAL x its sqlite3 counterpart's
# (the query a generic CLI would run to dump the same rows),
# and `--jsonl` peak memory that does not grow with the number of sessions.
#
# Usage: bench/registry.sh
# Environment (defaults): SESSIONS=10000 REPS=30 WARMUP=3 LIVE=36 STALE=400
#   GOAL=1.0 MEMORY_SIZES="2000 10000 20000" KEEP=0 (1 keeps the temp dir)
#   AGED_CREATES=3000 AGED_HOOKS=15000 (0 and 0: seeded by one process only)
#   BIN_DIR=  (a directory holding release builds of the lf-* binaries,
#   lf-bench-seed and lf-bench-soak: skips the cargo build, e.g. to bench
#   another checkout)
# Exit status: 0 when every check passes, 1 when one fails.
set -euo pipefail

SESSIONS=${SESSIONS:-10000}
REPS=${REPS:-30}
WARMUP=${WARMUP:-3}
LIVE=${LIVE:-36}
STALE=${STALE:-400}
GOAL=${GOAL:-1.0}
AGED_CREATES=${AGED_CREATES:-3000}
AGED_HOOKS=${AGED_HOOKS:-15000}
MEMORY_SIZES=${MEMORY_SIZES:-"2000 10000 20000"}
KEEP=${KEEP:-0}

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname -- "$here")

for tool in sqlite3 python3 sleep; do
    command -v "$tool" >/dev/null || { echo "registry.sh: needs $tool on PATH" >&2; exit 1; }
done
# Peak RSS comes from GNU time: a child forked by python would report
# python's own high-water mark, which survives exec.
if [[ -n $MEMORY_SIZES && ! -x /usr/bin/time ]] && command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
    echo "== installing GNU time for peak RSS" >&2
    apt-get install -y -qq time >/dev/null || true
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lf-bench.XXXXXX")
sleepers=()
cleanup() {
    local pid
    for pid in "${sleepers[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [[ $KEEP == 1 ]]; then
        echo "kept $work" >&2
    else
        rm -rf -- "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source "$root/bench/release.sh"
release lf-bins lf-bench
bin=$BIN_DIR

# Live clients: processes that outlive the benchmark's queries.
for _ in $(seq "$LIVE"); do
    sleep 100000 &
    sleepers+=("$!")
done
live_args=()
for pid in "${sleepers[@]}"; do
    live_args+=(--live-pid "$pid")
done

seed() {
    local size=$1 aged=${2:-0} dir="$work/h$1"
    if [[ ! -e $dir/home/loopflow.db ]]; then
        mkdir -p "$dir"
        echo "== seeding $size sessions" >&2
        "$bin/lf-bench-seed" --home "$dir/home" --sessions "$((size - aged))" --stale "$STALE" \
            "${live_args[@]}" >"$dir/seed.json"
        if ((aged > 0)); then
            echo "== ageing it: $aged creates among $AGED_HOOKS hooks, each its own process" >&2
            # lf-bench-soak's own agents are ten of the created sessions.
            "$bin/lf-bench-soak" --bin "$bin" --home "$dir/home" --agents 10 \
                --creates "$((aged - 10))" --hooks "$AGED_HOOKS" >"$dir/aged.json" 2>"$dir/aged.log" ||
                { tail -5 "$dir/aged.log" >&2; exit 1; }
        fi
    fi
}

seed "$SESSIONS" "$AGED_CREATES"
for size in $MEMORY_SIZES; do
    seed "$size"
done

status=0
python3 - "$bin" "$work" "$SESSIONS" "$REPS" "$WARMUP" "$GOAL" $MEMORY_SIZES <<'PY' || status=$?
import json, os, random, statistics, subprocess, sys, time

bin_dir, work, sessions, reps, warmup, goal = sys.argv[1:7]
sessions, reps, warmup, goal = int(sessions), int(reps), int(warmup), float(goal)
memory_sizes = [int(size) for size in sys.argv[7:]]

def home(size):
    return os.path.join(work, f"h{size}", "home")

def seeded(size):
    with open(os.path.join(work, f"h{size}", "seed.json")) as f:
        return json.load(f)

LIST = os.path.join(bin_dir, "lf-session-list")
COLUMNS = "s.*, r.outcome AS outcome"
RUN = "LEFT JOIN runs r ON r.id = s.current_run_id"
ORDER = "ORDER BY s.created_at DESC, s.id DESC"
# rules::attention, row by row: a conversation with a ready summary or a
# flow review that is its unfinished flow's pending session (its task not
# finished) -> review; a permission prompt -> approve; an interactive
# session whose latest turn completed and whose run was not interrupted ->
# reply. Completed sessions never need attention.
ATTENTION = f"""SELECT {COLUMNS} FROM sessions s {RUN}
  LEFT JOIN flows f ON f.id = s.flow_id
  LEFT JOIN tasks t ON t.id = s.task_id
  WHERE s.completed_at IS NULL AND (
       (s.kind = 'flow' AND f.finished = 0 AND f.pending_session_id = s.id
            AND t.finished_at IS NULL)
    OR (s.kind = 'conversation' AND s.ready_summary IS NOT NULL)
    OR s.permission_pending = 1
    OR (s.interactive = 1 AND s.latest_turn = 'completed'
            AND r.outcome IS NOT 'interrupted'))
  {ORDER}"""
OPEN = f"SELECT {COLUMNS} FROM sessions s {RUN} WHERE s.completed_at IS NULL {ORDER}"

def sqlite(db, sql):
    return ["sqlite3", "-batch", "-json", db, " ".join(sql.split())]

db = os.path.join(home(sessions), "loopflow.db")
env = dict(os.environ, LF_HOME=home(sessions))
pairs = [
    ("lf-session-list", [LIST], sqlite(db, OPEN)),
    ("lf-session-list --limit 100", [LIST, "--limit", "100"], sqlite(db, OPEN + " LIMIT 100")),
    ("lf-session-list --attention", [LIST, "--attention"], sqlite(db, ATTENTION)),
]

def run(argv, env=env, stdout=subprocess.DEVNULL):
    """Wall time (s), CPU time (s, user + system) and output of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=stdout, stderr=subprocess.PIPE)
    # Read, then reap with wait4 for the child's own rusage (stderr is small).
    out = child.stdout.read() if stdout == subprocess.PIPE else None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{argv} failed ({code}): {err.decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, out

def peak_rss(argv, env):
    """Peak RSS (KiB) of one run, measured by GNU time."""
    report = os.path.join(work, "rss.txt")
    run(["/usr/bin/time", "-f", "%M", "-o", report, *argv], env=env)
    with open(report) as f:
        return int(f.read().split()[-1])

info = seeded(sessions)
print(f"Home: {info['sessions']} sessions ({info['open']} open, {info['flow_reviews']} flow reviews "
      f"in {info['flows']} flows, {info['runs']} runs), {info['waves']} waves, {info['tasks']} tasks, "
      f"{info['ready']} ready, {info['live_receipts']} live clients, "
      f"{info['open_receipts'] - info['live_receipts']} stale open receipts "
      f"(+{info['ended_receipts']} ended); seeded in {info['seconds']['total']:.1f} s")
aged_path = os.path.join(work, f"h{sessions}", "aged.json")
if os.path.exists(aged_path):
    with open(aged_path) as f:
        aged = json.load(f)
    print(f"Aged by separate processes: {aged['creates']['count'] + 10} of the sessions came from "
          f"lf-session-new, among {aged['hooks']['count']} lf-hook, in {aged['seconds']:.0f} s; "
          f"WAL at most {aged['largest_wal_bytes'] / 2**20:.1f} MiB, "
          f"database {aged['final_db_bytes'] / 2**20:.1f} MiB")

# The same rows, in the same order, or the comparison means nothing.
ok = True
print("\nSame rows:")
for name, lf, sq in pairs:
    ids_lf = [record["id"] for record in json.loads(run(lf, stdout=subprocess.PIPE)[2])]
    raw = run(sq, stdout=subprocess.PIPE)[2]
    ids_sq = [row["id"] for row in json.loads(raw)] if raw.strip() else []
    same = ids_lf == ids_sq
    ok &= same
    print(f"  {name:30} lf {len(ids_lf):5} rows, sqlite3 {len(ids_sq):5} rows: "
          f"{'identical' if same else 'DIFFERENT'}")

# Interleaved, in a shuffled order each round, so drift hits all alike.
commands = [(name, argv) for name, lf, sq in pairs for name, argv in ((name, lf), ("sqlite3 " + name, sq))]
# Floors, for reading the table: starting each program and doing nothing.
floors = [("lf-session-list --version", [LIST, "--version"]),
          ("sqlite3 -json DB 'SELECT 1'", sqlite(db, "SELECT 1"))]
commands += floors
times = {name: [] for name, _ in commands}
cpu = {name: [] for name, _ in commands}
rng = random.Random(7)
for lap in range(warmup + reps):
    order = commands[:]
    rng.shuffle(order)
    for name, argv in order:
        elapsed, cpu_time, _ = run(argv)
        if lap >= warmup:
            times[name].append(elapsed * 1000)
            cpu[name].append(cpu_time * 1000)

def stats(values):
    values = sorted(values)
    return statistics.median(values), values[0], values[max(0, int(len(values) * 0.9) - 1)]

print(f"\nTiming: {reps} runs each, interleaved, after {warmup} warm-up rounds; stdout to /dev/null.")
print(f"Verdict on wall-clock medians (goal: lf <= {goal}x sqlite3); CPU (user+sys) medians for reference,")
print("being less sensitive to other load on the machine.")
header = (f"  {'command':36} {'wall ms':>8} {'min':>6} {'p90':>6} {'ratio':>6}  {'verdict':7}"
          f" {'cpu ms':>7} {'ratio':>6}")
print(header)
print("  " + "-" * (len(header) - 2))
def line(label, name, ratio="", verdict="", cpu_ratio=""):
    median, low, p90 = stats(times[name])
    print(f"  {label:36} {median:8.1f} {low:6.1f} {p90:6.1f} {ratio:>6}  {verdict:7}"
          f" {statistics.median(cpu[name]):7.1f} {cpu_ratio:>6}")
for name, lf, sq in pairs:
    ratio = statistics.median(times[name]) / statistics.median(times["sqlite3 " + name])
    cpu_ratio = statistics.median(cpu[name]) / statistics.median(cpu["sqlite3 " + name])
    passed = ratio <= goal
    ok &= passed
    line(name, name, f"{ratio:.2f}", "PASS" if passed else "FAIL", f"{cpu_ratio:.2f}")
    line("  sqlite3 -json, same rows", "sqlite3 " + name)
print("  process start, for reference:")
for name, _ in floors:
    line("  " + name, name)

# Peak RSS of the streamed listing, by Home size.
if memory_sizes and not os.access("/usr/bin/time", os.X_OK):
    print("\nPeak RSS: skipped, GNU time (/usr/bin/time) is not installed")
elif memory_sizes:
    print("\nPeak RSS (KiB, median of 5 runs), stdout to /dev/null:")
    print(f"  {'sessions':>8} {'open':>6} {'--jsonl':>8} {'--jsonl --all':>14} {'array':>8} {'sqlite3':>8}")
    jsonl = []
    for size in memory_sizes:
        size_env = dict(os.environ, LF_HOME=home(size))
        size_db = os.path.join(home(size), "loopflow.db")
        def rss(argv):
            return int(statistics.median(peak_rss(argv, size_env) for _ in range(5)))
        row = (rss([LIST, "--jsonl"]), rss([LIST, "--jsonl", "--all"]), rss([LIST]),
               rss(sqlite(size_db, OPEN)))
        jsonl.append((size, row[0]))
        print(f"  {size:8} {seeded(size)['open']:6} {row[0]:8} {row[1]:14} {row[2]:8} {row[3]:8}")
    (small, rss_small), (large, rss_large) = jsonl[0], jsonl[-1]
    growth = (rss_large - rss_small) / rss_small
    flat = growth <= 0.10
    ok &= flat
    print(f"  --jsonl from {small} to {large} sessions: {rss_small} -> {rss_large} KiB "
          f"({growth:+.1%}): {'flat (PASS)' if flat else 'GROWS (FAIL)'}")

sys.exit(0 if ok else 1)
PY
exit "$status"
