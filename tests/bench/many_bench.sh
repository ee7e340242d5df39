#!/usr/bin/env bash
# Small photos, many to a GPU launch: flowcut's networks (`flowcut graph`)
# of every third seg-dev photo, seeds synthesised as in seg_eval.py, each
# solved alone and in unions of 4, 8 and 16 (bench_many: wall time per
# network, upload, solve, BFS; every union result checked against the solve
# alone). Skipped without seg-dev, OpenCV or a CUDA device.
#   tests/bench/many_bench.sh FLOWCUT BENCH_MANY [GROUPS (default 4,8,16)]
set -uo pipefail
F=$(realpath "${1:?usage: many_bench.sh FLOWCUT BENCH_MANY [GROUPS]}")
BM=$(realpath "${2:?usage: many_bench.sh FLOWCUT BENCH_MANY [GROUPS]}")
GROUPS_=${3:-4,8,16}
HERE=$(cd "$(dirname "$0")" && pwd)
"$F" maxflow --engine gpu "$HERE/../data/max_flow.dat" >/dev/null 2>&1 || { echo "many_bench: skipped: no CUDA device"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$HERE/segdev_networks.sh" "$F" "$T" 3
case $? in 0) ;; 3) exit 0 ;; *) exit 1 ;; esac
"$BM" --groups "$GROUPS_" --repeats 3 "$T"/*.max
