#!/usr/bin/env bash
# Benchmarks of the dosetap command line (issue 3), release build, figures printed and compared in one run:
#   1. cold-process `dosetap log water` against sqlite3 inserting one row into a WAL database with
#      synchronous=FULL (aim: ratio of medians <= 3);
#   2. with ten years of nights (3,650 sessions, ~60,000 events): status < 20 ms, a 30-night history page
#      < 30 ms, a full events.csv export < 1 s, peak memory < 50 MB;
#   3. (issue 15) over the same ten years: insights < 50 ms (JSON and text), the clinician report < 1 s, each < 60 MB.
# Usage: scripts/benchmark.sh   (installs hyperfine and sqlite3 from Debian's packages if missing)
set -euo pipefail
cd "$(dirname "$0")/.."

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

python3 - "$RATIO" "$S" "$H" "$E" "$MS" "$MH" "$ME" "$I" "$IT" "$R" "$MI" "$MR" "$IS" <<'PY'
import sys
ratio, status, history, export, ms, mh, me, insights, insights_text, report, mi, mr, insights_served = map(float, sys.argv[1:])
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
missed = 0
print(f"{'measure':48} {'figure':>10} {'target':>8}  result")
for name, value, target, unit in rows:
    ok = value <= target
    missed += not ok
    print(f"{name:48} {value:>8.2f}{unit:>2} {'<= ' + str(target):>8}  {'ok' if ok else 'MISSED'}")
sys.exit(1 if missed else 0)
PY
