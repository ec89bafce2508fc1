#!/bin/bash
# Submit a class's grading: an array of SHARDS tasks (grade_class.sbatch), then a merge job that
# starts when every task has succeeded (and is cancelled if one fails: re-run that shard, see
# grade_class.sbatch, then merge by hand). Paths are taken from where you run it:
#   CLASS=class REPORT=report SHARDS=8 SEED_FILE=~/seed grader/batch/slurm/submit.sh [sbatch options]
# sbatch options given here (e.g. --partition=gpu --gres=gpu:1) apply to the grading tasks; for
# both jobs, use Slurm's own variables (e.g. SBATCH_ACCOUNT=course42).
# Prints the two job ids.
set -euo pipefail
SHARDS=${SHARDS:-4}
CLASS=$(realpath -m "${CLASS:-class}") REPORT=$(realpath -m "${REPORT:-report}")
if [ -n "${SEED_FILE:-}" ]; then SEED_FILE=$(realpath -m "$SEED_FILE"); export SEED_FILE; fi
export CLASS REPORT SHARDS
PYTHON=${PYTHON:-python3}
cd "$(dirname "$0")/../../.."   # the checkout's root: the tasks run there
mkdir -p "$REPORT/logs"   # Slurm does not create the folder of --output
array=$(sbatch --parsable --export=ALL --array="1-$SHARDS" --output="$REPORT/logs/shard-%a.log" "$@" \
        grader/batch/slurm/grade_class.sbatch)
array=${array%%;*}        # --parsable prints "id" or "id;cluster"
shard_dirs=$(for k in $(seq 1 "$SHARDS"); do printf ' %q' "$REPORT/shards/$k"; done)
merge=$(sbatch --parsable --export=ALL --job-name=grade-class-merge --dependency="afterok:$array" \
        --kill-on-invalid-dep=yes --ntasks=1 --cpus-per-task=1 --time=00:30:00 \
        --output="$REPORT/logs/merge.log" \
        --wrap="$(printf '%q' "$PYTHON") grader/grade_submissions.py merge --out $(printf '%q' "$REPORT")$shard_dirs")
merge=${merge%%;*}
echo "grading: job $array (shards 1-$SHARDS, logs in $REPORT/logs/); merge: job $merge -> $REPORT/index.html"
