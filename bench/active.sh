#!/usr/bin/env bash
# Benchmark of the live-process snapshot (lf-session-active).
#
# Starts UNRELATED processes that belong to no Session (`sleep`) and AGENTS
# live agents — each a small tree, an agent process with one tool process
# beneath it (`sh -c 'sleep & exec sleep'`) — recorded as the client
# receipts of a Home seeded with SESSIONS sessions (lf-bench-seed, which
# also seeds stale receipts of reaped and reused pids). Then, in one run,
# times `lf-session-active` against `ps -eo pid,ppid,lstart,args`: the same
# walk over /proc by a classic tool, which attributes nothing.
#
# Goal: lf-session-active's median at most GOAL x ps's.
#
# Usage: bench/active.sh
# Environment (defaults): UNRELATED=2000 AGENTS=50 SESSIONS=2000 REPS=30
#   WARMUP=3 GOAL=1.5 KEEP=0 (1 keeps the temp dir)
#   BIN_DIR=  (a directory holding release builds of lf-session-active and
#   lf-bench-seed: skips the cargo build)
# Exit status: 0 when the goal is met, 1 when not.
set -euo pipefail

UNRELATED=${UNRELATED:-2000}
AGENTS=${AGENTS:-50}
SESSIONS=${SESSIONS:-2000}
REPS=${REPS:-30}
WARMUP=${WARMUP:-3}
GOAL=${GOAL:-1.5}
KEEP=${KEEP:-0}

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname -- "$here")

for tool in ps python3 sleep; do
    command -v "$tool" >/dev/null || { echo "active.sh: needs $tool on PATH" >&2; exit 1; }
done
if (( UNRELATED + 2 * AGENTS > 20000 )); then
    echo "active.sh: at most 20000 processes, please" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lf-bench-active.XXXXXX")
started=()
cleanup() {
    local pid
    # Each agent's tool process is in its agent's process group.
    for pid in "${started[@]}"; do
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
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

echo "== starting $UNRELATED unrelated processes and $AGENTS agents" >&2
set -m # each background job in its own process group
for _ in $(seq "$UNRELATED"); do
    sleep 600 &
    started+=("$!")
done
agents=()
for _ in $(seq "$AGENTS"); do
    sh -c 'sleep 600 & exec sleep 600' &
    started+=("$!")
    agents+=("$!")
done
set +m
live_args=()
for pid in "${agents[@]}"; do
    live_args+=(--live-pid "$pid")
done
# Every agent has its tool beneath it before anything is measured.
for pid in "${agents[@]}"; do
    for _ in $(seq 200); do
        [[ -n $(ps -o pid= --ppid "$pid") ]] && break
        sleep 0.01
    done
done

echo "== seeding $SESSIONS sessions" >&2
home="$work/home"
"$bin/lf-bench-seed" --home "$home" --sessions "$SESSIONS" "${live_args[@]}" >"$work/seed.json"

status=0
python3 - "$bin" "$home" "$REPS" "$WARMUP" "$GOAL" "${agents[@]}" <<'PY' || status=$?
import json, os, random, statistics, subprocess, sys, time

bin_dir, home, reps, warmup, goal = sys.argv[1:6]
reps, warmup, goal = int(reps), int(warmup), float(goal)
agents = {int(pid) for pid in sys.argv[6:]}
env = dict(os.environ, LF_HOME=home)
ACTIVE = [os.path.join(bin_dir, "lf-session-active")]
PS = ["ps", "-eo", "pid,ppid,lstart,args"]

def run(argv, stdout=subprocess.DEVNULL):
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=stdout, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv} failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed, done.stdout

# What is measured must be right: every agent and its tool, nothing else.
# (The seeder may give two agents to one Session.)
snapshot = json.loads(run(ACTIVE, stdout=subprocess.PIPE)[1])
processes = [p for session in snapshot["sessions"] for p in session["processes"]]
lines = len(run(PS, stdout=subprocess.PIPE)[1].splitlines()) - 1
print(f"Processes: {lines} in ps; lf-session-active: discovery {snapshot['discovery']}, "
      f"{len(snapshot['sessions'])} sessions, {len(processes)} processes, "
      f"{len(snapshot['gaps'])} gaps (stale receipts of reused pids, seeded by lf-bench-seed)")
tools = {p["ppid"] for p in processes if p["pid"] not in agents}
ok = (snapshot["discovery"] == "ready"
      and {p["pid"] for p in processes if p["pid"] in agents} == agents
      and tools == agents and len(processes) == 2 * len(agents)
      and all(not gap.startswith("Live process") for gap in snapshot["gaps"]))
print(f"  {'every agent and its tool attributed, nothing else' if ok else 'WRONG ATTRIBUTION'}")

names = {"lf-session-active": ACTIVE, "ps -eo pid,ppid,lstart,args": PS}
times = {name: [] for name in names}
rng = random.Random(7)
for lap in range(warmup + reps):
    order = list(names)
    rng.shuffle(order)
    for name in order:
        elapsed, _ = run(names[name])
        if lap >= warmup:
            times[name].append(elapsed * 1000)

def stats(values):
    values = sorted(values)
    return statistics.median(values), values[0], values[int(len(values) * 0.9) - 1]

print(f"\nTiming: {reps} runs each after {warmup} warm-up rounds, interleaved, stdout to /dev/null")
print(f"  {'command':30} {'median ms':>9} {'min':>7} {'p90':>7}")
for name in names:
    median, low, p90 = stats(times[name])
    print(f"  {name:30} {median:9.1f} {low:7.1f} {p90:7.1f}")
ratio = stats(times["lf-session-active"])[0] / stats(times["ps -eo pid,ppid,lstart,args"])[0]
passed = ratio <= goal
print(f"  ratio {ratio:.2f} (goal <= {goal}): {'PASS' if passed else 'FAIL'}")
sys.exit(0 if ok and passed else 1)
PY
exit "$status"
