#!/usr/bin/env bash
# Benchmark of the merged listing over OpenSSH: `lf-session-list --hosts`
# with two "remote" Homes of SESSIONS sessions each, each behind its own
# real sshd on 127.0.0.1 and a warm ControlMaster (the one lf keeps in
# $LF_HOME/ssh), compared in one run with `ssh HOST true` to the same
# hosts through the same master and with the local listing alone. Goal:
# the merged listing <= GOAL x (the slower host's `ssh true` + the local
# listing). The first (cold) call, which pays both handshakes, is reported
# separately, beside a cold `ssh HOST true`.
#
# Needs root (a private sshd) and openssh-server (scripts/test installs it).
# Usage: bench/remote.sh
# Environment (defaults): SESSIONS=1000 LOCAL=1000 REPS=30 GOAL=1.5
#   BIN_DIR= (a directory with release builds; else they are built)
# Exit status: 0 when the goal is met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-1000}
LOCAL=${LOCAL:-1000}
REPS=${REPS:-30}
GOAL=${GOAL:-1.5}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins lf-bench
work=$(mktemp -d /tmp/lf-bench-remote.XXXXXX)
pids=()
cleanup() {
    for host in a b; do
        "$work/bin/ssh" -o "ControlPath=$work/here/ssh/%C" -O exit -- "$host" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/user_key"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
config=""
for host in a b; do
    port=$(free_port)
    cat > "$work/sshd_config.$host" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/user_key.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
StrictModes no
UsePAM no
PidFile $work/sshd.$host.pid
EOF
    /usr/sbin/sshd -D -f "$work/sshd_config.$host" -E "$work/sshd.$host.log" &
    pids+=($!)
    config+="Host $host
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $work/user_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile $work/known_hosts
  LogLevel ERROR
"
    echo "== seeding $SESSIONS sessions on host $host" >&2
    "$BIN_DIR/lf-bench-seed" --home "$work/$host" --sessions "$SESSIONS" >/dev/null
done
printf '%s' "$config" > "$work/ssh_config"
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$work/ssh_config" > "$work/bin/ssh"
chmod +x "$work/bin/ssh"
echo "== seeding $LOCAL sessions here" >&2
"$BIN_DIR/lf-bench-seed" --home "$work/here" --sessions "$LOCAL" >/dev/null
export PATH="$work/bin:$PATH" LF_HOME="$work/here"
for host in a b; do
    "$BIN_DIR/lf-host" add "$host" --home "$work/$host" --bin "$BIN_DIR" >/dev/null
done
sleep 0.5
export BIN_DIR REPS GOAL WORK="$work"
python3 - <<'PY'
import json, os, subprocess, statistics, time, sys
bins, work = os.environ["BIN_DIR"], os.environ["WORK"]
reps, goal = int(os.environ["REPS"]), float(os.environ["GOAL"])
master = ["-o", "ControlMaster=auto", "-o", f"ControlPath={work}/here/ssh/%C", "-o", "ControlPersist=600"]
def run(argv):
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = (time.perf_counter() - start) * 1000
    if done.returncode != 0 or done.stderr:
        sys.exit(f"{argv} failed: {done.stderr.decode()}")
    return took, done.stdout
listing = [f"{bins}/lf-session-list", "--hosts"]
cold_ssh, _ = run(["ssh", "-o", "ControlMaster=no", "-o", "ControlPath=none", "--", "a", "true"])
cold, out = run(listing)
records = json.loads(out)
remote = sum(1 for r in records if r["workspace"] and r["workspace"]["home_id"])
print(f"records: {len(records)} ({remote} from the two hosts)")
print(f"cold: lf-session-list --hosts {cold:8.1f} ms   (cold ssh a true {cold_ssh:.1f} ms)")
commands = {
    "lf-session-list --hosts": listing,
    "lf-session-list (local)": [f"{bins}/lf-session-list"],
    "ssh a true (warm)": ["ssh", *master, "--", "a", "true"],
    "ssh b true (warm)": ["ssh", *master, "--", "b", "true"],
}
times = {name: [] for name in commands}
for _ in range(3):
    for argv in commands.values():
        run(argv)
for _ in range(reps):
    for name, argv in commands.items():
        times[name].append(run(argv)[0])
median = {name: statistics.median(values) for name, values in times.items()}
for name, value in median.items():
    print(f"{name:26} {value:8.1f} ms (median of {reps})")
base = max(median["ssh a true (warm)"], median["ssh b true (warm)"]) + median["lf-session-list (local)"]
ratio = median["lf-session-list --hosts"] / base
met = ratio <= goal
print(f"warm: lf-session-list --hosts / (slower ssh true + local listing) = "
      f"{median['lf-session-list --hosts']:.1f} / {base:.1f} = {ratio:.2f}  <= {goal} {'PASS' if met else 'FAIL'}")
sys.exit(0 if met else 1)
PY
