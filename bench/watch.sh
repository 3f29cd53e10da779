#!/usr/bin/env bash
# Benchmark of the change stream as a person's notifier runs it: one
# `lf-session-watch` following a Home of SESSIONS sessions (seeded, so it
# has aged through tens of thousands of writes), while separate
# `lf-session-rename` processes change it REPS times.
#
# Latency is from the event's `at` (taken inside the writer's transaction,
# before its COMMIT, so it is counted against us) to the moment the line
# is read from the follower's stdout; goal: median <= LATENCY_GOAL ms.
# Idle CPU is the follower's user+system clock ticks over IDLE seconds in
# which nothing happens; goal: <= IDLE_GOAL ticks (a tick is 10 ms).
#
# Usage: bench/watch.sh
# Environment (defaults): SESSIONS=10000 REPS=200 IDLE=60 LATENCY_GOAL=100
#   IDLE_GOAL=5 BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when both goals are met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-10000}
REPS=${REPS:-200}
IDLE=${IDLE:-60}
LATENCY_GOAL=${LATENCY_GOAL:-100}
IDLE_GOAL=${IDLE_GOAL:-5}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins lf-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== seeding $SESSIONS sessions" >&2
"$BIN_DIR/lf-bench-seed" --home "$work/home" --sessions "$SESSIONS" >/dev/null
export LF_HOME="$work/home" BIN_DIR REPS IDLE LATENCY_GOAL IDLE_GOAL
python3 - <<'PY'
import datetime, json, os, statistics, subprocess, sys, time
bins, reps, idle = os.environ["BIN_DIR"], int(os.environ["REPS"]), int(os.environ["IDLE"])
session = json.loads(subprocess.run([f"{bins}/lf-session-list", "--limit", "1"],
                                    capture_output=True, check=True).stdout)[0]["id"]
follower = subprocess.Popen([f"{bins}/lf-session-watch"], stdout=subprocess.PIPE, text=True)
time.sleep(0.5)

def ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])

latencies = []
for n in range(reps):
    subprocess.run([f"{bins}/lf-session-rename", session, f"bench title {n}"],
                   stdout=subprocess.DEVNULL, check=True)
    event = json.loads(follower.stdout.readline())
    seen = time.time()
    at = datetime.datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()
    assert event["kind"] == "title" and event["to"] == f"bench title {n}", event
    latencies.append((seen - at) * 1000)
    time.sleep(0.02)
latencies.sort()
median = statistics.median(latencies)
p95 = latencies[int(len(latencies) * 0.95) - 1]

before = ticks(follower.pid)
time.sleep(idle)
spent = ticks(follower.pid) - before
follower.kill()

ok_latency = median <= float(os.environ["LATENCY_GOAL"])
ok_idle = spent <= int(os.environ["IDLE_GOAL"])
print(f"commit -> printed line: median {median:.2f} ms, p95 {p95:.2f} ms, max {latencies[-1]:.2f} ms "
      f"over {reps} events  (goal median <= {os.environ['LATENCY_GOAL']} ms) {'PASS' if ok_latency else 'FAIL'}")
print(f"idle CPU over {idle} s: {spent} ticks ({spent * 10} ms)  "
      f"(goal <= {os.environ['IDLE_GOAL']} ticks) {'PASS' if ok_idle else 'FAIL'}")
sys.exit(0 if ok_latency and ok_idle else 1)
PY
