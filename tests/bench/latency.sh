#!/usr/bin/env bash
# Wall time of one `flowcut segment` call on the bundled 0.24 Mpx sample,
# per engine (median of REPEATS runs, each a fresh process: CUDA's start
# included), with the stage times of the last run; then where the CPU
# call's time goes: process start alone, thread counts, glibc's huge-page
# malloc (medians too).
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
med() { # label, then the command
    local label=$1 ts=() t0
    shift
    for _ in $(seq "$N"); do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>"$T/err" || { echo "$label: failed: $(tail -n1 "$T/err")"; return; }
        ts+=("$(( ($(date +%s%N) - t0) / 1000 ))")
    done
    printf '%-40s median %6.1f ms\n' "$label" "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (N + 1) / 2 ))p" | awk '{print $1 / 1000}')"
}
SEG=(segment "$ROOT/examples/coffee.png" --seeds "$ROOT/examples/coffee-seeds.png" -o "$T/m.png" -f -q)
med "flowcut --version" "$F" --version
med "segment --engine cpu" "$F" "${SEG[@]}" --engine cpu
for t in 1 2 4 8; do med "segment --engine cpu --threads $t" "$F" "${SEG[@]}" --engine cpu --threads "$t"; done
med "segment --engine auto" "$F" "${SEG[@]}"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 med "segment --engine cpu, malloc hugetlb=1" "$F" "${SEG[@]}" --engine cpu
"$F" "${SEG[@]}" --engine cpu --time 2>&1 | tail -n1
