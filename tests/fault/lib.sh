# Helpers of the fault-injection tests: the CLI tests' (pass, fail, finish,
# expect_exit, a temporary folder), and the two below.
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"

# 0 when the binary is built with AddressSanitizer, which replaces malloc
# itself and does not combine with an LD_PRELOAD shim
is_asan() {
    ldd "$1" 2>/dev/null | grep -q libasan && return 0
    { nm "$1" 2>/dev/null; nm -D "$1" 2>/dev/null; } | grep -q __asan_init
}

# the hidden temporary files of flowcut's saves below a folder
temps_in() { find "$@" -name '.*.tmp-*' 2>/dev/null; }
