#!/usr/bin/env bash
# Benchmark of a clinic's list (issue 56): how long the people who share with a clinician take to list, ordered by what
# needs attention, at 500 people, against the same list at 10 people on the same server in the same run.
#   - 510 people are loaded in bulk with psql into a fresh schema: 30 nights each (Dose 2 mostly on time, some late,
#     some missed), a morning check-in on most nights; two clinicians, one shared with by 10 of them and one by all 500
#     (view and report), as a clinic would be;
#   - `dosetap serve` runs on that schema; each list (GET /v1/people and the page GET /people) is asked 30 times one
#     after another on one connection, after 3 warm-up requests, and its median and 95th percentile printed.
# Aims: the 500-person list's median under 1 s, and its cost per person no more than the 10-person list's (the work
# grows with the people, not faster).
# Usage: scripts/clinic-benchmark.sh --database postgres://USER@HOST:PORT/DATABASE [--release]
#        (PEOPLE=500 REQUESTS=30; the debug build unless --release, which builds the static release build as load-benchmark.sh does)
set -euo pipefail
cd "$(dirname "$0")/.."

[ "${1:-}" = "--database" ] || { echo "usage: $0 --database postgres://USER@HOST:PORT/DATABASE [--release]" >&2; exit 64; }
PG_URL="${2:?--database needs a postgres:// URL}"
if [ "${3:-}" = "--release" ]; then
  BUILD=(-c release --static-swift-stdlib --scratch-path .build-static)
else
  BUILD=()
fi
swift build "${BUILD[@]}" --product dosetap >/dev/null
BIN="$(swift build "${BUILD[@]}" --show-bin-path)/dosetap"
PEOPLE=${PEOPLE:-500}
SCHEMA="clinic_$$"
STORE="$PG_URL$( [[ "$PG_URL" == *\?* ]] && echo '&' || echo '?' )search_path=$SCHEMA"
WORK="$(mktemp -d)"
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; psql "$PG_URL" -q -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null 2>&1; rm -rf "$WORK"' EXIT

"$BIN" person add small-clinic@example.org --database "$STORE" --json >/dev/null
"$BIN" person add clinic@example.org --database "$STORE" --json >/dev/null
SMALL=$("$BIN" device add desk --person small-clinic@example.org --database "$STORE" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
LARGE=$("$BIN" device add desk --person clinic@example.org --database "$STORE" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
START=$(date +%s.%N)
psql "$PG_URL" -q -v ON_ERROR_STOP=1 <<SQL
SET search_path = $SCHEMA;
INSERT INTO people (id, created_at, email, name) SELECT 'patient-' || i, now(), 'patient' || i || '@example.org', 'Patient ' || i
    FROM generate_series(1, $PEOPLE) AS i;
-- 30 nights each: Dose 2 after 150-229 minutes, after 245 one night in 13, none (ended without it) one night in 17.
INSERT INTO sleep_sessions (id, person_id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state, dose1_at, dose2_at,
        dose2_skipped, interval_minutes)
    SELECT 'n-' || i || '-' || k, 'patient-' || i, current_date - k, (current_date - k) + time '22:00', 'UTC',
        (current_date - k + 1) + time '07:00', 'checkin', 'completed', (current_date - k) + time '22:30',
        CASE WHEN (i + k) % 17 = 0 THEN NULL ELSE (current_date - k) + time '22:30'
            + make_interval(mins => CASE WHEN (i * 7 + k) % 13 = 0 THEN 245 ELSE 150 + (i * 31 + k * 7) % 80 END) END,
        false, CASE WHEN (i + k) % 17 = 0 THEN NULL WHEN (i * 7 + k) % 13 = 0 THEN 245 ELSE 150 + (i * 31 + k * 7) % 80 END
    FROM generate_series(1, $PEOPLE) AS i, generate_series(1, 30) AS k;
INSERT INTO morning_checkins (id, person_id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, sleep_quality,
        feel_rested, grogginess, sleep_inertia_duration, dream_recall, mental_clarity, mood, anxiety_level, readiness, had_sleep_paralysis,
        had_hallucinations, had_automatic_behavior, fell_out_of_bed, had_confusion_on_waking, has_physical_symptoms,
        has_respiratory_symptoms, has_narcolepsy_symptoms, used_sleep_therapy, has_sleep_environment, wellness_score)
    SELECT 'c-' || s.id, s.person_id, s.id, s.ended_at, s.ended_at, 0, 'UTC', 'user', 3, 'moderate', 'mild', 'five_to_fifteen', 'normal', 6,
        'neutral', 'mild', 3, false, false, false, false, false, false, false, false, false, false,
        40 + (hashtext(s.id) & 2147483647) % 50
    FROM sleep_sessions AS s WHERE s.person_id LIKE 'patient-%' AND (hashtext(s.id) & 3) <> 0;
INSERT INTO shares (person_id, grantee_id, invitation_id, grants, created_at)
    SELECT 'patient-' || i, p.id, 'bench-' || i || '-' || p.id, '{view,report}', now() FROM generate_series(1, $PEOPLE) AS i, people AS p
    WHERE p.email = 'clinic@example.org' OR (p.email = 'small-clinic@example.org' AND i <= 10);
ANALYZE;
SQL
LOADED=$(python3 -c "import time; print(f'{time.time() - $START:.1f}')")

"$BIN" serve --database "$STORE" --allow-owner-role --port 0 --json --rate-limit 1000000 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$WORK/serve.out" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/serve.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')

python3 - "$PORT" "$SMALL" "$LARGE" "$PEOPLE" "$LOADED" "$BIN" "${REQUESTS:-30}" <<'PY'
import http.client, json, statistics, sys, time
port, small, large, people, loaded, binary, requests = sys.argv[1:]
people, requests = int(people), int(requests)

def measure(path, token, expect):
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
    headers = {"Authorization": f"Bearer {token}"}
    times = []
    for attempt in range(requests + 3):
        start = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status != 200:
            raise SystemExit(f"{path} answered {response.status}: {body[:300]!r}")
        if attempt == 0:
            if path.startswith("/v1/"):
                listed = json.loads(body)["people"]
                if len(listed) != expect:
                    raise SystemExit(f"{path} listed {len(listed)} people, not {expect}")
                first = listed[0]["last_7_nights"]
                if not first["needs_attention"]:
                    raise SystemExit("the first person listed does not need attention, though some do")
            elif body.count(b"data-person>") != expect:
                raise SystemExit(f"{path} showed {body.count(b'data-person>')} cards, not {expect}")
        if attempt >= 3:
            times.append(elapsed)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]

print(f"{binary}: {people} people with 30 nights each loaded in {loaded} s; {requests} requests each, one after another")
results = {}
for label, token, count in [("10 people", small, 10), (f"{people} people", large, people)]:
    for path in ["/v1/people", "/people"]:
        p50, p95 = measure(path, token, count)
        results[(count, path)] = p50
        print(f"GET {path:12} {label:12} p50 {p50:8.1f} ms   p95 {p95:8.1f} ms   {p50 / count:6.2f} ms a person")
ok = True
for path in ["/v1/people", "/people"]:
    large_p50, small_p50 = results[(people, path)], results[(10, path)]
    verdict = large_p50 < 1000
    ok = ok and verdict
    print(("PASS " if verdict else "MISS ") + f"GET {path}: {people} people in {large_p50:.0f} ms (aim: under 1 s)")
    per_large, per_small = large_p50 / people, small_p50 / 10
    verdict = per_large <= per_small
    ok = ok and verdict
    print(("PASS " if verdict else "MISS ") + f"GET {path}: {per_large:.2f} ms a person at {people}, {per_small:.2f} at 10 (aim: no more)")
sys.exit(0 if ok else 1)
PY
