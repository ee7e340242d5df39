#!/usr/bin/env bash
# ECL-MaxFlow's protocol on undirected graphs (its paper, Table II and
# section V): source and sink the vertices of degree ranks 1 and 2, 3 and
# 4, ... of a simple undirected graph, each edge both ways. Its graphs are
# not here, so `flowcut generate rmat-pair` makes ones of their kind:
#   rmat22  scale 22, edge factor 8, quadrants 45/15/15/25 (rmat22.sym:
#           3.74 M vertices with arcs, 65.6 M arcs, degree at most 3,687)
#   kron21  scale 21, edge factor 48, Graph500's 57/19/19/5
#           (kron_g500-logn21: 1.54 M vertices, 182 M arcs)
# Each pair solved by the GPU engine (--verify) and the CPU engine (auto
# and the algorithm ECLP_CPU names); values must agree.
#   tests/bench/ecl_pairs.sh FLOWCUT [PAIRS] [GRAPHS]   (default: 1 2 3 4 5, rmat22 kron21)
set -uo pipefail
F=${1:?usage: ecl_pairs.sh FLOWCUT [PAIRS] [GRAPHS]}
PAIRS=${2:-1 2 3 4 5}
GRAPHS=${3:-rmat22 kron21}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
for gname in $GRAPHS; do
    case $gname in
    rmat22) args="--scale 22 --edge-factor 8 --probabilities 45,15,15" ;;
    kron21) args="--scale 21 --edge-factor 48 --probabilities 57,19,19" ;;
    *) echo "unknown graph $gname"; continue ;;
    esac
    t0=$(date +%s%N)
    "$F" generate rmat-pair $args -o "$T/g.max" -f || continue
    echo "$gname: $(sed -n 's/^p max \([0-9]*\) \([0-9]*\)/\1 vertices, \2 arcs/p' "$T/g.max"), generated in $(ms $t0) ms"
    # one file per pair: the same arcs, the terminals of the pair's ranks
    # (the generator's second comment line; its header is 5 lines)
    read -r -a ranks <<<"$(sed -n 's/^c vertices of degree ranks 1-10://p' "$T/g.max")"
    for p in $PAIRS; do
        src=${ranks[2 * p - 2]:-} snk=${ranks[2 * p - 1]:-}
        [ -n "$snk" ] || { echo "pair $p: no ranks"; continue; }
        { head -n 3 "$T/g.max"; echo "n $src s"; echo "n $snk t"; tail -n +6 "$T/g.max"; } >"$T/p.max"
        want=""
        for e in "gpu" "cpu --cpu-algorithm auto" ${ECLP_CPU:+"cpu --cpu-algorithm $ECLP_CPU"}; do
            extra=""
            [ "$e" = gpu ] && extra="--verify"
            j=$(timeout "${ECLP_TIMEOUT:-120}" "$F" maxflow "$T/p.max" --json --engine $e $extra 2>&1) ||
                { printf "%-8s pair %s  %-28s %s\n" "$gname" "$p" "$e" "$(head -c 100 <<<"$j")"; continue; }
            v=$(grep -oE '"flow": [0-9]+' <<<"$j" | awk '{print $2}')
            t=$(grep -oE '"engine": [0-9.e-]+' <<<"$j" | awk '{print $2}')
            a=$(grep -oE '"cpu_algorithm": "[a-z-]+"' <<<"$j" | cut -d'"' -f4)
            [ -z "$want" ] && want=$v
            printf "%-8s pair %s (%s, %s)  %-28s %10s s  flow %s%s\n" "$gname" "$p" "$src" "$snk" "$e${a:+ ($a)}" "$t" "$v" \
                "$([ "$v" = "$want" ] || echo '  FLOW DIFFERS')"
        done
    done
done
