#!/usr/bin/env bash
# Per-stage segment times of the bundled sample upscaled to 0.25, 3 and 12
# Mpx: the CPU engine with each algorithm (push-relabel is left out at 12
# Mpx, where it takes minutes and auto picks BK) and the GPU engine where a
# device exists; checks that every mask is identical. Needs python3 with
# OpenCV for the upscaling. SEG_SCALE_ARGS adds options to every run (e.g.
# "--geodesic 0 --lambda 150": the pipeline before the geodesic prior).
#   tests/bench/seg_scale.sh FLOWCUT
set -uo pipefail
F=${1:?usage: seg_scale.sh FLOWCUT}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$ROOT/tests/bench/upscale_sample.py" "$T" 0.25 1 3 6 12
printf "%-6s %-6s %s\n" "Mpx" "engine" "stage times (s)"
for s in ${SEG_SCALE_SIZES:-0.25 3 12}; do
    engines="pr bk gpu"
    [ "$s" = 12 ] && engines="bk gpu"
    engines=${SEG_SCALE_ENGINES:-$engines}
    for e in $engines; do
        case $e in
            pr) args="--engine cpu --cpu-algorithm push-relabel" ;;
            bk) args="--engine cpu --cpu-algorithm bk" ;;
            gpu) args="--engine gpu" ;;
        esac
        if "$F" segment "$T/img$s.png" --seeds "$T/seeds$s.png" -o "$T/mask-$e-$s.png" -f -q --time $args ${SEG_SCALE_ARGS:-} 2>"$T/t"; then
            printf "%-6s %-6s %s\n" "$s" "$e" "$(cat "$T/t")"
        else
            printf "%-6s %-6s %s\n" "$s" "$e" "skipped: $(head -c 120 "$T/t")"
        fi
    done
    for e in pr gpu; do
        [ -f "$T/mask-$e-$s.png" ] || continue
        cmp -s "$T/mask-bk-$s.png" "$T/mask-$e-$s.png" && echo "$s Mpx: $e and bk masks identical" ||
            echo "$s Mpx: $e and bk MASKS DIFFER"
    done
done
