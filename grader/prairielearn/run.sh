#!/usr/bin/env bash
# PrairieLearn's entrypoint for the workbook's questions (info.json, externalGradingOptions):
#   /workbook/grader/prairielearn/run.sh --labs 01
# grades /grade/student and writes /grade/results/results.json (grade_pl.py; PL_GRADE_ROOT moves
# /grade, e.g. for a test). `run.sh warm-up --labs 01` builds once when the image is made. The
# Python is the project's .venv where it has one (meson, ninja and numpy), else python3.
set -euo pipefail
project="$(cd "$(dirname "$0")/../.." && pwd)"
command=run
if [[ "${1:-}" == warm-up ]]; then
  command=warm-up
  shift
fi
python=python3
if [[ -x "$project/.venv/bin/python3" ]]; then
  python="$project/.venv/bin/python3"
  export PATH="$project/.venv/bin:$PATH"
fi
status=0
# grader/ is the import root of the grader's Python (CONTRIBUTING.md, "Python imports").
PYTHONPATH="$project/grader${PYTHONPATH:+:$PYTHONPATH}" \
  "$python" "$project/grader/prairielearn/grade_pl.py" "$command" "$@" || status=$?
results="${PL_GRADE_ROOT:-/grade}/results/results.json"
if [[ "$command" == run && ! -s "$results" ]]; then
  # Even when Python itself failed: PrairieLearn needs a result, and a set-up failure is not the
  # student's (not gradable: no attempt used).
  mkdir -p "$(dirname "$results")"
  printf '%s\n' '{"gradable": false, "message": "The grader failed before grading this submission; this is a problem of the grading set-up, not of your code. Your course staff can see why in the job log."}' >"$results"
  echo "grade_pl.py exited with status $status and wrote no results.json"
fi
# A run always leaves a results.json, which PrairieLearn reads; a warm-up's status is the image
# build's to see.
if [[ "$command" == warm-up ]]; then
  exit "$status"
fi
