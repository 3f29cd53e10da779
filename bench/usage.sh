#!/usr/bin/env bash
# Benchmark of usage (issue 25), side by side in one run, on a Home of
# SESSIONS sessions seeded by lf-bench-seed:
#  1. `lf-session-usage --json --by session` reading every session's
#     transcript for the first time (USAGE_LINES lines of Claude's shapes
#     each, all different files) against `jq` summing the same transcripts'
#     message.usage (goal <= USAGE_GOAL x); and the next run, with nothing
#     appended, against the same jq (it reads nothing: the offsets).
#  2. `lf-session-list --all` before any transcript is known, against the
#     same listing once LIST_SESSIONS sessions have transcripts of
#     LIST_LINES lines recorded (and again once they were read): listing
#     reads no transcript (goal <= LIST_GOAL x).
#
# Usage: bench/usage.sh
# Environment (defaults): SESSIONS=1000 USAGE_LINES=300 LIST_SESSIONS=100
#   LIST_LINES=10000 REPS=5 LIST_REPS=20 USAGE_GOAL=2.0 LIST_GOAL=1.1
#   BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when every goal is met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-1000}
USAGE_LINES=${USAGE_LINES:-300}
LIST_SESSIONS=${LIST_SESSIONS:-100}
LIST_LINES=${LIST_LINES:-10000}
REPS=${REPS:-5}
LIST_REPS=${LIST_REPS:-20}
USAGE_GOAL=${USAGE_GOAL:-2.0}
LIST_GOAL=${LIST_GOAL:-1.1}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins lf-bench
command -v jq >/dev/null || { echo "bench/usage.sh needs jq" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== seeding $SESSIONS sessions" >&2
"$BIN_DIR/lf-bench-seed" --home "$work/home" --sessions "$SESSIONS" >/dev/null
export LF_HOME="$work/home" WORK="$work" BIN_DIR SESSIONS USAGE_LINES LIST_SESSIONS LIST_LINES \
    REPS LIST_REPS USAGE_GOAL LIST_GOAL
python3 - <<'PY'
import json, os, shutil, sqlite3, statistics, subprocess, sys, time
bins, work, home = os.environ["BIN_DIR"], os.environ["WORK"], os.environ["LF_HOME"]
env = lambda name: int(os.environ[name])
db_path = os.path.join(home, "loopflow.db")

def transcript(path, lines, seed):
    """Lines in Claude Code 2.1's shapes and sizes: prompts, assistant
    messages (text and tool calls) with their usage, tool results,
    attachments and system lines."""
    pad = "x" * 600
    with open(path, "w") as out:
        minute = 0
        for n in range(lines):
            at = f"2026-12-{1 + (seed + n // 2000) % 28:02d}T{(n // 60) % 24:02d}:{n % 60:02d}:00.000Z"
            kind = n % 6
            if kind == 0:
                line = {"parentUuid": None, "isSidechain": False, "type": "user", "timestamp": at,
                        "message": {"role": "user", "content": f"Prompt {n} of session {seed}"},
                        "uuid": f"u{n}", "userType": "external", "cwd": "/w", "sessionId": "s", "version": "2.1.332"}
            elif kind in (1, 3):
                line = {"parentUuid": f"u{n-1}", "isSidechain": False, "type": "assistant", "timestamp": at,
                        "requestId": f"req_{seed}_{n}",
                        "message": {"id": f"msg_{seed}_{n}", "model": "claude-sonnet-4-5-20250929", "role": "assistant",
                                    "content": [{"type": "text", "text": pad}], "stop_reason": "end_turn",
                                    "usage": {"input_tokens": 3 + n % 7, "cache_creation_input_tokens": 100 + n % 13,
                                              "cache_read_input_tokens": 20000 + n, "output_tokens": 40 + n % 11,
                                              "service_tier": "standard"}},
                        "uuid": f"a{n}", "userType": "external", "cwd": "/w", "sessionId": "s", "version": "2.1.332"}
            elif kind == 2:
                line = {"type": "user", "timestamp": at, "message": {"role": "user", "content": [
                    {"tool_use_id": f"t{n}", "type": "tool_result", "content": pad * 2, "is_error": False}]},
                        "uuid": f"r{n}", "toolUseResult": {"stdout": pad, "stderr": ""}}
            elif kind == 4:
                line = {"parentUuid": f"a{n-1}", "isSidechain": False, "type": "attachment", "timestamp": at,
                        "attachment": {"type": "skill_listing", "content": pad * 3}, "uuid": f"t{n}"}
            else:
                line = {"type": "system", "subtype": "turn_duration", "durationMs": 400 + n, "timestamp": at,
                        "uuid": f"d{n}", "isMeta": False}
            out.write(json.dumps(line, separators=(",", ":")) + "\n")

def run(argv, **kw):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, **kw)
    return (time.perf_counter() - start) * 1000

def median(argv, reps, before=None):
    times = []
    for _ in range(reps):
        if before:
            before()
        times.append(run(argv))
    return statistics.median(times)

db = sqlite3.connect(db_path)
ids = [row[0] for row in db.execute("SELECT id FROM sessions ORDER BY created_at")]
db.close()

def register(paths):
    db = sqlite3.connect(db_path)
    with db:
        db.execute("DELETE FROM usage_sources")
        db.execute("DELETE FROM usage_models")
        db.execute("DELETE FROM usage_time")
        db.executemany("INSERT INTO usage_sources (session_id, path, provider) VALUES (?, ?, 'claude')", paths)
    db.close()

ok = True
print(f"{'':44} {'median ms':>10}   vs {'':30} {'median ms':>10}  ratio  goal")

# 1. lf-session-usage against jq over the same transcripts.
files = []
os.makedirs(os.path.join(work, "t"))
for index, session in enumerate(ids):
    path = os.path.join(work, "t", f"{session}.jsonl")
    transcript(path, env("USAGE_LINES"), index)
    files.append(path)
size = sum(os.path.getsize(path) for path in files)
register(list(zip(ids, files)))
fresh = os.path.join(work, "fresh.db")
db = sqlite3.connect(db_path)
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
shutil.copy(db_path, fresh)
def cold():
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)
    shutil.copy(fresh, db_path)
jq_argv = ["jq", "-n", "reduce (inputs | select(.type == \"assistant\") | .message.usage // empty) as $u "
           "({}; .input += $u.input_tokens | .output += $u.output_tokens "
           "| .cache_creation += $u.cache_creation_input_tokens | .cache_read += $u.cache_read_input_tokens)"] + files
usage_argv = [f"{bins}/lf-session-usage", "--json", "--by", "session"]
for _ in range(2):
    run(jq_argv)
ours = median(usage_argv, env("REPS"), cold)
theirs = median(jq_argv, env("REPS"))
# The sums agree: lf counts each message once; these are all distinct.
out = subprocess.run(jq_argv, capture_output=True, check=True, text=True).stdout
expected = json.loads(out)
rows = json.loads(subprocess.run(usage_argv, capture_output=True, check=True, text=True).stdout)
counted = {kind: sum(row["usage"]["tokens"][kind] for row in rows) for kind in expected}
if counted != expected:
    print(f"lf counted {counted}, jq summed {expected}", file=sys.stderr)
    ok = False
ratio = ours / theirs
met = ratio <= float(os.environ["USAGE_GOAL"])
ok &= met
lines = env("USAGE_LINES") * len(ids)
print(f"{'lf-session-usage, first read':44} {ours:10.1f}   vs {'jq, same transcripts':30} {theirs:10.1f}  {ratio:5.2f}  <= {os.environ['USAGE_GOAL']} {'PASS' if met else 'FAIL'}")
print(f"   ({len(ids)} sessions, {lines} lines, {size / 2**20:.0f} MiB)")
warm = median(usage_argv, env("REPS"))
print(f"{'lf-session-usage, nothing appended':44} {warm:10.1f}   vs {'jq, same transcripts':30} {theirs:10.1f}  {warm / theirs:5.2f}")

# 2. Listing with and without long transcripts: three copies of the Home
# (none known; LIST_SESSIONS recorded, unread; the same, read), listed in
# turn, so the machine's other load falls on all three alike.
list_argv = [f"{bins}/lf-session-list", "--all"]
def checkpoint():
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
register([])
checkpoint()
homes = {"none": os.path.join(work, "home-none")}
shutil.copytree(home, homes["none"])
long = os.path.join(work, "long.jsonl")
transcript(long, env("LIST_LINES"), 0)
long_paths = []
for index, session in enumerate(ids[: env("LIST_SESSIONS")]):
    path = os.path.join(work, "t", f"long-{session}.jsonl")
    os.link(long, path)
    long_paths.append((session, path))
register(long_paths)
checkpoint()
homes["recorded"] = os.path.join(work, "home-recorded")
shutil.copytree(home, homes["recorded"])
start = time.perf_counter()
run(usage_argv)
read_ms = (time.perf_counter() - start) * 1000
checkpoint()
homes["read"] = home
times = {name: [] for name in homes}
for rep in range(3 + env("LIST_REPS")):
    for name, path in homes.items():
        took = run(list_argv, env={**os.environ, "LF_HOME": path})
        if rep >= 3:
            times[name].append(took)
before = statistics.median(times["none"])
for name, label in [("recorded", "lf-session-list --all, transcripts recorded"),
                    ("read", "lf-session-list --all, transcripts read")]:
    value = statistics.median(times[name])
    ratio = value / before
    met = ratio <= float(os.environ["LIST_GOAL"])
    ok &= met
    print(f"{label:44} {value:10.1f}   vs {'lf-session-list --all, none':30} {before:10.1f}  {ratio:5.2f}  <= {os.environ['LIST_GOAL']} {'PASS' if met else 'FAIL'}")
print(f"   ({len(ids)} sessions listed, {len(long_paths)} with a transcript of {env('LIST_LINES')} lines, "
      f"{os.path.getsize(long) / 2**20:.1f} MiB each; reading them all took lf-session-usage {read_ms:.0f} ms)")
sys.exit(0 if ok else 1)
PY
