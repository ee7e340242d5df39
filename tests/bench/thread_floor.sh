#!/usr/bin/env bash
# The thread floor: one solve on every core never slower than on one.
# flowcut's networks of every third seg-dev photo and of the bundled
# sample, and graphs unlike photos (`flowcut generate`: grids, R-MAT with
# its hubs, a matching, genrmf, a Washington RLG; sizes that BK solves in
# under a second), each solved warm by BK on 1 thread and on THREADS,
# alternating (bench_threads: best of REPEATS each, value and cut compared).
#   tests/bench/thread_floor.sh FLOWCUT BENCH_THREADS [THREADS (default: all cores)] [REPEATS (default 5)]
# MIN_BLOCKS="40000 60000 ..." runs the whole comparison once per smallest
# block size (bench_threads --bk-tuning min_block=N), to calibrate the engine's rule on a
# machine of many cores; ROUNDS=N (default 1) repeats each run.
set -uo pipefail
F=$(realpath "${1:?usage: thread_floor.sh FLOWCUT BENCH_THREADS [THREADS] [REPEATS]}")
BT=$(realpath "${2:?usage: thread_floor.sh FLOWCUT BENCH_THREADS [THREADS] [REPEATS]}")
THREADS=${3:-$(nproc)}
REPEATS=${4:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$HERE/segdev_networks.sh" "$F" "$T" 3
case $? in 0 | 3) ;; *) exit 1 ;; esac
"$F" graph "$HERE/../../examples/coffee.png" --seeds "$HERE/../../examples/coffee-seeds.png" -o "$T/coffee.max" -f || exit 1
while read -r name args; do
    "$F" generate $args -o "$T/gen-$name.max" -f || exit 1
done <<'GEN'
grid4 grid --width 600 --height 400
grid8 grid --width 1000 --height 1000 --connectivity 8
rmat17 rmat --scale 17
rmat18 rmat --scale 18
matching matching --left 100000 --right 100000
genrmf genrmf -a 24 -b 24
rlg washington-rlg --rows 128 --cols 256
GEN
echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for mb in ${MIN_BLOCKS:-default}; do
    for r in $(seq "${ROUNDS:-1}"); do
        [ -n "${MIN_BLOCKS:-}${ROUNDS:-}" ] && echo "== smallest block: $mb, round $r"
        tuning=()
        [ "$mb" = default ] || tuning=(--bk-tuning "min_block=$mb")
        "$BT" --threads "$THREADS" --repeats "$REPEATS" "${tuning[@]}" "$T"/*.max
    done
done
