#!/usr/bin/env bash
# CLI tests of `flowcut batch`: good, corrupt and seedless inputs in one
# folder; JSON lines and exit codes; masks equal to `flowcut segment`'s;
# resume, -f, shards, --list, trimaps, interrupts.
set -u
FLOWCUT=${1:?usage: test_batch_cli.sh FLOWCUT}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
EX=$HERE/../../examples
PNG="python3 $HERE/png_tool.py"
. "$HERE/lib.sh"

IN=$TMPD/in
SEEDS=$TMPD/seeds
mkdir -p "$IN/sub" "$SEEDS/sub"
cp "$EX/coffee.png" "$IN/a.png"
cp "$EX/coffee-seeds.png" "$SEEDS/a.png"
$PNG crop "$EX/coffee.png" 0 20 560 370 "$IN/sub/b.png"
$PNG crop "$EX/coffee-seeds.png" 0 20 560 370 "$SEEDS/sub/b.png"
cp "$DATA/tiny.jpg" "$IN/c.jpg"
$PNG halves 16 8 "$SEEDS/c.png"
head -c 3000 "$EX/coffee.png" >"$IN/corrupt.png"
cp "$EX/coffee-seeds.png" "$SEEDS/corrupt.png"
cp "$DATA/tiny.bmp" "$IN/noseeds.bmp"
echo "not an image" >"$IN/notes.txt"

json_files() { sed -n 's/^{"file": "\([^"]*\)".*/\1/p' "$1" | sort; }
count_status() { grep -c "\"status\": \"$1\"" "$TMPD/out"; }

# --- a folder with good, corrupt and seedless images
expect_exit 1 "batch with bad inputs" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/out1" --seeds-dir "$SEEDS" \
    --overlay-dir "$TMPD/ov1" --json --engine cpu --jobs 2
[ "$(wc -l <"$TMPD/out")" -eq 5 ] && pass || fail "one JSON line per image (5), got $(wc -l <"$TMPD/out")"
[ "$(count_status ok)" -eq 3 ] && pass || fail "3 ok lines"
[ "$(count_status error)" -eq 2 ] && pass || fail "2 error lines"
expect_stdout '"file": "[^"]*corrupt.png", "status": "error", "error": "[^"]*corrupt.png: corrupt PNG' "corrupt item's reason"
expect_stdout '"file": "[^"]*noseeds.bmp", "status": "error", "error": "[^"]*no seed file' "seedless item's reason"
expect_stdout '"status": "ok".*"width": 600, "height": 400, "flow": [0-9]+, "foreground_pixels": [0-9]+.*"times": \{"decode"' "ok line fields"
expect_stderr 'flowcut batch: 3 ok, 2 failed, 0 skipped' "summary line"
for f in a.png sub/b.png c.png; do
    [ -f "$TMPD/out1/$f" ] && pass || fail "mask $f missing"
    [ -f "$TMPD/ov1/$f" ] && pass || fail "overlay $f missing"
done
[ ! -e "$TMPD/out1/corrupt.png" ] && pass || fail "a mask for the corrupt image"
[ -z "$(find "$TMPD/out1" "$TMPD/ov1" -name '.*')" ] && pass || fail "temporary files left behind"

# --- masks equal the single-image command's
expect_exit 0 "segment a" -- "$FLOWCUT" segment "$IN/a.png" --seeds "$SEEDS/a.png" -o "$TMPD/a.png" --engine cpu
expect_same "$TMPD/a.png" "$TMPD/out1/a.png" "batch mask of a.png"
expect_exit 0 "segment b" -- "$FLOWCUT" segment "$IN/sub/b.png" --seeds "$SEEDS/sub/b.png" -o "$TMPD/b.png" --engine cpu
expect_same "$TMPD/b.png" "$TMPD/out1/sub/b.png" "batch mask of sub/b.png"
[ "$($PNG digest "$TMPD/out1/a.png")" = "$($PNG digest "$DATA/coffee-mask.png")" ] && pass || fail "a.png mask is not the golden one"

# --- GrabCut-style iterations go back and forth between workers and solver
expect_exit 0 "segment --iterations 2" -- "$FLOWCUT" segment "$IN/a.png" --seeds "$SEEDS/a.png" -o "$TMPD/a-it.png" --iterations 2
expect_exit 0 "batch --iterations 2" -- "$FLOWCUT" batch --list <(echo "$IN/a.png") "$IN" -o "$TMPD/out-it" --seeds-dir "$SEEDS" --iterations 2
expect_same "$TMPD/a-it.png" "$TMPD/out-it/a.png" "iterated masks"

# --- a rerun skips what is done; fixing the bad inputs then completes it
expect_exit 1 "rerun" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/out1" --seeds-dir "$SEEDS" --overlay-dir "$TMPD/ov1" --json
[ "$(count_status skipped)" -eq 3 ] && pass || fail "rerun skips 3 finished images"
expect_stderr '0 ok, 2 failed, 3 skipped' "rerun summary"
rm "$IN/corrupt.png" "$IN/noseeds.bmp"
expect_exit 0 "rerun, all good" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/out1" --seeds-dir "$SEEDS" --overlay-dir "$TMPD/ov1"
expect_stderr '0 ok, 0 failed, 3 skipped' "nothing left to do"
# a missing overlay redoes its image only
rm "$TMPD/ov1/c.png"
expect_exit 0 "missing overlay" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/out1" --seeds-dir "$SEEDS" --overlay-dir "$TMPD/ov1"
expect_stderr '1 ok, 0 failed, 2 skipped' "one image redone"
expect_exit 0 "force" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/out1" --seeds-dir "$SEEDS" -f --engine cpu
expect_stderr '3 ok, 0 failed, 0 skipped' "-f redoes all"
expect_same "$TMPD/a.png" "$TMPD/out1/a.png" "redone mask unchanged"

# --- without -r only the top folder
expect_exit 0 "not recursive" -- "$FLOWCUT" batch "$IN" -o "$TMPD/out2" --seeds-dir "$SEEDS" --json
[ "$(json_files "$TMPD/out" | tr '\n' ' ')" = "$IN/a.png $IN/c.jpg " ] && pass || fail "top folder only: $(json_files "$TMPD/out")"

# --- shards cover every input exactly once
for i in 1 2 3 4 5 6 7; do cp "$IN/c.jpg" "$IN/sub/c$i.jpg"; cp "$SEEDS/c.png" "$SEEDS/sub/c$i.png"; done
expect_exit 0 "all" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/all" --seeds-dir "$SEEDS" --json
json_files "$TMPD/out" >"$TMPD/all.txt"
: >"$TMPD/shards.txt"
for k in 1 2 3; do
    expect_exit 0 "shard $k/3" -- "$FLOWCUT" batch "$IN" -r -o "$TMPD/shard" --seeds-dir "$SEEDS" --json --shard $k/3
    json_files "$TMPD/out" >>"$TMPD/shards.txt"
    [ "$(wc -l <"$TMPD/out")" -ge 3 ] && pass || fail "shard $k/3 has 3 or 4 of 10 inputs"
done
sort "$TMPD/shards.txt" -o "$TMPD/shards.txt"
expect_same "$TMPD/all.txt" "$TMPD/shards.txt" "shards 1/3 2/3 3/3 = the whole list"
[ "$(wc -l <"$TMPD/all.txt")" -eq 10 ] && pass || fail "10 inputs"
diff -r "$TMPD/all" "$TMPD/shard" >/dev/null && pass || fail "sharded outputs differ from the single run's"

# --- an output folder inside the input folder is not read back as input
expect_exit 0 "out inside in" -- "$FLOWCUT" batch "$IN" -r -o "$IN/masks" --seeds-dir "$SEEDS"
expect_exit 0 "out inside in, rerun" -- "$FLOWCUT" batch "$IN" -r -o "$IN/masks" --seeds-dir "$SEEDS" --json
[ "$(count_status skipped)" -eq 10 ] && pass || fail "masks folder scanned as input"
rm -r "$IN/masks"

# --- --list: paths below IN_DIR keep their sub-folders
printf '%s\n' "# two of them" "$IN/sub/b.png" "" "$IN/a.png" >"$TMPD/list.txt"
expect_exit 0 "--list" -- "$FLOWCUT" batch --list "$TMPD/list.txt" "$IN" -o "$TMPD/out3" --seeds-dir "$SEEDS" --json
[ "$(wc -l <"$TMPD/out")" -eq 2 ] && pass || fail "--list: 2 items"
expect_same "$TMPD/b.png" "$TMPD/out3/sub/b.png" "--list mask of sub/b.png"

# --- trimaps give the same masks
mkdir -p "$TMPD/tri/sub"
$PNG recode "$SEEDS/a.png" trimap "$TMPD/tri/a.png"
$PNG recode "$SEEDS/sub/b.png" trimap "$TMPD/tri/sub/b.png"
expect_exit 0 "trimap dir" -- "$FLOWCUT" batch --list "$TMPD/list.txt" "$IN" -o "$TMPD/out4" --trimap-dir "$TMPD/tri"
expect_same "$TMPD/out3/a.png" "$TMPD/out4/a.png" "trimap mask of a.png"

# --- --alloc-cache changes memory reuse, never the masks
expect_exit 0 "--alloc-cache 0" -- "$FLOWCUT" batch --list "$TMPD/list.txt" "$IN" -o "$TMPD/out6" --seeds-dir "$SEEDS" \
    --alloc-cache 0
expect_same "$TMPD/out3/a.png" "$TMPD/out6/a.png" "--alloc-cache 0 mask of a.png"
expect_same "$TMPD/out3/sub/b.png" "$TMPD/out6/sub/b.png" "--alloc-cache 0 mask of sub/b.png"

# --- two images with one output name: the second fails instead of overwriting
cp "$IN/c.jpg" "$IN/a.jpg"
expect_exit 1 "same output" -- "$FLOWCUT" batch "$IN" -o "$TMPD/out5" --seeds-dir "$SEEDS" --json
expect_stdout '"file": "[^"]*a.png", "status": "error", "error": "[^"]*same output' "clash reported"
rm "$IN/a.jpg"

# --- usage errors
expect_exit 2 "no -o" -- "$FLOWCUT" batch "$IN" --seeds-dir "$SEEDS"
expect_exit 2 "--seeds is for segment" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds "$SEEDS/a.png"
expect_stderr 'use --seeds-dir' "hint at --seeds-dir"
expect_exit 2 "bad shard" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --shard 4/3
expect_exit 2 "bad gpus" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --gpus 0,x
expect_exit 2 "--per-gpu 0" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --per-gpu 0
expect_stderr "per-gpu needs 1..16" "--per-gpu range named"
expect_exit 2 "--per-gpu 17" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --per-gpu 17
expect_exit 2 "--per-launch 0" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --per-launch 0
expect_stderr "per-launch needs 1..32" "--per-launch range named"
expect_exit 2 "--per-launch 33" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --per-launch 33
expect_exit 2 "--alloc-cache -1" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --alloc-cache -1
expect_stderr "alloc-cache needs megabytes" "--alloc-cache range named"
expect_exit 1 "missing folder" -- "$FLOWCUT" batch "$TMPD/nowhere" -o "$TMPD/x" --seeds-dir "$SEEDS"
expect_stderr 'nowhere: cannot open folder: No such file or directory' "names the folder and why"
if ! "$FLOWCUT" maxflow --engine gpu "$DATA/max_flow.dat" >/dev/null 2>&1; then
    expect_exit 1 "gpu without device" -- "$FLOWCUT" batch "$IN" -o "$TMPD/x" --seeds-dir "$SEEDS" --engine gpu
    expect_stderr 'no CUDA device|no CUDA support' "says why"
fi

# --- a folder where a file belongs: one line each that says which and why
expect_stderr_exact() { # EXPECTED DESCRIPTION: stderr less the summary line, $TMPD written TMP
    grep -v '^flowcut batch: [0-9]* ok' "$TMPD/err" | sed "s|$TMPD|TMP|g" >"$TMPD/err.got"
    cmp -s "$1" "$TMPD/err.got" && pass || fail "$2: stderr differs from $1: $(head -c 300 "$TMPD/err.got")"
}
mkdir -p "$TMPD/fin/x.png" "$TMPD/fseeds/a.png"
cp "$DATA/tiny.jpg" "$TMPD/fin/a.jpg"
expect_exit 1 "folders as files" -- "$FLOWCUT" batch "$TMPD/fin" -o "$TMPD/fout" --seeds-dir "$TMPD/fseeds" --engine cpu
expect_stderr_exact "$HERE/expected/batch_folders.err" "a seed folder, an input folder named x.png"
expect_exit 1 "a listed folder" -- "$FLOWCUT" batch --list <(echo "$TMPD/fin/x.png") -o "$TMPD/fout" --seeds-dir "$TMPD/fseeds"
expect_stderr_exact "$HERE/expected/batch_list_folder.err" "a listed folder"

# --- outputs honour the umask, an empty mask is not done, and a killed run's
# temporary files go while a writer's (locked) and other names stay
D=$TMPD/dur
mkdir -p "$D/in" "$D/seeds" "$D/out"
for n in c d; do cp "$DATA/tiny.jpg" "$D/in/$n.jpg"; $PNG halves 16 8 "$D/seeds/$n.png"; done
for f in .c.png.tmp-Ab12Cd .d.png.tmp-Xy34Zw .notes.txt.tmp-Ab12Cd .c.png.tmp-Ab12 .c.png.tmp-Ab12Cd.keep; do
    : >"$D/out/$f"
    touch -d '-1 hour' "$D/out/$f"
done
exec 9<"$D/out/.d.png.tmp-Xy34Zw"
flock 9 # another process writing that file
(umask 027 && "$FLOWCUT" batch "$D/in" -o "$D/out" --seeds-dir "$D/seeds" --engine cpu 9<&-) >"$TMPD/out" 2>"$TMPD/err"
code=$?
exec 9<&-
[ $code -eq 0 ] && pass || fail "batch with stale temporaries: exit $code"
[ "$(stat -c %a "$D/out/c.png")" = 640 ] && pass || fail "mask mode $(stat -c %a "$D/out/c.png") under umask 027, expected 640"
[ ! -e "$D/out/.c.png.tmp-Ab12Cd" ] && pass || fail "a killed run's temporary file stayed"
for f in .d.png.tmp-Xy34Zw .notes.txt.tmp-Ab12Cd .c.png.tmp-Ab12 .c.png.tmp-Ab12Cd.keep; do
    [ -e "$D/out/$f" ] && pass || fail "$f removed: locked, or not a name of ours"
done
expect_stderr "out: removed 1 temporary file of an interrupted run" "says what it removed"
: >"$D/out/c.png" # what a power loss leaves of an unsynced write
expect_exit 0 "empty mask" -- "$FLOWCUT" batch "$D/in" -o "$D/out" --seeds-dir "$D/seeds" --engine cpu
expect_stderr '1 ok, 0 failed, 1 skipped' "an empty mask is redone"
[ -s "$D/out/c.png" ] && pass || fail "empty mask not redone"

# --- Ctrl-C: stops cleanly, leaves no partial file, a rerun resumes (40 photos:
# a run must still be going after half a second on a fast machine)
mkdir -p "$TMPD/big" "$TMPD/bigseeds" "$TMPD/many" "$TMPD/manyseeds"
for i in 1 2 3 4 5 6 7 8; do cp "$EX/coffee.png" "$TMPD/big/p$i.png"; cp "$EX/coffee-seeds.png" "$TMPD/bigseeds/p$i.png"; done
for i in $(seq 40); do ln -s "$EX/coffee.png" "$TMPD/many/p$i.png"; ln -s "$EX/coffee-seeds.png" "$TMPD/manyseeds/p$i.png"; done
"$FLOWCUT" batch "$TMPD/many" -o "$TMPD/manyout" --seeds-dir "$TMPD/manyseeds" --jobs 1 --engine cpu 2>"$TMPD/err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
code=$?
[ $code -eq 130 ] && pass || fail "interrupted batch exits 130, got $code"
expect_stderr 'interrupted' "says it was interrupted"
[ -z "$(find "$TMPD/manyout" -name '.*' 2>/dev/null)" ] && pass || fail "temporary files after Ctrl-C"
done_before=$(find "$TMPD/manyout" -name '*.png' 2>/dev/null | wc -l)
[ "$done_before" -lt 40 ] && pass || fail "Ctrl-C did not stop the run"
expect_exit 0 "resume" -- "$FLOWCUT" batch "$TMPD/many" -o "$TMPD/manyout" --seeds-dir "$TMPD/manyseeds" --engine cpu
expect_stderr "$((40 - done_before)) ok, 0 failed, $done_before skipped" "resume does the rest"
expect_same "$TMPD/a.png" "$TMPD/manyout/p40.png" "resumed mask"

# --- with a GPU: several photos on it at once (streams); the masks are the CPU engine's
if "$FLOWCUT" maxflow --engine gpu "$DATA/max_flow.dat" >/dev/null 2>&1; then
    expect_exit 0 "gpu streams" -- "$FLOWCUT" batch "$TMPD/big" -o "$TMPD/gpuout" --seeds-dir "$TMPD/bigseeds" \
        --engine auto --per-gpu 3 --jobs 4 --time
    expect_stderr "GPUs x 3 streams solving" "reports the streams"
    for i in 1 2 3 4 5 6 7 8; do expect_same "$TMPD/a.png" "$TMPD/gpuout/p$i.png" "GPU batch mask $i"; done
    # several photos in one launch (their networks' union), one stream: the same masks
    expect_exit 0 "gpu launches of 4" -- "$FLOWCUT" batch "$TMPD/big" -o "$TMPD/gpuout4" --seeds-dir "$TMPD/bigseeds" \
        --engine gpu --per-gpu 1 --per-launch 4 --jobs 8 --time
    expect_stderr "1 streams solving [0-9]+%; [0-9]+ launches, [0-9.]+ networks each" "reports the launches"
    for i in 1 2 3 4 5 6 7 8; do expect_same "$TMPD/a.png" "$TMPD/gpuout4/p$i.png" "GPU union mask $i"; done
else
    echo "skipped: no CUDA device (batch on GPU streams)"
fi

finish
