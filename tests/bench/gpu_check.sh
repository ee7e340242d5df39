#!/usr/bin/env bash
# One run on a GPU machine: build with CUDA, run every test (GPU ones included),
# compute-sanitizer memcheck and racecheck on small instances, then the
# benchmarks; a short table is printed last. Logs go to $OUT when set.
#   tests/bench/gpu_check.sh [STEP...]   steps: build test sanitize bench sweep segbench batchbench
#                                        dynamic (warm re-solve: bench_dynamic, bench_session)
#                                        python (module overhead, 256^3 volume on CPU and GPU)
#                                        latency (one segment call per engine, fresh processes)
#                                        skewed (R-MAT and matching: GPU against the CPU algorithms)
#                                        ecl (ECL-MaxFlow's undirected protocol: ecl_pairs.sh)
#                                        many (small photos, many to a launch: bench_many)
#                                        floor (one solve on all cores against one: bench_threads)
#                                        round2 (the GPU goals' benchmarks in one run: latency, batchbench,
#                                        skewed and ecl, shortened: GPU beside the CPU engine's auto)
#                                        (default: build test sanitize bench)
# Needs cmocka: where the machine has none, unpack Debian's libcmocka .debs
# into .deps/root in the checkout, where this script looks for libraries.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-/tmp/flowcut-gpu-check}
mkdir -p "$OUT"
DEPS=$ROOT/.deps/root/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# the install test links against the installed tree with pkg-config --static: -lstb lives here too
export LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
BUILD=$ROOT/build-gpu
STEPS=${*:-build test sanitize bench}
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }

has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

if has round2; then # fits ten minutes with the build
    STEPS="$STEPS latency batchbench skewed ecl"
    : "${LAT_REPEATS:=5}" "${BATCH_N12:=16}" "${BATCH_ENGINES:=gpu}" "${ECL_GRAPHS:=rmat22}"
    : "${SKEW_ENGINES:=gpu|cpu --cpu-algorithm auto}"
    export SKEW_ENGINES
fi

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader 2>/dev/null | sed 's/^/device: /' | tee -a "$SUMMARY"

if has build; then
    t0=$(date +%s)
    cmake -S . -B "$BUILD" -DFLOWCUT_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$DEPS" -DCMAKE_INCLUDE_PATH="$DEPS/include" \
        -DCMAKE_LIBRARY_PATH="$DEPS/lib/x86_64-linux-gnu" >"$OUT/configure.log" 2>&1 &&
        cmake --build "$BUILD" -j"$(nproc)" >"$OUT/build.log" 2>&1
    rc=$?
    note "build: rc=$rc in $(( $(date +%s) - t0 )) s"
    [ $rc -eq 0 ] || { tail -30 "$OUT/configure.log" "$OUT/build.log"; exit 1; }
fi

if has test; then
    (cd "$BUILD" && timeout 400 ctest --output-on-failure -j4 >"$OUT/ctest.log" 2>&1)
    rc=$?
    note "ctest: rc=$rc; $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
    grep -E 'Skipped|Failed|compared' "$OUT/ctest.log" | head -10
    [ $rc -eq 0 ] || tail -40 "$OUT/ctest.log"
fi

if has sanitize; then
    F=$BUILD/segment/flowcut
    "$F" generate grid --width 64 --height 48 --connectivity 8 -o /tmp/san-grid.max -f
    "$F" generate genrmf -a 6 -b 6 -o /tmp/san-rmf.max -f
    for tool in memcheck racecheck; do
        for f in /tmp/san-grid.max /tmp/san-rmf.max tests/data/max_flow7.dat; do
            timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$F" maxflow --engine gpu --flow --verify "$f" \
                >"$OUT/san-$tool-$(basename "$f").log" 2>&1
            rc=$?
            note "compute-sanitizer $tool $(basename "$f"): rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-$(basename "$f").log" | head -1)"
        done
    done
    # the BFS's grid-wide paths with no one-block levels first: bfs_hops (the default) and
    # bfs_coop's level by level (bfs_hops=0), on a grid large enough for both; bench_many
    # checks the solve's value and cut against the solve alone
    "$F" generate grid --width 200 --height 150 --connectivity 8 -o /tmp/san-bfs.max -f
    for hops in 16 0; do
        for tool in memcheck racecheck; do
            timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/bench/bench_many" \
                --gpu-tuning small_bfs=0,bfs_hops=$hops --groups 1 --repeats 1 /tmp/san-bfs.max \
                >"$OUT/san-$tool-bfs$hops.log" 2>&1
            rc=$?
            note "compute-sanitizer $tool BFS hops $hops: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-bfs$hops.log" | head -1)"
        done
    done
    # hub rounds (a block per high-degree vertex), forced on nearly every vertex of an R-MAT graph
    "$F" generate rmat --scale 10 -o /tmp/san-rmat.max -f
    for tool in memcheck racecheck; do
        timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/bench/bench_many" \
            --gpu-tuning hub_degree=3 --groups 1 --repeats 1 /tmp/san-rmat.max >"$OUT/san-$tool-hubs.log" 2>&1
        rc=$?
        note "compute-sanitizer $tool hub rounds: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-hubs.log" | head -1)"
    done
    # the warm re-solve: batches with decreases below the flow, on the device
    python3 tests/cli/updates_tool.py /tmp/san-grid.max /tmp/san-upd.txt /tmp 4 5
    for tool in memcheck racecheck; do
        timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$F" maxflow --engine gpu --verify \
            --updates /tmp/san-upd.txt /tmp/san-grid.max >"$OUT/san-$tool-updates.log" 2>&1
        rc=$?
        note "compute-sanitizer $tool --updates: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-updates.log" | head -1)"
    done
    # three networks in one launch (mf_gpu_solve_many), each checked against its solve alone
    "$F" generate grid --width 30 --height 20 -o /tmp/san-grid4.max -f
    for tool in memcheck racecheck; do
        timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/bench/bench_many" --groups 3 \
            --repeats 1 /tmp/san-grid.max /tmp/san-grid4.max /tmp/san-rmf.max >"$OUT/san-$tool-many.log" 2>&1
        rc=$?
        note "compute-sanitizer $tool union launch: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-many.log" | head -1) $(grep -E 'equal|MISMATCH' "$OUT/san-$tool-many.log")"
        # grid forms expanded on the device (grid_expand): the pipeline's jobs, alone and four to a union
        timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/test_pipeline" \
            >"$OUT/san-$tool-pipeline.log" 2>&1
        rc=$?
        note "compute-sanitizer $tool grid jobs: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-pipeline.log" | head -1) $(grep -E 'PASSED|FAILED|SKIPPED' "$OUT/san-$tool-pipeline.log" | head -1)"
    done
fi

if has bench; then
    timeout 420 "$BUILD/tests/bench/bench_maxflow" --suite gpu --repeats ${BENCH_REPEATS:-5} ${BENCH_ARGS:-} \
        >"$OUT/bench_maxflow.txt" 2>&1
    note "bench_maxflow: rc=$?"
    cat "$OUT/bench_maxflow.txt" >>"$SUMMARY"
fi

if has sweep; then
    # engine knobs: each word of SWEEP is one configuration, key=value pairs of
    # mf_gpu_tuning (maxflow/src/tuning.h) joined by commas, e.g. SWEEP="cycles=1 cycles=8,group=8"
    for cfg in ${SWEEP:-cycles=1 cycles=4 cycles=8 cycles=16}; do
        r=$(timeout 120 "$BUILD/tests/bench/bench_maxflow" --suite gpu --repeats 3 --gpu-tuning "$cfg" \
            --only "${SWEEP_ONLY:-grid}" | tail -n +2)
        note "sweep $cfg:"
        note "$r"
    done
fi

if has dynamic; then
    timeout ${DYN_TIMEOUT:-300} "$BUILD/tests/bench/bench_dynamic" --engine gpu --repeats ${DYN_REPEATS:-3} ${DYN_ARGS:-} \
        >"$OUT/bench_dynamic.txt" 2>&1
    note "bench_dynamic gpu: rc=$?"
    cat "$OUT/bench_dynamic.txt" >>"$SUMMARY"
    timeout ${SES_TIMEOUT:-200} "$BUILD/tests/bench/bench_session" examples --engine gpu --sizes ${SES_SIZES:-1,3,12} \
        --repeats ${SES_REPEATS:-3} >"$OUT/bench_session.txt" 2>&1
    note "bench_session gpu: rc=$?"
    cat "$OUT/bench_session.txt" >>"$SUMMARY"
    timeout ${SES_CPU_TIMEOUT:-150} "$BUILD/tests/bench/bench_session" examples --engine cpu --sizes ${SES_CPU_SIZES:-1,3} \
        --repeats 2 >"$OUT/bench_session_cpu.txt" 2>&1
    note "bench_session cpu (device host): rc=$?"
    cat "$OUT/bench_session_cpu.txt" >>"$SUMMARY"
fi

if has python; then
    PYTHONPATH=$BUILD/python timeout ${PY_TIMEOUT:-300} python3 tests/bench/python_bench.py --size ${PY_SIZE:-256} \
        --engines ${PY_ENGINES:-gpu,cpu} >"$OUT/python_bench.txt" 2>&1
    note "python_bench: rc=$?"
    cat "$OUT/python_bench.txt" >>"$SUMMARY"
fi

if has latency; then
    timeout 120 tests/bench/latency.sh "$BUILD/segment/flowcut" ${LAT_REPEATS:-7} >"$OUT/latency.txt" 2>&1
    note "latency: rc=$?"
    cat "$OUT/latency.txt" >>"$SUMMARY"
fi

if has skewed; then
    timeout ${SKEW_TIMEOUT:-420} tests/bench/skewed.sh "$BUILD/segment/flowcut" "${SKEW_SCALES:-20 22}" ${SKEW_LEFT:-2000000} \
        >"$OUT/skewed.txt" 2>&1
    note "skewed: rc=$?"
    cat "$OUT/skewed.txt" >>"$SUMMARY"
fi

if has ecl; then
    timeout ${ECL_TIMEOUT:-540} tests/bench/ecl_pairs.sh "$BUILD/segment/flowcut" "${ECL_PAIRS:-1 2 3 4 5}" \
        "${ECL_GRAPHS:-rmat22 kron21}" >"$OUT/ecl.txt" 2>&1
    note "ecl: rc=$?"
    cat "$OUT/ecl.txt" >>"$SUMMARY"
fi

if has segbench; then
    timeout 400 tests/bench/seg_scale.sh "$BUILD/segment/flowcut" >"$OUT/seg_scale.txt" 2>&1
    note "seg_scale: rc=$?"
    cat "$OUT/seg_scale.txt" >>"$SUMMARY"
fi

if has many; then
    timeout 400 tests/bench/many_bench.sh "$BUILD/segment/flowcut" "$BUILD/tests/bench/bench_many" >"$OUT/many_bench.txt" 2>&1
    note "many_bench: rc=$?"
    cat "$OUT/many_bench.txt" >>"$SUMMARY"
fi

if has floor; then
    timeout 300 tests/bench/thread_floor.sh "$BUILD/segment/flowcut" "$BUILD/tests/bench/bench_threads" >"$OUT/thread_floor.txt" 2>&1
    note "thread_floor: rc=$?"
    cat "$OUT/thread_floor.txt" >>"$SUMMARY"
fi

if has batchbench; then
    timeout 560 tests/bench/batch_bench.sh "$BUILD/segment/flowcut" ${BATCH_N12:-50} "${BATCH_ENGINES:-cpu gpu}" >"$OUT/batch_bench.txt" 2>&1
    note "batch_bench: rc=$?"
    cat "$OUT/batch_bench.txt" >>"$SUMMARY"
fi

echo "==================== summary"
cat "$SUMMARY"
