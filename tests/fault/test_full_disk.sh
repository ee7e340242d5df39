#!/usr/bin/env bash
# A full disk: every failed output is reported with its file and the reason,
# the exit status is 1, every file under a final name is a complete PNG (the
# clean run's, byte for byte) and no temporary file is left. Through the
# LD_PRELOAD shim (write() fails with ENOSPC past N bytes, or fsync does),
# which needs no root; when root can mount, also on a 200 KB tmpfs. And the
# order that makes an output durable: fsync, rename, fsync of the folder.
set -u
FLOWCUT=${1:?usage: test_full_disk.sh FLOWCUT [SHIM]}
SHIM=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
EX=$HERE/../../examples
PNG="python3 $HERE/../cli/png_tool.py"
. "$HERE/lib.sh"

IN=$TMPD/in
SEEDS=$TMPD/seeds
mkdir -p "$IN" "$SEEDS"
for i in 1 2 3; do
    cp "$EX/coffee.png" "$IN/full$i.png"
    cp "$EX/coffee-seeds.png" "$SEEDS/full$i.png"
    cp "$DATA/tiny.jpg" "$IN/tiny$i.jpg"
    $PNG halves 16 8 "$SEEDS/tiny$i.png"
done
batch() { # OUT OVERLAYS [ENV...]
    local out=$1 ov=$2
    shift 2
    env "$@" "$FLOWCUT" batch "$IN" -o "$out" --overlay-dir "$ov" --seeds-dir "$SEEDS" --engine cpu --jobs 2 -q
}
batch "$TMPD/ref" "$TMPD/refov" 2>/dev/null && pass || fail "clean run"

# check DESCRIPTION EXIT OUT OVERLAYS: the outcome of a run on a full disk
check() {
    local what=$1 code=$2 out=$3 ov=$4 f missing=0
    [ "$code" -eq 1 ] && pass || fail "$what: exit $code, expected 1"
    for f in $(cd "$TMPD/ref" && ls); do
        if [ -e "$out/$f" ]; then cmp -s "$out/$f" "$TMPD/ref/$f" || fail "$what: mask $f is not complete"
        else missing=$((missing + 1)); fi
        if [ -e "$ov/$f" ]; then cmp -s "$ov/$f" "$TMPD/refov/$f" || fail "$what: overlay $f is not complete"
        else missing=$((missing + 1)); fi
    done
    [ $missing -gt 0 ] && pass || fail "$what: nothing failed"
    # each failure: one line naming the file and the reason
    local reported
    reported=$(grep -cE "^flowcut: ($out|$ov)/[a-z0-9]+\.png: cannot (write|create): No space left on device$" "$TMPD/err")
    [ "$reported" -ge 1 ] && pass || fail "$what: no failure names its file and the reason: $(head -c 300 "$TMPD/err")"
    grep -vE "^flowcut: ($out|$ov)/[a-z0-9]+\.png: cannot (write|create): No space left on device$|^flowcut batch: " \
        "$TMPD/err" >"$TMPD/other"
    [ ! -s "$TMPD/other" ] && pass || fail "$what: other messages: $(head -c 300 "$TMPD/other")"
    [ -z "$(temps_in "$out" "$ov")" ] && pass || fail "$what: temporary files left: $(temps_in "$out" "$ov")"
}

if [ -n "$SHIM" ] && is_asan "$FLOWCUT"; then
    echo "skipped the shim's part: $FLOWCUT is an AddressSanitizer build (no LD_PRELOAD shim with it)"
    SHIM=
fi
ran=0
if [ -n "$SHIM" ]; then
    ran=1
    for limit in 0 300 3000 30000 300000; do
        rm -rf "$TMPD/out" "$TMPD/ov"
        batch "$TMPD/out" "$TMPD/ov" LD_PRELOAD="$SHIM" FAULT_WRITE_LIMIT=$limit 2>"$TMPD/err"
        check "writes fail past $limit bytes" $? "$TMPD/out" "$TMPD/ov"
    done
    # the data reached the disk only if fsync says so
    rm -rf "$TMPD/out" "$TMPD/ov"
    batch "$TMPD/out" "$TMPD/ov" LD_PRELOAD="$SHIM" FAULT_FSYNC_FAIL=1 2>"$TMPD/err"
    check "fsync fails" $? "$TMPD/out" "$TMPD/ov"
    [ -z "$(find "$TMPD/out" "$TMPD/ov" -type f 2>/dev/null)" ] && pass || fail "fsync fails: outputs counted as written"
    # one image
    env LD_PRELOAD="$SHIM" FAULT_WRITE_LIMIT=20 "$FLOWCUT" segment "$EX/coffee.png" --seeds "$EX/coffee-seeds.png" \
        -o "$TMPD/m.png" --engine cpu 2>"$TMPD/err"
    code=$?
    [ $code -eq 1 ] && pass || fail "segment on a full disk: exit $code"
    [ "$(cat "$TMPD/err")" = "flowcut: $TMPD/m.png: cannot write: No space left on device" ] && pass ||
        fail "segment on a full disk: $(cat "$TMPD/err")"
    [ ! -e "$TMPD/m.png" ] && [ -z "$(temps_in "$TMPD")" ] && pass || fail "segment on a full disk left a file"
fi

# a real full file system: a small tmpfs
if [ "$(id -u)" -eq 0 ] && mkdir -p "$TMPD/small" && mount -t tmpfs -o size=200k tmpfs "$TMPD/small" 2>/dev/null; then
    ran=1
    trap 'umount "$TMPD/small" 2>/dev/null; rm -rf "$TMPD"' EXIT
    batch "$TMPD/small/out" "$TMPD/small/ov" 2>"$TMPD/err"
    check "200 KB tmpfs" $? "$TMPD/small/out" "$TMPD/small/ov"
    "$FLOWCUT" generate grid --width 300 --height 300 -o "$TMPD/small/grid.max" 2>"$TMPD/err"
    code=$?
    [ $code -eq 1 ] && pass || fail "generate on a full tmpfs: exit $code"
    [ "$(cat "$TMPD/err")" = "flowcut: $TMPD/small/grid.max: cannot write: No space left on device" ] && pass ||
        fail "generate on a full tmpfs: $(cat "$TMPD/err")"
    [ ! -e "$TMPD/small/grid.max" ] && [ -z "$(temps_in "$TMPD/small")" ] && pass || fail "generate left a file"
    umount "$TMPD/small"
else
    echo "skipped the tmpfs part: needs root and mount"
fi

# durable: the file's data synced before its rename, the folder's entry after
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
    ran=1
    strace -f -e trace=fsync,rename,renameat,renameat2 -o "$TMPD/trace" \
        "$FLOWCUT" segment "$DATA/tiny.jpg" --seeds "$SEEDS/tiny1.png" -o "$TMPD/d.png" -q 2>/dev/null
    sed -n 's/^[0-9]* *\(fsync\|rename[a-z0-9]*\)(.*/\1/p' "$TMPD/trace" | tr '\n' ' ' >"$TMPD/order"
    [ "$(cat "$TMPD/order")" = "fsync rename fsync " ] && pass || fail "save order: $(cat "$TMPD/order"), expected fsync rename fsync"
else
    echo "skipped the durability order: no strace"
fi
if [ $ran -eq 0 ]; then
    echo "skipped: no shim (AddressSanitizer build), no mount, no strace"
    exit 77
fi
finish
