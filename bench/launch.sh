#!/usr/bin/env bash
# Benchmark of the launch issue's hot paths, in one run:
#   - lf-hook per event (a Claude Stop hook and a Codex Stop hook on real
#     Runs of a seeded Home) against a no-op process start (`true`). Goal:
#     <= 2x. A hook runs on every turn of every agent. Codex runs a hook
#     command with `$SHELL -lc`: that cost (here `/bin/sh -lc`) is
#     reported beside it, not judged (it is the user's login profile).
#   - lf-session-open --print against lf-session-list --limit 1 on a Home of
#     SESSIONS sessions. Goal: <= 1.2x.
#   - the real Claude Code and Codex CLIs (tests/real/bench.rs, against the
#     tests' fake model servers, in a loopback-only network namespace):
#     lf-session-new until the prompt is on screen and lf-session-list
#     says active, against the same CLI started directly in tmux; and the
#     model server's last byte until lf-session-list says reply, against
#     until the answer is on the direct CLI's screen. Goal: lf adds under
#     100 ms to either (medians of ROUNDS rounds).
#
# Usage: bench/launch.sh
# Environment (defaults): SESSIONS=10000 REPS=200 WARMUP=10 ROUNDS=5 KEEP=0
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
unset BIN_DIR
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
sys.exit(0 if ok else 1)
PY

echo "== the real agent CLIs" >&2
source "$root/scripts/agents.sh"
(cd "$root" && cargo build --release --quiet --tests -p lf-bins)
(cd "$root" && LF_BENCH_ROUNDS="${ROUNDS:-5}" hermetic cargo test --release --quiet --offline \
  -p lf-bins --test tests real::bench -- --nocapture --test-threads=1) |
  grep -v '^running\|^test \|^$\|test result'
exit $status
