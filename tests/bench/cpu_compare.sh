#!/usr/bin/env bash
# flowcut's CPU algorithms against EIBFS and BK of ../shared/peers on
# flowcut's own networks of the seg-dev photos (seeds: seg_eval.py's
# synthetic strokes), solve times alone; prints one row per photo and the
# geometric means. Flow values must agree. flowcut's engine time includes
# building its residual graph from the stored arcs; EIBFS reports that
# step apart (init), so the last column adds it back: eibfs_init_solve.
#   tests/bench/cpu_compare.sh FLOWCUT PEERS_BUILD_DIR [LIMIT]
# Needs ../shared/data/seg-dev, python3 with OpenCV (PYTHON), the peers
# built by ../shared/peers/build.sh. FLOWCUT_SEG_DEV names another copy of seg-dev.
set -uo pipefail
F=${1:?usage: cpu_compare.sh FLOWCUT PEERS_DIR [LIMIT]}
P=${2:?peers build dir}
LIMIT=${3:-1000}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${FLOWCUT_SEG_DEV:-$HERE/../../../shared/data/seg-dev}
[ -d "$DATA" ] || { echo "skipped: no $DATA"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/seeds"
(cd "$HERE" && ${PYTHON:-python3} - "$DATA" "$T/seeds" <<'PY') || exit 1
import os, sys, cv2
sys.argv = sys.argv[:1] + sys.argv[1:]
import seg_eval
data, out = sys.argv[1], sys.argv[2]
for n in sorted(os.listdir(os.path.join(data, "images"))):
    lab = cv2.imread(os.path.join(data, "labels", n), cv2.IMREAD_GRAYSCALE)
    cv2.imwrite(os.path.join(out, n), seg_eval.make_seeds(lab, n))
PY
printf "name\tvertices\tpr\tbk_t1\tbk_t%s\tibfs\tpeer_bk\teibfs\teibfs_init_solve\n" "$(nproc)"
ls "$DATA/images" | head -n "$LIMIT" | while read -r n; do
    "$F" graph "$DATA/images/$n" --seeds "$T/seeds/$n" -o "$T/g.max" -f 2>/dev/null || continue
    row="${n%.*}\t$(sed -n 's/^p max \([0-9]*\).*/\1/p' "$T/g.max" | head -n1)"
    flow=""
    for a in "push-relabel --threads 1" "bk --threads 1" "bk" "ibfs"; do
        j=$("$F" maxflow "$T/g.max" --engine cpu --json --cpu-algorithm $a)
        row="$row\t$(grep -oE '"engine": [0-9.e-]+' <<<"$j" | awk '{print $2}')"
        f=$(grep -oE '"flow": [0-9]+' <<<"$j" | awk '{print $2}')
        [ -z "$flow" ] && flow=$f
        [ "$f" = "$flow" ] || echo "${n%.*}: $a flow $f, want $flow" >&2
    done
    "$P/bench_io" dimacs_to_bbk "$T/g.max" >/dev/null 2>&1
    out=$("$P/demo" "$T/g.max.bbk" bk eibfs 2>&1)
    for t in $(sed -n 's/^solving\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out"); do row="$row\t$t"; done
    init=$(sed -n 's/^init\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out" | tail -n1)
    solve=$(sed -n 's/^solving\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out" | tail -n1)
    row="$row\t$(awk -v a="${init:-0}" -v b="$solve" 'BEGIN { printf "%.6f", a + b }')"
    grep -oE 'maxflow: [0-9]+' <<<"$out" | awk '{print $2}' | sort -u | grep -qx "$flow" || echo "${n%.*}: peers' flow differs" >&2
    printf "$row\n"
    rm -f "$T"/g.*
done | tee "$T/rows"
awk -F'\t' 'NF >= 9 { for (i = 3; i <= 9; i++) s[i] += log($i); c++ }
    END { printf "geomean (%d photos)", c; for (i = 3; i <= 9; i++) printf "\t%.4f", exp(s[i] / c); printf "\n";
          printf "BK 1 thread / EIBFS solve %.2f, / EIBFS init + solve %.2f\n", exp((s[4] - s[8]) / c), exp((s[4] - s[9]) / c) }' "$T/rows"
