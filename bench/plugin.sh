#!/usr/bin/env bash
# Benchmark of the Nushell plugin against the binary it mirrors.
#
# Seeds a temporary Home with SESSIONS sessions (the seeder of
# bench/registry.sh: a mix of kinds, work, summaries, attention, live clients
# and stale receipts), then in ONE `nu` process (the plugin started once, as
# in a person's shell) times, interleaved, with nu's own `timeit`:
#   lf sessions | length                vs  ^lf-session-list | from json | length
#   lf sessions --attention | length    vs  ^lf-session-list --attention | from json | length
# and, for reference, `lf sessions | first` (streaming stops early).
#
# Goal: the plugin's median at most GOAL x the binary's (both produce the
# same Nushell table; the binary pays for a process and JSON parsing, the
# plugin for its protocol).
#
# Usage: bench/plugin.sh
# Environment (defaults): SESSIONS=10000 REPS=15 WARMUP=2 LIVE=36 STALE=400
#   GOAL=1.0 KEEP=0 (1 keeps the temp dir)
#   BIN_DIR=  (a directory holding release builds of lf-session-list,
#   lf-bench-seed and nu_plugin_lf: skips the cargo build)
#   LF_TEST_NU= (the nu 0.115.1 binary; default: .tools/nu, installed if missing)
# Exit status: 0 when the goal is met, 1 when not.
set -euo pipefail

SESSIONS=${SESSIONS:-10000}
REPS=${REPS:-15}
WARMUP=${WARMUP:-2}
LIVE=${LIVE:-36}
STALE=${STALE:-400}
GOAL=${GOAL:-1.0}
KEEP=${KEEP:-0}

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname -- "$here")

nu_version=0.115.1
nu=${LF_TEST_NU:-$root/.tools/nu/node_modules/@nushell/linux-x64/bin/nu}
if ! "$nu" --version 2>/dev/null | grep -qx "$nu_version"; then
    echo "== installing nu $nu_version into .tools/nu" >&2
    npm install --silent --no-save --prefix "$root/.tools/nu" "@nushell/linux-x64@$nu_version"
    nu=$root/.tools/nu/node_modules/@nushell/linux-x64/bin/nu
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lf-bench-plugin.XXXXXX")
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
release lf-bins lf-bench nu_plugin_lf
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

echo "== seeding $SESSIONS sessions" >&2
"$bin/lf-bench-seed" --home "$work/home" --sessions "$SESSIONS" --stale "$STALE" \
    "${live_args[@]}" >"$work/seed.json"

script=$(cat <<'NU'
let reps = ($env.REPS | into int)
let warmup = ($env.WARMUP | into int)
let goal = ($env.GOAL | into float)
let pairs = [
    [name plugin binary];
    ["lf sessions | length"
        {|| lf sessions | length }
        {|| ^lf-session-list | from json | length }]
    ["lf sessions --attention | length"
        {|| lf sessions --attention | length }
        {|| ^lf-session-list --attention | from json | length }]
]
let first = {|| lf sessions | first | get id }

# The same rows, or the comparison means nothing.
for pair in $pairs {
    let a = (do $pair.plugin)
    let b = (do $pair.binary)
    if $a != $b { error make {msg: $"($pair.name): plugin ($a) rows, binary ($b) rows"} }
    print $"same rows: ($pair.name): ($a)"
}

# Interleaved, so drift hits both alike; the first rounds are warm-up.
let laps = (1..($warmup + $reps) | each {|lap|
    $pairs | each {|pair|
        let p = (timeit { do $pair.plugin | ignore })
        let b = (timeit { do $pair.binary | ignore })
        {lap: $lap, name: $pair.name, plugin: $p, binary: $b, first: (timeit { do $first | ignore })}
    }
} | flatten | where lap > $warmup)

print $"medians of ($reps) runs after ($warmup) warm-up rounds, one nu process; goal: plugin <= ($goal)x binary"
let ms = {|d| ($d / 1us / 1000) | math round --precision 1 }
let report = ($pairs | each {|pair|
    let rows = ($laps | where name == $pair.name)
    let plugin = ($rows.plugin | math median)
    let binary = ($rows.binary | math median)
    let ratio = (($plugin / 1us) / ($binary / 1us) | math round --precision 2)
    let verdict = (if $ratio <= $goal { "PASS" } else { "FAIL" })
    print $"  ($pair.name)"
    print $"    plugin: median (do $ms $plugin) ms, min (do $ms ($rows.plugin | math min)) ms"
    print $"    binary: median (do $ms $binary) ms, min (do $ms ($rows.binary | math min)) ms  \(^lf-session-list | from json\)"
    print $"    ratio ($ratio): ($verdict)"
    {name: $pair.name, ratio: $ratio, verdict: $verdict}
})
print $"  for reference, lf sessions | first: median (do $ms ($laps.first | math median)) ms"
if ($report | any {|row| $row.verdict == "FAIL" }) { exit 1 }
NU
)

python3 - "$work/seed.json" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
print(f"Home: {info['sessions']} sessions ({info['open']} open), {info['ready']} ready, "
      f"{info['live_receipts']} live clients; seeded in {info['seconds']['total']:.1f} s")
PY

status=0
env -i PATH="$bin:/usr/bin:/bin" HOME="$work" LF_HOME="$work/home" \
    REPS="$REPS" WARMUP="$WARMUP" GOAL="$GOAL" \
    "$nu" -n --no-std-lib --plugins "$bin/nu_plugin_lf" -c "$script" || status=$?
exit "$status"
