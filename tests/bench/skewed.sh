#!/usr/bin/env bash
# Skewed-degree graphs: R-MAT networks and bipartite matching,
# each solved by the GPU engine (where there is one) and the CPU engine's
# algorithms (SKEW_ENGINES: the engine arguments, '|' between them); values
# must agree and every GPU result passes --verify.
#   tests/bench/skewed.sh FLOWCUT [SCALES] [MATCH_LEFT]
set -uo pipefail
F=${1:?usage: skewed.sh FLOWCUT [SCALES] [MATCH_LEFT]}
SCALES=${2:-20 22}
LEFT=${3:-2000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { # name file
    local want="" j v t
    local engines
    IFS='|' read -r -a engines <<<"${SKEW_ENGINES:-gpu|cpu --cpu-algorithm push-relabel|cpu --cpu-algorithm bk|cpu --cpu-algorithm ibfs}"
    for e in "${engines[@]}"; do
        extra=""
        [ "$e" = gpu ] && extra="--verify"
        j=$(timeout 300 "$F" maxflow "$2" --json --engine $e $extra 2>&1) || { printf "%-26s %-24s %s\n" "$1" "$e" "$(head -c 100 <<<"$j")"; continue; }
        v=$(grep -oE '"flow": [0-9]+' <<<"$j" | awk '{print $2}')
        t=$(grep -oE '"engine": [0-9.e-]+' <<<"$j" | awk '{print $2}')
        [ -z "$want" ] && want=$v
        printf "%-26s %-24s %10s s  flow %s%s\n" "$1" "$e" "$t" "$v" "$([ "$v" = "$want" ] || echo '  FLOW DIFFERS')"
    done
}
for s in $SCALES; do
    "$F" generate rmat --scale "$s" -o "$T/r.max" -f
    run "rmat scale $s ($(sed -n 's/^p max \([0-9]*\) \([0-9]*\)/\1 v, \2 a/p' "$T/r.max"))" "$T/r.max"
    rm -f "$T/r.max"
done
"$F" generate matching --left "$LEFT" --right "$LEFT" -o "$T/m.max" -f
run "matching $LEFT x $LEFT" "$T/m.max"
