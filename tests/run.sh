#!/usr/bin/env bash
# Installs what is missing (Debian, as root), builds flowcut, runs every
# test; then repeats the CPU tests under AddressSanitizer and UBSan, and
# runs each libFuzzer harness briefly (tests/fuzz/run.sh; longer runs by
# hand). Exit status: non-zero when any of them failed.
# FLOWCUT_SKIP_SANITIZE=1 skips the sanitizer build, FLOWCUT_FUZZ_SECONDS
# sets each harness's time (default 10; 0 skips fuzzing).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

PACKAGES="cmake make gcc libc6-dev libpng-dev libjpeg62-turbo-dev libcmocka-dev libstb-dev python3 python3-numpy pkgconf binutils libmicrohttpd-dev chromium chromium-driver clang libclang-rt-14-dev"
missing=""
for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "tests/run.sh: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        # a fresh machine's unattended upgrades may hold the lock: wait for it
        apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
        apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing >/dev/null
    else
        echo "tests/run.sh: missing Debian packages:$missing (run as root to install them)" >&2
        exit 1
    fi
fi

# CUDA is optional; when the toolkit is there, CI compiles every .cu file.
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [ -x "$d/nvcc" ] && { PATH="$d:$PATH"; break; }
done
JOBS=$(nproc 2>/dev/null || echo 2)

BUILD=${FLOWCUT_BUILD_DIR:-build-tests}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release ${FLOWCUT_CMAKE_ARGS:-} >"$BUILD.configure.log" 2>&1 ||
    { cat "$BUILD.configure.log"; exit 1; }
grep 'flowcut: CUDA engine' "$BUILD.configure.log" || true
cmake --build "$BUILD" -j "$JOBS"
status=0
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS") || status=$?

if [ "${FLOWCUT_SKIP_SANITIZE:-0}" != 1 ] && [ $status -eq 0 ]; then
    echo "tests/run.sh: sanitizer build (address, undefined)"
    SAN=${BUILD}-sanitize
    cmake -S . -B "$SAN" -DCMAKE_BUILD_TYPE=Debug -DFLOWCUT_CUDA=OFF -DFLOWCUT_SANITIZE=ON \
        >"$SAN.configure.log" 2>&1 || { cat "$SAN.configure.log"; exit 1; }
    cmake --build "$SAN" -j "$JOBS"
    (cd "$SAN" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
        ctest --output-on-failure -j "$JOBS") || status=$?
fi

FUZZ_SECONDS=${FLOWCUT_FUZZ_SECONDS:-10}
if [ "$FUZZ_SECONDS" != 0 ] && [ $status -eq 0 ]; then
    echo "tests/run.sh: fuzz smoke run, ${FUZZ_SECONDS}s a harness"
    frc=0
    case $BUILD in /*) fuzz_dir=$BUILD-fuzz ;; *) fuzz_dir=$ROOT/$BUILD-fuzz ;; esac
    FUZZ_SEED=${FUZZ_SEED:-1} FLOWCUT_FUZZ_BUILD="$fuzz_dir" bash tests/fuzz/run.sh "$FUZZ_SECONDS" || frc=$?
    [ $frc -eq 77 ] || [ $frc -eq 0 ] || status=$frc
fi
exit $status
