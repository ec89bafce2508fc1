#!/usr/bin/env bash
# Times the student's loop from a fresh clone of this repository (committed state, in a temporary
# folder, ccache off): (a) the first `grade.py` (.venv, configure, build, grading), (b) one lab
# regraded after an edit (lab 01's starter file touched), (c) with --project-tests, the project's
# own tests. Prints one table, the machine and the date. A benchmark, not a test: nothing registers
# it. Exits non-zero when a step fails (grade.py exit 2, or any failure of the project tests).
#
#   grader/tools/bench_student_loop.sh [--project-tests] [--python PYTHON3] [--keep]
#
# --python: the interpreter a student runs grade.py with (default python3); one without meson and
# numpy (e.g. Debian's /usr/bin/python3) makes grade.py build .venv, as on a new laptop.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
python=python3 project_tests=0 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --project-tests) project_tests=1 ;;
    --python) python="$2"; shift ;;
    --keep) keep=1 ;;
    *) echo "usage: $0 [--project-tests] [--python PYTHON3] [--keep]" >&2; exit 2 ;;
  esac
  shift
done
scratch="$(mktemp -d "${TMPDIR:-/tmp}/bench-student-loop.XXXXXX")"
[ "$keep" = 1 ] && echo "keeping $scratch" || trap 'rm -rf "$scratch"' EXIT
git clone -q "$repo" "$scratch/workbook"
cd "$scratch/workbook"
export CCACHE_DISABLE=1
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

rows=() failed=0
# step LABEL OK-EXITS COMMAND...: runs it, its output in $scratch/step-N.log, records seconds.
step() {
  local label="$1" ok="$2"; shift 2
  local log="$scratch/step-${#rows[@]}.log" start end status=0
  start="$(date +%s%N)"
  "$@" > "$log" 2>&1 || status=$?
  end="$(date +%s%N)"
  local verdict=ok
  if [[ " $ok " != *" $status "* ]]; then verdict="FAILED (exit $status, see $log)"; failed=1; keep=1; fi
  local tenths=$(( (end - start) / 100000000 ))
  rows+=("$(printf '%-50s %6d.%d  %s' "$label" $((tenths / 10)) $((tenths % 10)) "$verdict")")
}

# The starter fails its tests (exit 1); exit 2 is a set-up or build error.
step "(a) first grade.py: .venv, configure, build, grade" "0 1" "$python" grader/grade.py
made_venv=no; [ -d .venv ] && made_venv=yes
steps="$(grep -c . build/.ninja_log || true)"
touch starter/lab01_global_atomics.cu
step "(b) lab 01 regraded after an edit (--labs 01)" "0 1" "$python" grader/grade.py --labs 01
if [ "$project_tests" = 1 ]; then
  step "(c) grade.py --project-tests" "0" "$python" grader/grade.py --project-tests
fi
[ "$failed" = 0 ] || trap - EXIT  # keep the logs of a failed step

printf '%-50s %8s  %s\n' "step" "seconds" "result"
printf '%s\n' "${rows[@]}"
echo "first build: $steps ninja steps; .venv made: $made_venv ($python)"
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1);" \
     "load $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "commit: $(git rev-parse --short HEAD) $(git log -1 --format=%s)"
exit "$failed"
