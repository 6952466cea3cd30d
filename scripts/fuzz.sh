#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, through Swift's -sanitize=fuzzer) of every parser that takes outside input.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET ...]     default: 60 s each, every target
#
# Each target starts from its committed corpus (Fuzz/corpus/TARGET, read only) and keeps what it discovers in a scratch
# folder. A crash, a timeout (> 10 s for one input) or memory over 2 GiB fails the run; the input is saved as
# Fuzz/regressions/TARGET/crash-… so that `swift test` replays it from then on (see docs/FUZZING.md).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(request_body form clock_input medication_entry events_csv bundle bundle_entry original_db health_xml whoop_csv push_subscription action_link person_input)
fi

# Its own build folder: every module is instrumented for coverage, which the normal build must not be.
scratch=.build-fuzz
swift build -c release --scratch-path "$scratch" --product dosetap-fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DFUZZING >&2
binary="$scratch/release/dosetap-fuzz"

work="$(mktemp -d "${TMPDIR:-/tmp}/dosetap-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
status=0
printf '%-18s %12s %10s %8s %s\n' target executions exec/s corpus result
for target in "${targets[@]}"; do
    mkdir -p "$work/$target" "Fuzz/regressions/$target"
    log="$work/$target.log"
    # The Swift backtracer symbolicates for tens of seconds on a crash; libFuzzer's own report is enough here.
    if SWIFT_BACKTRACE=enable=no DOSETAP_FUZZ_TARGET="$target" "$binary" "$work/$target" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="Fuzz/regressions/$target/" >"$log" 2>&1; then
        result=ok
    else
        result="FOUND A CRASH (see Fuzz/regressions/$target/)"
        status=1
        tail -40 "$log" >&2
    fi
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    units=$(ls "$work/$target" | wc -l)
    printf '%-18s %12s %10s %8s %s\n' "$target" "$executions" "$rate" "$units" "$result"
done
exit $status
