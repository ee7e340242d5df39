#!/usr/bin/env bash
# CLI tests of what a user sees when something is wrong: the exact error
# lines (one line, what, where, why and the fix), tolerant scribble colours,
# outputs written all or none, and complete --help texts.
set -u
FLOWCUT=${1:?usage: test_messages.sh FLOWCUT}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
EX=$HERE/../../examples
PNG="python3 $HERE/png_tool.py"
. "$HERE/lib.sh"

IMG=$EX/coffee.png
SEEDS=$EX/coffee-seeds.png

# expect_err EXPECTED DESCRIPTION: stderr, with $TMPD written TMP, is exactly EXPECTED
expect_err() {
    sed "s|$TMPD|TMP|g" "$TMPD/err" >"$TMPD/err.got"
    printf '%s\n' "$1" >"$TMPD/err.want"
    cmp -s "$TMPD/err.want" "$TMPD/err.got" && pass ||
        fail "$2: stderr is
$(cat "$TMPD/err.got")
    expected
$1"
}

# expect_usage LINE DESCRIPTION: stderr is exactly LINE and stdout is empty
expect_usage() {
    expect_err "$1" "$2"
    [ -s "$TMPD/out" ] && fail "$2: stdout is not empty: $(head -c 200 "$TMPD/out")" || pass
}

# seed images from the sample's labels (0 unmarked, 1 foreground, 2 background):
# paint.py SEEDS OUT FG BG OTHER [EDGE]: RGB, FG/BG/OTHER colours as r,g,b; with
# EDGE, the unmarked pixels beside a foreground seed get that colour (a soft
# brush's antialiased rim)
cat >"$TMPD/paint.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import png_tool
w, h, ch, px = png_tool.read(sys.argv[2])
rgb = lambda s: bytes(int(v) for v in s.split(","))
fg, bg, other = rgb(sys.argv[4]), rgb(sys.argv[5]), rgb(sys.argv[6])
edge = rgb(sys.argv[7]) if len(sys.argv) > 7 else None
out = bytearray()
for i, v in enumerate(px):
    c = fg if v == 1 else bg if v == 2 else other
    if v == 0 and edge is not None:
        x, y = i % w, i // w
        if any(0 <= x + dx < w and 0 <= y + dy < h and px[(y + dy) * w + x + dx] == 1
               for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
            c = edge
    out += c
png_tool.write(sys.argv[3], w, h, 3, bytes(out))
PY
paint() { python3 "$TMPD/paint.py" "$HERE" "$@"; }

expect_exit 0 "reference mask" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/ref.png" --engine cpu

# --- scribbles from an ordinary brush: near colours and pink rims are seeds,
# white/grey/black are not
paint "$SEEDS" "$TMPD/soft.png" 236,18,24 12,20,230 255,255,255 255,60,60
expect_exit 0 "antialiased scribbles" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/soft.png" -o "$TMPD/soft-mask.png" --engine cpu
[ -f "$TMPD/soft-mask.png" ] && [ "$($PNG digest "$TMPD/soft-mask.png")" != "" ] && pass || fail "no mask from soft scribbles"
# the same strokes without the rim give the reference mask; the rim only adds seeds
paint "$SEEDS" "$TMPD/near.png" 236,18,24 12,20,230 255,255,255
expect_exit 0 "near colours" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/near.png" -o "$TMPD/near-mask.png" --engine cpu
expect_same "$TMPD/ref.png" "$TMPD/near-mask.png" "near colours give the exact colours' mask"
# neutral pixels never become seeds: a grey background stroke and a white/black image
paint "$SEEDS" "$TMPD/grey.png" 128,128,128 96,96,96 255,255,255
expect_exit 1 "grey strokes are no seeds" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/grey.png" -o "$TMPD/x.png"
expect_err "flowcut: TMP/grey.png: no foreground seed: paint the object red (#ff0000; pixels within RGB distance 96 of it count), or set the colours with --scribble-colors=FG,BG" \
    "no foreground scribble names the colour"
paint "$SEEDS" "$TMPD/pink.png" 255,200,200 255,255,255 0,0,0
expect_exit 1 "pale pink is no seed" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/pink.png" -o "$TMPD/x.png"
expect_stderr "no foreground seed: paint the object red" "pale pink is no seed"
# colour names
paint "$SEEDS" "$TMPD/gy.png" 0,128,0 255,255,0 255,255,255
expect_exit 0 "--scribble-colors=green,yellow" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/gy.png" \
    --scribble-colors=green,yellow -o "$TMPD/gy-mask.png" --engine cpu
expect_same "$TMPD/ref.png" "$TMPD/gy-mask.png" "named colours"
expect_exit 0 "--scribble-colors=#008000,FFFF00" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/gy.png" \
    "--scribble-colors=#008000,FFFF00" -o "$TMPD/gy-hex.png" --engine cpu
expect_same "$TMPD/ref.png" "$TMPD/gy-hex.png" "hex colours"
expect_exit 0 "--scribble-colors green,yellow (no =)" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/gy.png" \
    --scribble-colors green,yellow -o "$TMPD/gy-space.png" --engine cpu
expect_same "$TMPD/ref.png" "$TMPD/gy-space.png" "named colours after a space"
expect_exit 2 "a colour name misspelt" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/gy.png" --scribble-colors=green,yelow -o "$TMPD/x.png"
expect_err "flowcut segment: --scribble-colors: 'yelow' is not a colour: give FG,BG as names (red, green, blue, yellow, cyan, magenta, orange, purple, white, black) or #RRGGBB" \
    "bad colour name"
paint "$SEEDS" "$TMPD/rw.png" 255,0,0 0,0,255 255,255,255
expect_exit 1 "no background scribble" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/rw.png" --scribble-colors=red,orange --border off -o "$TMPD/x.png"
expect_err "flowcut: TMP/rw.png: no background seed: paint some background orange (#ffa500; pixels within RGB distance 96 of it count), or leave --border on" \
    "no background scribble names the colour"

# --- a trimap given as --seeds
$PNG recode "$SEEDS" trimap "$TMPD/tri.png"
expect_exit 1 "trimap as --seeds" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/tri.png" -o "$TMPD/x.png"
expect_err "flowcut: TMP/tri.png: no foreground seed (value 1): this looks like a trimap (0/128/255): use --trimap FILE" \
    "trimap hint"
python3 - "$HERE" "$TMPD/bw.png" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import png_tool
png_tool.write(sys.argv[2], 600, 400, 1, bytes(255 if 200 < x < 300 else 0 for y in range(400) for x in range(600)))
PY
expect_exit 1 "black/white as --seeds" -- "$FLOWCUT" segment "$IMG" --seeds "$TMPD/bw.png" -o "$TMPD/x.png"
expect_err "flowcut: TMP/bw.png: no foreground seed (value 1): this looks like a trimap (0/255): use --trimap FILE" \
    "black/white hint"

# --- usage errors: one line, a near name, where to look
expect_exit 2 "misspelt option" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --lamda 5
expect_err "flowcut segment: unknown option '--lamda'; did you mean --lambda? (see \`flowcut segment --help\`)" "did you mean --lambda"
expect_exit 2 "misspelt option=value" -- "$FLOWCUT" batch "$TMPD" -o "$TMPD/o" --seeds-dir "$TMPD" --jbos=2
expect_err "flowcut batch: unknown option '--jbos=2'; did you mean --jobs? (see \`flowcut batch --help\`)" "did you mean --jobs"
expect_exit 2 "far option" -- "$FLOWCUT" graph "$IMG" --seeds "$SEEDS" -o "$TMPD/x.max" --frobnicate
expect_err "flowcut graph: unknown option '--frobnicate' (see \`flowcut graph --help\`)" "no near name"
expect_exit 2 "missing value" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --lambda
expect_err "flowcut segment: option '--lambda' needs a value (see \`flowcut segment --help\`)" "missing value"
expect_exit 2 "missing operands" -- "$FLOWCUT" segment "$IMG" -o "$TMPD/x.png"
expect_err "flowcut segment: needs IMAGE, --seeds (or --trimap, --clicks, --box) and -o MASK (see \`flowcut segment --help\`)" "missing operands"
expect_exit 2 "misspelt command" -- "$FLOWCUT" segmnet "$IMG"
expect_err "flowcut: unknown command 'segmnet'; did you mean 'segment'? (see \`flowcut --help\`)" "did you mean segment"
# maxflow, generate and ui: the same one line, nothing on stdout
expect_exit 2 "maxflow misspelt option" -- "$FLOWCUT" maxflow --veriffy "$DATA/max_flow.dat"
expect_usage "flowcut maxflow: unknown option '--veriffy'; did you mean --verify? (see \`flowcut maxflow --help\`)" \
    "did you mean --verify"
expect_exit 2 "maxflow without a file" -- "$FLOWCUT" maxflow --verify
expect_usage "flowcut maxflow: expected exactly one input file (or -) (see \`flowcut maxflow --help\`)" "maxflow without a file"
expect_exit 2 "maxflow missing value" -- "$FLOWCUT" maxflow "$DATA/max_flow.dat" --cut
expect_usage "flowcut maxflow: option '--cut' needs a value (see \`flowcut maxflow --help\`)" "maxflow missing value"
expect_exit 2 "generate misspelt family" -- "$FLOWCUT" generate genrfm -a 4 -b 3
expect_usage "flowcut generate: unknown family 'genrfm'; did you mean genrmf? (see \`flowcut generate --help\`)" \
    "did you mean genrmf"
expect_exit 2 "generate far family" -- "$FLOWCUT" generate torus
expect_usage "flowcut generate: unknown family 'torus': genrmf, washington-rlg, acyclic-dense, grid, rmat, rmat-pair or matching (see \`flowcut generate --help\`)" \
    "unknown family lists the families"
expect_exit 2 "generate option before the family" -- "$FLOWCUT" generate --bogus
expect_usage "flowcut generate: expected a FAMILY first, not the option '--bogus': genrmf, washington-rlg, acyclic-dense, grid, rmat, rmat-pair or matching (see \`flowcut generate --help\`)" \
    "generate option before the family"
expect_exit 2 "generate without a family" -- "$FLOWCUT" generate
expect_usage "flowcut generate: needs a FAMILY: genrmf, washington-rlg, acyclic-dense, grid, rmat, rmat-pair or matching (see \`flowcut generate --help\`)" \
    "generate without a family"
expect_exit 2 "generate misspelt option" -- "$FLOWCUT" generate genrmf -a 4 -b 3 --sed 5
expect_usage "flowcut generate: unknown option '--sed'; did you mean --seed? (see \`flowcut generate --help\`)" \
    "did you mean --seed"
expect_exit 2 "generate missing value" -- "$FLOWCUT" generate genrmf -a 4 -b
expect_usage "flowcut generate: option '-b' needs a value (see \`flowcut generate --help\`)" "generate missing value"
expect_exit 2 "generate missing size" -- "$FLOWCUT" generate genrmf -a 4
expect_usage "flowcut generate genrmf: -a and -b are required (see \`flowcut generate genrmf --help\`)" \
    "generate missing size"
expect_exit 2 "ui unknown option" -- "$FLOWCUT" ui "$IMG" --bogus
expect_usage "flowcut ui: unknown option '--bogus' (see \`flowcut ui --help\`)" "ui unknown option"
expect_exit 2 "ui misspelt option" -- "$FLOWCUT" ui "$IMG" --prot 0
expect_usage "flowcut ui: unknown option '--prot'; did you mean --port? (see \`flowcut ui --help\`)" "did you mean --port"
expect_exit 2 "ui without a photo" -- "$FLOWCUT" ui --port 0
expect_usage "flowcut ui: needs exactly one IMAGE (see \`flowcut ui --help\`)" "ui without a photo"

# --- outputs: PNG names, files not folders, all or none
mkdir -p "$TMPD/outdir"
expect_exit 2 "-o a folder" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/outdir/"
expect_err "flowcut segment: -o TMP/outdir/: is a folder; give a file name like TMP/outdir/mask.png" "-o a folder"
expect_exit 2 "-o a folder, -f" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/outdir" -f
expect_err "flowcut segment: -o TMP/outdir: is a folder; give a file name like TMP/outdir/mask.png" "-o a folder, -f"
expect_exit 2 "--cutout a folder" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/m.png" --cutout "$TMPD/outdir"
expect_err "flowcut segment: --cutout TMP/outdir: is a folder; give a file name like TMP/outdir/cutout.png" "--cutout a folder"
expect_exit 2 "-o x.jpg" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.jpg"
expect_err "flowcut segment: -o TMP/x.jpg: outputs are PNG files; give a name ending in .png" "-o x.jpg"
expect_exit 2 "--overlay x.webp" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/x.png" --overlay "$TMPD/o.webp"
expect_err "flowcut segment: --overlay TMP/o.webp: outputs are PNG files; give a name ending in .png" "--overlay o.webp"
[ ! -e "$TMPD/x.jpg" ] && [ ! -e "$TMPD/x.png" ] && pass || fail "a refused name was written"
expect_exit 0 "upper-case .PNG" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/UP.PNG" -q
expect_exit 1 "overlay cannot be written" -- "$FLOWCUT" segment "$IMG" --seeds "$SEEDS" -o "$TMPD/m.png" \
    --overlay "$TMPD/nodir/ov.png" --cutout "$TMPD/c.png"
expect_err "flowcut: TMP/nodir/ov.png: cannot create: No such file or directory" "overlay failure"
[ ! -e "$TMPD/m.png" ] && [ ! -e "$TMPD/c.png" ] && pass || fail "the mask or cut-out was written though the overlay failed"
[ -z "$(find "$TMPD" -maxdepth 1 -name '.*tmp-*')" ] && pass || fail "temporary files left behind"
expect_exit 2 "graph -o a folder" -- "$FLOWCUT" graph "$IMG" --seeds "$SEEDS" -o "$TMPD/outdir"
expect_err "flowcut graph: -o TMP/outdir: is a folder; give a file name like TMP/outdir/graph.max" "graph -o a folder"
(umask 027 && "$FLOWCUT" graph "$IMG" --seeds "$SEEDS" -o "$TMPD/g.max" --lambda 5)
[ "$(stat -c %a "$TMPD/g.max")" = 640 ] && pass || fail "graph -o: mode $(stat -c %a "$TMPD/g.max") under umask 027"

# --- every command that takes the shared options documents all of them
for cmd in segment graph batch; do
    "$FLOWCUT" $cmd --help >"$TMPD/help.txt"
    for opt in scribble-colors lambda connectivity model uniform-mix iterations geodesic border star engine \
        cpu-algorithm device max-pixels threads; do
        grep -q -- "--$opt" "$TMPD/help.txt" && pass || fail "$cmd --help lacks --$opt"
    done
done
"$FLOWCUT" segment --help | grep -q 'any paint program' && pass || fail "segment --help does not say how to draw seeds"

# --- batch: folders checked before any photo is decoded
IN=$TMPD/in
mkdir -p "$IN" "$TMPD/seeds"
for n in a b c; do ln -s "$DATA/tiny.jpg" "$IN/$n.jpg"; $PNG halves 16 8 "$TMPD/seeds/$n.png"; done
expect_exit 1 "missing seed folder" -- "$FLOWCUT" batch "$IN" -o "$TMPD/bout" --seeds-dir "$TMPD/nowhere"
expect_err "flowcut batch: --seeds-dir TMP/nowhere: cannot open folder: No such file or directory" "missing seed folder"
expect_exit 1 "missing input folder" -- "$FLOWCUT" batch "$TMPD/noin" -o "$TMPD/bout" --seeds-dir "$TMPD/seeds"
expect_err "flowcut batch: TMP/noin: cannot open folder: No such file or directory" "missing input folder"
: >"$TMPD/afile"
expect_exit 1 "output is a file" -- "$FLOWCUT" batch "$IN" -o "$TMPD/afile" --seeds-dir "$TMPD/seeds"
expect_err "flowcut batch: -o TMP/afile: is a file, not a folder" "output is a file"
expect_exit 1 "overlay folder under a file" -- "$FLOWCUT" batch "$IN" -o "$TMPD/bout" --overlay-dir "$TMPD/afile/ov" --seeds-dir "$TMPD/seeds"
expect_err "flowcut batch: --overlay-dir TMP/afile/ov: cannot create folder: Not a directory" "overlay folder under a file"
# an output folder nobody may write to (as root, chmod does not stop writes: a
# read-only file system's folder instead, where there is one)
RO=$TMPD/ro
mkdir -p "$RO" && chmod 555 "$RO"
if touch "$RO/.probe" 2>/dev/null; then
    rm -f "$RO/.probe"
    RO=/sys/fs
    touch "$RO/.probe" 2>/dev/null && { rm -f "$RO/.probe"; RO=; }
fi
if [ -n "$RO" ]; then
    why=$(touch "$RO/.probe" 2>&1 | sed 's/.*: //')
    expect_exit 1 "read-only output folder" -- "$FLOWCUT" batch "$IN" -o "$RO" --seeds-dir "$TMPD/seeds"
    expect_err "flowcut batch: -o ${RO/#$TMPD/TMP}: cannot write there: $why" "read-only output folder"
else
    echo "skipped: no read-only folder (batch output not writable)"
fi
chmod 755 "$TMPD/ro"
# a lossy seed file beside the missing PNG one
mv "$TMPD/seeds/b.png" "$TMPD/seeds/b.jpg"
expect_exit 1 "JPEG seed file" -- "$FLOWCUT" batch "$IN" -o "$TMPD/bout" --seeds-dir "$TMPD/seeds" --engine cpu -q
sed -i '/^flowcut batch: [0-9]* ok/d' "$TMPD/err"
expect_err "flowcut: TMP/in/b.jpg: no seed file TMP/seeds/b.png (found TMP/seeds/b.jpg: seed files must be lossless PNG)" \
    "JPEG seed file"
finish
