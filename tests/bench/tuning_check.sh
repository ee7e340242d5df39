#!/usr/bin/env bash
# The GPU engine's checks (test_maxflow_gpu: every family against the CPU
# engine, same value and cut, certificates) under each tuning variation
# that reaches another launch path on the tests' small graphs, plus the
# default. Run it on a machine with a CUDA device; without one every run
# is skipped (exit 77) and the script says so.
#   tests/bench/tuning_check.sh BUILD_DIR [EXTRA_VARIATION ...]
# A variation is mf_gpu_tuning's key=value pairs joined by commas
# (maxflow/src/tuning.h), e.g. "cycles=1,batch=1".
set -uo pipefail
BUILD=$(realpath "${1:?usage: tuning_check.sh BUILD_DIR [KEY=VALUE,... ...]}")
shift
T=$BUILD/tests/test_maxflow_gpu
[ -x "$T" ] || { echo "tuning_check: no $T (build with CUDA)"; exit 1; }
variations=(
    default
    hub_degree=3                  # nearly every vertex a hub: hub_round, a block per vertex
    hub_degree=0                  # no hub rounds, whatever the degrees
    small_push=0                  # whole-grid push rounds only
    small_bfs=0                   # no one-block BFS levels: bfs_hops' super-levels
    small_bfs=0,bfs_hops=0        # bfs_coop's grid-wide levels
    bfs_direct=0                  # the BFS loads each height before its atomicMin
    bfs_direct=1000000000         # atomicMin alone on every frontier
    coop=0                        # no cooperative launches
    coop_per_sm=1
    group=1 group=4 group=8 group=16 group=32
    cycles=1,batch=1              # a host check after every round
    interval=100                  # frequent global relabels
    work=0.25                     # work-based relabels four times as often
    "$@"
)
failed=0 skipped=0 passed=0
for v in "${variations[@]}"; do
    args=()
    [ "$v" = default ] || args=(--gpu-tuning "$v")
    log=$(mktemp)
    timeout 900 "$T" "${args[@]}" >"$log" 2>&1
    rc=$?
    case $rc in
    0) passed=$((passed + 1)); echo "ok      $v" ;;
    77) skipped=$((skipped + 1)); echo "skipped $v ($(head -1 "$log"))" ;;
    *) failed=$((failed + 1)); echo "FAILED  $v (rc $rc)"; tail -20 "$log" ;;
    esac
    rm -f "$log"
done
echo "tuning_check: $passed passed, $failed failed, $skipped skipped of ${#variations[@]}"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
