#!/usr/bin/env bash
# flowcut segment with clicks and a box: one click segments (the border
# stands in for the background), a click is exact where it lands, a box
# keeps everything outside it background, prompts from a file equal the
# same prompts on the command line, and bad prompts get one-line errors.
# usage: test_prompts_cli.sh FLOWCUT
FLOWCUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
EX="$HERE/../../examples"
. "$HERE/lib.sh"

# pixel X Y of a grey PNG
pixel() { python3 "$HERE/png_tool.py" pixel "$1" "$2" "$3"; }
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

printf '# clicks of the cup\nfg 300,150\nbg 290,140   # the rim\nbox 150,80,300,250\n' >"$TMPD/p.txt"
expect_exit 0 "prompts from a file" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks @"$TMPD/p.txt" \
    -o "$TMPD/file.png" -q
expect_exit 0 "the same inline" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks "300,150 -290,140" \
    --box 150,80,300,250 -o "$TMPD/inline.png" -q
expect_same "$TMPD/file.png" "$TMPD/inline.png" "prompts from a file and inline"

expect_exit 0 "seeds and clicks together" -- "$FLOWCUT" segment "$EX/coffee.png" --seeds "$EX/coffee-seeds.png" \
    --clicks 300,150 -o "$TMPD/both.png" -q

expect_exit 2 "a bad click" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 300,x -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --clicks:1: cannot read '300,x': expected X,Y \(a foreground click\), -X,Y \(background\), fg X,Y, bg X,Y or box X,Y,W,H$" "a bad click"
expect_exit 2 "a bad box" -- "$FLOWCUT" segment "$EX/coffee.png" --box 1,2 -o "$TMPD/bad.png"
expect_stderr "^flowcut segment: --box:1: cannot read 'box 1,2'" "a bad box"
expect_exit 1 "a click outside" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks 600,10 -o "$TMPD/bad.png"
expect_stderr "^flowcut: .*coffee.png: click 600,10 lies outside the 600x400 photo$" "a click outside"
expect_exit 2 "a missing prompt file" -- "$FLOWCUT" segment "$EX/coffee.png" --clicks @"$TMPD/none.txt" \
    -o "$TMPD/bad.png"
expect_stderr "none.txt: cannot open: No such file or directory" "a missing prompt file"
expect_exit 1 "no click on the object and the border off" -- "$FLOWCUT" segment "$EX/coffee.png" \
    --clicks 300,150 --border off -o "$TMPD/bad.png"
expect_stderr "no background seed" "border off"
[ ! -e "$TMPD/bad.png" ] && pass || fail "a failed run left an output"
finish
