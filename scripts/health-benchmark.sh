#!/usr/bin/env bash
# Benchmark of the Apple Health import (issue 17): a generated export.xml of SIZE_MB (default 1024) imported by the
# release `dosetap import` into a fresh database, against `xmllint --stream --noout` reading the same file in the same
# run. Prints throughput (MB/s) and peak memory of both. Aims: at least half of xmllint's throughput, and under 100 MB
# of memory whatever the size.
# Usage: scripts/health-benchmark.sh [SIZE_MB]   (installs libxml2-utils and time from Debian's packages if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1024}
if ! command -v xmllint >/dev/null || [ ! -x /usr/bin/time ]; then
  (apt-get install -y libxml2-utils time >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y libxml2-utils time >/dev/null; })
fi
BUILD=(-c release --static-swift-stdlib --scratch-path .build-static)
swift build "${BUILD[@]}" --product dosetap >/dev/null
BIN="$(swift build "${BUILD[@]}" --show-bin-path)/dosetap"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 scripts/make-health-export.py "$WORK/export.xml" "$SIZE"
BYTES=$(stat -c %s "$WORK/export.xml")
measure() { # label, command...: prints seconds and peak kB
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$WORK/$label.time" "$@" >/dev/null 2>"$WORK/$label.err" || { cat "$WORK/$label.err"; exit 1; }
  cat "$WORK/$label.time"
}
read -r LINT_S LINT_KB < <(measure xmllint xmllint --stream --noout "$WORK/export.xml")
read -r DOSE_S DOSE_KB < <(measure dosetap "$BIN" import "$WORK/export.xml" --db "$WORK/health.sqlite" --tz America/New_York --now 2026-11-25T12:00:00Z)
python3 - "$BYTES" "$LINT_S" "$LINT_KB" "$DOSE_S" "$DOSE_KB" <<'PY'
import sys
size, lint_s, lint_kb, dose_s, dose_kb = int(sys.argv[1]), *map(float, sys.argv[2:])
mb = size / 1e6
lint, dose = mb / lint_s, mb / dose_s
print(f"export.xml: {mb:.0f} MB")
print(f"xmllint --stream: {lint_s:.2f} s, {lint:.0f} MB/s, peak {lint_kb/1024:.0f} MB")
print(f"dosetap import:   {dose_s:.2f} s, {dose:.0f} MB/s, peak {dose_kb/1024:.0f} MB")
print(f"throughput ratio {dose/lint:.2f} (aim >= 0.5); memory {dose_kb/1024:.0f} MB (aim < 100 MB)")
PY
