#!/usr/bin/env bash
# Where one small `flowcut segment` call's wall time goes beyond its
# stages: process start alone, the CPU run with all cores and with fewer
# threads, and with glibc's huge-page malloc. Medians of REPEATS fresh
# processes on the bundled 0.24 Mpx sample.
#   tests/bench/latency_parts.sh FLOWCUT [REPEATS]
set -uo pipefail
F=${1:?usage: latency_parts.sh FLOWCUT [REPEATS]}
N=${2:-7}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
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
