#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, through Swift's -sanitize=fuzzer) of every parser that takes outside input.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET ...]     default: 60 s each, every target
#   scripts/fuzz.sh --build-only                          the instrumented build alone (CI starts it early, niced)
#
# Targets run two at a time (DOSETAP_FUZZ_JOBS), one core each; libFuzzer itself is single-threaded.
#
# Each target starts from its committed corpus (Fuzz/corpus/TARGET, read only) and keeps what it discovers in a scratch
# folder. A crash, a timeout (> 10 s for one input) or memory over 2 GiB fails the run; the input is saved as
# Fuzz/regressions/TARGET/crash-… so that `swift test` replays it from then on (see docs/FUZZING.md).
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=false
if [ "${1:-}" = "--build-only" ]; then
    build_only=true
    shift
fi
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(request_body form clock_input medication_entry events_csv bundle bundle_entry original_db health_xml whoop_csv push_subscription action_link person_input)
fi
jobs="${DOSETAP_FUZZ_JOBS:-2}"

# Its own build folder: every module is instrumented for coverage, which the normal build must not be.
scratch=.build-fuzz
swift build -c release --scratch-path "$scratch" --product dosetap-fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DFUZZING >&2
binary="$scratch/release/dosetap-fuzz"
if $build_only; then
    exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/dosetap-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One target's run; its row of the table and its verdict are left in the scratch folder, printed in order below.
fuzz_target() {
    local target="$1" log="$work/$1.log" result
    mkdir -p "$work/$target" "Fuzz/regressions/$target"
    # The Swift backtracer symbolicates for tens of seconds on a crash; libFuzzer's own report is enough here.
    if SWIFT_BACKTRACE=enable=no DOSETAP_FUZZ_TARGET="$target" "$binary" "$work/$target" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="Fuzz/regressions/$target/" >"$log" 2>&1; then
        result=ok
    else
        result="FOUND A CRASH (see Fuzz/regressions/$target/)"
        touch "$work/$target.crashed"
    fi
    local executions rate units
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    units=$(ls "$work/$target" | wc -l)
    printf '%-18s %12s %10s %8s %s\n' "$target" "$executions" "$rate" "$units" "$result" >"$work/$target.row"
}

for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_target "$target" &
done
wait

status=0
printf '%-18s %12s %10s %8s %s\n' target executions exec/s corpus result
for target in "${targets[@]}"; do
    cat "$work/$target.row"
    if [ -e "$work/$target.crashed" ]; then
        status=1
        tail -40 "$work/$target.log" >&2
    fi
done
exit $status
