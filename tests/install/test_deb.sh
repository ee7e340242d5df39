#!/usr/bin/env bash
# The Debian package as a user gets it, without touching the system: cpack
# -G DEB into a temporary folder, check the control fields (name, version,
# Depends, Recommends), dpkg -x into a temporary root, then run the
# extracted flowcut (LD_LIBRARY_PATH on the extracted lib folder) and import
# the extracted Python module; both masks must equal the build tree's.
#   tests/install/test_deb.sh BUILD_DIR PYTHON
# Exits 77 (skipped) where dpkg-deb is missing (not Debian).
set -euo pipefail
BUILD=$(cd "$1" && pwd)
PY=${2:-python3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "skipped: no dpkg-deb"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the package is written under $T, not into the build folder
cpack -G DEB -B "$T/pkg" --config "$BUILD/CPackConfig.cmake" >"$T/cpack.log" 2>&1 ||
    { tail -n 30 "$T/cpack.log"; fail "cpack -G DEB"; }
DEB=$(find "$T/pkg" -maxdepth 1 -name 'flowcut_*.deb' | head -n1)
[ -n "$DEB" ] || { cat "$T/cpack.log"; fail "no flowcut_*.deb made"; }
field() { dpkg-deb -f "$DEB" "$1"; }
version=$(sed -n 's/^project(flowcut VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
[ "$(field Package)" = flowcut ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', the project's is $version"
depends=$(field Depends)
for d in libc6 libpng16-16 libjpeg62-turbo; do
    grep -qE "(^|, )$d( |,|$)" <<<"$depends" || fail "Depends lacks $d: $depends"
done
# flowcut ui (compiled in where the binary names the library it loads)
if grep -q "libmicrohttpd.so.12" "$BUILD/segment/flowcut"; then
    grep -qE "(^|, )libmicrohttpd12( |,|$)" <<<"$depends" || fail "UI built but Depends lacks libmicrohttpd12"
fi
grep -q python3-numpy <<<"$(field Recommends) $depends" || fail "neither Recommends nor Depends names python3-numpy"
echo "$(basename "$DEB"): Depends: $depends; Recommends: $(field Recommends)"

dpkg -x "$DEB" "$T/root"
R=$T/root
for f in usr/bin/flowcut usr/include/flowcut/segment.h; do [ -e "$R/$f" ] || fail "$f not in the package"; done
SO=$(find "$R" -name libflowcut.so.0 | head -n1)
[ -n "$SO" ] || fail "libflowcut.so.0 not in the package"
LIBDIR=$(dirname "$SO")
for f in libflowcut.a pkgconfig/flowcut.pc pkgconfig/flowcut-static.pc cmake/flowcut/flowcutConfig.cmake; do
    [ -e "$LIBDIR/$f" ] || fail "${LIBDIR#"$R"}/$f not in the package"
done
libdir_pc=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --variable=libdir flowcut 2>/dev/null || echo "$LIBDIR")
[ "$(realpath "$libdir_pc")" = "$(realpath "$LIBDIR")" ] || fail "flowcut.pc's libdir $libdir_pc is not $LIBDIR"

PHOTO=$ROOT/examples/coffee.png SEEDS=$ROOT/examples/coffee-seeds.png
"$BUILD/segment/flowcut" segment "$PHOTO" --seeds "$SEEDS" -o "$T/build.png" --lambda 120 --engine cpu -q
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=$(ldd "$R/usr/bin/flowcut")
grep -q "not found" <<<"$deps" && fail "the packaged flowcut misses libraries: $deps"
"$R/usr/bin/flowcut" segment "$PHOTO" --seeds "$SEEDS" -o "$T/deb.png" --lambda 120 --engine cpu -q ||
    fail "the packaged flowcut segment failed"
cmp -s "$T/build.png" "$T/deb.png" || fail "the packaged flowcut's mask differs from the build tree's"
echo "packaged flowcut: mask equals the build tree's"

INIT=$(find "$R" -name __init__.py -path '*/flowcut/*' | head -n1)
[ -n "$INIT" ] || fail "Python module not in the package"
PYDIR=$(dirname "$(dirname "$INIT")")
# the folder must be one the target's python3 searches once installed
if [ -x /usr/bin/python3 ]; then
    /usr/bin/python3 -c 'import site, sys; sys.exit(sys.argv[1] not in site.getsitepackages())' "${PYDIR#"$R"}" ||
        fail "${PYDIR#"$R"} is not on /usr/bin/python3's path"
fi
if ! "$PY" -c "import numpy" 2>/dev/null; then
    echo "python: skipped: no python3 with numpy"
    echo "deb test: passed"
    exit 0
fi
(cd "$T" && env -u FLOWCUT_LIBRARY PYTHONPATH="$PYDIR" "$PY" - "$R" "$T/build.png" "$PHOTO" "$SEEDS" "$ROOT" <<'PYEOF') ||
import os, sys
root, build_mask, photo, seeds, src = sys.argv[1:]
import flowcut, flowcut._lib as L
assert os.path.realpath(flowcut.__file__).startswith(os.path.realpath(root)), flowcut.__file__
assert os.path.realpath(L.lib._name).startswith(os.path.realpath(root)), L.lib._name
m = flowcut.segment_files(photo, seeds, lambda_=120, engine="cpu")
sys.path.insert(0, os.path.join(src, "tests", "cli"))
import png_tool
w, h, ch, px = png_tool.read(build_mask)
assert m.tobytes() == px, "the packaged module's mask differs from the build tree's"
print("packaged Python module loads", os.path.relpath(L.lib._name, root), "- mask equals the build tree's")
PYEOF
    fail "packaged Python module"
echo "deb test: passed"
