#!/usr/bin/env bash
# cmake --install into a temporary prefix, then use only the installed
# tree: the C example built with pkg-config (shared with a run-time path and
# with LD_LIBRARY_PATH; libflowcut.a through flowcut-static.pc; fully static
# with cc -static and pkg-config --static) and with
# find_package(flowcut) (flowcut::flowcut and flowcut::flowcut_static); its
# mask must equal the installed CLI's. Checks the SONAME, that the shared
# library exports only the public prefixes, and that the installed Python
# module loads the installed library, and that the pip-installed module
# (segment/python) finds it through the dynamic linker.
#   tests/install/test_install.sh BUILD_DIR PYTHON
set -euo pipefail
BUILD=$(cd "$1" && pwd)
PY=${2:-python3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$T/p" >"$T/install.log" || { cat "$T/install.log"; fail "cmake --install"; }
P=$T/p
LIBDIR=$(dirname "$(find "$P" -name 'libflowcut.so.0' | head -n1)")
[ -n "$LIBDIR" ] || fail "no libflowcut.so.0 installed"
for f in bin/flowcut include/flowcut/segment.h include/flowcut/maxflow.h include/flowcut/graphbuild.h \
         include/flowcut/images.h; do
    [ -e "$P/$f" ] || fail "$f not installed"
done
for f in libflowcut.so libflowcut.a pkgconfig/flowcut.pc cmake/flowcut/flowcutConfig.cmake \
         cmake/flowcut/flowcutConfigVersion.cmake cmake/flowcut/flowcutTargets.cmake; do
    [ -e "$LIBDIR/$f" ] || fail "$LIBDIR/$f not installed"
done
echo "installed: $(cd "$P" && find . -type f | wc -l) files"

# SONAME and exports
soname=$(readelf -d "$LIBDIR/libflowcut.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libflowcut.so.0 ] || fail "SONAME is '$soname'"
exports=$(nm -D --defined-only "$LIBDIR/libflowcut.so" | awk '{print $3}')
others=$(grep -vE '^(mf|gb|img|seg)_' <<<"$exports" || true)
[ -z "$others" ] || fail "exported symbols outside the public prefixes: $others"
for internal in mf_fail mf_pr_init mf_residual_init seg_fail mf_bk; do
    grep -qx "$internal" <<<"$exports" && fail "internal $internal is exported"
done
grep -qx seg_segment <<<"$exports" || fail "seg_segment is not exported"
echo "libflowcut.so: SONAME $soname, $(wc -l <<<"$exports") public symbols"

# the manual page: installed, and every command of `flowcut --help` in it
MAN=$(find "$P/share/man/man1" -name 'flowcut.1*' 2>/dev/null | head -n1)
[ -n "$MAN" ] || fail "no manual page under $P/share/man/man1"
page=$( { [ "${MAN%.gz}" != "$MAN" ] && gzip -dc "$MAN"; } || cat "$MAN")
for cmd in $("$P/bin/flowcut" --help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
    grep -qx "\.B $cmd" <<<"$page" || fail "the manual page has no section for '$cmd'"
done
if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z <<<"$page" 2>&1)
    [ -z "$warn" ] || fail "the manual page: groff warns: $warn"
fi
echo "manual page: ${MAN#"$P/"}"

PHOTO=$ROOT/examples/coffee.png SEEDS=$ROOT/examples/coffee-seeds.png
"$P/bin/flowcut" segment "$PHOTO" --seeds "$SEEDS" -o "$T/cli.png" --lambda 120 --engine cpu -q
check() { # name binary
    "$2" "$PHOTO" "$SEEDS" "$T/$1.png" --lambda 120 --engine cpu >"$T/$1.out" || fail "$1 failed"
    cmp -s "$T/cli.png" "$T/$1.png" || fail "$1: mask differs from the CLI's"
    grep -q "graph: flow 8, node 0 on the sink side, node 1 on the source side" "$T/$1.out" ||
        fail "$1: $(cat "$T/$1.out")"
    echo "$1: $(head -n1 "$T/$1.out")"
}
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
if ! command -v pkg-config >/dev/null; then
    echo "pkg-config: skipped: pkg-config is not installed (Debian: pkgconf)"
else
PC_LIBDIR=$(pkg-config --variable=libdir flowcut)
[ "$(realpath "$PC_LIBDIR")" = "$(realpath "$LIBDIR")" ] || fail "flowcut.pc's libdir $PC_LIBDIR is not $LIBDIR"
# shared, outside the dynamic linker's folders: the run-time path is linked in
# (-rpath), so the program runs without LD_LIBRARY_PATH
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$ROOT/examples/c/segment_example.c" $(pkg-config --cflags --libs flowcut) \
    -Wl,-rpath,"$PC_LIBDIR" -o "$T/ex_pc"
deps=$(env -u LD_LIBRARY_PATH ldd "$T/ex_pc") # (grep -q on a pipe would SIGPIPE ldd under pipefail)
grep -q "libflowcut.so.0 => $PC_LIBDIR" <<<"$deps" || fail "ex_pc does not find the installed libflowcut.so.0: $deps"
(unset LD_LIBRARY_PATH; check pkg-config-rpath "$T/ex_pc")
# without the run-time path, LD_LIBRARY_PATH names the folder
# shellcheck disable=SC2046
cc -std=c11 "$ROOT/examples/c/segment_example.c" $(pkg-config --cflags --libs flowcut) -o "$T/ex_pc_env"
LD_LIBRARY_PATH=$PC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} check pkg-config-LD_LIBRARY_PATH "$T/ex_pc_env"
static_libs=$(pkg-config --static --libs flowcut)
for l in -lflowcut -lpng16 -ljpeg -lstb -lm -lpthread; do
    grep -qE -- "(^| )$l( |$)" <<<"$static_libs" || fail "pkg-config --static --libs flowcut lacks $l: $static_libs"
done
static_libs=$(pkg-config --libs flowcut-static)
grep -qF -- "$PC_LIBDIR/libflowcut.a" <<<"$static_libs" || fail "flowcut-static.pc does not name libflowcut.a: $static_libs"
# libflowcut.a, system libraries shared: flowcut-static.pc
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$ROOT/examples/c/segment_example.c" $(pkg-config --cflags --libs flowcut-static) \
    -o "$T/ex_pc_static"
deps=$(ldd "$T/ex_pc_static" || true)
grep -q libflowcut <<<"$deps" && fail "ex_pc_static needs libflowcut.so"
check pkg-config-static "$T/ex_pc_static"
# fully static (cc -static): pkg-config --static; needs the .a of every
# dependency, which Debian's -dev packages ship
# shellcheck disable=SC2046
if cc -std=c11 -static "$ROOT/examples/c/segment_example.c" $(pkg-config --cflags --static --libs flowcut) \
    -o "$T/ex_pc_allstatic" 2>"$T/allstatic.log"; then
    [ -z "$(readelf -d "$T/ex_pc_allstatic" | grep NEEDED || true)" ] || fail "cc -static made a dynamic program"
    check pkg-config-fully-static "$T/ex_pc_allstatic"
else
    echo "pkg-config-fully-static: skipped: cc -static failed: $(tail -n 3 "$T/allstatic.log")"
fi
fi

cmake -S "$ROOT/examples/c" -B "$T/cm" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >"$T/cm.log" 2>&1 ||
    { cat "$T/cm.log"; fail "find_package(flowcut)"; }
cmake --build "$T/cm" >"$T/cmb.log" 2>&1 || { tail -n 30 "$T/cmb.log"; fail "building against flowcut::flowcut"; }
check find_package "$T/cm/segment_example"
check find_package-static "$T/cm/segment_example_static"

# the Python module from the installed tree, loading the installed library
if ! "$PY" -c "import numpy" 2>/dev/null; then
    echo "python: skipped: no python3 with numpy"
    echo "install test: passed"
    exit 0
fi
PYDIR=$(dirname "$(find "$P" -name __init__.py -path '*flowcut*' | head -n1)")
[ -n "$PYDIR" ] || fail "Python module not installed"
(cd "$T" && env -u FLOWCUT_LIBRARY PYTHONPATH="$(dirname "$PYDIR")" "$PY" - "$LIBDIR" "$T/cli.png" "$PHOTO" "$SEEDS" <<'PYEOF') || fail "installed Python module"
import os, sys
import flowcut, flowcut._lib as L
libdir, cli_mask, photo, seeds = sys.argv[1:]
assert os.path.realpath(L.lib._name).startswith(os.path.realpath(libdir)), L.lib._name
m = flowcut.segment_files(photo, seeds, lambda_=120, engine="cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(photo)), "..", "tests", "cli"))
import png_tool
w, h, ch, px = png_tool.read(cli_mask)
assert m.tobytes() == px, "Python mask differs from the CLI's"
print("python: installed module", flowcut.__file__, "loads", L.lib._name, "- mask equals the CLI's")
PYEOF

# pip install segment/python: the module without _where.py finds the library
# through the dynamic linker (here LD_LIBRARY_PATH), and says what to install
# when it is nowhere
if ! "$PY" -m pip --version >/dev/null 2>&1; then
    echo "pip: skipped: no pip for $PY (Debian: python3-pip)"
else
    mkdir -p "$T/pysrc" && cp -r "$ROOT/segment/python/pyproject.toml" "$ROOT/segment/python/flowcut" "$T/pysrc/"
    rm -rf "$T/pysrc/flowcut/__pycache__"
    "$PY" -m pip install -q --no-build-isolation --no-index --no-deps --target "$T/pip" "$T/pysrc" >"$T/pip.log" 2>&1 ||
        { cat "$T/pip.log"; fail "pip install segment/python"; }
    [ ! -e "$T/pip/flowcut/_where.py" ] || fail "the pip-installed module has a _where.py"
    (cd "$T" && env -u FLOWCUT_LIBRARY PYTHONPATH="$T/pip" LD_LIBRARY_PATH="$LIBDIR" "$PY" -c '
import os, sys, flowcut, flowcut._lib as L
mapped = [l.split()[-1] for l in open("/proc/self/maps") if "libflowcut" in l]
assert mapped and all(m.startswith(os.path.realpath(sys.argv[1]) + "/") for m in mapped), mapped
print("pip: module", os.path.relpath(flowcut.__file__, sys.argv[2]), "loads", mapped[0], "through the dynamic linker")
' "$LIBDIR" "$T") || fail "pip-installed module with LD_LIBRARY_PATH"
    system_lib=$(ldconfig -p 2>/dev/null | grep -o 'libflowcut.so.0 .*' || true)
    for f in /usr/local/lib/libflowcut.so.0 /usr/local/lib64/libflowcut.so.0 /usr/lib/libflowcut.so.0 \
             /usr/lib64/libflowcut.so.0 /usr/lib/*/libflowcut.so.0 ~/.local/lib/libflowcut.so.0; do
        [ -e "$f" ] && system_lib=$f
    done
    if [ -n "$system_lib" ]; then
        echo "pip: no-library message: skipped: a libflowcut is installed on this machine"
    else
        msg=$(cd "$T" && env -u FLOWCUT_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$T/pip" "$PY" -c 'import flowcut' 2>&1) &&
            fail "the pip-installed module imported without a library"
        if ! grep -q "ImportError: flowcut: cannot load the C library libflowcut.so.0" <<<"$msg" ||
            ! grep -q "quickstart.sh" <<<"$msg"; then
            fail "unclear message without the library: $msg"
        fi
        echo "pip: without the library: $(tail -n1 <<<"$msg" | cut -c1-90)..."
    fi
fi
echo "install test: passed"
