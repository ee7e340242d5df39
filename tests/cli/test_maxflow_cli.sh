#!/usr/bin/env bash
# CLI tests of `flowcut maxflow` and `flowcut generate`: exit codes, output,
# error messages with FILE:LINE, atomic outputs.
set -u
FLOWCUT=${1:?usage: test_maxflow_cli.sh FLOWCUT}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
. "$HERE/lib.sh"

# known values, both engines' entry points
tail -n +2 "$DATA/EXPECTED.tsv" | while IFS=$'\t' read -r file nodes arcs s t value rest; do
    echo "s $value" >"$TMPD/want"
    "$FLOWCUT" maxflow --verify "$DATA/$file" >"$TMPD/got" 2>"$TMPD/err" || echo "FAIL: $file exit" >>"$TMPD/bad"
    cmp -s "$TMPD/want" "$TMPD/got" || echo "FAIL: $file value $(cat "$TMPD/got")" >>"$TMPD/bad"
    "$FLOWCUT" maxflow --verify --flow --engine cpu "$DATA/$file" >"$TMPD/flow" 2>"$TMPD/err" || echo "FAIL: $file --flow exit" >>"$TMPD/bad"
    [ "$(grep -c '^f ' "$TMPD/flow")" -eq "$arcs" ] || echo "FAIL: $file f-line count" >>"$TMPD/bad"
    "$FLOWCUT" maxflow --verify --flow --engine cpu --cpu-algorithm bk "$DATA/$file" >"$TMPD/bk" 2>"$TMPD/err" ||
        echo "FAIL: $file bk exit" >>"$TMPD/bad"
    [ "$(head -1 "$TMPD/bk")" = "s $value" ] || echo "FAIL: $file bk value $(head -1 "$TMPD/bk")" >>"$TMPD/bad"
done
if [ -s "$TMPD/bad" ]; then cat "$TMPD/bad"; FAILS=$((FAILS + $(wc -l <"$TMPD/bad"))); else pass; fi

# without --flow or --verify the engines solve for the value and the cut
# alone (cut_only): the same value and, bit for bit, the same cut
tail -n +2 "$DATA/EXPECTED.tsv" | while IFS=$'\t' read -r file nodes arcs s t value rest; do
    for alg in push-relabel bk ibfs; do
        "$FLOWCUT" maxflow --engine cpu --cpu-algorithm $alg --cut "$TMPD/c1" -f "$DATA/$file" >"$TMPD/v1" 2>/dev/null &&
            "$FLOWCUT" maxflow --verify --flow --engine cpu --cpu-algorithm $alg --cut "$TMPD/c2" -f "$DATA/$file" \
                >"$TMPD/v2" 2>/dev/null || { echo "FAIL: $file $alg exit" >>"$TMPD/bad2"; continue; }
        [ "$(cat "$TMPD/v1")" = "s $value" ] || echo "FAIL: $file $alg cut-only value $(cat "$TMPD/v1")" >>"$TMPD/bad2"
        cmp -s "$TMPD/c1" "$TMPD/c2" || echo "FAIL: $file $alg cut-only cut differs" >>"$TMPD/bad2"
    done
done
if [ -s "$TMPD/bad2" ]; then cat "$TMPD/bad2"; FAILS=$((FAILS + $(wc -l <"$TMPD/bad2"))); else pass; fi

expect_exit 0 "stdin" -- sh -c "\"$FLOWCUT\" maxflow - < \"$DATA/max_flow.dat\""
expect_stdout '^s 13$' "stdin value"

# expected output, DIMACS solution with flows (zstd-style golden file; the
# flows on the arcs are push-relabel's, another algorithm's maximum flow
# may route differently)
expect_exit 0 "flow lines" -- "$FLOWCUT" maxflow --flow --engine cpu --cpu-algorithm push-relabel "$DATA/max_flow2.dat"
expect_same "$TMPD/out" "$HERE/expected/max_flow2.flow" "flow output"

expect_exit 0 "verify" -- "$FLOWCUT" maxflow --verify "$DATA/max_flow6.dat"
expect_stderr "^flowcut: .*max_flow6.dat: certificate holds \(capacities, conservation, cut = flow\)$" "verify says so"
expect_stdout "^s [0-9]+$" "verify keeps stdout the answer"
expect_exit 0 "json" -- "$FLOWCUT" maxflow --json --verify "$DATA/max_flow6.dat"
expect_stdout '"flow": 112' "json flow"
expect_stdout '"verified": true' "json verified"
expect_stdout '"stats": \{"pushes": [0-9]+, "relabels"' "json engine stats"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMPD/out" && pass || fail "json does not parse"

expect_exit 0 "time" -- "$FLOWCUT" maxflow --time "$DATA/max_flow6.dat"
expect_stderr '^time: parse .* build .* solve' "time line"

# cut file: written atomically, never overwritten without -f
expect_exit 0 "cut" -- "$FLOWCUT" maxflow --cut "$TMPD/cut.txt" "$DATA/max_flow.dat"
head -1 "$TMPD/cut.txt" | grep -qx 1 && pass || fail "cut file starts with the source"
expect_exit 1 "cut exists" -- "$FLOWCUT" maxflow --cut "$TMPD/cut.txt" "$DATA/max_flow.dat"
expect_stderr 'already exists' "cut exists message"
[ -s "$TMPD/out" ] && fail "cut exists: solved before refusing" || pass
expect_exit 2 "cut to standard output" -- "$FLOWCUT" maxflow --cut - "$DATA/max_flow.dat"
expect_stderr '^flowcut maxflow: --cut -: give a file name' "cut to standard output"
[ ! -e ./- ] && pass || fail "--cut - wrote a file named -"
expect_exit 0 "cut -f" -- "$FLOWCUT" maxflow -f --cut "$TMPD/cut.txt" "$DATA/max_flow.dat"
ls -a "$TMPD" | grep -q 'tmp-' && fail "temporary file left behind" || pass

# usage errors exit 2
expect_exit 2 "no args" -- "$FLOWCUT" maxflow
expect_exit 2 "bad engine" -- "$FLOWCUT" maxflow --engine tpu "$DATA/max_flow.dat"
expect_exit 2 "bad cpu algorithm" -- "$FLOWCUT" maxflow --cpu-algorithm simplex "$DATA/max_flow.dat"
expect_exit 2 "unknown option" -- "$FLOWCUT" maxflow --frobnicate "$DATA/max_flow.dat"
expect_exit 2 "unknown command" -- "$FLOWCUT" frobnicate
expect_exit 0 "help" -- "$FLOWCUT" maxflow --help
expect_exit 0 "version" -- "$FLOWCUT" --version
expect_stdout '^flowcut [0-9]' "version text"

# GPU: works where a device exists, else a clear failure
if "$FLOWCUT" maxflow --engine gpu "$DATA/max_flow.dat" >"$TMPD/out" 2>"$TMPD/err"; then
    expect_stdout '^s 13$' "gpu value"
else
    expect_stderr 'no CUDA device|no CUDA support' "gpu absent message"
fi

# malformed input: exit 1, FILE:LINE: message
printf 'p max 3 1\nn 1 s\nn 3 t\na 1 2 -4\n' >"$TMPD/neg.max"
expect_exit 1 "negative capacity" -- "$FLOWCUT" maxflow "$TMPD/neg.max"
expect_stderr "neg.max:4: negative capacity" "negative capacity message"
printf 'p max 3 2\nn 1 s\nn 3 t\na 1 2 4\n' >"$TMPD/few.max"
expect_exit 1 "too few arcs" -- "$FLOWCUT" maxflow "$TMPD/few.max"
expect_stderr "few.max:4: fewer arcs" "too few arcs message"
printf 'p max 3 1\nn 1 s\nn 3 t\nq\n' >"$TMPD/unk.max"
expect_exit 1 "unknown line" -- "$FLOWCUT" maxflow "$TMPD/unk.max"
expect_stderr "unk.max:4: unknown line type" "unknown line message"
expect_exit 1 "missing file" -- "$FLOWCUT" maxflow "$TMPD/none.max"
expect_stderr "none.max: cannot open" "missing file message"

# --updates: every batch's value equals a cold solve of the rewritten problem
for file in max_flow.dat max_flow4.dat max_flow6.dat gl1.max wlm3.max; do
    for engine in cpu auto; do
        rm -rf "$TMPD/upd" && mkdir "$TMPD/upd"
        python3 "$HERE/updates_tool.py" "$DATA/$file" "$TMPD/upd/u.txt" "$TMPD/upd" 9 7 || fail "updates_tool $file"
        "$FLOWCUT" maxflow --verify --engine $engine "$DATA/$file" >"$TMPD/upd/want" 2>"$TMPD/err"
        for b in 1 2 3 4 5 6 7 8 9; do
            "$FLOWCUT" maxflow --verify --engine cpu "$TMPD/upd/batch$b.max" >>"$TMPD/upd/want" 2>>"$TMPD/err"
        done
        expect_exit 0 "updates $file $engine" -- "$FLOWCUT" maxflow --verify --engine $engine --updates "$TMPD/upd/u.txt" "$DATA/$file"
        expect_same "$TMPD/out" "$TMPD/upd/want" "updates $file $engine: values per batch"
    done
done
# flows after each batch are valid flows; the cut file is the last batch's
python3 "$HERE/updates_tool.py" "$DATA/max_flow6.dat" "$TMPD/u6.txt" "$TMPD" 4 11
expect_exit 0 "updates --flow" -- "$FLOWCUT" maxflow --verify --flow --updates "$TMPD/u6.txt" --cut "$TMPD/ucut" -f "$DATA/max_flow6.dat"
[ "$(grep -c '^s ' "$TMPD/out")" -eq 5 ] && pass || fail "updates --flow: 5 s lines"
"$FLOWCUT" maxflow --cut "$TMPD/ucut4" -f "$TMPD/batch4.max" >/dev/null
expect_same "$TMPD/ucut" "$TMPD/ucut4" "updates: cut of the last batch"
expect_exit 0 "updates json" -- "$FLOWCUT" maxflow --json --updates "$TMPD/u6.txt" "$DATA/max_flow6.dat"
[ "$(grep -c '"warm": ' "$TMPD/out")" -eq 5 ] && pass || fail "updates json: the solve and 4 batches say warm or cold"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMPD/out" && pass || fail "updates json lines do not parse"
expect_exit 0 "updates time" -- "$FLOWCUT" maxflow --time --updates "$TMPD/u6.txt" "$DATA/max_flow6.dat"
expect_stderr '^time: batch 4: warm' "updates time line"
# bad update files: FILE:LINE: message, exit 1, nothing printed
printf 'c x\nb\nu 1 5\nu 99 3\n' >"$TMPD/bad1.txt"
printf 'u 1 5\n' >"$TMPD/bad2.txt"
printf 'b\nu 1 -5\n' >"$TMPD/bad3.txt"
printf 'b\nu 1\n' >"$TMPD/bad4.txt"
printf 'b\nu 1 2 3\n' >"$TMPD/bad5.txt"
printf 'b\nx 1 2\n' >"$TMPD/bad6.txt"
printf 'b\nu 1 2147483648\n' >"$TMPD/bad7.txt"
printf 'bb\n' >"$TMPD/bad8.txt"
n=0
for msg in "bad1.txt:4: arc number 99 out of range 1..20" "bad2.txt:1: update line before the first batch" \
    "bad3.txt:2: capacity -5 outside" "bad4.txt:2: missing field: capacity" "bad5.txt:2: unexpected extra field" \
    "bad6.txt:2: unknown line type 'x'" "bad7.txt:2: capacity 2147483648 outside" "bad8.txt:1: unknown line type"; do
    n=$((n + 1))
    expect_exit 1 "bad updates $n" -- "$FLOWCUT" maxflow --updates "$TMPD/bad$n.txt" "$DATA/max_flow.dat"
    expect_stderr "$msg" "bad updates $n message"
    [ -s "$TMPD/out" ] && fail "bad updates $n: printed $(head -c 100 "$TMPD/out")" || pass
done
expect_exit 1 "updates missing" -- "$FLOWCUT" maxflow --updates "$TMPD/none.txt" "$DATA/max_flow.dat"
expect_stderr "none.txt: cannot open" "updates missing message"
# an update a merged antiparallel pair cannot hold (its two capacities
# would sum past 2147483647): refused with its line before anything is
# solved or printed; kept apart (--no-merge), the same script runs
printf 'p max 3 3\nn 1 s\nn 3 t\na 1 2 5\na 2 1 7\na 2 3 2147483647\n' >"$TMPD/anti.max"
printf 'b\nu 2 3\nb\nu 1 2147483647\n' >"$TMPD/anti.txt"
expect_exit 1 "merged pair update" -- "$FLOWCUT" maxflow --updates "$TMPD/anti.txt" "$TMPD/anti.max"
expect_stderr "anti.txt:4: .*2147483650.*--no-merge" "merged pair update message"
[ -s "$TMPD/out" ] && fail "merged pair update: printed $(head -c 100 "$TMPD/out") before the error" || pass
expect_exit 0 "merged pair update, --no-merge" -- "$FLOWCUT" maxflow --no-merge --updates "$TMPD/anti.txt" "$TMPD/anti.max"
expect_same "$TMPD/out" "$HERE/expected/anti_updates.out" "merged pair update, --no-merge: values"

# sizes: the problem line is checked against the reader's limits before
# anything is allocated; the message names the flag that raises a limit
printf 'p max 2147483646 1\nn 1 s\nn 2 t\na 1 2 5\n' >"$TMPD/huge.max"
expect_exit 1 "declared vertices over the limit" -- "$FLOWCUT" maxflow "$TMPD/huge.max"
expect_stderr "huge.max:1: node count 2147483646 over the limit of 134217728 vertices.*--max-vertices N" "vertex limit message"
[ "$(wc -l <"$TMPD/err")" -eq 1 ] && pass || fail "vertex limit message is not one line"
expect_exit 1 "--max-vertices" -- "$FLOWCUT" maxflow --max-vertices 7 "$DATA/max_flow.dat"
expect_stderr "node count 8 over the limit of 7 vertices" "--max-vertices message"
expect_exit 1 "--max-arcs" -- "$FLOWCUT" maxflow --max-arcs 19 "$DATA/max_flow.dat"
expect_stderr "arc count 20 over the limit of 19 arcs.*--max-arcs N" "--max-arcs message"
expect_exit 0 "limits that fit" -- "$FLOWCUT" maxflow --max-vertices 8 --max-arcs 20 "$DATA/max_flow.dat"
expect_stdout '^s 13$' "limits that fit: value"
expect_exit 2 "bad --max-arcs" -- "$FLOWCUT" maxflow --max-arcs x "$DATA/max_flow.dat"
expect_exit 0 "help names the limits" -- "$FLOWCUT" maxflow --help
expect_stdout "--max-vertices N" "help: --max-vertices"
expect_stdout "--max-arcs N" "help: --max-arcs"

# not DIMACS: refused at once, without reading on
expect_exit 1 "png" -- "$FLOWCUT" maxflow "$DATA/coffee-mask.png"
expect_stderr "coffee-mask.png: not a DIMACS max-flow file \(binary data at byte 0\)" "png message"
expect_exit 1 "endless zeros" -- timeout 20 "$FLOWCUT" maxflow /dev/zero
expect_stderr "^flowcut: /dev/zero: not a DIMACS max-flow file \(binary data at byte 0\)$" "endless zeros message"
expect_exit 1 "endless zeros on stdin" -- sh -c "timeout 20 \"$FLOWCUT\" maxflow - </dev/zero"
expect_stderr "<stdin>: not a DIMACS max-flow file" "endless zeros on stdin message"
expect_exit 1 "updates of zeros" -- timeout 20 "$FLOWCUT" maxflow --updates /dev/zero "$DATA/max_flow.dat"
expect_stderr "/dev/zero: not an update file \(binary data at byte 0\)" "updates of zeros message"

# generate: deterministic, valid, solvable; -o atomic
for fam in "genrmf -a 5 -b 4" "washington-rlg --rows 6 --cols 7" "acyclic-dense -n 20" "grid --width 20 --height 15 --connectivity 8" \
    "rmat-pair --scale 9 --pair 2"; do
    expect_exit 0 "generate $fam" -- "$FLOWCUT" generate $fam --seed 3 -o "$TMPD/g.max" -f
    "$FLOWCUT" generate $fam --seed 3 >"$TMPD/g2.max"
    expect_same "$TMPD/g.max" "$TMPD/g2.max" "generate $fam deterministic"
    expect_exit 0 "solve $fam" -- "$FLOWCUT" maxflow --verify --flow "$TMPD/g.max"
done

# --cpu-algorithm auto says what it ran: push-relabel where the vertices lie
# far from the source, IBFS near it or with unit capacities, BK on grids
for case in "genrmf -a 6 -b 8|push-relabel" "rmat --scale 10|ibfs" "matching --left 300 --right 300|ibfs" \
    "grid --width 40 --height 30|bk"; do
    "$FLOWCUT" generate ${case%|*} -o "$TMPD/g.max" -f
    expect_exit 0 "auto on ${case%|*}" -- "$FLOWCUT" maxflow --json --engine cpu --cpu-algorithm auto "$TMPD/g.max"
    expect_stdout "\"cpu_algorithm\": \"${case#*|}\"" "auto picks ${case#*|} for ${case%|*}"
done
expect_exit 0 "named algorithm" -- "$FLOWCUT" maxflow --json --engine cpu --cpu-algorithm bk "$TMPD/g.max"
expect_stdout '"cpu_algorithm": "bk"' "json names the algorithm asked for"
expect_exit 0 "time names the algorithm" -- "$FLOWCUT" maxflow --time --engine cpu --cpu-algorithm ibfs "$TMPD/g.max"
expect_stderr 'cpu engine, ibfs, [0-9.]+ s: set-up' "time line names the algorithm"
expect_exit 2 "generate unknown family" -- "$FLOWCUT" generate torus
expect_exit 2 "generate missing size" -- "$FLOWCUT" generate genrmf -a 4
expect_exit 2 "generate bad value" -- "$FLOWCUT" generate genrmf -a x -b 3
# rmat-pair: the comment names the degree ranks, --pair K takes ranks 2K-1, 2K
"$FLOWCUT" generate rmat-pair --scale 9 --pair 2 -o "$TMPD/g.max" -f
ranks=$(sed -n 's/^c vertices of degree ranks 1-10: //p' "$TMPD/g.max")
[ "$(sed -n 's/^n \([0-9]*\) s$/\1/p' "$TMPD/g.max") $(sed -n 's/^n \([0-9]*\) t$/\1/p' "$TMPD/g.max")" = \
    "$(cut -d' ' -f3,4 <<<"$ranks")" ] && pass || fail "rmat-pair --pair 2: terminals are not ranks 3 and 4 of '$ranks'"
expect_exit 2 "generate rmat-pair bad probabilities" -- "$FLOWCUT" generate rmat-pair --scale 9 --probabilities 50,50,1
expect_stderr "for --probabilities" "rmat-pair probabilities message"
expect_exit 2 "generate rmat-pair bad pair" -- "$FLOWCUT" generate rmat-pair --scale 9 --pair 65

finish
