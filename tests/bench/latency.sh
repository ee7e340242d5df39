#!/usr/bin/env bash
# Wall time of one `flowcut segment` call on the bundled 0.24 Mpx sample,
# per engine (median of REPEATS runs, each a fresh process: CUDA's start
# included), with the stage times of the last run; then where the CPU
# call's time goes: process start alone, thread counts, glibc's huge-page
# malloc (medians too); last the sample upscaled to 12 Mpx as a camera
# JPEG, end to end (needs python3 with OpenCV; skipped without).
#   tests/bench/latency.sh FLOWCUT [REPEATS]
set -uo pipefail
F=${1:?usage: latency.sh FLOWCUT [REPEATS]}
N=${2:-7}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# med LABEL COMMAND...: median wall time of N fresh runs; the last run's
# standard error stays in $T/err
med() {
    local label=$1 ts=() t0
    shift
    for _ in $(seq "$N"); do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>"$T/err" || { echo "$label: failed: $(tail -n1 "$T/err")"; return 1; }
        ts+=("$(( ($(date +%s%N) - t0) / 1000 ))")
    done
    printf '%-40s median %6.1f ms of %d\n' "$label" \
        "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (N + 1) / 2 ))p" | awk '{print $1 / 1000}')" "$N"
}
SEG=(segment "$ROOT/examples/coffee.png" --seeds "$ROOT/examples/coffee-seeds.png" -o "$T/m.png" -f -q)
for e in cpu gpu auto; do
    med "latency 0.24 Mpx --engine $e" "$F" "${SEG[@]}" --engine "$e" --time && echo "  last: $(tail -n1 "$T/err")"
done
med "flowcut --version" "$F" --version
for t in 1 2 4 8; do med "segment --engine cpu --threads $t" "$F" "${SEG[@]}" --engine cpu --threads "$t"; done
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 med "segment --engine cpu, malloc hugetlb=1" "$F" "${SEG[@]}" --engine cpu
# 12 Mpx end to end (the goal: at most 1.5 s with a GPU); the first calls on a
# freshly started virtual machine are slower while its host backs the memory
PY=
for p in python3 /usr/bin/python3; do "$p" -c "import cv2" 2>/dev/null && { PY=$p; break; }; done
if [ -n "$PY" ]; then
    "$PY" "$ROOT/tests/bench/upscale_sample.py" --jpeg "$T" 12
    for e in auto cpu; do
        med "latency 12 Mpx JPEG --engine $e" "$F" segment "$T/img12.jpg" --seeds "$T/seeds12.png" -o "$T/mb.png" -f -q \
            --engine "$e" --time && echo "  last: $(tail -n1 "$T/err")"
    done
else
    echo "latency 12 Mpx: skipped: needs python3 with OpenCV"
fi
