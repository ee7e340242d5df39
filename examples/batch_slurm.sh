#!/usr/bin/env bash
# Segments a folder on a Slurm cluster: one array task per shard, one GPU
# each. Inputs are split by sorted relative path, so every image lands in
# exactly one shard; a task that dies is rerun with the same command and
# skips what it already wrote.
#   sbatch examples/batch_slurm.sh /data/photos /data/seeds /data/masks
#SBATCH --job-name=flowcut-batch
#SBATCH --array=1-8
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=16
#SBATCH --output=flowcut-%A-%a.log
set -euo pipefail
IN=${1:?usage: sbatch batch_slurm.sh IN_DIR SEEDS_DIR OUT_DIR}
SEEDS=${2:?}
OUT=${3:?}
mkdir -p "$OUT/logs"
flowcut batch "$IN" -r -o "$OUT" --seeds-dir "$SEEDS" \
    --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
    --jobs "${SLURM_CPUS_PER_TASK}" --json >"$OUT/logs/shard-${SLURM_ARRAY_TASK_ID}.jsonl"
