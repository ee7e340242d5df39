#!/usr/bin/env bash
# Batch throughput: images/s of `flowcut batch` on the seg-dev set (a folder
# seg-dev/ found beside the checkout or through FLOWCUT_SEG_DEV; 102
# photos, seeds synthesised from the ground truth as in seg_eval.py)
# and on N of those photos upscaled to 12 Mpx (JPEG, as cameras write
# them), with the CPU engine and, where a device exists, the GPU; the
# per-stage totals show what limits throughput. Needs python3 with
# OpenCV; skipped when seg-dev is absent. BATCH_COPIES (default 16): seg-dev that many
# times over as well, the steady state. Last, bench_stages (built beside FLOWCUT, or
# BENCH_STAGES): the workers' CPU stages a photo on 1 and on every thread, without the solve.
#   tests/bench/batch_bench.sh FLOWCUT [N12 (default 50)] [engines (default "cpu gpu"; also gpu1:
#   the first GPU only; gpu-single: every GPU, one photo a launch (--per-launch 1); auto: the
#   default engine)]
set -uo pipefail
F=$(realpath "${1:?usage: batch_bench.sh FLOWCUT [N12] [ENGINES]}")
N12=${2:-50}
ENGINES=${3:-cpu gpu}
HERE=$(cd "$(dirname "$0")" && pwd)
DEV=${FLOWCUT_SEG_DEV:-$HERE/../../../shared/data/seg-dev}
[ -d "$DEV/images" ] || { echo "batch_bench: skipped: $DEV not found"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/dev-seeds" "$T/big" "$T/big-seeds"
PY=
for p in python3 /usr/bin/python3; do "$p" -c "import cv2" 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || { echo "batch_bench: skipped: needs python3 with OpenCV"; exit 0; }
"$PY" - "$HERE" "$DEV" "$T" "$N12" <<'PY' || { echo "batch_bench: skipped: needs python3-opencv"; exit 0; }
import os, sys
sys.path.insert(0, sys.argv[1])
import cv2, seg_eval
dev, out, n12 = sys.argv[2], sys.argv[3], int(sys.argv[4])
names = sorted(os.listdir(os.path.join(dev, "images")))
for i, name in enumerate(names):
    label = cv2.imread(os.path.join(dev, "labels", name), cv2.IMREAD_GRAYSCALE)
    seeds = seg_eval.make_seeds(label, name)
    cv2.imwrite(os.path.join(out, "dev-seeds", name), seeds)
    if i < n12:  # 12 Mpx: 4000x3000 for landscape photos, 3000x4000 for portrait
        img = cv2.imread(os.path.join(dev, "images", name))
        h, w = label.shape
        size = (4000, 3000) if w >= h else (3000, 4000)
        stem = os.path.splitext(name)[0]
        cv2.imwrite(os.path.join(out, "big", stem + ".jpg"), cv2.resize(img, size, interpolation=cv2.INTER_CUBIC),
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        cv2.imwrite(os.path.join(out, "big-seeds", name), cv2.resize(seeds, size, interpolation=cv2.INTER_NEAREST))
PY
has_gpu=0
"$F" maxflow --engine gpu "$HERE/../data/max_flow.dat" >/dev/null 2>&1 && has_gpu=1
echo "batch throughput ($(nproc) cores$( [ $has_gpu = 1 ] && echo ", $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"))"
printf "%-22s %-4s %7s %8s %9s  %s\n" "set" "eng" "images" "wall s" "images/s" "stage seconds summed over images; busy"
run() { # NAME ENGINE IN SEEDS; ENGINE: cpu, gpu (every GPU), gpu1 (the first only) or auto
    [ "$2" != cpu ] && [ $has_gpu = 0 ] && { printf "%-22s %-4s skipped: no CUDA device\n" "$1" "$2"; return; }
    local out="$T/out-$1-$2" args="--engine cpu"
    [ "$2" = gpu ] && args="--engine gpu --gpus all"
    [ "$2" = gpu1 ] && args="--engine gpu --gpus 0"
    [ "$2" = gpu-single ] && args="--engine gpu --gpus all --per-launch 1"
    [ "$2" = auto ] && args="--engine auto --gpus all"
    "$F" batch "$3" -o "$out" --seeds-dir "$4" $args --time --no-progress 2>"$T/log" >/dev/null
    local summary=$(grep -E 'ok, [0-9]+ failed' "$T/log")
    local n=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) ok.*/\1/p')
    local wall=$(echo "$summary" | sed -n 's/.* in \([0-9.]*\) s.*/\1/p')
    local rate=$(echo "$summary" | sed -n 's/.* s, \([0-9.]*\) images.*/\1/p')
    local stages=$(grep 'stage seconds' "$T/log" | sed 's/.*images: //')
    local busy=$(grep 'busy:' "$T/log" | sed 's/.*busy: //')
    printf "%-22s %-4s %7s %8s %9s  %s; %s\n" "$1" "$2" "$n" "$wall" "$rate" "$stages" "$busy"
    grep -q ' 0 failed' "$T/log" || { echo "  failures:"; grep '^flowcut:' "$T/log" | head -3; }
}
for e in $ENGINES; do run "seg-dev (0.4 Mpx)" "$e" "$DEV/images" "$T/dev-seeds"; done
# the steady state: seg-dev COPIES times (hard links, names NAME_k), so that start-up and the
# last photos weigh little (102 photos last under half a second on a GPU)
COPIES=${BATCH_COPIES:-16}
if [ "$COPIES" -gt 1 ]; then
    mkdir -p "$T/many" "$T/many-seeds"
    for f in "$DEV/images"/*; do
        b=$(basename "$f")
        for k in $(seq 1 "$COPIES"); do
            ln -f "$f" "$T/many/${b%.*}_$k.${b##*.}" 2>/dev/null || cp "$f" "$T/many/${b%.*}_$k.${b##*.}"
            cp "$T/dev-seeds/$b" "$T/many-seeds/${b%.*}_$k.${b##*.}"
        done
    done
    for e in $ENGINES; do run "seg-dev x$COPIES" "$e" "$T/many" "$T/many-seeds"; done
fi
[ "$N12" -gt 0 ] && for e in $ENGINES; do run "$N12 photos at 12 Mpx" "$e" "$T/big" "$T/big-seeds"; done
# what the workers' stages cost on this host's cores, one photo a thread without the solve
# (bench_stages, built beside flowcut): how fast a machine's cores are sets the batch's rate
STAGES=${BENCH_STAGES:-$(dirname "$F")/../tests/bench/bench_stages}
if [ -x "$STAGES" ]; then
    "$STAGES" --threads 1 "$DEV/images" "$T/dev-seeds" | sed 's/^bench_stages: /stages: /'
    "$STAGES" --threads "$(nproc)" --copies 4 "$DEV/images" "$T/dev-seeds" | sed 's/^bench_stages: /stages: /'
fi
# masks must not depend on the engine or the number of GPUs
for set in "seg-dev (0.4 Mpx)" "seg-dev x$COPIES" "$N12 photos at 12 Mpx"; do
    ref=
    for e in $ENGINES; do
        d="$T/out-$set-$e"
        [ -d "$d" ] || continue
        [ -z "$ref" ] && { ref=$e; continue; }
        differ=0
        for m in "$T/out-$set-$ref"/*.png; do cmp -s "$m" "$d/$(basename "$m")" || differ=$((differ + 1)); done
        echo "$set: masks of $e and $ref differ on $differ images"
    done
done
