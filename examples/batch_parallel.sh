#!/usr/bin/env bash
# Segments a folder with GNU parallel: N shards, each a `flowcut batch`
# process, here on this machine (add `-S host1,host2` to spread them over
# machines that share the folders). Each shard writes its JSON lines to
# its own log; rerunning the same command resumes.
#   examples/batch_parallel.sh IN_DIR SEEDS_DIR OUT_DIR [N]
set -euo pipefail
IN=${1:?usage: batch_parallel.sh IN_DIR SEEDS_DIR OUT_DIR [N]}
SEEDS=${2:?}
OUT=${3:?}
N=${4:-4}
mkdir -p "$OUT/logs"
JOBS=$(( $(nproc) / N > 0 ? $(nproc) / N : 1 ))
seq 1 "$N" | parallel --halt never --line-buffer \
    "flowcut batch '$IN' -r -o '$OUT' --seeds-dir '$SEEDS' --shard {}/$N --jobs $JOBS --json --no-progress \
     >'$OUT/logs/shard-{}.jsonl'"
# every shard's summary went to stderr; count the outcomes over all shards
cat "$OUT"/logs/shard-*.jsonl | grep -o '"status": "[a-z]*"' | sort | uniq -c
