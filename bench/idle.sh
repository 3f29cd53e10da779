#!/usr/bin/env bash
# Benchmark of what idle sessions cost: SESSIONS `command` sessions
# (`sleep 100000`, so their agents do nothing) in a private tmux server and
# Home, each its own lf-serve, against the same number of plain `sleep`
# processes started side by side. For IDLE seconds nothing happens; the
# CPU of every lf-serve (utime + stime of all its threads, from
# /proc/<pid>/stat) and its wakeups (voluntary + involuntary context
# switches of all its threads, from /proc/<pid>/task/*/status) are counted,
# and so are the sleeps'. Then `strace -c -f` shows the system calls of one
# lf-serve over STRACE seconds (strace from Debian: `apt-get install
# strace`; skipped with a note when it is missing).
#
# Goals: all lf-serve together <= CPU_GOAL % of one core, and each
# lf-serve <= WAKEUP_GOAL wakeups per second.
#
# Usage: bench/idle.sh
# Environment (defaults): SESSIONS=100 IDLE=30 STRACE=10 CPU_GOAL=0.5
#   WAKEUP_GOAL=1 BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when both goals are met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-100}
IDLE=${IDLE:-30}
STRACE=${STRACE:-10}
CPU_GOAL=${CPU_GOAL:-0.5}
WAKEUP_GOAL=${WAKEUP_GOAL:-1}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins
work=$(mktemp -d)
socket="lf-bench-idle-$$"
sleeps=()
serves=()
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    if ((${#sleeps[@]})); then kill "${sleeps[@]}" 2>/dev/null || true; fi
    # Each lf-serve records its hang-up and stops its agent: let them end
    # before their Home is removed (at most 15 s).
    for _ in $(seq 150); do
        alive=0
        for pid in "${serves[@]}"; do [[ -e /proc/$pid ]] && alive=1 && break; done
        ((alive)) || break
        sleep 0.1
    done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/cwd"
export LF_HOME="$work/home" LF_TMUX_SOCKET="$socket" TMUX_TMPDIR="$work"
unset TMUX TMUX_PANE
echo "== $SESSIONS command sessions (sleep 100000) and $SESSIONS plain sleeps" >&2
for i in $(seq "$SESSIONS"); do
    "$BIN_DIR/lf-session-new" --provider command --cwd "$work/cwd" --title "idle $i" \
        -- sleep 100000 >/dev/null
    sleep 100000 &
    sleeps+=("$!")
done
mapfile -t serves < <(tmux -L "$socket" list-panes -a -F '#{pane_pid}')
if ((${#serves[@]} != SESSIONS)); then
    echo "expected $SESSIONS lf-serve processes, found ${#serves[@]}" >&2
    exit 1
fi
export SERVES="${serves[*]}" SLEEPS="${sleeps[*]}" IDLE CPU_GOAL WAKEUP_GOAL
result=0
python3 - <<'PY' || result=1
import glob, os, sys, time
serves = [int(p) for p in os.environ["SERVES"].split()]
sleeps = [int(p) for p in os.environ["SLEEPS"].split()]
idle = int(os.environ["IDLE"])
tick = os.sysconf("SC_CLK_TCK")

def ticks(pid):
    # utime + stime (fields 14 and 15) of the whole process, all threads.
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])

def switches(pid):
    total = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        for line in open(status):
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total

def sample(pids):
    return sum(ticks(p) for p in pids), sum(switches(p) for p in pids)

time.sleep(2)  # the launches' last writes settle
before = {"lf-serve": sample(serves), "sleep": sample(sleeps)}
start = time.monotonic()
time.sleep(idle)
elapsed = time.monotonic() - start
after = {"lf-serve": sample(serves), "sleep": sample(sleeps)}
print(f"{'over %d s, %d processes each' % (idle, len(serves)):34} {'% of one core':>14} {'wakeups/s each':>15}")
shares = {}
for name in ("lf-serve", "sleep"):
    cpu = (after[name][0] - before[name][0]) / tick / elapsed * 100
    wakeups = (after[name][1] - before[name][1]) / elapsed / len(serves)
    shares[name] = (cpu, wakeups)
    print(f"{name:34} {cpu:14.2f} {wakeups:15.2f}")
cpu, wakeups = shares["lf-serve"]
ok = cpu <= float(os.environ["CPU_GOAL"]) and wakeups <= float(os.environ["WAKEUP_GOAL"])
print(f"goal: <= {os.environ['CPU_GOAL']} % of one core, <= {os.environ['WAKEUP_GOAL']} wakeup/s each: "
      f"{'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
if command -v strace >/dev/null; then
    echo "== strace -c -f -p ${serves[0]} (one lf-serve) over $STRACE s"
    # An empty table: it made no system call at all (it slept throughout).
    timeout -s INT "$STRACE" strace -c -f -p "${serves[0]}" 2>&1 || true
else
    echo "== strace is not installed (apt-get install strace): no system-call summary"
fi
exit "$result"
