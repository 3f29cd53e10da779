#!/usr/bin/env bash
# Soak benchmark: does every lf process stay as fast as the Home ages?
#
# Ages a fresh Home the way a user's ages — HOOKS `lf-hook claude` events of
# ten conversations and CREATES `lf-session-new --no-launch`, each its own
# short-lived process, one after another (lf-bench-soak) — and prints the
# median latency of the first and the last WINDOW operations of each kind,
# their ratio, the `true` floor over the same windows, and the WAL size
# sampled every WINDOW operations.
#
# Goal: the last WINDOW within 1.3x of the first for hooks and creates, the
# WAL at most 16 MiB throughout.
#
# Usage: bench/soak.sh
# Environment (defaults): HOOKS=50000 CREATES=10000 WINDOW=1000 KEEP=0
#   BIN_DIR= (release builds of lf-hook, lf-session-new and lf-bench-soak)
# Exit status: 0 when every check passes, 1 when one fails.
set -euo pipefail

HOOKS=${HOOKS:-50000}
CREATES=${CREATES:-10000}
WINDOW=${WINDOW:-1000}
KEEP=${KEEP:-0}

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname -- "$here")
command -v jq >/dev/null || { echo "soak.sh: needs jq on PATH" >&2; exit 1; }

source "$root/bench/release.sh"
release lf-bins lf-bench
bin=$BIN_DIR

work=$(mktemp -d "${TMPDIR:-/tmp}/lf-soak.XXXXXX")
cleanup() {
    if [[ $KEEP == 1 ]]; then echo "kept $work" >&2; else rm -rf -- "$work"; fi
}
trap cleanup EXIT

echo "== $HOOKS hooks and $CREATES creates, each its own process" >&2
"$bin/lf-bench-soak" --bin "$bin" --home "$work/home" --hooks "$HOOKS" \
    --creates "$CREATES" --window "$WINDOW" >"$work/report.json" 2>"$work/samples.jsonl"

jq -r '
  def ms: . * 100 | round / 100;
  "Aged a Home with \(.hooks.count) lf-hook and \(.creates.count) lf-session-new processes in \(.seconds | round) s.",
  "",
  "  operation                      first \(.hooks.window) ms   last \(.hooks.window) ms   last/first",
  (.hooks, .creates, .true |
    "  \(.operation | . + " " * (30 - length)) \(.first_median_ms | ms | tostring | " " * (12 - length) + .)   \(.last_median_ms | ms | tostring | " " * (11 - length) + .)   \(.last_over_first * 1000 | round / 1000)"),
  "",
  "  lf-hook median over true median: \(.hook_over_true * 100 | round / 100)",
  "  WAL: largest \(.largest_wal_bytes / 1048576 * 100 | round / 100) MiB, at the end \(.final_wal_bytes / 1048576 * 100 | round / 100) MiB; database \(.final_db_bytes / 1048576 * 100 | round / 100) MiB",
  "",
  "WAL over time (MiB, every \(.wal_samples | length / 20 | ceil) samples):",
  ([.wal_samples | to_entries[] | select(.key % ((length / 20 | ceil) // 1) == 0) | .value] as $s
    | $s[] | "  after \(.operations) operations (\(.seconds | round) s): \(.wal_bytes / 1048576 * 100 | round / 100)")
' "$work/report.json" 2>/dev/null || jq . "$work/report.json"

jq -e '
  .hooks.last_over_first <= 1.3 and .creates.last_over_first <= 1.3
  and .largest_wal_bytes <= 16 * 1048576
' "$work/report.json" >/dev/null && { echo "PASS"; exit 0; }
echo "FAIL: a last/first ratio is above 1.3 or the WAL passed 16 MiB"
exit 1
