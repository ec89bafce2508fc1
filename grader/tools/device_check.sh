#!/usr/bin/env bash
# Build and run every suite on a GPU machine, then print the score table. For maintainers:
#   bash grader/tools/device_check.sh [BUILD_DIR] [extra meson setup options...]
set -u
build=${1:-build-gpu}
shift || true
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
meson setup "$build" -Dsubmission=solutions "$@" >/dev/null || exit 1
ninja -C "$build" >"$build/ninja.log" 2>&1 || { tail -50 "$build/ninja.log"; exit 1; }
meson test -C "$build" --print-errorlogs --num-processes 1 >"$build/test.log" 2>&1
grep -E "^ *[0-9]+/[0-9]+ " "$build/test.log"
python3 grader/report.py "$build"
