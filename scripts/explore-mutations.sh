#!/usr/bin/env bash
# Proves the explorer can fail (issue 54): in a scratch copy of the tree, each guard of the dose rules is disabled in
# turn, and the explorer must find a counterexample; the shortest one is printed as a runnable `dosetap … --now …`
# script. Prints the table of guards, whether each was found and at what depth, for docs/RULES.md.
#
#   scripts/explore-mutations.sh [--depth N] [--only NAME]
#
# One debug build of the scratch copy, then an incremental build per guard (DoseCore and what depends on it).
set -euo pipefail
cd "$(dirname "$0")/.."
depth=2 only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --depth) depth="$2"; shift ;;
        --only) only="$2"; shift ;;
        *) echo "unknown option $1 (allowed: --depth N, --only NAME)" >&2; exit 64 ;;
    esac
    shift
done
scratch="${TMPDIR:-/tmp}/dosetap-mutations"
mkdir -p "$scratch"
# The tree as committed plus what is changed here, without the build folder; the scratch keeps its own between runs.
rm -rf "$scratch/tree" && mkdir -p "$scratch/tree"
tar --exclude=./.build --exclude=./.git -cf - . | tar -C "$scratch/tree" -xf -
rules="Sources/DoseCore/Rules/NightRules.swift"
# name | the guard's line as written | what it becomes (the guard never refuses)
mutations=(
    "early|guard confirmed.contains(.early) else {|guard true else {"
    "late|guard confirmed.contains(.late) else {|guard true else {"
    "extra|guard confirmed.contains(.extra) else {|guard true else {"
    "caregiver-extra|guard action.actor == nil else {\n                throw .notShared(why: \"an extra dose|guard true else {\n                throw .notShared(why: \"an extra dose"
    "nightly-maximum|if let limit { throw limit }|if let limit, false { throw limit }"
    "new-night|guard action.confirmations.contains(.newNight), !action.isHalfAsleep else {|guard true else {"
    "half-asleep-new-night|guard action.confirmations.contains(.newNight), !action.isHalfAsleep else {|guard action.confirmations.contains(.newNight) else {"
    "end-night|guard action.confirmations.contains(.endNight) else {|guard true else {"
    "after-skip|guard confirmed.contains(.afterSkip) else {|guard true else {"
)
printf '| Guard disabled | Found | Steps to the counterexample |\n| --- | --- | --- |\n'
status=0
for mutation in "${mutations[@]}"; do
    IFS='|' read -r name from to <<<"$mutation"
    [ -n "$only" ] && [ "$only" != "$name" ] && continue
    cp "Sources/DoseCore/Rules/NightRules.swift" "$scratch/tree/$rules"
    FROM="$from" TO="$to" python3 - "$scratch/tree/$rules" <<'PY'
import os, sys
path = sys.argv[1]
text = open(path).read()
source = os.environ["FROM"].replace("\\n", "\n")
if source not in text:
    sys.exit(f"the guard '{source}' is not in {path}: the mutation list is out of date")
open(path, "w").write(text.replace(source, os.environ["TO"].replace("\\n", "\n"), 1))
PY
    log="$scratch/$name.log"
    if (cd "$scratch/tree" && DOSETAP_EXPLORE_DEPTH="$depth" swift test --scratch-path "$scratch/build" --filter NightExplorerTests >"$log" 2>&1); then
        printf '| %s | **no** | — |\n' "$name"
        status=1
    else
        # The first counterexample: its problem, then its script; the steps are its lines after the start's own.
        python3 - "$log" "$scratch/$name.sh" "$name" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
first = next(i for i, line in enumerate(lines) if line.startswith("  db="))
script = [lines[first][2:]]
for line in lines[first + 1:]:
    if not line.startswith("  dosetap "):
        break
    script.append(line[2:])
open(sys.argv[2], "w").write("\n".join(script) + "\n")
problem = lines[first - 1].split(": ", 1)[-1]
print(f"| {sys.argv[3]} | yes: {problem} | {len(script) - 1} (script: {sys.argv[2]}) |")
PY
    fi
done
echo "counterexamples: $scratch/*.sh"
exit "$status"
