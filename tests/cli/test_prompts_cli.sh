#!/usr/bin/env bash
# flowcut segment with clicks and a box: one click segments (the border
# stands in for the background), a click is exact where it lands, a box
# keeps everything outside it background, prompts from a file equal the
# same prompts on the command line, bad prompts get one-line errors, a
# click corrects the mask given as --previous, and
# clicks painted to the frame of a close-up keep those sides.
# usage: test_prompts_cli.sh FLOWCUT
FLOWCUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
EX="$HERE/../../examples"
DATA="$HERE/../data"
. "$HERE/lib.sh"

# pixel X Y of a grey PNG
pixel() { python3 "$HERE/png_tool.py" pixel "$1" "$2" "$3"; }
# the same pixels in two PNGs (their encodings may differ)
same_pixels() {
    [ "$(python3 "$HERE/png_tool.py" digest "$1")" = "$(python3 "$HERE/png_tool.py" digest "$2")" ] && pass ||
        fail "$3: $1 and $2 differ"
}
# 1 when every pixel outside the box X,Y,W,H is 0
outside_zero() { python3 "$HERE/png_tool.py" outside-zero "$1" "$2"; }

expect_exit 0 "one click" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,150 -o "$TMPD/one.png" -q
[ "$(pixel "$TMPD/one.png" 300 150)" = 255 ] && pass || fail "one click: the clicked pixel is not foreground"

expect_exit 0 "a negative click" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150 -290,140" \
    -o "$TMPD/neg.png" -q
[ "$(pixel "$TMPD/neg.png" 290 140)" = 0 ] && pass || fail "a negative click: its pixel is not background"
[ "$(pixel "$TMPD/neg.png" 300 150)" = 255 ] && pass || fail "a negative click: the positive one moved"

expect_exit 0 "a box" -- "$FLOWCUT" segment "$EX/coffee.png" --box 150,80,300,250 -o "$TMPD/box.png" -q
[ "$(outside_zero "$TMPD/box.png" 150,80,300,250)" = 1 ] && pass || fail "a box: foreground outside it"
# a box around the cup and its saucer finds them: the sample's strokes give the reference mask
expect_exit 0 "a box around the cup" -- "$FLOWCUT" segment "$EX/coffee.png" --box 70,10,415,380 -o "$TMPD/cup.png" -q
iou=$(python3 "$HERE/png_tool.py" iou "$TMPD/cup.png" "$HERE/../data/coffee-mask.png")
awk -v v="$iou" 'BEGIN { exit !(v >= 0.9) }' && pass || fail "a box around the cup: IoU $iou with the strokes' mask, not 0.9"

printf '# clicks of the cup\nfg 300,150\nbg 290,140   # the rim\nbox 150,80,300,250\n' >"$TMPD/p.txt"
expect_exit 0 "prompts from a file" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks @"$TMPD/p.txt" \
    -o "$TMPD/file.png" -q
expect_exit 0 "the same inline" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150 -290,140" \
    --box 150,80,300,250 -o "$TMPD/inline.png" -q
expect_same "$TMPD/file.png" "$TMPD/inline.png" "prompts from a file and inline"

expect_exit 0 "seeds and clicks together" -- "$FLOWCUT" segment "$EX/coffee.png" --seeds "$EX/coffee-seeds.png" \
    --clicks 300,150 -o "$TMPD/both.png" -q

expect_exit 2 "a bad click" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,x -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --clicks:1: cannot read '300,x': expected X,Y \(a foreground click\), -X,Y \(background\), fg X,Y, bg X,Y \(each with ,R for a disc of radius R\) or box X,Y,W,H$" "a bad click"
expect_exit 2 "a click's radius 0" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,150,0 -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --clicks:1: click 300,150: a radius must be 1 to 100000 pixels$" "a click's radius 0"
expect_exit 2 "a bad box" -- "$FLOWCUT" segment "$EX/coffee.png" --box 1,2 -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --box: expected X,Y,W,H \(the top-left pixel, the width and the height\), not '1,2'$" "a bad box"
expect_exit 2 "a box of negative width" -- "$FLOWCUT" segment "$EX/coffee.png" --box 10,10,-5,20 -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --box 10,10,-5,20: x and y must be >= 0, width and height > 0$" "negative width"
expect_exit 2 "two boxes" -- "$FLOWCUT" segment "$EX/coffee.png" --box 1,1,50,50 --box 2,2,40,40 -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --box: one box only \(given twice\)$" "two boxes"
expect_exit 2 "no click in --clicks" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks '' -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --clicks: no click in ''" "no click in --clicks"
expect_exit 0 "a box in --clicks" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 'box 150,80,300,250' \
    -o "$TMPD/box-clicks.png" -q
expect_exit 0 "the same box as --box" -- "$FLOWCUT" segment "$EX/coffee.png" --box 150,80,300,250 \
    -o "$TMPD/box-option.png" -q
expect_same "$TMPD/box-clicks.png" "$TMPD/box-option.png" "a box in --clicks and in --box"
expect_exit 2 "--seeds and --trimap" -- "$FLOWCUT" segment "$EX/coffee.png" --seeds "$EX/coffee-seeds.png" \
    --trimap "$EX/coffee-seeds.png" -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --seeds and --trimap: give one seed image, once$" "--seeds and --trimap"
expect_exit 2 "two outputs of one name" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,150 -o "$TMPD/o.png" \
    --overlay "$TMPD/./o.png"
expect_stderr "^flowcut segment: -o and --overlay both name " "two outputs of one name"
cp "$EX/coffee.png" "$TMPD/photo.png"
expect_exit 2 "the mask over the photo" -- "$FLOWCUT" segment "$TMPD/photo.png" --clicks 300,150 -o "$TMPD/photo.png" -f
expect_stderr "^flowcut segment: -o .*photo.png is also an input; write the output to another file$" "the mask over the photo"
expect_same "$EX/coffee.png" "$TMPD/photo.png" "the photo left as it was"

expect_exit 1 "a photo for the previous mask" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,150 \
    --previous "$EX/coffee.png" -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --previous .*coffee.png: a mask is grey \(0 background, 255 or 1 foreground\), not a colour image$" "a photo for the previous mask"
expect_exit 2 "two photos" -- "$FLOWCUT" segment "$EX/coffee.png" "$EX/coffee.png" --clicks 300,150 -o "$TMPD/bad.png"
expect_stderr "one IMAGE at a time" "two photos"
expect_exit 1 "an error as JSON" -- "$FLOWCUT" segment "$TMPD/none.png" --clicks 300,150 -o "$TMPD/bad.png" --json
expect_stdout '^\{"file": ".*none.png", "status": "error", "error": ".*none.png: cannot open: No such file or directory"\}$' "an error as JSON"

# a box past the photo's edges boxes the part on the photo: one mask however far it overshoots
expect_exit 0 "the photo's own box" -- "$FLOWCUT" segment "$EX/coffee.png" --box 0,0,600,400 -o "$TMPD/box0.png" -q
for b in 0,0,601,400 0,0,700,500 0,0,100000,100000; do
    expect_exit 0 "box $b" -- "$FLOWCUT" segment "$EX/coffee.png" --box "$b" -o "$TMPD/boxo.png" -q -f
    expect_same "$TMPD/box0.png" "$TMPD/boxo.png" "box $b past the edges"
done
expect_exit 0 "a one-pixel box in the last corner" -- "$FLOWCUT" segment "$EX/coffee.png" --box 599,399,1,1 \
    -o "$TMPD/box1.png" -q
expect_exit 0 "the same box where the half-size cuts keep it" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --box 598,398,2,2 -o "$TMPD/box2.png" -q
python3 "$HERE/png_tool.py" outside-zero "$TMPD/box1.png" 599,399,1,1 | grep -qx 1 && pass ||
    fail "a one-pixel box: foreground outside it"
expect_exit 1 "a click outside" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 600,10 -o "$TMPD/bad.png"
expect_stderr "^flowcut: .*coffee.png: click 600,10 lies outside the 600x400 photo$" "a click outside"
expect_exit 2 "a missing prompt file" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks @"$TMPD/none.txt" \
    -o "$TMPD/bad.png"
expect_stderr "none.txt: cannot open: No such file or directory" "a missing prompt file"
expect_exit 1 "no click on the object and the border off" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --clicks 300,150 --border off -o "$TMPD/bad.png"
expect_stderr "no background seed" "border off"
expect_exit 1 "foreground clicks on every side, no background" -- "$FLOWCUT" segment "$DATA/chelsea-close-up.png" \
    --clicks "1,70 224,70 110,1 110,148" -o "$TMPD/bad.png"
expect_stderr "^flowcut: .*chelsea-close-up.png: no background seed, and foreground seeds touch every side of the photo: mark some background$" "every side touched"
[ ! -e "$TMPD/bad.png" ] && pass || fail "a failed run left an output"

# --previous: the mask a click corrects, as a session's click does
expect_exit 0 "a click that corrects the mask before it" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --clicks "300,150 -290,140" --previous "$TMPD/one.png" -o "$TMPD/prev.png" -q
[ "$(pixel "$TMPD/prev.png" 290 140)" = 0 ] && pass || fail "--previous: the negative click's pixel is not background"
[ "$(pixel "$TMPD/prev.png" 300 150)" = 255 ] && pass || fail "--previous: the positive click's pixel is not foreground"
python3 "$HERE/png_tool.py" recode "$TMPD/one.png" ones "$TMPD/one01.png"
expect_exit 0 "the previous mask as 0 / 1 labels" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --clicks "300,150 -290,140" --previous "$TMPD/one01.png" -o "$TMPD/prev01.png" -q
same_pixels "$TMPD/prev.png" "$TMPD/prev01.png" "--previous as 0 / 255 or 0 / 1"
# the corrected click's disc stays inside the region it corrects (--json says its radius); given
# as X,Y,R it replays the same cut, and a click's own radius is its disc
# (280,98 lies 4 to 5 pixels inside the one click's mask, near its top edge)
"$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150 -280,98" --previous "$TMPD/one.png" \
    -o "$TMPD/prevj.png" --json >"$TMPD/prev.json" 2>/dev/null
r=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["click_radius"])' "$TMPD/prev.json")
[ "$r" = 4 ] && pass || fail "--previous: the corrected click's radius $r, not 4 (the default 10)"
expect_exit 0 "the corrected click replayed with its radius" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --clicks "300,150 -280,98,4" --previous "$TMPD/one.png" -o "$TMPD/prevr.png" -q
same_pixels "$TMPD/prevj.png" "$TMPD/prevr.png" "the corrected click with its radius given"
expect_exit 0 "the corrected click with the default disc" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --clicks "300,150 -280,98,10" --previous "$TMPD/one.png" -o "$TMPD/prev10.png" -q
[ "$(python3 "$HERE/png_tool.py" digest "$TMPD/prevj.png")" != "$(python3 "$HERE/png_tool.py" digest "$TMPD/prev10.png")" ] &&
    pass || fail "a corrected click's disc of 4 and of 10 cut alike"
"$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150,4" -o "$TMPD/r4.png" --json >"$TMPD/r4.json" 2>/dev/null
grep -q '"click_radius": 4,' "$TMPD/r4.json" && pass || fail "--clicks X,Y,4: --json lacks click_radius 4"
"$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150" -o "$TMPD/r10.png" --json >"$TMPD/r10.json" 2>/dev/null
grep -q '"click_radius": 10,' "$TMPD/r10.json" && pass || fail "one click: --json lacks the default click_radius 10"
expect_exit 0 "--keep 0" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150 -290,140" \
    --previous "$TMPD/one.png" --keep 0 -o "$TMPD/keep0.png" -q
same_pixels "$TMPD/keep0.png" "$TMPD/neg.png" "--keep 0 is the clicks alone"
expect_exit 0 "--previous with a box" -- "$FLOWCUT" segment "$EX/coffee.png" --box 150,80,300,250 \
    --previous "$TMPD/one.png" -o "$TMPD/boxprev.png" -q
same_pixels "$TMPD/boxprev.png" "$TMPD/box.png" "a box's route has no previous answer"
expect_exit 1 "--previous without a click" -- "$FLOWCUT" segment "$EX/coffee.png" --seeds "$EX/coffee-seeds.png" \
    --previous "$TMPD/one.png" -o "$TMPD/bad.png"
expect_stderr "^flowcut: .*coffee.png: a previous answer needs the click that corrects it \(--clicks\)$" "--previous alone"
python3 "$HERE/png_tool.py" crop "$TMPD/one.png" 0 0 300 200 "$TMPD/small.png"
expect_exit 1 "--previous of another size" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,150 \
    --previous "$TMPD/small.png" -o "$TMPD/bad.png"
expect_stderr "^flowcut: .*coffee.png: the previous answer is 300x200, the photo 600x400$" "--previous of another size"
expect_exit 1 "a missing --previous" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,150 \
    --previous "$TMPD/none.png" -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --previous .*none.png: cannot open: No such file or directory$" "a missing --previous"
[ ! -e "$TMPD/bad.png" ] && pass || fail "a failed run left an output"

# a close-up: clicks at the frame where the face runs into it keep those sides (not background)
fg_of() { "$FLOWCUT" segment "$DATA/chelsea-close-up.png" --clicks "$1" -o "$TMPD/close.png" -f --json |
    sed -n 's/.*"foreground_pixels": \([0-9]*\).*/\1/p'; }
inside=$(fg_of "110,75 -210,70")
framed=$(fg_of "110,75 -210,70 100,148 1,75 100,1")
[ -n "$inside" ] && [ -n "$framed" ] && [ "$framed" -gt $((inside * 2)) ] && pass ||
    fail "clicks at the frame: $framed foreground pixels against $inside without them"

# batch: a prompt file per image, alone or beside a seed image
mkdir -p "$TMPD/in" "$TMPD/sd"
cp "$EX/coffee.png" "$TMPD/in/a.png"
cp "$EX/coffee.png" "$TMPD/in/b.png"
cp "$EX/coffee.png" "$TMPD/in/c.png"
printf 'fg 300,150\nbg 290,140\n' >"$TMPD/sd/a.txt"
cp "$EX/coffee-seeds.png" "$TMPD/sd/b.png"
printf 'fg 300,150\n' >"$TMPD/sd/b.txt"
printf 'fg 300,x\n' >"$TMPD/sd/c.txt"
expect_exit 1 "batch with prompt files" -- "$FLOWCUT" batch "$TMPD/in" --seeds-dir "$TMPD/sd" -o "$TMPD/masks" -q
expect_stderr "c.txt:1: cannot read 'fg 300,x'" "batch names the bad prompt file"
same_pixels "$TMPD/masks/a.png" "$TMPD/neg.png" "batch prompts alone equal segment --clicks"
expect_exit 0 "the same seeds and click" -- "$FLOWCUT" segment "$EX/coffee.png" --seeds "$EX/coffee-seeds.png" \
    --clicks 300,150 -o "$TMPD/b-want.png" -q
same_pixels "$TMPD/masks/b.png" "$TMPD/b-want.png" "batch seeds and prompts equal segment --seeds --clicks"
[ ! -e "$TMPD/masks/c.png" ] && pass || fail "a bad prompt file still wrote a mask"
# graph: the network segment solves for clicks with --previous and for a
# box; maxflow's value is segment's flow and its cut segment's mask
# (coffee.png is 600x400: pixel ids up to 240000)
graph_equals_segment() { # NAME ARGS...
    local name=$1
    shift
    expect_exit 0 "segment $name" -- "$FLOWCUT" segment "$EX/coffee.png" "$@" -o "$TMPD/g-$name.png" --json -f
    local flow
    flow=$(sed -n 's/.*"flow": \([0-9]*\).*/\1/p' "$TMPD/out")
    expect_exit 0 "graph $name" -- "$FLOWCUT" graph "$EX/coffee.png" "$@" -o "$TMPD/g-$name.max" -f
    expect_exit 0 "maxflow of graph $name" -- "$FLOWCUT" maxflow --cut "$TMPD/g-$name.cut" "$TMPD/g-$name.max"
    expect_stdout "^s $flow\$" "graph $name: segment's flow value"
    awk '$1 <= 240000' "$TMPD/g-$name.cut" >"$TMPD/g-$name.cutpx"
    python3 "$HERE/png_tool.py" foreground "$TMPD/g-$name.png" >"$TMPD/g-$name.maskpx"
    expect_same "$TMPD/g-$name.cutpx" "$TMPD/g-$name.maskpx" "graph $name: its cut is segment's mask"
}
graph_equals_segment clicks --clicks "300,150 -280,98" --previous "$TMPD/one.png"
graph_equals_segment box --box 70,10,415,380
graph_equals_segment box-click --box 70,10,415,380 --clicks 300,150
# a box on a photo too small for the route's half-size cuts: its first fit, said
python3 "$HERE/png_tool.py" crop "$EX/coffee.png" 0 0 120 100 "$TMPD/tiny.png"
expect_exit 0 "graph of a box on a small photo" -- "$FLOWCUT" graph "$TMPD/tiny.png" --box 20,10,80,80 -o "$TMPD/t.max" -f
expect_stderr "notice: a box on a photo under 128 pixels a side" "graph's small-box notice"
grep -q "^c .*lambda 20, geodesic 0 (a box's route)" "$TMPD/t.max" && pass || fail "graph --box: the comment's energy"
# a notice (--iterations) on stderr, and none with -q
expect_exit 0 "graph --iterations" -- "$FLOWCUT" graph "$EX/coffee.png" --clicks 300,150 --iterations 1 -o "$TMPD/n.max" -f
expect_stderr "notice: --iterations ignored" "graph's notice"
expect_exit 0 "graph -q" -- "$FLOWCUT" graph "$EX/coffee.png" --clicks 300,150 --iterations 1 -o "$TMPD/n.max" -f -q
[ ! -s "$TMPD/err" ] && pass || fail "graph -q printed: $(head -c 200 "$TMPD/err")"
expect_exit 2 "graph without prompts" -- "$FLOWCUT" graph "$EX/coffee.png" -o "$TMPD/none.max"
expect_stderr "flowcut graph: needs IMAGE, --seeds \\(or --trimap, --clicks, --box\\) and -o FILE.max" "graph without prompts"
finish
