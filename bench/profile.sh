#!/usr/bin/env bash
# What a release profile buys at run time: two folders of lf binaries
# built with different profiles (for example lto = "thin" with
# codegen-units = 4, the workspace's, against cargo's defaults), run side by
# side, interleaved, as a status line and a listing run them: a no-op
# process (`true`), `lf-session-count` and `lf-session-list --limit 50`, on
# one Home that SESSIONS separate `lf-session-new --no-launch` processes
# aged. Prints medians, each profile's time over the other's, and the size
# of the binaries. The build times are not measured here (docs/build.md
# says how they were).
#
# Usage: bench/profile.sh DIR_A DIR_B
# Environment (defaults): SESSIONS=1000 REPS=300
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: bench/profile.sh DIR_A DIR_B" >&2; exit 2; }
a=$(cd -- "$1" && pwd)
b=$(cd -- "$2" && pwd)
SESSIONS=${SESSIONS:-1000}
REPS=${REPS:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LF_HOME="$work/home"
echo "== ageing a Home with $SESSIONS lf-session-new processes" >&2
for ((i = 0; i < SESSIONS; i++)); do
  "$a/lf-session-new" --no-launch --provider command --title "s$i" --cwd "$work" -- true >/dev/null
done
export A="$a" B="$b" REPS
python3 - <<'PY'
import os, statistics, subprocess, time
a, b, reps = os.environ["A"], os.environ["B"], int(os.environ["REPS"])
cases = [
    ("true", ["true"], ["true"]),
    ("lf-session-count", [f"{a}/lf-session-count"], [f"{b}/lf-session-count"]),
    ("lf-session-list --limit 50",
     [f"{a}/lf-session-list", "--limit", "50"], [f"{b}/lf-session-list", "--limit", "50"]),
]
def once(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000
print(f"{'command':28} {'A ms':>8} {'B ms':>8} {'A/B':>6}")
for name, in_a, in_b in cases:
    ta, tb = [], []
    for _ in range(reps):
        ta.append(once(in_a))
        tb.append(once(in_b))
    ma, mb = statistics.median(ta), statistics.median(tb)
    print(f"{name:28} {ma:8.3f} {mb:8.3f} {ma / mb:6.2f}")
for folder, label in ((a, "A"), (b, "B")):
    total = sum(os.path.getsize(os.path.join(folder, name))
                for name in os.listdir(folder)
                if name.startswith("lf-") and os.access(os.path.join(folder, name), os.X_OK)
                and os.path.isfile(os.path.join(folder, name)))
    print(f"{label}: lf-* binaries {total / 2**20:.1f} MiB in {folder}")
PY
