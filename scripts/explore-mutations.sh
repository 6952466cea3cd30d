#!/usr/bin/env bash
# Proves the explorer can fail (issue 54): in a scratch copy of the tree, each guard of the dose rules is disabled in
# turn, and the explorer must find a counterexample; the shortest one is printed as a runnable `dosetap … --now …`
# script. Prints the table of guards, whether each was found and at what depth, for docs/RULES.md.
#
#   scripts/explore-mutations.sh [--depth N] [--only NAME]
#
# One debug build of the scratch copy (kept in $TMPDIR/dosetap-mutations between runs: the first takes about 20 min, with
# the dependencies), then an incremental build per guard. Depth 1 is enough: the explorer's starts include nights already
# under way (Dose 1 taken, both doses, an extra, the maximum), so each guard is one step from one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
depth=1 only=""
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
# The tree as it is here, without the build folder; only changed files are rewritten, so the scratch build stays valid.
mkdir -p "$scratch/tree"
git ls-files -co --exclude-standard -z | python3 -c '
import os, shutil, sys
for path in filter(None, sys.stdin.buffer.read().split(b"\0")):
    path = path.decode()
    target = os.path.join(sys.argv[1], path)
    if os.path.isfile(path) and (not os.path.exists(target) or open(path, "rb").read() != open(target, "rb").read()):
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        shutil.copy2(path, target)
' "$scratch/tree"
rules="Sources/DoseCore/Rules/NightRules.swift"
# name | the guard's line as written | what it becomes (the guard never refuses)
mutations=(
    "early|guard confirmed.contains(.early) else {|guard true else {"
    "late|guard confirmed.contains(.late) else {|guard true else {"
    "extra|guard confirmed.contains(.extra) else {|guard true else {"
    "caregiver-extra|guard action.actor == nil else {\n                throw .notShared(\n                    why: \"an extra dose|guard true else {\n                throw .notShared(\n                    why: \"an extra dose"
    "nightly-maximum|if let limit { throw limit }|if let limit, false { throw limit }"
    "new-night|guard action.confirmations.contains(.newNight), !action.isHalfAsleep else {|guard true else {"
    "half-asleep-new-night|guard action.confirmations.contains(.newNight), !action.isHalfAsleep else {|guard action.confirmations.contains(.newNight) else {"
    "end-night|guard action.confirmations.contains(.endNight) else {|guard true else {"
    "after-skip|guard confirmed.contains(.afterSkip) else {|guard true else {"
    "snooze-limit|guard facts.snoozes.count < settings.maxSnoozes else {|guard true else {"
    "snooze-near-close|case .nearClose: return .snoozeUnavailable(.nearClose)|case .nearClose: break"
    "took-anyway-caregiver|guard action.actor == nil else {\n            throw .notShared(why: \"a dose taken past|guard true else {\n            throw .notShared(why: \"a dose taken past"
    "took-anyway-half-asleep|guard !action.isHalfAsleep else {|guard true else {"
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
        # The shortest counterexample of all the starts found: its problem, then its script.
        python3 - "$log" "$scratch/$name.sh" "$name" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
found = []
for i, line in enumerate(lines):
    match = re.match(r"↳ (.*): (.*) \[(\d+) steps? from (.*)\]$", line)
    if not match or i + 1 >= len(lines) or not lines[i + 1].startswith("  export TZ="):
        continue
    script = []
    for following in lines[i + 1:]:
        if not following.startswith(("  export TZ=", "  db=", "  dosetap ")):
            break
        script.append(following[2:])
    found.append((int(match.group(3)), match.group(2), match.group(4), script))
if not found:
    print(f"| {sys.argv[3]} | failed, without a counterexample (see {sys.argv[1]}) | — |")
    sys.exit(0)
steps, problem, start, script = min(found, key=lambda item: (item[0], len(item[3])))
open(sys.argv[2], "w").write("\n".join(script) + "\n")
print(f"| {sys.argv[3]} | yes: {problem} | {steps} from {start} (script: {sys.argv[2]}) |")
PY
    fi
done
cp "Sources/DoseCore/Rules/NightRules.swift" "$scratch/tree/$rules"
echo "counterexamples: $scratch/*.sh"
exit "$status"
