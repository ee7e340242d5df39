#!/usr/bin/env bash
# kill -9 in the middle of `flowcut batch`, at random points, then a rerun to
# completion: after every kill each output under its final name is complete
# (byte-equal to a clean run's); the rerun removes the killed runs'
# temporary files and ends with exactly the clean run's outputs, exit 0.
# FAULT_SEED=N replays the random points of a failed run.
set -u
FLOWCUT=${1:?usage: test_batch_kill.sh FLOWCUT}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
EX=$HERE/../../examples
PNG="python3 $HERE/../cli/png_tool.py"
. "$HERE/lib.sh"

SEED=${FAULT_SEED:-$$}
RANDOM=$SEED
echo "random points from FAULT_SEED=$SEED"

# 12 photos: the sample, a crop of it, the tiny JPEG; half in a sub-folder
IN=$TMPD/in
SEEDS=$TMPD/seeds
mkdir -p "$IN/sub" "$SEEDS/sub"
$PNG crop "$EX/coffee.png" 0 0 320 240 "$TMPD/crop.png"
$PNG crop "$EX/coffee-seeds.png" 0 0 320 240 "$TMPD/crop-seeds.png"
$PNG halves 16 8 "$TMPD/tiny-seeds.png"
for i in 1 2; do
    for d in "" sub/; do
        cp "$EX/coffee.png" "$IN/${d}full$i.png"
        cp "$EX/coffee-seeds.png" "$SEEDS/${d}full$i.png"
        cp "$TMPD/crop.png" "$IN/${d}crop$i.png"
        cp "$TMPD/crop-seeds.png" "$SEEDS/${d}crop$i.png"
        cp "$DATA/tiny.jpg" "$IN/${d}tiny$i.jpg"
        cp "$TMPD/tiny-seeds.png" "$SEEDS/${d}tiny$i.png"
    done
done
batch() { # OUT OVERLAYS; exec: a background call's $! is flowcut's own pid
    exec "$FLOWCUT" batch "$IN" -r -o "$1" --overlay-dir "$2" --seeds-dir "$SEEDS" --engine cpu --jobs 2 -q
}

t0=$(date +%s%N)
(batch "$TMPD/ref" "$TMPD/refov") 2>"$TMPD/err" && pass || fail "clean run: $(cat "$TMPD/err")"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$(find "$TMPD/ref" "$TMPD/refov" -name '*.png' | wc -l)" -eq 24 ] && pass || fail "clean run: 24 outputs"

# the outputs under final names are the clean run's, byte for byte
complete() { # DESCRIPTION
    local f bad=0
    for f in $(cd "$TMPD/out" && find . -name '[!.]*.png'); do
        cmp -s "$TMPD/out/$f" "$TMPD/ref/$f" || { fail "$1: mask $f is not complete"; bad=1; }
    done
    for f in $(cd "$TMPD/ov" && find . -name '[!.]*.png' 2>/dev/null); do
        cmp -s "$TMPD/ov/$f" "$TMPD/refov/$f" || { fail "$1: overlay $f is not complete"; bad=1; }
    done
    [ $bad -eq 0 ] && pass
}

mkdir -p "$TMPD/out" "$TMPD/ov"
left=0
done_now=0
for k in 1 2 3 4 5; do
    # a random point of what is left to do (about ms for all 24 outputs)
    wait_ms=$((RANDOM % (ms * (24 - done_now) / 24 + 20)))
    batch "$TMPD/out" "$TMPD/ov" 2>/dev/null &
    pid=$!
    sleep "$((wait_ms / 1000)).$(printf %03d $((wait_ms % 1000)))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    n=$(temps_in "$TMPD/out" "$TMPD/ov" | wc -l)
    left=$((left + n))
    done_now=$(find "$TMPD/out" "$TMPD/ov" -name '[!.]*.png' | wc -l)
    echo "kill $k after $wait_ms ms of about $ms: $done_now outputs, $n temporary files"
    complete "after kill $k"
done
# a killed run's temporary file, for certain (the kills above may all miss a write)
: >"$TMPD/out/sub/.full1.png.tmp-Kil1ed"
touch -d '-1 minute' "$TMPD/out/sub/.full1.png.tmp-Kil1ed"
echo "$left temporary files left by the kills, and one made"

(batch "$TMPD/out" "$TMPD/ov") 2>"$TMPD/err"
code=$?
[ $code -eq 0 ] && pass || fail "rerun: exit $code: $(head -c 300 "$TMPD/err")"
diff -r "$TMPD/ref" "$TMPD/out" >"$TMPD/diff" && pass || fail "masks after the rerun: $(head -5 "$TMPD/diff")"
diff -r "$TMPD/refov" "$TMPD/ov" >"$TMPD/diff" && pass || fail "overlays after the rerun: $(head -5 "$TMPD/diff")"
[ -z "$(temps_in "$TMPD/out" "$TMPD/ov")" ] && pass || fail "temporary files after the rerun: $(temps_in "$TMPD/out" "$TMPD/ov")"
finish
