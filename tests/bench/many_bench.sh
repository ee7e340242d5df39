#!/usr/bin/env bash
# Small photos, many to a GPU launch: flowcut's networks (`flowcut graph`)
# of every third seg-dev photo, seeds synthesised as in seg_eval.py, each
# solved alone and in unions of 4, 8 and 16 (bench_many: wall time per
# network, upload, solve, BFS; every union result checked against the solve
# alone). Skipped without seg-dev, OpenCV or a CUDA device.
#   tests/bench/many_bench.sh FLOWCUT BENCH_MANY [GROUPS (default 4,8,16)]
set -uo pipefail
F=$(realpath "${1:?usage: many_bench.sh FLOWCUT BENCH_MANY [GROUPS]}")
BM=$(realpath "${2:?usage: many_bench.sh FLOWCUT BENCH_MANY [GROUPS]}")
GROUPS_=${3:-4,8,16}
HERE=$(cd "$(dirname "$0")" && pwd)
DEV=${FLOWCUT_SEG_DEV:-$HERE/../../../shared/data/seg-dev}
[ -d "$DEV/images" ] || { echo "many_bench: skipped: $DEV not found"; exit 0; }
"$F" maxflow --engine gpu "$HERE/../data/max_flow.dat" >/dev/null 2>&1 || { echo "many_bench: skipped: no CUDA device"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=
for p in python3 /usr/bin/python3; do "$p" -c "import cv2" 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || { echo "many_bench: skipped: needs python3 with OpenCV"; exit 0; }
"$PY" - "$HERE" "$DEV" "$T" <<'PY' || exit 1
import os, sys
sys.path.insert(0, sys.argv[1])
import cv2, seg_eval
dev, out = sys.argv[2], sys.argv[3]
for i, name in enumerate(sorted(os.listdir(os.path.join(dev, "images")))):
    if i % 3 == 2:
        label = cv2.imread(os.path.join(dev, "labels", name), cv2.IMREAD_GRAYSCALE)
        cv2.imwrite(os.path.join(out, os.path.splitext(name)[0] + ".seeds.png"), seg_eval.make_seeds(label, name))
PY
for s in "$T"/*.seeds.png; do
    stem=$(basename "$s" .seeds.png)
    img=$(ls "$DEV/images/$stem".* | head -1)
    "$F" graph "$img" --seeds "$s" -o "$T/$stem.max" -f || exit 1
done
"$BM" --groups "$GROUPS_" --repeats 3 "$T"/*.max
