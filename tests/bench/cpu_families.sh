#!/usr/bin/env bash
# flowcut's CPU engine against the reference solvers (docs/benchmarks.md) on
# the DIMACS families and the other graphs `flowcut generate` makes (genrmf,
# Washington RLG, acyclic-dense, grids, R-MAT, bipartite matching): engine
# seconds of one fresh `flowcut maxflow` for push-relabel, auto, BK and IBFS
# on 1 thread, auto and BK on every core; the peers' solve time (EIBFS's
# init in brackets). Every value must equal flowcut's push-relabel value:
# "crash" is a peer that died (EIBFS, MBK and HPF handle only some of these
# families), "≠" one whose value differs (its format drops an arc straight
# from source to sink), "—" a run over the time limit (TIMEOUT, 120 s).
#   tests/bench/cpu_families.sh FLOWCUT PEERS_BUILD_DIR|- [SCALE]
# SCALE=small (default; a few seconds each on 2 cores) or large (the GPU
# table's sizes). PEERS_BUILD_DIR: a build of the reference solvers, or - for
# flowcut alone.
set -uo pipefail
F=${1:?usage: cpu_families.sh FLOWCUT PEERS_DIR|- [small|large]}
P=${2:--}
SCALE=${3:-small}
LIMIT=${TIMEOUT:-120}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ "$SCALE" = large ]; then
    INSTANCES=("genrmf-wide a64 b64|genrmf -a 64 -b 64" "genrmf-long a48 b384|genrmf -a 48 -b 384"
        "rlg 1024x1024|washington-rlg --rows 1024 --cols 1024" "acyclic-dense 2000|acyclic-dense -n 2000"
        "grid 4 Mpx 4-conn|grid --width 2000 --height 2000" "grid 4 Mpx 8-conn|grid --width 2000 --height 2000 --connectivity 8"
        "R-MAT scale 20|rmat --scale 20" "matching 1M x 1M|matching --left 1000000 --right 1000000")
else
    INSTANCES=("genrmf-wide a32 b32|genrmf -a 32 -b 32" "genrmf-long a24 b192|genrmf -a 24 -b 192"
        "rlg 256x512|washington-rlg --rows 256 --cols 512" "acyclic-dense 1000|acyclic-dense -n 1000"
        "grid 1 Mpx 4-conn|grid --width 1000 --height 1000" "grid 1 Mpx 8-conn|grid --width 1000 --height 1000 --connectivity 8"
        "R-MAT scale 17|rmat --scale 17" "matching 200k x 200k|matching --left 200000 --right 200000")
fi
N=$(nproc)
echo "cpu: $N cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf "instance\tvertices\tarcs\tflow\tpr_t1\tauto_t1\tbk_t1\tibfs_t1\tauto_t%s\tbk_t%s\tpeer_bk\tmbk\teibfs\thpf\n" "$N" "$N"
for inst in "${INSTANCES[@]}"; do
    name=${inst%%|*}
    read -r -a gen <<<"${inst#*|}"
    "$F" generate "${gen[@]}" -o "$T/g.max" -f || { echo "$name: generate failed"; continue; }
    want="" size="" times=""
    for run in "push-relabel 1" "auto 1" "bk 1" "ibfs 1" "auto $N" "bk $N"; do
        read -r a t <<<"$run"
        j=$(timeout "$LIMIT" "$F" maxflow "$T/g.max" --engine cpu --cpu-algorithm "$a" --threads "$t" --json 2>/dev/null)
        e=$(grep -oE '"engine": [0-9.e-]+' <<<"$j" | awk '{print $2}')
        v=$(grep -oE '"flow": [0-9]+' <<<"$j" | awk '{print $2}')
        [ -n "$size" ] || size="$(grep -oE '"vertices": [0-9]+' <<<"$j" | awk '{print $2}')\t$(grep -oE '"arcs": [0-9]+' <<<"$j" | awk '{print $2}')"
        [ "$a" = push-relabel ] && want=$v
        times="$times\t${e:-—}"
        [ -z "$v" ] || [ -z "$want" ] || [ "$v" = "$want" ] || echo "$name: $a on $t threads: FLOW $v, push-relabel $want"
    done
    row="$name\t$size\t$want$times"
    if [ "$P" != - ]; then
        "$P/bench_io" dimacs_to_bbk "$T/g.max" >/dev/null 2>&1
        for p in bk mbk eibfs hpf; do
            out=$(timeout "$LIMIT" "$P/demo" "$T/g.max.bbk" "$p" 2>&1)
            rc=$?
            s=$(sed -n 's/^solving\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out" | head -n1)
            i=$(sed -n 's/^init\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out" | head -n1)
            v=$(grep -oE '(maxflow|flow): [0-9]+' <<<"$out" | head -n1 | awk '{print $2}')
            if [ "$rc" = 124 ]; then cell="—"
            elif [ "$rc" != 0 ] || [ -z "$s" ]; then cell="crash"
            elif [ "$v" != "$want" ]; then cell="≠"
            else cell=$s${i:+ ($i)}; fi
            row="$row\t$cell"
        done
        rm -f "$T/g.max.bbk"
    fi
    printf "%b\n" "$row"
    rm -f "$T/g.max"
done
