#!/usr/bin/env bash
# CLI tests of `flowcut segment` and `flowcut graph`: the bundled sample
# against its expected mask, every seed format, graph + maxflow agreeing
# with segment, CPU and GPU masks identical, clean failures.
set -u
FLOWCUT=${1:?usage: test_segment_cli.sh FLOWCUT}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
EX=$HERE/../../examples
PNG="python3 $HERE/png_tool.py"
. "$HERE/lib.sh"

IMG=$EX/coffee.png
SEEDS=$EX/coffee-seeds.png
expect_exit 0 "segment sample" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/mask.png" \
    --overlay "$TMPD/overlay.png" --cutout "$TMPD/cut.png" --engine cpu
[ "$($PNG digest "$TMPD/mask.png")" = "$($PNG digest "$DATA/coffee-mask.png")" ] && pass || fail "mask differs from tests/data/coffee-mask.png"
[ "$($PNG digest "$TMPD/overlay.png" | cut -d' ' -f1-3)" = "600 400 3" ] && pass || fail "overlay size"
[ "$($PNG digest "$TMPD/cut.png" | cut -d' ' -f1-3)" = "600 400 4" ] && pass || fail "cutout is RGBA"

# the same seeds as a trimap and as RGB scribbles give the same mask
$PNG recode "$SEEDS" trimap "$TMPD/trimap.png"
$PNG recode "$SEEDS" rgb "$TMPD/scribbles.png"
expect_exit 0 "trimap" -- "$FLOWCUT" segment "$IMG" --trimap "$TMPD/trimap.png" -o "$TMPD/m2.png"
[ "$($PNG digest "$TMPD/m2.png")" = "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "trimap mask differs"
expect_exit 0 "scribbles" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/scribbles.png" --scribble-colors=ff0000,0000ff -o "$TMPD/m3.png"
[ "$($PNG digest "$TMPD/m3.png")" = "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "scribble mask differs"
# a label image saved as RGB (grey throughout) is still a label image, not scribbles
$PNG recode "$SEEDS" grey-rgb "$TMPD/labels-rgb.png"
expect_exit 0 "labels saved as RGB" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/labels-rgb.png" -o "$TMPD/m3g.png"
[ "$($PNG digest "$TMPD/m3g.png")" = "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "RGB-saved label mask differs"

# json and timing
expect_exit 0 "json" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/m4.png" --json --time --engine cpu
expect_stdout '"status": "ok"' "json status"
expect_stderr '^time: decode .* model .* build .* solve .* encode' "time line"
FLOW=$(sed -n 's/.*"flow": \([0-9]*\).*/\1/p' "$TMPD/out")

# graph + maxflow: same value, and the cut is the mask
expect_exit 0 "graph" -- "$FLOWCUT" graph "$IMG" --seeds "$SEEDS" -o "$TMPD/net.max"
expect_exit 0 "maxflow of graph" -- "$FLOWCUT" maxflow --verify --cut "$TMPD/cut.txt" "$TMPD/net.max"
expect_stdout "^s $FLOW\$" "graph value equals segment's"
awk '$1 <= 240000' "$TMPD/cut.txt" >"$TMPD/cut-pixels.txt"
$PNG foreground "$TMPD/mask.png" >"$TMPD/mask-pixels.txt"
expect_same "$TMPD/cut-pixels.txt" "$TMPD/mask-pixels.txt" "graph cut equals segment mask"

# both CPU algorithms give the default mask; the blend is an option
for alg in push-relabel bk auto; do
    expect_exit 0 "cpu algorithm $alg" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/alg-$alg.png" \
        --engine cpu --cpu-algorithm $alg
    [ "$($PNG digest "$TMPD/alg-$alg.png")" = "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "$alg mask differs"
done
# one thread: the network is built without in-lists (BK, IBFS and auto read none there; push-relabel
# gets them from mf_graph_finish), same masks, GrabCut-style rebuilds too
for alg in push-relabel bk ibfs auto; do
    expect_exit 0 "one thread, $alg" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/t1-$alg.png" \
        --engine cpu --cpu-algorithm $alg --threads 1
    [ "$($PNG digest "$TMPD/t1-$alg.png")" = "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "one-thread $alg mask differs"
done
expect_exit 0 "iterations, all threads" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/it-all.png" \
    --engine cpu --iterations 2
expect_exit 0 "iterations, one thread" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/it-t1.png" \
    --engine cpu --iterations 2 --threads 1
[ "$($PNG digest "$TMPD/it-t1.png")" = "$($PNG digest "$TMPD/it-all.png")" ] && pass || fail "one-thread iterated mask differs"
expect_exit 2 "bad cpu algorithm" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --cpu-algorithm simplex
expect_stderr "cpu-algorithm must be" "bad cpu algorithm message"
expect_exit 0 "uniform-mix 0" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/mix0.png" --uniform-mix 0
[ "$($PNG digest "$TMPD/mix0.png")" != "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "--uniform-mix 0 changed nothing"
expect_exit 2 "bad uniform-mix" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --uniform-mix 0.9
# the geodesic priors: each option changes the mask, bad values are refused
expect_exit 0 "geodesic 0" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/geo0.png" --geodesic 0
[ "$($PNG digest "$TMPD/geo0.png")" != "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "--geodesic 0 changed nothing"
expect_exit 0 "border off" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/border-off.png" --border off
[ "$($PNG digest "$TMPD/border-off.png")" != "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "--border off changed nothing"
expect_exit 0 "star on" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/star.png" --star on
[ "$($PNG digest "$TMPD/star.png")" != "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "--star on changed nothing"
expect_exit 2 "bad geodesic" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --geodesic -1
expect_stderr "geodesic needs a weight" "bad geodesic message"
expect_exit 2 "bad border" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --border near
expect_stderr "border needs a distance" "bad border message"
expect_exit 2 "bad star" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --star maybe
expect_stderr "star is on or off" "bad star message"

# GPU mask identical to the CPU one where a device exists
if "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/gpu.png" --engine gpu 2>"$TMPD/err"; then
    [ "$($PNG digest "$TMPD/gpu.png")" = "$($PNG digest "$TMPD/mask.png")" ] && pass || fail "GPU mask differs from CPU mask"
else
    grep -qE 'no CUDA device|no CUDA support' "$TMPD/err" && { echo "gpu mask test skipped: no CUDA device"; pass; } || fail "gpu error unclear"
fi

# failures: exit 1, a message naming the file, nothing left behind
expect_exit 1 "existing output" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/mask.png"
expect_stderr "mask.png: already exists" "existing output message"
expect_exit 1 "missing seeds" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/none.png" -o "$TMPD/x.png"
expect_stderr "none.png: cannot open" "missing seeds message"
# the seeds decode beside the photo on more than one thread, in turn on one;
# either way the photo's error is the one reported
expect_exit 1 "missing seeds, 1 thread" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/none.png" -o "$TMPD/x.png" --threads 1
expect_stderr "none.png: cannot open" "missing seeds message, 1 thread"
for t in 1 2; do
    expect_exit 1 "missing photo and seeds, $t threads" -- "$FLOWCUT" segment "$TMPD/nophoto.png" --seeds "$TMPD/none.png" \
        -o "$TMPD/x.png" --threads $t
    expect_stderr "nophoto.png: cannot open" "the photo's error first, $t threads"
done
expect_exit 1 "size mismatch" -- "$FLOWCUT" segment "$IMG" --seeds "$DATA/seeds-palette.png" -o "$TMPD/x.png"
expect_stderr "seeds-palette.png: seed image is 4x2" "size mismatch message"
$PNG recode "$SEEDS" trimap "$TMPD/t.png"
expect_exit 1 "no foreground seed" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/t.png" -o "$TMPD/x.png"
expect_stderr "t.png: no foreground seed" "no foreground message"
expect_exit 1 "corrupt image" -- "$FLOWCUT" segment "$DATA/truncated.jpg" --seeds "$SEEDS" -o "$TMPD/x.png"
expect_stderr "truncated.jpg: corrupt JPEG" "corrupt image message"
# the first IDAT chunk's CRC-32 damaged, its data intact: still an error (the zlib stream's
# Adler-32 is not checked, the chunks' CRCs are)
python3 - "$IMG" "$TMPD/badcrc.png" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(b"IDAT")
d[i + 4 + struct.unpack(">I", d[i - 4:i])[0]] ^= 0xFF
open(sys.argv[2], "wb").write(d)
PY
expect_exit 1 "IDAT CRC damaged" -- "$FLOWCUT" segment "$TMPD/badcrc.png" --seeds "$SEEDS" -o "$TMPD/x.png"
expect_stderr "badcrc.png: corrupt PNG: IDAT: CRC error" "IDAT CRC message"
expect_exit 1 "huge header" -- "$FLOWCUT" segment "$DATA/huge-header.png" --seeds "$SEEDS" -o "$TMPD/x.png"
expect_stderr "huge-header.png: 200000x200000 pixels exceed" "huge header message"
[ ! -e "$TMPD/x.png" ] && pass || fail "failed run left an output"
ls -a "$TMPD" | grep -q 'tmp-' && fail "temporary file left behind" || pass
# a folder where a file belongs: says so (not "read error")
expect_stderr_exact() { # EXPECTED DESCRIPTION: stderr with $TMPD written TMP
    sed "s|$TMPD|TMP|g" "$TMPD/err" >"$TMPD/err.got"
    cmp -s "$1" "$TMPD/err.got" && pass || fail "$2: stderr differs from $1: $(head -c 300 "$TMPD/err.got")"
}
mkdir -p "$TMPD/folder.png"
expect_exit 1 "seeds are a folder" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/folder.png" -o "$TMPD/x.png"
expect_stderr_exact "$HERE/expected/segment_seeds_folder.err" "seeds are a folder"
expect_exit 1 "photo is a folder" -- "$FLOWCUT" segment "$TMPD/folder.png" --trimap "$SEEDS" -o "$TMPD/x.png"
expect_stderr_exact "$HERE/expected/segment_photo_folder.err" "photo is a folder"
# outputs honour the umask
(umask 027 && "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/u.png" --cutout "$TMPD/uc.png" -q)
[ "$(stat -c %a "$TMPD/u.png") $(stat -c %a "$TMPD/uc.png")" = "640 640" ] && pass ||
    fail "modes $(stat -c %a "$TMPD/u.png" "$TMPD/uc.png" | tr '\n' ' ')under umask 027, expected 640"
# generate names the option whose value is bad, and the range
expect_exit 2 "generate -a -5" -- "$FLOWCUT" generate genrmf -a -5 -b 3
expect_stderr_exact "$HERE/expected/generate_bad_short.err" "generate -a -5"
expect_exit 2 "generate --width=-5" -- "$FLOWCUT" generate grid --width=-5 --height 3
expect_stderr_exact "$HERE/expected/generate_bad_long.err" "generate --width=-5"
(umask 027 && "$FLOWCUT" generate grid --width 3 --height 3 -o "$TMPD/g.max")
[ "$(stat -c %a "$TMPD/g.max")" = 640 ] && pass || fail "generate -o: mode $(stat -c %a "$TMPD/g.max") under umask 027"
expect_exit 2 "no seeds option" -- "$FLOWCUT" segment "$IMG" -o "$TMPD/x.png"
expect_exit 2 "bad model" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --model svm
finish
