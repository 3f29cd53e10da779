#!/usr/bin/env bash
# Benchmark: a hook's latency while an answer is in flight (issue 34).
#
# An answer presses keys into an agent and watches its screen until the
# agent takes them; a dialog that drops its first key (as Claude Code does
# in a dialog's first moments) keeps the answer in flight for about a
# second. It must not hold the store meanwhile: every other Session's
# hooks go on. On an aged Home of SESSIONS seeded sessions, one live
# Session runs the stand-in Claude (tests/fakes/claude) in a private tmux
# server and shows a dialog; separate `lf-hook claude` processes write a
# permission request and its end for another Session, HOOKS of them with
# no answer in flight, then again while `lf-session-answer` is in flight
# (repeated ROUNDS times, each round a new dialog). Medians and p95 of
# each, and their ratio. Goal: the in-flight median <= 1.5x the idle one,
# and no hook slower than the answer itself (a held store would make the
# slowest hook wait the whole answer).
#
# Usage: bench/answer.sh
# Environment (defaults): SESSIONS=2000 HOOKS=200 ROUNDS=5 BIN_DIR= (a
#   directory with release builds; else they are built)
# Exit status: 0 when the goal is met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-2000}
HOOKS=${HOOKS:-200}
ROUNDS=${ROUNDS:-5}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins lf-bench
work=$(mktemp -d)
socket="$work/tmux"
trap 'tmux -S "$socket" kill-server 2>/dev/null; rm -rf "$work"' EXIT
echo "== seeding $SESSIONS sessions" >&2
"$BIN_DIR/lf-bench-seed" --home "$work/home" --sessions "$SESSIONS" >/dev/null
mkdir -p "$work/fakes" "$work/repo"
ln -s "$root/tests/fakes/claude" "$work/fakes/claude"
export LF_HOME="$work/home" LF_TMUX_SOCKET="$socket" BIN_DIR HOOKS ROUNDS WORK="$work" \
  PATH="$BIN_DIR:$work/fakes:$PATH" FAKE_AGENT_HOME="$work/agents" FAKE_AGENT_LOG="$work/agent.log"
python3 - <<'PY'
import json, os, sqlite3, statistics, subprocess, threading, time

bins, work = os.environ["BIN_DIR"], os.environ["WORK"]
hooks, rounds = int(os.environ["HOOKS"]), int(os.environ["ROUNDS"])
env = dict(os.environ)

def run(*argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, env=env, **kw)

live = json.loads(run(f"{bins}/lf-session-new", "--provider", "claude", "--cwd",
                      f"{work}/repo", "first").stdout)
def record():
    return json.loads(run(f"{bins}/lf-session-list", "--all").stdout)
def show(id):
    return next(r for r in record() if r["id"] == id)
def wait(what, done, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = done()
        if value:
            return value
        time.sleep(0.02)
    raise SystemExit(f"timed out waiting for {what}")
wait("the stand-in to answer its first prompt", lambda: show(live["id"])["attention"] == "reply")

db = sqlite3.connect(f"{work}/home/loopflow.db")
other = db.execute("SELECT current_run_id FROM sessions WHERE completed_at IS NULL AND id != ? "
                   "ORDER BY created_at DESC LIMIT 1", (live["id"],)).fetchone()[0]
db.close()
payloads = [json.dumps({"hook_event_name": event, "tool_name": "Bash",
                        "tool_input": {"command": "ls"}}).encode()
            for event in ("PermissionRequest", "PostToolUse")]
hook_env = dict(env, LF_RUN_ID=other)

def hook(index):
    started = time.perf_counter()
    subprocess.run([f"{bins}/lf-hook", "claude"], input=payloads[index % 2], env=hook_env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000

idle = [hook(i) for i in range(hooks)]
flying, answers = [], []
for round in range(rounds):
    run(f"{bins}/lf-session-send", live["id"],
        f"[dialogs-drop-first: touch round{round}.txt] round {round}")
    wait("the dialog", lambda: (show(live["id"]).get("attention_request") or {}).get("input")
         == f"touch round{round}.txt")
    answer = {}
    def answer_it():
        started = time.perf_counter()
        answer["result"] = run(f"{bins}/lf-session-answer", live["id"], "allow")
        answer["ms"] = (time.perf_counter() - started) * 1000
    thread = threading.Thread(target=answer_it)
    thread.start()
    i = 0
    while thread.is_alive():
        flying.append(hook(i))
        i += 1
    thread.join()
    assert answer["result"].returncode == 0, answer["result"].stderr
    answers.append(answer["ms"])
    wait("the turn to end", lambda: show(live["id"])["attention"] == "reply")

def p95(values):
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]
idle_median, flying_median = statistics.median(idle), statistics.median(flying)
print(f"answers in flight: {rounds}, each {statistics.median(answers):.0f} ms (median)")
print(f"lf-hook, no answer in flight: median {idle_median:.2f} ms, p95 {p95(idle):.2f} ms ({len(idle)} hooks)")
print(f"lf-hook, an answer in flight: median {flying_median:.2f} ms, p95 {p95(flying):.2f} ms, "
      f"slowest {max(flying):.2f} ms ({len(flying)} hooks)")
ratio = flying_median / idle_median
print(f"in flight / idle: {ratio:.2f}x (goal <= 1.5x; slowest hook < an answer: "
      f"{max(flying):.0f} < {min(answers):.0f} ms)")
raise SystemExit(0 if ratio <= 1.5 and max(flying) < min(answers) else 1)
PY
