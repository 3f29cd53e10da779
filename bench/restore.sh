#!/usr/bin/env bash
# Benchmark of lf-session-restore: SESSIONS `command` sessions (sleep 600)
# lose their tmux server, then `lf-session-restore` brings them all back
# (until each agent runs again), against starting the same SESSIONS
# `tmux new-session -d` directly, one process each, side by side in one
# run, ROUNDS times (goal <= GOAL x: lf's bookkeeping is not the cost).
#
# Usage: bench/restore.sh
# Environment (defaults): SESSIONS=20 ROUNDS=7 GOAL=2.0
#   BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when the goal is met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-20}
ROUNDS=${ROUNDS:-7}
GOAL=${GOAL:-2.0}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins
work=$(mktemp -d)
socket="lf-bench-restore-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/cwd"
export LF_HOME="$work/home" LF_TMUX_SOCKET="$socket" TMUX_TMPDIR="$work" BIN_DIR SESSIONS ROUNDS GOAL
unset TMUX TMUX_PANE
export WORK="$work"
python3 - <<'PY'
import json, os, statistics, subprocess, sys, time
bins, work = os.environ["BIN_DIR"], os.environ["WORK"]
socket, n = os.environ["LF_TMUX_SOCKET"], int(os.environ["SESSIONS"])
rounds, goal = int(os.environ["ROUNDS"]), float(os.environ["GOAL"])
cwd = f"{work}/cwd"
def run(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
def lost():
    out = run([f"{bins}/lf-session-list", "--state", "lost"]).stdout
    return len(json.loads(out))
def kill_server():
    subprocess.run(["tmux", "-L", socket, "kill-server"], stderr=subprocess.DEVNULL)
def wait(what, done):
    deadline = time.time() + 60
    while not done():
        if time.time() > deadline:
            sys.exit(f"timed out waiting for {what}")
        time.sleep(0.02)
print(f"== {n} command sessions (sleep 600)", file=sys.stderr)
for i in range(n):
    run([f"{bins}/lf-session-new", "--provider", "command", "--cwd", cwd, "--title", f"s{i}", "--", "sleep", "600"])
ours, theirs = [], []
for r in range(rounds):
    kill_server()
    wait("every session lost", lambda: lost() == n)
    start = time.perf_counter()
    out = run([f"{bins}/lf-session-restore"]).stdout.decode()
    ours.append((time.perf_counter() - start) * 1000)
    results = [json.loads(line)["result"] for line in out.splitlines()]
    assert results.count("relaunched") == n, results
    kill_server()
    # lf-serve records each hang-up: let it finish before tmux alone runs.
    wait("every session lost again", lambda: lost() == n)
    start = time.perf_counter()
    for i in range(n):
        run(["tmux", "-L", socket, "new-session", "-d", "-s", f"direct-{i}", "-c", cwd, "-x", "200", "-y", "50", "--", "sleep", "600"])
    theirs.append((time.perf_counter() - start) * 1000)
    kill_server()
a, b = statistics.median(ours), statistics.median(theirs)
ratio = a / b
print(f"{'command':40} {'median ms':>9}")
print(f"{'lf-session-restore (%d sessions)' % n:40} {a:9.1f}")
print(f"{'%d x tmux new-session -d' % n:40} {b:9.1f}")
print(f"ratio {ratio:.2f}  goal <= {goal} {'PASS' if ratio <= goal else 'FAIL'}")
print("rounds (ms): lf " + " ".join(f"{x:.0f}" for x in ours) + " | tmux " + " ".join(f"{x:.0f}" for x in theirs))
sys.exit(0 if ratio <= goal else 1)
PY
