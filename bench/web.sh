#!/usr/bin/env bash
# Benchmark of lf-web on a Home of SESSIONS open sessions (seeded, aged):
#
# - event to page: a real headless Chromium (Debian's chromium, through
#   chromedriver) shows lf-web's page at a phone's width; separate
#   `lf-session-rename` processes change a Session REPS times. Latency is
#   from the event's `at` (taken inside the writer's transaction, before
#   its COMMIT, so it is counted against us) to the moment the page put
#   the part that shows it in its document (`data-shown-at`, the page's
#   own Date.now(), same machine clock). Goal: every one <= LATENCY_GOAL ms.
# - page load: the page (GET / with the cookie, the whole list rendered)
#   against `lf-session-list` of the same rows, LOADS runs each, medians.
#   Goal: <= 2x.
# - memory: lf-web's resident memory with PAGES open pages (their event
#   streams connected, events flowing, each page fetching its part).
#
# Usage: bench/web.sh
# Environment (defaults): SESSIONS=1000 REPS=50 LOADS=20 PAGES=10
#   LATENCY_GOAL=200 BIN_DIR= (a directory with release builds; else they
#   are built)
# Exit status: 0 when the goals are met, 1 otherwise.
set -euo pipefail
SESSIONS=${SESSIONS:-1000}
REPS=${REPS:-50}
LOADS=${LOADS:-20}
PAGES=${PAGES:-10}
LATENCY_GOAL=${LATENCY_GOAL:-200}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/release.sh"
release lf-bins lf-bench lf-web
command -v chromedriver >/dev/null || { echo "bench/web.sh needs chromium and chromium-driver (apt-get install chromium chromium-driver)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
echo "== seeding $SESSIONS sessions" >&2
"$BIN_DIR/lf-bench-seed" --home "$work/home" --sessions "$SESSIONS" >/dev/null
export LF_HOME="$work/home" BIN_DIR REPS LOADS PAGES LATENCY_GOAL WORK="$work"
python3 - <<'PY'
import datetime, http.client, json, os, socket, statistics, subprocess, sys, threading, time, urllib.request

bins, work = os.environ["BIN_DIR"], os.environ["WORK"]
reps, loads, pages = int(os.environ["REPS"]), int(os.environ["LOADS"]), int(os.environ["PAGES"])
goal = float(os.environ["LATENCY_GOAL"])

web = subprocess.Popen([f"{bins}/lf-web", "--listen", "127.0.0.1:0", "--print-url"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
url = web.stdout.readline().strip()
host, token = url.removeprefix("http://").split("/?token=")
address, port = host.split(":")
# Sign in as a browser does: the printed URL sets this device's cookie.
signing_in = http.client.HTTPConnection(address, int(port))
signing_in.request("GET", f"/?token={token}")
cookie = signing_in.getresponse().getheader("Set-Cookie").split(";")[0]
signing_in.close()
def memory():
    status = dict(line.split(":", 1) for line in open(f"/proc/{web.pid}/status"))
    return status["VmRSS"].strip(), status["VmHWM"].strip()
started_rss = memory()[0]

def get(path):
    connection = http.client.HTTPConnection(address, int(port))
    connection.request("GET", path, headers={"Cookie": cookie})
    response = connection.getresponse()
    body = response.read()
    assert response.status == 200, (path, response.status)
    return body

# Page load against the listing of the same rows.
def timed(run):
    times = []
    for _ in range(loads):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)
listed = json.loads(subprocess.run([f"{bins}/lf-session-list"], capture_output=True, check=True).stdout)
page = get("/").decode()
assert page.count('class="session"') == len(listed), (page.count('class="session"'), len(listed))
page_ms = timed(lambda: get("/"))
list_ms = timed(lambda: subprocess.run([f"{bins}/lf-session-list"], stdout=subprocess.DEVNULL, check=True))
ratio = page_ms / list_ms

# A real browser at a phone's width, through chromedriver.
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    driver_port = probe.getsockname()[1]
profile = os.path.join(work, "chromium")
driver = subprocess.Popen(["chromedriver", f"--port={driver_port}"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "HOME": work})
def wd(method, path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{driver_port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))["value"]
for _ in range(200):
    try:
        wd("GET", "/status"); break
    except OSError:
        time.sleep(0.05)
args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}"]
session = wd("POST", "/session", {"capabilities": {"alwaysMatch": {"browserName": "chrome",
    "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args,
        "mobileEmulation": {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2}}}}}})["sessionId"]
def script(text):
    return wd("POST", f"/session/{session}/execute/sync", {"script": text, "args": []})
wd("POST", f"/session/{session}/url", {"url": url})
state = "return [document.getElementById('live').className, Number(document.documentElement.dataset.seq || 0), Number(document.documentElement.dataset.shownAt || 0)]"
while script(state)[0] != "on" or script(state)[2] == 0:
    time.sleep(0.02)

# Event to page.
follower = subprocess.Popen([f"{bins}/lf-session-watch"], stdout=subprocess.PIPE, text=True)
time.sleep(0.5)
target = listed[len(listed) // 2]["id"]
latencies = []
for n in range(reps):
    subprocess.run([f"{bins}/lf-session-rename", target, f"bench title {n}"],
                   stdout=subprocess.DEVNULL, check=True)
    event = json.loads(follower.stdout.readline())
    assert event["kind"] == "title", event
    at = datetime.datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp() * 1000
    deadline = time.time() + 10
    while True:
        live, seq, shown = script(state)
        if seq >= event["seq"]:
            break
        assert time.time() < deadline, f"the page never showed event {event['seq']}"
        time.sleep(0.005)
    latencies.append(shown - at)
    time.sleep(0.05)
title = script(f"return document.querySelector('li.session[data-id=\"{target}\"] .title').textContent")
assert title == f"bench title {reps - 1}", title
wd("DELETE", f"/session/{session}")
driver.kill()
latencies.sort()

# Memory with PAGES open pages: each holds its event stream and fetches
# its part on every event, as the page's script does.
def page_reader(stop):
    connection = http.client.HTTPConnection(address, int(port))
    connection.request("GET", "/events", headers={"Cookie": cookie})
    stream = connection.getresponse()
    while not stop.is_set():
        line = stream.fp.readline()
        if not line:
            return
        if line.startswith(b"event: change"):
            get("/part/")
stop = threading.Event()
readers = [threading.Thread(target=page_reader, args=(stop,), daemon=True) for _ in range(pages)]
for reader in readers:
    reader.start()
time.sleep(0.5)
for n in range(20):
    subprocess.run([f"{bins}/lf-session-rename", target, f"memory {n}"], stdout=subprocess.DEVNULL, check=True)
    time.sleep(0.1)
time.sleep(1)
rss, peak = memory()
stop.set()
follower.kill()
web.kill()

ok_latency = latencies[-1] <= goal
ok_load = ratio <= 2
print(f"event -> page ({len(listed)} sessions listed, real Chromium at 390x844): median {statistics.median(latencies):.1f} ms, "
      f"p95 {latencies[int(len(latencies) * 0.95) - 1]:.1f} ms, max {latencies[-1]:.1f} ms over {reps} events  "
      f"(goal every one <= {goal:.0f} ms) {'PASS' if ok_latency else 'FAIL'}")
print(f"page load: GET / {page_ms:.1f} ms against lf-session-list {list_ms:.1f} ms, {ratio:.2f}x "
      f"(medians of {loads}; goal <= 2x) {'PASS' if ok_load else 'FAIL'}")
print(f"memory with {pages} open pages: VmRSS {rss}, peak {peak} (just started: {started_rss})")
sys.exit(0 if ok_latency and ok_load else 1)
PY
