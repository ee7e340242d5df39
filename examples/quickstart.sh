#!/usr/bin/env bash
# flowcut in one command (Debian 12):
#   as root:      bash examples/quickstart.sh   -> /usr/local (flowcut on PATH)
#   as a user:    bash examples/quickstart.sh   -> ~/.local (needs the packages below)
# Installs the missing Debian packages (root only; waits for a running
# apt/dpkg, such as the unattended upgrades of a freshly booted machine),
# builds a Release flowcut (with the CUDA engine when nvcc is there),
# installs the command, libflowcut and the Python module, segments the
# bundled photo and says what it made. Running it again rebuilds only what
# changed. Environment: PREFIX (install prefix), FLOWCUT_BUILD_DIR (build
# folder, default build-quickstart), OUT_DIR (default examples/out),
# FLOWCUT_CUDA (AUTO, ON or OFF).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
START=$SECONDS
say() { printf 'quickstart: %s\n' "$*"; }
die() { printf 'quickstart: error: %s\n' "$*" >&2; exit 1; }
BUILD=${FLOWCUT_BUILD_DIR:-$ROOT/build-quickstart}
LOG=$BUILD/quickstart.log
OUT=${OUT_DIR:-$ROOT/examples/out}
# run with sudo from one's own checkout: what this script makes inside the
# checkout (the build folder, the sample's outputs) goes back to the
# checkout's owner on exit, so that later builds and runs without sudo can
# write there
OWNER=""
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_UID:-}" ] && [ "$(stat -c %u "$ROOT")" = "$SUDO_UID" ]; then
    OWNER=$SUDO_UID:$(stat -c %g "$ROOT")
fi
give_back() {
    [ -n "$OWNER" ] || return 0
    local d
    for d in "$BUILD" "$OUT"; do
        case "$d" in "$ROOT"/?*) [ ! -e "$d" ] || chown -R "$OWNER" "$d" ;; esac
    done
}
trap give_back EXIT
mkdir -p "$BUILD"
: >"$LOG"

# 1. Debian packages: compiler and CMake, the image libraries, libmicrohttpd
# (flowcut ui), pkg-config, and numpy for the Python module
PACKAGES="cmake make gcc libc6-dev pkgconf libpng-dev libjpeg62-turbo-dev libstb-dev libmicrohttpd-dev
          python3 python3-numpy"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        die "missing Debian packages:$missing
  installing them needs root: sudo apt-get install$missing
  (or run this script as root: sudo bash examples/quickstart.sh, which also installs into /usr/local)"
    fi
    command -v apt-get >/dev/null || die "no apt-get: install$missing with your system's package manager"
    export DEBIAN_FRONTEND=noninteractive
    # apt-get update takes the lists lock and install the dpkg lock; another
    # apt (unattended-upgrades at boot) may hold either for minutes, so wait
    # for them (up to 10 minutes) instead of failing
    waited=0
    until out=$(apt-get update -qq 2>&1); do
        if ! grep -qE "Could not get lock|Unable to lock" <<<"$out" || [ $waited -ge 600 ]; then
            printf '%s\n' "$out" >&2
            die "apt-get update failed"
        fi
        [ $waited -eq 0 ] && say "another apt/dpkg is running (often unattended-upgrades after boot): waiting for it"
        sleep 5
        waited=$((waited + 5))
    done
    say "installing Debian packages:$missing"
    # shellcheck disable=SC2086
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >>"$LOG" 2>&1 ||
        { tail -n 5 "$LOG" >&2; die "apt-get install failed (log: $LOG)"; }
fi

# 2. where to install: /usr/local as root, else ~/.local (no root needed)
if [ "$(id -u)" -eq 0 ]; then PREFIX=${PREFIX:-/usr/local}; else PREFIX=${PREFIX:-$HOME/.local}; fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)

# 3. build: Release; the CUDA engine only where nvcc is installed
if [ -x /usr/local/cuda/bin/nvcc ]; then PATH=/usr/local/cuda/bin:$PATH; fi
if [ -n "${FLOWCUT_CUDA:-}" ]; then
    CUDA=$FLOWCUT_CUDA
elif command -v nvcc >/dev/null; then
    CUDA=ON
else
    CUDA=OFF
fi
if [ "$CUDA" != OFF ]; then
    ENGINES="CPU and CUDA engines"
elif [ -n "${FLOWCUT_CUDA:-}" ]; then
    ENGINES="CPU engine; CUDA off by FLOWCUT_CUDA=OFF"
else
    ENGINES="CPU engine; no CUDA engine: nvcc not found"
fi
say "building flowcut (Release, $ENGINES) in $BUILD"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DFLOWCUT_TESTS=OFF -DFLOWCUT_CUDA="$CUDA" \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" ${PY:+-DFLOWCUT_PYTHON="$PY"} >>"$LOG" 2>&1 ||
    { tail -n 20 "$LOG" >&2; die "cmake configure failed (log: $LOG)"; }
cmake --build "$BUILD" -j "$(nproc)" >>"$LOG" 2>&1 ||
    { grep -E "error|Error" "$LOG" | tail -n 20 >&2; die "build failed (log: $LOG)"; }

# 4. install; ldconfig so that programs and Python find libflowcut.so.0
say "installing into $PREFIX"
cmake --install "$BUILD" >>"$LOG" 2>&1 || { tail -n 5 "$LOG" >&2; die "install into $PREFIX failed (log: $LOG)"; }
if [ "$(id -u)" -eq 0 ]; then ldconfig; fi
FLOWCUT=$PREFIX/bin/flowcut
installed() { # the folder cmake --install put FILE in (this run's log)
    sed -n "s#^-- \(Installing\|Up-to-date\): \(.*\)/$1\$#\2#p" "$LOG" | tail -n1
}
LIBDIR=$(installed libflowcut.so.0)
PYDIR=$(installed flowcut/__init__.py)
[ -x "$FLOWCUT" ] || die "$FLOWCUT was not installed (log: $LOG)"

# 5. segment the bundled photo with its seeds (a label PNG: 1 foreground, 2 background)
mkdir -p "$OUT"
json=$("$FLOWCUT" segment examples/coffee.png --seeds examples/coffee-seeds.png -o "$OUT/coffee-mask.png" \
       --overlay "$OUT/coffee-overlay.png" --cutout "$OUT/coffee-cutout.png" -f --json) ||
    die "flowcut segment failed on the sample photo"
num() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" <<<"$json"; }
w=$(num width) h=$(num height) fg=$(num foreground_pixels)
if [ -z "$w" ] || [ -z "$h" ] || [ -z "$fg" ]; then die "unexpected output of flowcut segment --json: $json"; fi
fraction=$(awk -v f="$fg" -v n="$((w * h))" 'BEGIN { printf "%.1f%%", 100 * f / n }')

# 6. what was made and where
elapsed=$((SECONDS - START))
echo
echo "flowcut is installed in $PREFIX ($ENGINES); this took $((elapsed / 60)) min $((elapsed % 60)) s:"
echo "  command:        $FLOWCUT"
echo "  library:        $LIBDIR/libflowcut.so.0 (headers, pkg-config and CMake files beside it)"
if [ -n "$PYDIR" ]; then
    echo "  Python module:  $PYDIR/flowcut (for $PY)"
fi
echo
echo "Segmented the sample photo examples/coffee.png with the seeds examples/coffee-seeds.png:"
echo "  mask:           $OUT/coffee-mask.png (${w}x${h} pixels, white = foreground)"
echo "  foreground:     $fg of $((w * h)) pixels ($fraction)"
echo "  overlay:        $OUT/coffee-overlay.png (background dimmed, boundary drawn)"
echo "  cut-out:        $OUT/coffee-cutout.png (background transparent)"

on_path=$(command -v flowcut || true)
if [ "$on_path" != "$FLOWCUT" ]; then
    echo
    if [ "$PREFIX" = "$HOME/.local" ]; then
        echo "$PREFIX/bin is not on your PATH yet: Debian's ~/.profile adds it at your next login; for this shell:"
    else
        echo "$PREFIX/bin is not on your PATH; add it:"
    fi
    echo "  export PATH=\"$PREFIX/bin:\$PATH\""
fi
if [ "$(id -u)" -ne 0 ] && [ -n "$LIBDIR" ]; then
    echo "Programs you link against this libflowcut find it with -Wl,-rpath,$LIBDIR or LD_LIBRARY_PATH=$LIBDIR"
    echo "(the Python module finds it by itself)."
fi
echo
echo "Next, try (from $ROOT):"
echo "  flowcut segment examples/coffee.png --seeds examples/coffee-seeds.png -o mask.png --overlay overlay.png --lambda 150"
echo "      your own photo: seeds are a PNG of its size, red strokes = foreground, blue = background"
echo "  flowcut segment examples/coffee.png --clicks 300,150 -o click.png"
echo "      one click on the object is enough (-X,Y adds a background click; --box X,Y,W,H a box)"
echo "  flowcut ui examples/coffee.png"
echo "      click or paint in the browser at the address it prints (Ctrl-C stops it)"
echo "  $PY -c 'import flowcut; m = flowcut.segment_files(\"examples/coffee.png\", \"examples/coffee-seeds.png\"); print(m.shape, (m > 0).mean())'"
echo "      the same cut from Python: a numpy mask, then its size and foreground fraction"
echo "  flowcut --help"
echo "(build log: $LOG)"
