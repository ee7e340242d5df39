#!/usr/bin/env bash
# Allocation failures: flowcut segment, maxflow and batch with one failed
# allocation at every point of a run (the N-th, for every N), with every
# allocation failing from the N-th on, and with every allocation above a size
# failing (the arrays sized by the input). Each run must either succeed with
# the reference output or exit 1 with one line that says "out of memory";
# never crash, never leave a partial or temporary file.
set -u
FLOWCUT=${1:?usage: test_alloc_fail.sh FLOWCUT SHIM}
SHIM=${2:?usage: test_alloc_fail.sh FLOWCUT SHIM}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
PNG="python3 $HERE/../cli/png_tool.py"
. "$HERE/lib.sh"

if is_asan "$FLOWCUT"; then
    echo "skipped: $FLOWCUT is an AddressSanitizer build, which cannot take the LD_PRELOAD allocation shim"
    exit 77
fi

# Messages of failed allocations worded otherwise: zlib reports a failed
# allocation in its set-up as "bad parameters", which libpng passes on as a
# corrupt PNG. Tolerated and listed.
KNOWN='corrupt PNG: .*bad parameters to zlib'
: >"$TMPD/known"

$PNG halves 16 8 "$TMPD/seeds.png"
cp "$DATA/tiny.jpg" "$TMPD/photo.jpg"
"$FLOWCUT" generate grid --width 40 --height 30 --seed 3 -o "$TMPD/grid.max" 2>/dev/null || fail "generate grid"

# check NAME RC OUTPUT REFERENCE: the outcome of one run with a fault
check() {
    local name=$1 rc=$2 out=$3 ref=$4
    if [ "$rc" -eq 0 ]; then
        if cmp -s "$out" "$ref"; then pass; else fail "$name: exit 0 with an output unlike the reference"; fi
    elif [ "$rc" -ne 1 ]; then
        fail "$name: exit $rc (a crash?): $(head -c 300 "$TMPD/err")"
    elif [ "$(wc -l <"$TMPD/err")" -ne 1 ]; then
        fail "$name: not one line: $(head -c 300 "$TMPD/err")"
    elif grep -qiE 'out of memory|cannot allocate memory' "$TMPD/err"; then
        pass
    elif grep -qE "$KNOWN" "$TMPD/err"; then
        sed "s|$TMPD/||" "$TMPD/err" >>"$TMPD/known"
        pass
    else
        fail "$name: exit 1 without an out-of-memory message: $(head -c 300 "$TMPD/err")"
    fi
    if [ -n "$(temps_in "$TMPD")" ]; then
        fail "$name: temporary files left: $(temps_in "$TMPD")"
        temps_in "$TMPD" | xargs rm -f
    fi
}

# count ENVIRONMENT... -- COMMAND...: the allocations of a clean run
count() {
    env LD_PRELOAD="$SHIM" FAULT_MALLOC_COUNT=1 "$@" 2>&1 >/dev/null | sed -n 's/^fault_shim: \([0-9]*\) allocations$/\1/p'
}

# segment: masks of one and two threads (the parallel build allocates per thread)
for threads in 1 2; do
    seg=("$FLOWCUT" segment "$TMPD/photo.jpg" --seeds "$TMPD/seeds.png" -o "$TMPD/m.png" --engine cpu --threads $threads)
    "${seg[@]}" -q && mv "$TMPD/m.png" "$TMPD/ref-$threads.png" || fail "segment reference"
    total=$(count "${seg[@]}" -f)
    [ "${total:-0}" -gt 20 ] && pass || fail "segment: shim counted ${total:-no} allocations"
    rm -f "$TMPD/m.png"
    stickies="0 1" # every allocation failing from the N-th on too: one thread is enough (the same paths)
    [ "$threads" -eq 1 ] || stickies=0
    for sticky in $stickies; do
        for n in $(seq 1 $((total + 2))); do
            env LD_PRELOAD="$SHIM" FAULT_MALLOC_NTH=$n FAULT_MALLOC_STICKY=$sticky "${seg[@]}" >/dev/null 2>"$TMPD/err"
            check "segment --threads $threads, allocation $n fails (sticky $sticky)" $? "$TMPD/m.png" "$TMPD/ref-$threads.png"
            rm -f "$TMPD/m.png"
        done
    done
    for above in 0 16 100 400 1000 4000 16000 64000; do
        env LD_PRELOAD="$SHIM" FAULT_MALLOC_ABOVE=$above "${seg[@]}" >/dev/null 2>"$TMPD/err"
        check "segment --threads $threads, allocations above $above bytes fail" $? "$TMPD/m.png" "$TMPD/ref-$threads.png"
        rm -f "$TMPD/m.png"
    done
done

# maxflow: each CPU algorithm on a small file and on a grid; every N once, one
# failure at a time (the sticky failures take the same recovery paths)
for alg in bk ibfs push-relabel; do
    for file in "$DATA/max_flow.dat" "$TMPD/grid.max"; do
        mf=("$FLOWCUT" maxflow --engine cpu --cpu-algorithm $alg "$file")
        "${mf[@]}" 2>/dev/null | grep -v '^c ' >"$TMPD/ref.txt" || fail "maxflow reference"
        total=$(count "${mf[@]}")
        [ "${total:-0}" -gt 5 ] && pass || fail "maxflow: shim counted ${total:-no} allocations"
        for n in $(seq 1 $((total + 2))); do
            env LD_PRELOAD="$SHIM" FAULT_MALLOC_NTH=$n "${mf[@]}" 2>"$TMPD/err" | grep -v '^c ' >"$TMPD/got.txt"
            check "maxflow $alg $(basename "$file"), allocation $n fails" "${PIPESTATUS[0]}" "$TMPD/got.txt" "$TMPD/ref.txt"
        done
        for above in 0 64 1000 10000 100000; do
            env LD_PRELOAD="$SHIM" FAULT_MALLOC_ABOVE=$above "${mf[@]}" 2>"$TMPD/err" | grep -v '^c ' >"$TMPD/got.txt"
            check "maxflow $alg $(basename "$file"), allocations above $above bytes fail" "${PIPESTATUS[0]}" \
                "$TMPD/got.txt" "$TMPD/ref.txt"
        done
    done
done

# batch: two photos; a failure fails its item (exit 1, one line each and the summary)
mkdir -p "$TMPD/in" "$TMPD/bseeds"
cp "$TMPD/photo.jpg" "$TMPD/in/a.jpg"
cp "$TMPD/photo.jpg" "$TMPD/in/b.jpg"
cp "$TMPD/seeds.png" "$TMPD/bseeds/a.png"
cp "$TMPD/seeds.png" "$TMPD/bseeds/b.png"
batch=("$FLOWCUT" batch "$TMPD/in" -o "$TMPD/bout" --seeds-dir "$TMPD/bseeds" --engine cpu --jobs 1 -q)
"${batch[@]}" 2>/dev/null && mv "$TMPD/bout" "$TMPD/bref" || fail "batch reference"
total=$(count "${batch[@]}")
for n in $(seq 1 3 $((total + 2))); do # every third: most are the same per-image paths as segment's
    env LD_PRELOAD="$SHIM" FAULT_MALLOC_NTH=$n "${batch[@]}" >/dev/null 2>"$TMPD/err"
    rc=$?
    name="batch, allocation $n fails"
    if [ $rc -ge 2 ]; then
        fail "$name: exit $rc (a crash?): $(head -c 300 "$TMPD/err")"
    elif [ $rc -eq 1 ] && ! grep -v '^flowcut batch: [0-9]* ok' "$TMPD/err" | grep -qiE "out of memory|cannot allocate memory|$KNOWN"; then
        fail "$name: exit 1 without an out-of-memory message: $(head -c 300 "$TMPD/err")"
    else
        pass
    fi
    for f in a.png b.png; do # what is there is complete
        [ ! -e "$TMPD/bout/$f" ] || cmp -s "$TMPD/bout/$f" "$TMPD/bref/$f" || fail "$name: $f differs from the reference"
    done
    [ -z "$(temps_in "$TMPD/bout")" ] || fail "$name: temporary files left"
    rm -rf "$TMPD/bout"
done

if [ -s "$TMPD/known" ]; then
    echo "known gaps (messages worded by images/, tolerated):"
    sort -u "$TMPD/known" | sed 's/^/    /'
fi
finish
