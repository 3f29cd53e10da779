#!/usr/bin/env bash
# Benchmark of the cheapest commands, as a tmux status line and a key
# binding run them: `lf-session-count` against `true` (goal <= COUNT_GOAL x)
# and `lf-session-next --print` against `lf-session-list --limit 1` (goal
# <= NEXT_GOAL x), side by side in one run, on a Home of SESSIONS sessions.
#
# Usage: bench/queue.sh
# Environment (defaults): SESSIONS=10000 REPS=200 COUNT_GOAL=2.0 NEXT_GOAL=1.2
#   BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when both goals are met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-10000}
REPS=${REPS:-200}
COUNT_GOAL=${COUNT_GOAL:-2.0}
NEXT_GOAL=${NEXT_GOAL:-1.2}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins lf-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== seeding $SESSIONS sessions" >&2
"$BIN_DIR/lf-bench-seed" --home "$work/home" --sessions "$SESSIONS" >/dev/null
export LF_HOME="$work/home" BIN_DIR REPS COUNT_GOAL NEXT_GOAL
python3 - <<'PY'
import os, subprocess, statistics, time, sys
bins = os.environ["BIN_DIR"]
reps = int(os.environ["REPS"])
def run(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000
pairs = [
    ("lf-session-count", [f"{bins}/lf-session-count"], "true", ["true"], float(os.environ["COUNT_GOAL"])),
    ("lf-session-next --print", [f"{bins}/lf-session-next", "--print"],
     "lf-session-list --limit 1", [f"{bins}/lf-session-list", "--limit", "1"], float(os.environ["NEXT_GOAL"])),
]
ok = True
print(f"{'command':28} {'median ms':>9}   vs {'':28} {'median ms':>9}  ratio  goal")
for name, argv, base_name, base, goal in pairs:
    for _ in range(5):
        run(argv); run(base)
    ours, theirs = [], []
    for _ in range(reps):
        ours.append(run(argv)); theirs.append(run(base))
    a, b = statistics.median(ours), statistics.median(theirs)
    ratio = a / b
    met = ratio <= goal
    ok &= met
    print(f"{name:28} {a:9.2f}   vs {base_name:28} {b:9.2f}  {ratio:5.2f}  <= {goal} {'PASS' if met else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
