#!/usr/bin/env bash
# The half-asleep double tap, proved by exhaustion (D15, issue 53): every control that acts at every phase of Tonight,
# tapped twice at 0.1, 0.3, 0.6, 0.8, 1.2, 1.8 and 2.5 s, in Chromium at 390×844 (scripts/browser/sweep.py).
#
#   scripts/tap-sweep.sh [--ci] [--database-url URL] [--workers N] [--write-docs]
#
# The full form by default (about 20 minutes on 2 cores); --ci runs the form CI runs. With --database-url, a caregiver's
# Tonight on a shared PostgreSQL store is swept too. --write-docs puts the person's matrix into docs/RULES.md.
# Exits non-zero when any double tap did something one tap does not, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."
form=full workers=3 url="" write=0
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) form=ci ;;
        --database-url) url="$2"; shift ;;
        --workers) workers="$2"; shift ;;
        --write-docs) write=1 ;;
        *) echo "unknown option $1 (allowed: --ci, --database-url URL, --workers N, --write-docs)" >&2; exit 64 ;;
    esac
    shift
done
swift build --product dosetap >&2
binary="$(swift build --show-bin-path)/dosetap"
out="${TMPDIR:-/tmp}/dosetap-tap-sweep"
mkdir -p "$out"
status=0
python3 -m pytest -s -p no:cacheprovider scripts/browser/test_sweep.py --binary "$binary" --out "$out" --sweep "$form" \
    --sweep-workers "$workers" || status=1
if [ -n "$url" ]; then
    python3 -m pytest -s -p no:cacheprovider "scripts/browser/test_people.py::test_caregiver_sweep" --binary "$binary" --out "$out" \
        --sweep "$form" --database-url "$url" || status=1
fi
if [ "$write" = 1 ] && [ -f "$out/tap-sweep.md" ]; then
    python3 - "$out" <<'PY'
import os, re, sys
out = sys.argv[1]
matrix = open(os.path.join(out, "tap-sweep.md")).read().strip()
care = os.path.join(out, "tap-sweep-caregiver.md")
if os.path.exists(care):
    matrix += "\n\nA caregiver's Tonight, on PostgreSQL:\n\n" + open(care).read().strip()
path = "docs/RULES.md"
text = open(path).read()
text = re.sub(r"<!-- sweep-matrix -->.*<!-- /sweep-matrix -->", "<!-- sweep-matrix -->\n" + matrix.replace("\\", "\\\\") + "\n<!-- /sweep-matrix -->",
              text, flags=re.S)
open(path, "w").write(text)
print("docs/RULES.md: the matrix is written")
PY
fi
exit $status
