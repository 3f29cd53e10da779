#!/usr/bin/env bash
# Benchmark of the launch issue's hot paths, in one run:
#   - lf-hook per event (a Claude Stop hook and a Codex Stop hook on real
#     Runs of a seeded Home) against a no-op process start (`true`). Goal:
#     <= 2x. A hook runs on every turn of every agent. Codex runs a hook
#     command with `$SHELL -lc`: that cost (here `/bin/sh -lc`) is
#     reported beside it, not judged (it is the user's login profile).
#     So are the same hooks with the database held open, as a Run's
#     lf-serve holds it while its agent runs (the judged hooks are each
#     the only process with it open, and rebuild the WAL index first).
#   - lf-session-open --print against lf-session-list --limit 1 on a Home of
#     SESSIONS sessions. Goal: <= 1.2x.
#   - the real Claude Code, Codex, Gemini and OpenCode CLIs
#     (tests/real/bench.rs, against the tests' fake model servers, in a
#     loopback-only network namespace):
#     lf-session-new until the prompt is on screen and lf-session-list
#     says active, against the same CLI started directly in tmux; and the
#     model server's last byte until lf-session-list says reply, against
#     until the answer is on the direct CLI's screen. Goal: lf adds under
#     100 ms to either (medians of ROUNDS rounds).
#
# Usage: bench/launch.sh
# Environment (defaults): SESSIONS=10000 REPS=200 WARMUP=10 ROUNDS=5 KEEP=0
# REAL=1 (0 skips the real CLIs); LF_BENCH_CLIS (e.g. gemini,codex: only
# those real CLIs; all by default); BIN_DIR (a folder of release builds to
# measure instead of building this checkout's; the real CLIs' part always
# builds this checkout).
# Exit status: 0 when the hook and open goals hold, 1 otherwise (the real
# CLIs' numbers are reported, not judged: they vary with the machine).
set -euo pipefail

SESSIONS=${SESSIONS:-10000}
REPS=${REPS:-200}
WARMUP=${WARMUP:-10}
KEEP=${KEEP:-0}
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname -- "$here")

work=$(mktemp -d "${TMPDIR:-/tmp}/lf-bench-launch.XXXXXX")
cleanup() { if [[ $KEEP == 1 ]]; then echo "kept $work" >&2; else rm -rf -- "$work"; fi; }
trap cleanup EXIT

source "$root/bench/release.sh"
release lf-bins lf-bench
bin=$BIN_DIR

home="$work/home"
echo "== seeding $SESSIONS sessions" >&2
"$bin/lf-bench-seed" --home "$home" --sessions "$SESSIONS" >/dev/null
export LF_HOME="$home"
# One more, ordinary session whose Run the hook speaks for.
session=$("$bin/lf-session-new" --no-launch --title 'hook target' --cwd "$work" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
run=$(sqlite3 "$home/loopflow.db" "SELECT current_run_id FROM sessions WHERE id = '$session'")
native=$(sqlite3 "$home/loopflow.db" "SELECT chosen_native_id FROM runs WHERE id = '$run'")
payload="{\"hook_event_name\":\"Stop\",\"session_id\":\"$native\",\"transcript_path\":\"$work/.claude/projects/-w/$native.jsonl\",\"cwd\":\"$work\",\"stop_hook_active\":false}"
# And a Codex one: its Stop hook names the thread (adopted on the first call).
codex_session=$("$bin/lf-session-new" --no-launch --provider codex --title 'codex hook target' --cwd "$work" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
codex_run=$(sqlite3 "$home/loopflow.db" "SELECT current_run_id FROM sessions WHERE id = '$codex_session'")
thread=01a2315a-05c6-74e0-ad45-23f4feeebf7f
codex_payload="{\"session_id\":\"$thread\",\"turn_id\":\"t\",\"transcript_path\":\"$work/.codex/sessions/rollout-2026-12-01T11-25-13-$thread.jsonl\",\"cwd\":\"$work\",\"hook_event_name\":\"Stop\",\"model\":\"gpt\",\"permission_mode\":\"default\",\"stop_hook_active\":false,\"last_assistant_message\":\"ok\"}"

status=0
python3 - "$bin" "$session" "$run" "$payload" "$REPS" "$WARMUP" "$codex_run" "$codex_payload" <<'PY' || status=1
import os, statistics, subprocess, sys, time

bin_dir, session, run, payload, reps, warmup, codex_run, codex_payload = sys.argv[1:]
reps, warmup = int(reps), int(warmup)
payload, codex_payload = payload.encode(), codex_payload.encode()

def timed(argv, stdin=None, run=run):
    start = time.perf_counter()
    env = dict(os.environ, LF_RUN_ID=run)
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return (time.perf_counter() - start) * 1000

hook = f"'{bin_dir}/lf-hook' codex"
cases = {
    "true": (["true"], b"", run),
    "lf-hook claude (Stop)": ([f"{bin_dir}/lf-hook", "claude"], payload, run),
    "lf-hook codex (Stop)": ([f"{bin_dir}/lf-hook", "codex"], codex_payload, codex_run),
    "sh -lc 'lf-hook codex'": (["/bin/sh", "-lc", hook], codex_payload, codex_run),
    "lf-session-list --limit 1": ([f"{bin_dir}/lf-session-list", "--limit", "1"], None, run),
    "lf-session-open --print": ([f"{bin_dir}/lf-session-open", session, "--print"], None, run),
}
times = {name: [] for name in cases}
for _ in range(warmup):
    for argv, stdin, target in cases.values():
        timed(argv, stdin, target)
# Interleave, so drift on the machine hits every command alike.
for _ in range(reps):
    for name, (argv, stdin, target) in cases.items():
        times[name].append(timed(argv, stdin, target))

median = {name: statistics.median(values) for name, values in times.items()}
ok = True
print(f"\nlf launch benchmark ({reps} runs each, medians, ms)")
for name, baseline, goal in [
    ("lf-hook claude (Stop)", "true", 2.0),
    ("lf-hook codex (Stop)", "true", 2.0),
    ("lf-session-open --print", "lf-session-list --limit 1", 1.2),
]:
    ratio = median[name] / median[baseline]
    verdict = "PASS" if ratio <= goal else "FAIL"
    ok &= ratio <= goal
    print(f"  {name:28} {median[name]:7.2f}   vs {baseline:28} {median[baseline]:7.2f}   {ratio:5.2f}x (goal <= {goal}x) {verdict}")
login = "sh -lc 'lf-hook codex'"
print(f"  {login:28} {median[login]:7.2f}   (as Codex runs a hook; not judged: the login profile's cost)")

# Above, each hook is the only process with the database open, so SQLite
# rebuilds the WAL index from the whole WAL first (the worst case). A Run's
# agent runs under its lf-serve, which holds the database open all along:
# its hooks find the index built. The same hooks with a connection held
# open that way (not judged).
import sqlite3
held = sqlite3.connect(os.path.join(os.environ["LF_HOME"], "loopflow.db"))
held.execute("SELECT count(*) FROM sqlite_master").fetchall()
held_cases = ["true", "lf-hook claude (Stop)", "lf-hook codex (Stop)"]
held_times = {name: [] for name in held_cases}
for _ in range(reps):
    for name in held_cases:
        argv, stdin, target = cases[name]
        held_times[name].append(timed(argv, stdin, target))
held.close()
held_median = {name: statistics.median(values) for name, values in held_times.items()}
for name in held_cases[1:]:
    ratio = held_median[name] / held_median["true"]
    label = name + ", held"
    print(f"  {label:28} {held_median[name]:7.2f}   vs {'true':28} {held_median['true']:7.2f}   {ratio:5.2f}x (the Home held open, as by a Run's lf-serve; not judged)")
sys.exit(0 if ok else 1)
PY

if [[ ${REAL:-1} == 0 ]]; then
  exit $status
fi
echo "== the real agent CLIs" >&2
source "$root/scripts/agents.sh"
(cd "$root" && cargo build --release --quiet --tests -p lf-bins)
(cd "$root" && LF_BENCH_ROUNDS="${ROUNDS:-5}" hermetic cargo test --release --quiet --offline \
  -p lf-bins --test tests real::bench -- --nocapture --test-threads=1) |
  grep -v '^running\|^test \|^$\|test result'
exit $status
