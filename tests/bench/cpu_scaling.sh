#!/usr/bin/env bash
# flowcut's CPU engine against the reference solvers on the network of the
# bundled photo upscaled to 1, 3 and 12 Mpx: `flowcut segment` (solve
# stage) with BK on 1, 2, 4, 8, 16 threads and IBFS, then BK, MBK, EIBFS,
# EIBFS-i and HPF of the reference solvers on the same network (`flowcut graph`,
# solve time alone). Masks of every thread count must be identical.
#   tests/bench/cpu_scaling.sh FLOWCUT PEERS_BUILD_DIR|- [SIZES] [THREADS]
# THREADS12 overrides THREADS at 12 Mpx. Needs python3 with OpenCV (PYTHON); PEERS_BUILD_DIR: a
# build of the reference solvers (docs/benchmarks.md), or - to time flowcut alone. With the peers, `flowcut maxflow` of the
# same network on 1 thread also prints its set-up and search apart, beside EIBFS's init and
# solve, and on the most threads its merge tree's work and critical chain (`--json`).
# NOPRIOR=1: the networks without the geodesic prior (λ 150, the best without it).
# PEERS / PEERS12 pick the peers; `liusun` is the review's parallel BK (Liu & Sun's bottom-up
# merging), on LIUSUN_BLOCKS row bands (default 16) and the 8 threads its demo fixes.
set -uo pipefail
F=${1:?usage: cpu_scaling.sh FLOWCUT PEERS_DIR|- [SIZES] [THREADS]}
P=${2:--}
SIZES=${3:-1 3 12}
NET=()
[ "${NOPRIOR:-0}" = 1 ] && NET=(--geodesic 0 --border off --lambda 150)
THREADS=${4:-1 2 4 8 16}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
${PYTHON:-python3} "$ROOT/tests/bench/upscale_sample.py" "$T" 1 3 12 || exit 1
echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf "%-5s %-14s %s\n" "Mpx" "solver" "solve (s)"
for s in $SIZES; do
    ref=""
    threads=$THREADS
    [ "$s" = 12 ] && threads=${THREADS12:-$THREADS}
    for t in $threads; do
        "$F" segment "$T/img$s.png" --seeds "$T/seeds$s.png" -o "$T/m$t.png" -f -q --engine cpu \
            "${NET[@]}" --cpu-algorithm bk --threads "$t" --time 2>"$T/t" || { echo "$s bk t$t failed: $(cat "$T/t")"; continue; }
        printf "%-5s %-14s %s\n" "$s" "flowcut bk t$t" "$(sed -n 's/.*solve \([0-9.]*\).*/\1/p' "$T/t")"
        [ -z "$ref" ] && ref=$T/m$t.png
        cmp -s "$ref" "$T/m$t.png" || echo "$s Mpx: MASK OF $t THREADS DIFFERS"
    done
    if [ "${SKIP_IBFS:-0}" != 1 ]; then
        "$F" segment "$T/img$s.png" --seeds "$T/seeds$s.png" -o "$T/mi.png" -f -q --engine cpu \
            "${NET[@]}" --cpu-algorithm ibfs --time 2>"$T/t"
        printf "%-5s %-14s %s\n" "$s" "flowcut ibfs" "$(sed -n 's/.*solve \([0-9.]*\).*/\1/p' "$T/t")"
        cmp -s "$ref" "$T/mi.png" || echo "$s Mpx: IBFS MASK DIFFERS"
    fi
    [ "$P" = - ] && continue
    "$F" graph "$T/img$s.png" --seeds "$T/seeds$s.png" "${NET[@]}" -o "$T/g.max" -f
    j=$("$F" maxflow "$T/g.max" --engine cpu --cpu-algorithm bk --threads 1 --json)
    val=$(grep -oE '"flow": [0-9]+' <<<"$j" | awk '{print $2}')
    nv=$(sed -n '/^p max/{s/^p max \([0-9]*\) .*/\1/p;q}' "$T/g.max")
    e=$(grep -oE '"engine": [0-9.e-]+' <<<"$j" | awk '{print $2}')
    su=$(grep -oE '"setup": [0-9.e-]+' <<<"$j" | awk '{print $2}')
    printf "%-5s %-14s %s (set-up %s, search %s)\n" "$s" "maxflow bk t1" "$e" "$su" \
        "$(awk -v a="$e" -v b="$su" 'BEGIN { printf "%.6f", a - b }')"
    # the merge tree on the most threads: its work, and the chain of merges no thread count shortens
    tmax=${threads##* }
    j=$("$F" maxflow "$T/g.max" --engine cpu --cpu-algorithm bk --threads "$tmax" --json)
    st() { grep -oE "\"$1\": [0-9.e-]+" <<<"$j" | awk '{print $2}'; }
    printf "%-5s %-14s %s (blocks %s, work %s, critical %s, longest %s)\n" "$s" "maxflow bk t$tmax" "$(st engine)" \
        "$(st rounds)" "$(st work_seconds)" "$(st critical_seconds)" "$(st longest_task_seconds)"
    "$P/bench_io" dimacs_to_bbk "$T/g.max" >/dev/null 2>&1
    rm -f "$T/g.max"
    peers=${PEERS:-bk mbk eibfs eibfs_i hpf liusun}
    [ "$s" = 12 ] && peers=${PEERS12:-eibfs eibfs_i liusun}
    for p in $peers; do
        if [ "$p" = liusun ]; then
            # the pixels are vertices 1..W*H of the network, the peers' 0..W*H-1
            ${PYTHON:-python3} "$ROOT/tests/bench/peer_blocks.py" "$T/g.max.bbk.blk" $((nv - 2)) "${LIUSUN_BLOCKS:-16}" || continue
        fi
        out=$(timeout 200 "$P/demo" "$T/g.max.bbk" "$p" 2>&1)
        printf "%-5s %-14s %s%s\n" "$s" "$p" "$(sed -n 's/^solv.*\.\.\. \(solved in \)\{0,1\}\([0-9.e-]*\) seconds.*/\2/p' <<<"$out" | head -n1)" \
            "$(sed -n 's/^init\.\.\. \([0-9.e-]*\) seconds.*/ (init \1)/p' <<<"$out" | head -n1)"
        grep -q "flow: $val\$" <<<"$out" || echo "$s Mpx: $p FLOW DIFFERS (flowcut $val)"
    done
    rm -f "$T/g.max.bbk" "$T/g.max.bbk.blk"
done
