#!/usr/bin/env bash
# Benchmark of lf-session-diff: a Session's worktree in a repository of
# FILES files, CHANGED of them changed (half committed on its branch, half
# not), `lf-session-diff ID` against `git diff --numstat --merge-base main`
# (the same comparison, git alone; goal <= GOAL x) and plain
# `git diff --numstat` (shown for reference), side by side, REPS times.
#
# Usage: bench/diff.sh
# Environment (defaults): FILES=2000 CHANGED=40 REPS=200 GOAL=1.5
#   BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when the goal is met, 1 otherwise.
set -euo pipefail
FILES=${FILES:-2000}
CHANGED=${CHANGED:-40}
REPS=${REPS:-200}
GOAL=${GOAL:-1.5}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LF_HOME="$work/home" HOME="$work" GIT_CONFIG_NOSYSTEM=1 \
    GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
    GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
repo="$work/repo"
mkdir -p "$repo/src"
git -C "$repo" init -q -b main
python3 - "$repo" "$FILES" <<'PY'
import sys
repo, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    with open(f"{repo}/src/f{i}.txt", "w") as f:
        f.write("".join(f"line {j} of file {i}\n" for j in range(50)))
PY
git -C "$repo" add .
git -C "$repo" commit -qm start
id=$("$BIN_DIR/lf-session-new" --no-launch --worktree=bench --cwd "$repo" --provider command -- true \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
wt="$work/repo.worktrees/bench"
half=$((CHANGED / 2))
for i in $(seq 0 $((half - 1))); do echo "committed change" >> "$wt/src/f$i.txt"; done
git -C "$wt" commit -qam "half of the changes"
for i in $(seq "$half" $((CHANGED - 1))); do echo "uncommitted change" >> "$wt/src/f$i.txt"; done
export BIN_DIR REPS GOAL ID="$id" WT="$wt"
python3 - <<'PY'
import os, statistics, subprocess, sys, time
bins, reps, goal = os.environ["BIN_DIR"], int(os.environ["REPS"]), float(os.environ["GOAL"])
wt, sid = os.environ["WT"], os.environ["ID"]
def run(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000
lf = [f"{bins}/lf-session-diff", sid]
same = ["git", "-C", wt, "diff", "--numstat", "--merge-base", "main"]
plain = ["git", "-C", wt, "diff", "--numstat"]
for _ in range(10):
    run(lf); run(same); run(plain)
times = {"lf": [], "same": [], "plain": []}
for _ in range(reps):
    times["lf"].append(run(lf)); times["same"].append(run(same)); times["plain"].append(run(plain))
m = {k: statistics.median(v) for k, v in times.items()}
print(f"{'command':48} {'median ms':>9}  ratio")
print(f"{'lf-session-diff ID':48} {m['lf']:9.2f}")
print(f"{'git diff --numstat --merge-base main':48} {m['same']:9.2f}  {m['lf'] / m['same']:5.2f}  goal <= {goal}")
print(f"{'git diff --numstat':48} {m['plain']:9.2f}  {m['lf'] / m['plain']:5.2f}")
ratio = m["lf"] / m["same"]
print("PASS" if ratio <= goal else "FAIL")
sys.exit(0 if ratio <= goal else 1)
PY
