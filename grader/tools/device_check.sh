#!/usr/bin/env bash
# For maintainers, on a GPU machine: build with the solutions, run every suite (graded tests,
# self-tests, technique checks, unit tests), print the score table; with --starter, grade the
# untouched starter instead and print its table.
#   bash grader/tools/device_check.sh [--starter] [BUILD_DIR] [extra meson setup options...]
set -u
if [ "${1:-}" = "--starter" ]; then
  shift
  build=${1:-build-starter}
  shift || true
  setup=(-Dsubmission=starter -Dproject_tests=false)
  suites=(--suite grade)
else
  build=${1:-build-gpu}
  shift || true
  setup=(-Dsubmission=solutions)
  suites=()
fi
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
meson setup "$build" "${setup[@]}" "$@" >/dev/null || exit 1
ninja -C "$build" -k 0 >"$build/ninja.log" 2>&1 || { grep -A12 FAILED "$build/ninja.log" | head -60; exit 1; }
meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 1 "${suites[@]}" \
  >"$build/test.log" 2>&1
grep -E "^ *[0-9]+/[0-9]+ " "$build/test.log"
python3 grader/report.py "$build"
