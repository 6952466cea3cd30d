#!/usr/bin/env bash
# Benchmarks of the dosetap command line (issue 3), release build, figures printed and compared in one run:
#   1. cold-process `dosetap log water` against sqlite3 inserting one row into a WAL database with
#      synchronous=FULL (aim: ratio of medians <= 3);
#   2. with ten years of nights (3,650 sessions, ~60,000 events): status < 20 ms, a 30-night history page
#      < 30 ms, a full events.csv export < 1 s, peak memory < 50 MB;
#   3. (issue 15) over the same ten years: insights < 50 ms (JSON and text), the clinician report < 1 s, each < 60 MB.
#   4. (issue 33, with --database postgres://…) the same ten years copied into PostgreSQL by `dosetap store copy`
#      (timed), then the same commands against the same aims, beside the SQLite figures, and a cold-process `log`.
# Usage: scripts/benchmark.sh [--database postgres://USER@HOST:PORT/DATABASE]
#        (installs hyperfine, sqlite3 and psql from Debian's packages if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
PG_URL=""
if [ "${1:-}" = "--database" ]; then PG_URL="${2:?--database needs a postgres:// URL}"; fi

if ! command -v curl >/dev/null || ! command -v hyperfine >/dev/null || ! command -v sqlite3 >/dev/null || [ ! -x /usr/bin/time ]; then
  (apt-get install -y hyperfine sqlite3 time curl >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y hyperfine sqlite3 time curl >/dev/null; })
fi

# The installed form: a release build with the Swift runtime and Foundation linked statically, which
# starts about twice as fast as a dynamically linked one (see docs/PERFORMANCE.md).
BUILD=(-c release --static-swift-stdlib --scratch-path .build-static)
swift build "${BUILD[@]}" --product dosetap >/dev/null
BIN="$(swift build "${BUILD[@]}" --show-bin-path)/dosetap"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
NOW=2026-11-21T23:00:00.000Z
RUNS=${RUNS:-40}

median_ms() { python3 -c "import json,sys; print('%.2f' % (json.load(open(sys.argv[1]))['results'][0]['median']*1000))" "$1"; }

echo "== 1. one logged action, cold process: dosetap vs sqlite3 (WAL, synchronous=FULL) =="
"$BIN" settings set cooldown.water 0 --db "$WORK/log.sqlite" --tz UTC --now "$NOW" >/dev/null 2>&1
sqlite3 "$WORK/raw.sqlite" "PRAGMA journal_mode=WAL; CREATE TABLE events (id TEXT PRIMARY KEY, type TEXT, at TEXT, note TEXT);" >/dev/null
hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/log.json" \
  "$BIN log water --db $WORK/log.sqlite --tz UTC --now $NOW" >/dev/null
hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/raw.json" \
  "sqlite3 $WORK/raw.sqlite \"PRAGMA synchronous=FULL; INSERT INTO events VALUES (lower(hex(randomblob(16))), 'water', '$NOW', NULL);\"" >/dev/null
LOG=$(median_ms "$WORK/log.json"); RAW=$(median_ms "$WORK/raw.json")
RATIO=$(python3 -c "print('%.2f' % ($LOG/$RAW))")
echo "dosetap log water: median $LOG ms; sqlite3 insert: median $RAW ms; ratio $RATIO (aim <= 3)"

echo "== 2. ten years of nights =="
DB="$WORK/years.sqlite"
"$BIN" status --db "$DB" --tz America/New_York --now "$NOW" --json >/dev/null
python3 scripts/seed-ten-years.py "$DB"
ls -l "$DB" | awk '{printf "database file: %.1f MB\n", $5/1048576}'
STATUS="$BIN status --db $DB --tz America/New_York --now 2026-11-22T03:00:00.000Z --json"
HISTORY="$BIN history --limit 30 --db $DB --tz America/New_York --now 2026-11-22T03:00:00.000Z --json"
EXPORT="$BIN export --out $WORK/events.csv --db $DB --tz America/New_York --now 2026-11-22T03:00:00.000Z"
hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/status.json" "$STATUS" >/dev/null
hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/history.json" "$HISTORY" >/dev/null
hyperfine -N --warmup 1 --runs 10 --export-json "$WORK/export.json" "$EXPORT" >/dev/null
# Insights and the clinician report over all ten years (issue 15): every night, every chart, the table of nights.
INSIGHTS="$BIN insights --from 2016-11-01 --to 2026-11-21 --db $DB --tz America/New_York --now 2026-11-22T03:00:00.000Z --json"
INSIGHTS_TEXT="${INSIGHTS% --json}"
REPORT="$BIN report --from 2016-11-01 --to 2026-11-21 --out $WORK/report.html --db $DB --tz America/New_York --now 2026-11-22T03:00:00.000Z"
hyperfine -N --warmup 1 --runs 10 --export-json "$WORK/insights.json" "$INSIGHTS" >/dev/null
hyperfine -N --warmup 1 --runs 10 --export-json "$WORK/insights-text.json" "$INSIGHTS_TEXT" >/dev/null
hyperfine -N --warmup 1 --runs 10 --export-json "$WORK/report.json" "$REPORT" >/dev/null
# The same ten years asked of a running server, as the Insights page and the phone ask (no process start, no
# argument parsing, the database already open): the median of 20 GET /v1/insights after 3 warm-ups, timed by curl.
cp "$DB" "$WORK/serve.sqlite"
SERVE_TOKEN=$("$BIN" device add bench --db "$WORK/serve.sqlite" --tz America/New_York --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
"$BIN" serve --db "$WORK/serve.sqlite" --tz America/New_York --port 0 --json --rate-limit 1000000 --now 2026-11-22T03:00:00.000Z \
  >"$WORK/serve.out" 2>/dev/null &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/serve.out" ] && break; sleep 0.1; done
SERVE_PORT=$(head -1 "$WORK/serve.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')
SERVE_URL="http://127.0.0.1:$SERVE_PORT/v1/insights?from=2016-11-01&to=2026-11-21"
for _ in 1 2 3; do curl -sf -o /dev/null -H "Authorization: Bearer $SERVE_TOKEN" "$SERVE_URL"; done
IS=$(for _ in $(seq 1 20); do curl -sf -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $SERVE_TOKEN" "$SERVE_URL"; done |
  sort -n | awk '{ t[NR] = $1 } END { printf "%.2f", (t[10] + t[11]) / 2 * 1000 }')
kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
S=$(median_ms "$WORK/status.json"); H=$(median_ms "$WORK/history.json"); E=$(median_ms "$WORK/export.json")
I=$(median_ms "$WORK/insights.json"); IT=$(median_ms "$WORK/insights-text.json"); R=$(median_ms "$WORK/report.json")
peak() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
MS=$(peak $STATUS); MH=$(peak $HISTORY); ME=$(peak $EXPORT); MI=$(peak $INSIGHTS); MR=$(peak $REPORT)
ls -l "$WORK/report.html" | awk '{printf "report.html: %.1f MB\n", $5/1048576}'
echo "events.csv rows: $(($(wc -l < "$WORK/events.csv") - 1))"

PG_FIGURES="0 0 0 0 0 0 0 0 0 0 0 0 0"
if [ -n "$PG_URL" ]; then
  echo "== 4. the same ten years on PostgreSQL =="
  command -v psql >/dev/null || apt-get install -y postgresql-client >/dev/null
  SCHEMA="bench_$$"
  STORE="$PG_URL$( [[ "$PG_URL" == *\?* ]] && echo '&' || echo '?' )search_path=$SCHEMA"
  COPY_STARTED=$(date +%s.%N)
  "$BIN" store copy --from "$DB" --to "$STORE" | head -1
  COPY_MS=$(python3 -c "import sys; print('%.0f' % ((float(sys.argv[2]) - float(sys.argv[1])) * 1000))" "$COPY_STARTED" "$(date +%s.%N)")
  echo "store copy of the ten years into PostgreSQL, verified: $COPY_MS ms"
  PG_STATUS="$BIN status --database $STORE --tz America/New_York --now 2026-11-22T03:00:00.000Z --json"
  PG_HISTORY="${HISTORY/--db $DB/--database $STORE}"
  PG_EXPORT="${EXPORT/--db $DB/--database $STORE}"
  PG_INSIGHTS="${INSIGHTS/--db $DB/--database $STORE}"
  PG_REPORT="${REPORT/--db $DB/--database $STORE}"
  [ "$($PG_STATUS)" = "$($STATUS)" ] && echo "status on PostgreSQL: the same JSON as on SQLite" || { echo "status differs between the stores"; exit 1; }
  [ "$($PG_INSIGHTS)" = "$($INSIGHTS)" ] && echo "insights on PostgreSQL: the same JSON as on SQLite" || { echo "insights differ between the stores"; exit 1; }
  [ "$($PG_HISTORY)" = "$($HISTORY)" ] && echo "history on PostgreSQL: the same JSON as on SQLite" || { echo "history differs between the stores"; exit 1; }
  cmp -s <("$BIN" export --database "$STORE" --tz America/New_York --now 2026-11-22T03:00:00.000Z) \
    <("$BIN" export --db "$DB" --tz America/New_York --now 2026-11-22T03:00:00.000Z) \
    && echo "events.csv on PostgreSQL: the same bytes as on SQLite" || { echo "events.csv differs between the stores"; exit 1; }
  "$BIN" settings set cooldown.water 0 --database "$STORE" --tz UTC --now "$NOW" >/dev/null
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/pg-status.json" "$PG_STATUS" >/dev/null
  hyperfine -N --warmup 1 --runs 10 --export-json "$WORK/pg-history.json" "$PG_HISTORY" >/dev/null
  hyperfine -N --warmup 1 --runs 5 --export-json "$WORK/pg-export.json" "$PG_EXPORT" >/dev/null
  hyperfine -N --warmup 1 --runs 5 --export-json "$WORK/pg-insights.json" "$PG_INSIGHTS" >/dev/null
  hyperfine -N --warmup 1 --runs 5 --export-json "$WORK/pg-report.json" "$PG_REPORT" >/dev/null
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/pg-log.json" \
    "$BIN log water --database $STORE --tz UTC --now 2026-11-22T12:00:00.000Z" >/dev/null
  PG_FIGURES="$(median_ms "$WORK/pg-status.json") $(peak $PG_STATUS) $(median_ms "$WORK/pg-log.json") 1"
  PG_FIGURES="$PG_FIGURES $(median_ms "$WORK/pg-history.json") $(median_ms "$WORK/pg-export.json") $(median_ms "$WORK/pg-insights.json")"
  PG_FIGURES="$PG_FIGURES $(median_ms "$WORK/pg-report.json") $(peak $PG_HISTORY) $(peak $PG_EXPORT) $(peak $PG_INSIGHTS) $(peak $PG_REPORT) $COPY_MS"
  psql "$PG_URL" -q -c "DROP SCHEMA $SCHEMA CASCADE" >/dev/null 2>&1
fi

python3 - "$RATIO" "$S" "$H" "$E" "$MS" "$MH" "$ME" "$I" "$IT" "$R" "$MI" "$MR" "$IS" "$LOG" $PG_FIGURES <<'PY'
import sys
ratio, status, history, export, ms, mh, me, insights, insights_text, report, mi, mr, insights_served, log = map(float, sys.argv[1:15])
pg_status, pg_memory, pg_log, on_postgres, pg_history, pg_export, pg_insights, pg_report, pmh, pme, pmi, pmr, pg_copy = map(float, sys.argv[15:28])
rows = [
    ("log water / sqlite3 insert (ratio of medians)", ratio, 3, ""),
    ("status, median", status, 20, "ms"),
    ("history, 30 nights, median", history, 30, "ms"),
    ("events.csv export, median", export, 1000, "ms"),
    ("peak memory, status", ms / 1024, 50, "MB"),
    ("peak memory, history", mh / 1024, 50, "MB"),
    ("peak memory, export", me / 1024, 50, "MB"),
    ("insights --json, 3,650 nights, median", insights, 50, "ms"),
    ("insights (text), 3,650 nights, median", insights_text, 50, "ms"),
    ("GET /v1/insights, 3,650 nights, median", insights_served, 50, "ms"),
    ("clinician report, 3,650 nights, median", report, 1000, "ms"),
    ("peak memory, insights", mi / 1024, 60, "MB"),
    ("peak memory, report", mr / 1024, 60, "MB"),
]
if on_postgres:
    rows += [
        ("PostgreSQL: status, median", pg_status, 20, "ms"),
        ("PostgreSQL: history, 30 nights, median", pg_history, 30, "ms"),
        ("PostgreSQL: events.csv export, median", pg_export, 1000, "ms"),
        ("PostgreSQL: insights --json, median", pg_insights, 50, "ms"),
        ("PostgreSQL: clinician report, median", pg_report, 1000, "ms"),
        ("PostgreSQL: peak memory, status", pg_memory / 1024, 50, "MB"),
        ("PostgreSQL: peak memory, history", pmh / 1024, 50, "MB"),
        ("PostgreSQL: peak memory, export", pme / 1024, 50, "MB"),
        ("PostgreSQL: peak memory, insights", pmi / 1024, 60, "MB"),
        ("PostgreSQL: peak memory, report", pmr / 1024, 60, "MB"),
    ]
    print(f"store copy of the ten years into PostgreSQL (verified): {pg_copy:.0f} ms")
    print(f"side by side, ten years:  SQLite status {status:.2f} ms, {ms / 1024:.1f} MB; log water {log:.2f} ms")
    print(f"                          PostgreSQL status {pg_status:.2f} ms, {pg_memory / 1024:.1f} MB; log water {pg_log:.2f} ms")
missed = 0
print(f"{'measure':48} {'figure':>10} {'target':>8}  result")
for name, value, target, unit in rows:
    ok = value <= target
    missed += not ok
    print(f"{name:48} {value:>8.2f}{unit:>2} {'<= ' + str(target):>8}  {'ok' if ok else 'MISSED'}")
sys.exit(1 if missed else 0)
PY
