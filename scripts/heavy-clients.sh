#!/usr/bin/env bash
# Heavy clients against one person, another person meanwhile (issue 55 item 7): ten years of one person's nights in a
# shared PostgreSQL store, served by the release build of `dosetap serve` for everyone. First another person's status
# alone (the baseline), then six clients of the first person pull ten years of insights, events.csv and the backup
# bundle without pause while that other person's status is asked for again. Printed and compared in the same run:
#   - the server's peak resident memory (aim: under 250 MB);
#   - the other person's status p99 meanwhile (aim: under 150 ms), beside its own baseline;
#   - how the heavy requests were answered (200, or 429 with Retry-After past the person's bound of two at once).
# Usage: scripts/heavy-clients.sh --database postgres://USER@HOST:PORT/DATABASE [--seconds 30]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--database" ] || { echo "usage: scripts/heavy-clients.sh --database postgres://USER@HOST:PORT/DATABASE [--seconds N]" >&2; exit 2; }
PG_URL="${2:?--database needs a postgres:// URL}"
SECONDS_UNDER_LOAD=30
[ "${3:-}" = "--seconds" ] && SECONDS_UNDER_LOAD="${4:?--seconds needs a number}"
BUILD=(-c release --static-swift-stdlib --scratch-path .build-static)
swift build "${BUILD[@]}" --product dosetap >/dev/null
BIN="$(swift build "${BUILD[@]}" --show-bin-path)/dosetap"
WORK="$(mktemp -d)"
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
NOW=2026-11-22T03:00:00.000Z
STORE="$PG_URL$( [[ "$PG_URL" == *\?* ]] && echo '&' || echo '?' )search_path=heavy_$$"

# Ten years into a file, then into the store as its first person; a second person with one night of their own.
"$BIN" status --db "$WORK/years.sqlite" --tz America/New_York --now "$NOW" --json >/dev/null
python3 scripts/seed-ten-years.py "$WORK/years.sqlite" >/dev/null
"$BIN" store copy --from "$WORK/years.sqlite" --to "$STORE" >/dev/null
HEAVY_ID=$("$BIN" person list --database "$STORE" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print((d.get("people", d) if isinstance(d, dict) else d)[0]["id"])')
"$BIN" person address "$HEAVY_ID" heavy@example.org --database "$STORE" >/dev/null
"$BIN" person add other@example.org --database "$STORE" >/dev/null
token() { "$BIN" device add "$2" --person "$1" --database "$STORE" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'; }
HEAVY_TOKEN=$(token heavy@example.org "heavy client")
OTHER_TOKEN=$(token other@example.org "other phone")

# Served as the store's owner (a throwaway schema), which `serve` refuses unless told.
"$BIN" serve --database "$STORE" --allow-owner-role --tz America/New_York --port 0 --json --rate-limit 1000000 \
  >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$WORK/serve.out" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/serve.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')

python3 - "$PORT" "$SERVER" "$HEAVY_TOKEN" "$OTHER_TOKEN" "$SECONDS_UNDER_LOAD" <<'PY'
import http.client, statistics, sys, threading, time
port, server, heavy_token, other_token, seconds = sys.argv[1:]
seconds = float(seconds)

def rss_mb(field):
    for line in open(f"/proc/{server}/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return 0.0

def get(connection, path, token):
    start = time.perf_counter()
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    size = len(response.read())
    return response.status, (time.perf_counter() - start) * 1000, size

def statuses(until, times):
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
    while time.monotonic() < until:
        status, ms, _ = get(connection, "/v1/status", other_token)
        if status != 200:
            raise SystemExit(f"the other person's status answered {status}")
        times.append(ms)
        time.sleep(0.02)

def p(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

baseline = []
statuses(time.monotonic() + 5, baseline)
start_rss = rss_mb("VmRSS")
answered, sizes, peak = {}, [], [start_rss]
paths = ["/v1/insights?from=2016-11-01&to=2026-11-21", "/v1/export/events.csv", "/v1/export"] * 2
until = time.monotonic() + seconds
def heavy(path):
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)
    while time.monotonic() < until:
        status, _, size = get(connection, path, heavy_token)
        answered[status] = answered.get(status, 0) + 1
        if status == 200:
            sizes.append(size)
        elif status == 429:
            time.sleep(0.05)
def sample():
    while time.monotonic() < until:
        peak.append(rss_mb("VmRSS"))
        time.sleep(0.1)
meanwhile = []
threads = [threading.Thread(target=heavy, args=(path,)) for path in paths]
threads += [threading.Thread(target=sample), threading.Thread(target=statuses, args=(until, meanwhile))]
for thread in threads: thread.start()
for thread in threads: thread.join()
high_water = rss_mb("VmHWM")
print(f"six heavy clients of one person (ten years) for {seconds:.0f} s, release build, PostgreSQL on loopback")
print(f"heavy answers: " + ", ".join(f"{count} x {status}" for status, count in sorted(answered.items())) + f"; largest body {max(sizes, default=0) / 1e6:.1f} MB")
print(f"another person's status alone:      p50 {p(baseline, .5):6.1f} ms  p99 {p(baseline, .99):6.1f} ms  max {max(baseline):6.1f} ms  ({len(baseline)} requests)")
print(f"another person's status meanwhile:  p50 {p(meanwhile, .5):6.1f} ms  p99 {p(meanwhile, .99):6.1f} ms  max {max(meanwhile):6.1f} ms  ({len(meanwhile)} requests)")
print(f"server memory: {start_rss:.0f} MB before, peak sampled {max(peak):.0f} MB, high-water mark {high_water:.0f} MB, {rss_mb('VmRSS'):.0f} MB after")
ok = True
for passed, text in [
    (high_water < 250, f"peak resident memory {high_water:.0f} MB (aim < 250 MB)"),
    (p(meanwhile, .99) < 150, f"another person's status p99 {p(meanwhile, .99):.1f} ms while they ran (aim < 150 ms)"),
    (answered.get(200, 0) > 0 and set(answered) <= {200, 429}, "every heavy request answered 200, or 429 past the bound"),
]:
    ok = ok and passed
    print(("PASS " if passed else "MISS ") + text)
PY
