#!/usr/bin/env bash
# flowcut's networks (`flowcut graph`, default options) of every STEP-th
# photo of the seg-dev set (a folder seg-dev/ found beside the checkout or
# through FLOWCUT_SEG_DEV), seeds synthesised as in seg_eval.py, written
# to OUT_DIR as NAME.max. Exit 3 (and a line saying why) when seg-dev or OpenCV is missing.
#   tests/bench/segdev_networks.sh FLOWCUT OUT_DIR [STEP (default 3)]
set -uo pipefail
F=$(realpath "${1:?usage: segdev_networks.sh FLOWCUT OUT_DIR [STEP]}")
OUT=${2:?usage: segdev_networks.sh FLOWCUT OUT_DIR [STEP]}
STEP=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
DEV=${FLOWCUT_SEG_DEV:-$HERE/../../../shared/data/seg-dev}
[ -d "$DEV/images" ] || { echo "skipped: $DEV not found"; exit 3; }
PY=
for p in python3 /usr/bin/python3; do "$p" -c "import cv2" 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || { echo "skipped: needs python3 with OpenCV"; exit 3; }
mkdir -p "$OUT"
"$PY" - "$HERE" "$DEV" "$OUT" "$STEP" <<'PY' || exit 1
import os, sys
sys.path.insert(0, sys.argv[1])
import cv2, seg_eval
dev, out, step = sys.argv[2], sys.argv[3], int(sys.argv[4])
for i, name in enumerate(sorted(os.listdir(os.path.join(dev, "images")))):
    if i % step == step - 1:
        label = cv2.imread(os.path.join(dev, "labels", name), cv2.IMREAD_GRAYSCALE)
        cv2.imwrite(os.path.join(out, os.path.splitext(name)[0] + ".seeds.png"), seg_eval.make_seeds(label, name))
PY
for s in "$OUT"/*.seeds.png; do
    stem=$(basename "$s" .seeds.png)
    img=$(ls "$DEV/images/$stem".* | head -1)
    "$F" graph "$img" --seeds "$s" -o "$OUT/$stem.max" -f || exit 1
    rm -f "$s"
done
