#!/usr/bin/env bash
# Every sequence of the night, explored (issue 54): the explorer of Tests/DoseAppTests drives the real use cases on
# in-memory SQLite from each start, through every surface, at every boundary instant, and checks the invariants after
# every step. `swift test` runs it at depth 1 (the CI form); this script runs it deeper, in a release build with testing
# enabled (about 5 times faster than debug).
#
#   scripts/explore.sh [--depth N] [--debug]
#
# Prints, for each start, `states visited: N` and the steps tried; exits non-zero on any counterexample, printed as a
# runnable `dosetap … --now …` script.
set -euo pipefail
cd "$(dirname "$0")/.."
depth=2 configuration=(-c release -Xswiftc -enable-testing)
while [ $# -gt 0 ]; do
    case "$1" in
        --depth) depth="$2"; shift ;;
        --debug) configuration=() ;;
        *) echo "unknown option $1 (allowed: --depth N, --debug)" >&2; exit 64 ;;
    esac
    shift
done
[[ "$depth" =~ ^[1-9]$ ]] || { echo "--depth must be 1–9, not '$depth'" >&2; exit 64; }
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
DOSETAP_EXPLORE_DEPTH="$depth" swift test "${configuration[@]}" --filter NightExplorerTests >"$log" 2>&1 || status=$?
grep -E '^explore:|recorded an issue|↳ |^  (db=|dosetap )|(passed|failed) after' "$log" | grep -v 'Testing Library\|Target Platform' || true
exit "$status"
