#!/usr/bin/env bash
# Installs what is missing (Debian, as root), builds flowcut, segments the
# bundled sample photo and says where the mask is.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PACKAGES="cmake make gcc libc6-dev libpng-dev libjpeg62-turbo-dev libstb-dev libmicrohttpd-dev"
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "quickstart: please install:$missing (or run as root)" >&2
        exit 1
    fi
fi
for d in /usr/local/cuda/bin; do [ -x "$d/nvcc" ] && PATH="$d:$PATH"; done
cmake -S . -B build -DFLOWCUT_TESTS=OFF >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
OUT=${OUT_DIR:-$ROOT/examples/out}
mkdir -p "$OUT"
./build/segment/flowcut segment examples/coffee.png --seeds examples/coffee-seeds.png \
    -o "$OUT/coffee-mask.png" --overlay "$OUT/coffee-overlay.png" --cutout "$OUT/coffee-cutout.png" -f --time
echo "mask:    $OUT/coffee-mask.png"
echo "overlay: $OUT/coffee-overlay.png"
echo "cut-out: $OUT/coffee-cutout.png"
echo "interactive: ./build/segment/flowcut ui examples/coffee.png --seeds examples/coffee-seeds.png"
# the same engine on a max-flow problem
./build/segment/flowcut generate genrmf -a 16 -b 16 | ./build/segment/flowcut maxflow --verify -
