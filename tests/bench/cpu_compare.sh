#!/usr/bin/env bash
# flowcut's CPU algorithms against EIBFS and BK of the reference solvers on
# flowcut's own networks of the seg-dev photos (seeds: seg_eval.py's
# synthetic strokes), solve times alone; prints one row per photo and the
# geometric means. Flow values must agree. flowcut's engine time includes
# building its residual graph from the stored arcs; EIBFS reports that
# step apart (init), so eibfs_init_solve adds it back; and flowcut reports
# its own set-up apart too (bk_t1_setup), so the search alone compares with
# EIBFS's solve alone (bk_t1 - bk_t1_setup against eibfs, bk_t1_setup
# against eibfs_init). REPEATS=N (default 1) runs each solver N times per
# photo, fresh processes, and keeps the median.
#
# Those fresh-process columns compare unlike things: EIBFS allocates its
# arrays and writes every page of them in its constructor, before the
# timed init, while flowcut's set-up includes allocating and first
# touching its residual graph; on a virtual machine whose host backs guest
# memory lazily the first touch of a page costs several times a later one
# and varies from run to run. So two more columns time both warm: bk_warm
# is the best of R one-thread engine solves (set-up, search, cut) in one
# process, whose allocation cache hands the arrays back as a batch or a
# session gets them (bench_threads), eibfs_best the best of EIBFS's R init
# + solve times. BENCH_THREADS names bench_threads (default: beside FLOWCUT
# in its build tree).
#   tests/bench/cpu_compare.sh FLOWCUT PEERS_BUILD_DIR [LIMIT]
# Needs the seg-dev set (a folder seg-dev/ found beside the checkout or
# through FLOWCUT_SEG_DEV), python3 with OpenCV (PYTHON), and a build of
# the reference solvers (PEERS_BUILD_DIR; docs/benchmarks.md).
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
R=${REPEATS:-1}
BT=${BENCH_THREADS:-$(dirname "$F")/../tests/bench/bench_threads}
[ -x "$BT" ] || { echo "cpu_compare.sh: no bench_threads at $BT" >&2; exit 1; }
# median of the lines on stdin by the first field (the whole line is kept)
median() { sort -g | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'; }
printf "name\tvertices\tpr\tbk_t1\tbk_t%s\tibfs\tpeer_bk\teibfs\teibfs_init_solve\tbk_t1_setup\teibfs_init\tbk_warm\teibfs_best\n" "$(nproc)"
ls "$DATA/images" | head -n "$LIMIT" | while read -r n; do
    "$F" graph "$DATA/images/$n" --seeds "$T/seeds/$n" -o "$T/g.max" -f 2>/dev/null || continue
    row="${n%.*}\t$(sed -n 's/^p max \([0-9]*\).*/\1/p' "$T/g.max" | head -n1)"
    flow="" bk_setup=0
    for a in "push-relabel --threads 1" "bk --threads 1" "bk" "ibfs"; do
        # "engine setup flow" of each run, the median by engine time
        m=$(for r in $(seq "$R"); do
            j=$("$F" maxflow "$T/g.max" --engine cpu --json --cpu-algorithm $a)
            echo "$(grep -oE '"engine": [0-9.e-]+' <<<"$j" | awk '{print $2}') $(grep -oE '"setup": [0-9.e-]+' <<<"$j" | awk '{print $2}') $(grep -oE '"flow": [0-9]+' <<<"$j" | awk '{print $2}')"
        done | median)
        read -r e su f <<<"$m"
        row="$row\t$e"
        [ "$a" = "bk --threads 1" ] && bk_setup=$su
        [ -z "$flow" ] && flow=$f
        [ "$f" = "$flow" ] || echo "${n%.*}: $a flow $f, want $flow" >&2
    done
    "$P/bench_io" dimacs_to_bbk "$T/g.max" >/dev/null 2>&1
    for p in bk eibfs; do
        # "solve init" of each run, the median by solve time
        runs=$(for r in $(seq "$R"); do
            out=$("$P/demo" "$T/g.max.bbk" $p 2>&1)
            grep -oE 'maxflow: [0-9]+' <<<"$out" | awk '{print $2}' | grep -qx "$flow" || echo "${n%.*}: $p's flow differs" >&2
            echo "$(sed -n 's/^solving\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out" | head -n1) $(sed -n 's/^init\.\.\. \([0-9.e-]*\) seconds.*/\1/p' <<<"$out" | head -n1)"
        done)
        read -r solve init <<<"$(median <<<"$runs")"
        row="$row\t$solve"
    done
    # runs: EIBFS's, the loop's last; bench_threads' second line is the network's, its third
    # field the best one-thread time
    eibfs_best=$(awk '{ t = $1 + $2; if (NR == 1 || t < b) b = t } END { printf "%.6f", b }' <<<"$runs")
    warm=$("$BT" --threads 2 --repeats "$R" "$T/g.max" | awk 'NR == 2 { print $3 }')
    row="$row\t$(awk -v a="${init:-0}" -v b="$solve" 'BEGIN { printf "%.6f", a + b }')\t$bk_setup\t${init:-0}\t$warm\t$eibfs_best"
    printf "$row\n"
    rm -f "$T"/g.*
done | tee "$T/rows"
awk -F'\t' 'NF >= 13 { for (i = 3; i <= 13; i++) s[i] += log($i); q += log($4 - $10); c++ }
    END { printf "geomean (%d photos)", c; for (i = 3; i <= 13; i++) printf "\t%.4f", exp(s[i] / c); printf "\n";
          printf "BK 1 thread / EIBFS solve %.2f, / EIBFS init + solve %.2f\n", exp((s[4] - s[8]) / c), exp((s[4] - s[9]) / c);
          printf "BK 1 thread search alone / EIBFS solve alone %.2f; set-up / EIBFS init %.2f\n", exp(q / c - s[8] / c), exp((s[10] - s[11]) / c);
          printf "warm: BK engine (best of R in one process) / EIBFS init + solve (best of R) %.3f\n", exp((s[12] - s[13]) / c) }' "$T/rows"
