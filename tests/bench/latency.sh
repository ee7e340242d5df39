#!/usr/bin/env bash
# Wall time of one `flowcut segment` call on the bundled 0.24 Mpx sample,
# per engine (median of REPEATS runs, each a fresh process: CUDA's start
# included), with the stage times of the last run.
#   tests/bench/latency.sh FLOWCUT [REPEATS]
set -uo pipefail
F=${1:?usage: latency.sh FLOWCUT [REPEATS]}
N=${2:-7}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for e in cpu gpu auto; do
    ts=()
    for _ in $(seq "$N"); do
        t0=$(date +%s.%N)
        "$F" segment "$ROOT/examples/coffee.png" --seeds "$ROOT/examples/coffee-seeds.png" -o "$T/m.png" -f -q \
            --engine "$e" --time 2>"$T/t" || { echo "$e: $(cat "$T/t")"; continue 2; }
        ts+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')")
    done
    med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (N + 1) / 2 ))p")
    echo "latency 0.24 Mpx --engine $e: median wall $med s of $N; last: $(cat "$T/t")"
done
