#!/usr/bin/env bash
# Load benchmark of `dosetap serve` (issue 5): wrk on loopback against the release build, every figure measured and
# compared in the same run against the same server:
#   1. a trivial route (GET /health: no database) as the baseline;
#   2. GET /v1/status (aim: at least 50 % of the trivial route's requests per second);
#   3. POST /v1/events/log into an open night (aim: at least 3,000 requests per second, p99 at most 20 ms, no refusals):
#      with --database, 200 people logging at once, each request from the next person in turn (the hosted load of
#      issue 55); on the file, its one person. One person logging through all 16 connections is run too, for the record;
#   4. resident memory of the idle server after start and after the load (aim: idle under 60 MB);
#   5. one person's log action late in a night against early (issue 55): 200 logs one after another on one
#      connection, before the log runs (the night holds Dose 1) and after them (thousands of events); the late median
#      within 1.5x of the early one.
# Usage: scripts/load-benchmark.sh [--database postgres://USER@HOST:PORT/DATABASE]
#        (DURATION=10s CONNECTIONS=16 THREADS=2; installs wrk from Debian if missing). With --database the server runs on
#        a fresh schema of that PostgreSQL (issue 33), and the same aims apply.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null || ! command -v curl >/dev/null; then
  (apt-get install -y wrk curl >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk curl >/dev/null; })
fi

BUILD=(-c release --static-swift-stdlib --scratch-path .build-static)
swift build "${BUILD[@]}" --product dosetap >/dev/null
BIN="$(swift build "${BUILD[@]}" --show-bin-path)/dosetap"
WORK="$(mktemp -d)"
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
STORE=(--db "$WORK/load.sqlite")
SERVE_AS=()
if [ "${1:-}" = "--database" ]; then
  PG_URL="${2:?--database needs a postgres:// URL}"
  STORE=(--database "$PG_URL$( [[ "$PG_URL" == *\?* ]] && echo '&' || echo '?' )search_path=load_$$")
  # The benchmark serves its throwaway schema as the URL's role, the schema's owner, which `serve` refuses unless told.
  SERVE_AS=(--allow-owner-role)
fi

# Water without its cooldown, so every logged request is a real write, not a refusal.
"$BIN" settings set cooldown.water 0 "${STORE[@]}" --tz UTC >/dev/null
TOKEN=$("$BIN" device add load "${STORE[@]}" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
# The per-device limit (240/min) would answer 429 within a second; the benchmark measures the work behind it.
"$BIN" serve "${STORE[@]}" "${SERVE_AS[@]}" --tz UTC --port 0 --json --rate-limit 1000000 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$WORK/serve.out" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/serve.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')
URL="http://127.0.0.1:$PORT"
rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$SERVER/status"; }
sleep 1
IDLE=$(rss_mb)

TOKENS=("$TOKEN")
PERSON_OPTION=()
if [ -n "${PG_URL:-}" ]; then
  # 199 more people, each with water's cooldown off and one paired device, written in one statement each as an operator
  # would load a directory; their tokens are derived from their number, as reminder-scale.py's are.
  PEOPLE=${PEOPLE:-200}
  FIRST=$("$BIN" person list "${STORE[@]}" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
  PERSON_OPTION=(--person "$FIRST")
  psql "$PG_URL" -q -v ON_ERROR_STOP=1 <<SQL
SET search_path = load_$$;
INSERT INTO people (id, created_at, email) SELECT 'load-' || i, now(), 'load' || i || '@example.org' FROM generate_series(1, $PEOPLE - 1) AS i;
INSERT INTO settings (person_id, key, value, updated_at)
    SELECT p.id, s.key, s.value, now() FROM people AS p, settings AS s WHERE p.id LIKE 'load-%' AND s.person_id = '$FIRST';
INSERT INTO devices (id, person_id, name, token_hash, created_at)
    SELECT 'load-device-' || i, 'load-' || i, 'load', encode(sha256(('dtp_' || encode(sha256(('load-' || i)::bytea), 'hex'))::bytea), 'hex'), now()
    FROM generate_series(1, $PEOPLE - 1) AS i;
ANALYZE;
SQL
  for i in $(seq 1 $((PEOPLE - 1))); do
    TOKENS+=("dtp_$(printf 'load-%s' "$i" | sha256sum | cut -d' ' -f1)")
  done
fi
# Everyone's night is open: Dose 1, taken through the API.
for token in "${TOKENS[@]}"; do
  curl -sf -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d '{"type":"dose1"}' "$URL/v1/doses/take" >/dev/null
done
log_script() { # a wrk script logging water as each of the given tokens in turn
  printf 'local tokens = {'
  printf '"%s",' "$@"
  cat <<'LUA'
}
local next = 0
request = function()
  next = next % #tokens + 1
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tokens[next]}, '{"type":"water"}')
end
LUA
}
log_script "${TOKENS[@]}" >"$WORK/log.lua"
log_script "$TOKEN" >"$WORK/log-one.lua"

one_after_another() { # the median of 200 logs sent one after another on one connection, in ms
  python3 - "$PORT" "$TOKEN" <<'PY'
import http.client, statistics, sys, time
port, token = sys.argv[1:]
connection = http.client.HTTPConnection("127.0.0.1", int(port))
headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
times = []
for _ in range(200):
    start = time.perf_counter()
    connection.request("POST", "/v1/events/log", body='{"type":"water"}', headers=headers)
    response = connection.getresponse()
    response.read()
    if response.status // 100 != 2:
        raise SystemExit(f"a log answered {response.status}")
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.3f}")
PY
}

run() { # name, then wrk arguments
  local name=$1; shift
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" >"$WORK/$name.txt"
}
run trivial "$URL/health"
run status -H "Authorization: Bearer $TOKEN" "$URL/v1/status"
EARLY=$(one_after_another)
run log -s "$WORK/log.lua" "$URL/v1/events/log"
if [ ${#TOKENS[@]} -gt 1 ]; then run log-one -s "$WORK/log-one.lua" "$URL/v1/events/log"; else cp "$WORK/log.txt" "$WORK/log-one.txt"; fi
LATE=$(one_after_another)
AFTER=$(rss_mb)
STORED=$("$BIN" history "${STORE[@]}" "${PERSON_OPTION[@]}" --tz UTC --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(len(n.get("events", [])) for g in d.get("groups", []) for n in g.get("nights", [])))' 2>/dev/null || echo "?")

python3 - "$WORK" "$IDLE" "$AFTER" "$CONNECTIONS" "$THREADS" "$DURATION" "$EARLY" "$LATE" "$STORED" "${#TOKENS[@]}" <<'PY'
import re, sys
work, idle, after, connections, threads, duration, early, late, stored, people = sys.argv[1:]
def figures(name):
    text = open(f"{work}/{name}.txt").read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    def ms(label):
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", text).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(r"Socket errors:.*", text)
    total = int(re.search(r"(\d+) requests in", text).group(1))
    return rps, ms("50%"), ms("99%"), int(bad.group(1)) if bad else 0, errors.group(0) if errors else "", total
trivial, status, log, log_one = figures("trivial"), figures("status"), figures("log"), figures("log-one")
print(f"wrk: {threads} threads, {connections} connections, {duration} per route, loopback, release build")
routes = [("GET /health (trivial)", trivial), ("GET /v1/status", status), (f"POST /v1/events/log, {people} {'people' if people != '1' else 'person'}", log)]
if people != "1":
    routes.append(("POST /v1/events/log, one person", log_one))
for name, (rps, p50, p99, bad, errors, total) in routes:
    print(f"{name:34} {rps:10.0f} req/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   {total} requests, non-2xx {bad} {errors}")
share = status[0] / trivial[0] * 100
ok = True
def verdict(passed, text):
    global ok
    ok = ok and passed
    print(("PASS " if passed else "MISS ") + text)
verdict(share >= 50, f"status is {share:.0f} % of the trivial route's rate (aim >= 50 %)")
verdict(log[0] >= 3000 and log[2] <= 20 and log[3] == 0, f"{people} {'people' if people != '1' else 'person'} logging {log[0]:.0f} req/s, p99 {log[2]:.2f} ms, {log[3]} refused (aim >= 3,000 req/s, p99 <= 20 ms, none refused)")
verdict(float(idle) < 60, f"idle memory {idle} MB after start (aim < 60 MB); {after} MB after the load")
verdict(float(late) <= 1.5 * float(early),
        f"one log late in the night ({stored} events) {float(late):.2f} ms, early {float(early):.2f} ms, {float(late) / float(early):.2f}x (aim <= 1.5x)")
PY
echo "events stored by the log run (history): $STORED"
