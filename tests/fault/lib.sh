# Helpers of the fault-injection tests.
FAILS=0
PASSES=0
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

pass() { PASSES=$((PASSES + 1)); }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

finish() {
    echo "$PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}

# 0 when the binary is built with AddressSanitizer, which replaces malloc
# itself and does not combine with an LD_PRELOAD shim
is_asan() {
    ldd "$1" 2>/dev/null | grep -q libasan && return 0
    { nm "$1" 2>/dev/null; nm -D "$1" 2>/dev/null; } | grep -q __asan_init
}

# the hidden temporary files of flowcut's saves below a folder
temps_in() { find "$@" -name '.*.tmp-*' 2>/dev/null; }
