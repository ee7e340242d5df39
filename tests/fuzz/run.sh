#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan, UBSan) and runs each one.
#   tests/fuzz/run.sh [SECONDS_EACH] [HARNESS...]
# SECONDS_EACH defaults to 10 (the smoke run of tests/run.sh); for a long run,
#   tests/fuzz/run.sh 3600            # an hour each, one after another
#   JOBS=8 tests/fuzz/run.sh 600 dimacs  # 8 processes on one harness (fork mode)
# New inputs go to build-fuzz/corpus/NAME (the seeds in tests/fuzz/corpus/NAME
# are read, never written); a crash leaves build-fuzz/crash-NAME-* and makes
# the exit status 1. Exit 77 when clang's libFuzzer is not installed.
# FUZZ_SEED=N fixes libFuzzer's random seed (tests/run.sh's smoke run: the
# same mutations on every machine, so that it checks the corpus and the
# build rather than the luck of the draw).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_EACH=${1:-10}
shift || true
BUILD=${FLOWCUT_FUZZ_BUILD:-$ROOT/build-fuzz}
JOBS=${JOBS:-1}

CLANG=$(command -v clang || true)
if [ -z "$CLANG" ] || ! echo 'int LLVMFuzzerTestOneInput(const char*d,long n){return 0;}' |
        "$CLANG" -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
    echo "tests/fuzz/run.sh: skipped: clang with libFuzzer not found (Debian: clang)"
    exit 77
fi

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_C_COMPILER="$CLANG" -DFLOWCUT_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)" >"$BUILD.build.log" 2>&1 ||
    { tail -50 "$BUILD.build.log"; exit 1; }

if [ $# -eq 0 ]; then
    set -- $(cd "$ROOT/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
fi
status=0
for name in "$@"; do
    bin="$BUILD/tests/fuzz/fuzz_$name"
    [ -x "$bin" ] || { echo "tests/fuzz/run.sh: no harness fuzz_$name" >&2; exit 2; }
    work="$BUILD/corpus/$name"
    mkdir -p "$work"
    seeds="$ROOT/tests/fuzz/corpus/$name"
    [ -d "$seeds" ] || seeds=""
    log="$BUILD/fuzz_$name.log"
    dict=""
    [ -f "$ROOT/tests/fuzz/$name.dict" ] && dict="-dict=$ROOT/tests/fuzz/$name.dict"
    fork=""
    [ "$JOBS" -gt 1 ] && fork="-fork=$JOBS -ignore_crashes=0"
    rc=0
    (cd "$BUILD" && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$bin" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$BUILD/crash-$name-" -print_final_stats=1 $dict ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
        $fork "$work" $seeds) >"$log" 2>&1 || rc=$?
    # the plain run's final stats, or fork mode's last status line
    runs=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
    [ "$runs" = 0 ] && runs=$(grep -o 'exec/s' "$log" >/dev/null &&
        grep -ho '#[0-9]*' "$log" | tail -1 | tr -d '#')
    cov=$(grep -ho 'cov: [0-9]*' "$log" | tail -1)
    if [ $rc -ne 0 ]; then
        echo "fuzz_$name: FAILED (exit $rc), see $log and $BUILD/crash-$name-*"
        tail -30 "$log"
        status=1
    else
        echo "fuzz_$name: ok, $runs runs in ${SECONDS_EACH}s, $cov, corpus $(ls "$work" | wc -l)"
    fi
done
exit $status
