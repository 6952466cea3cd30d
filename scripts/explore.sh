#!/usr/bin/env bash
# Every sequence of the night, explored (issue 54): the explorer of Tests/DoseAppTests drives the real use cases on
# in-memory SQLite from each start, through every surface, at every boundary instant, and checks the invariants after
# every step. `swift test` runs it at depth 1 (the CI form); this script runs it deeper, in a release build with testing
# enabled (about 5 times faster than debug).
#
#   scripts/explore.sh [--depth N] [--debug] [--postgres URL [--starts 'NAME;NAME']]
#
# Prints, for each start, `states visited: N` and the steps tried; exits non-zero on any counterexample, printed as a
# runnable `dosetap … --now …` script. `--postgres URL` replays every step on PostgreSQL as well, each on a schema of
# its own that the URL's role makes (it must own what it makes, as `.ci/run`'s does), from the starts named (else all):
# about 0.2 s a step, so depth 1 from one start takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
depth=2 configuration=(-c release -Xswiftc -enable-testing) filter=NightExplorerTests/explore
while [ $# -gt 0 ]; do
    case "$1" in
        --depth) depth="$2"; shift ;;
        --debug) configuration=() ;;
        --postgres) export DOSETAP_EXPLORE_POSTGRES_URL="$2" filter=NightExplorerTests/exploreOnPostgres; shift ;;
        --starts) export DOSETAP_EXPLORE_POSTGRES_STARTS="$2"; shift ;;
        *) echo "unknown option $1 (allowed: --depth N, --debug, --postgres URL, --starts 'NAME;NAME')" >&2; exit 64 ;;
    esac
    shift
done
[[ "$depth" =~ ^[1-9]$ ]] || { echo "--depth must be 1–9, not '$depth'" >&2; exit 64; }
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
DOSETAP_EXPLORE_DEPTH="$depth" swift test "${configuration[@]}" --filter "$filter" >"$log" 2>&1 || status=$?
grep -E '^explore|recorded an issue|↳ |^  (export TZ=|db=|dosetap )|(passed|failed) after' "$log" | grep -v 'Testing Library\|Target Platform' || true
exit "$status"
