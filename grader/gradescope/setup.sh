#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu 22.04, after
# apt-get update), with the zip unpacked in /autograder/source. What it installs depends on the
# mode in gradescope_mode: precomputed results need only Python; the cpu mode builds and runs the
# labs, in bubblewrap's sandbox, so it needs a compiler, GoogleTest, bubblewrap, and meson, ninja
# and numpy (requirements.txt, into source/.venv: Ubuntu 22.04's meson is older than 1.0.1).
set -euo pipefail
AUTOGRADER_ROOT="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$AUTOGRADER_ROOT/source"
mode="$(tr -d '[:space:]' <"$source_dir/gradescope_mode")"
export DEBIAN_FRONTEND=noninteractive

case "$mode" in
  precomputed)
    apt-get install -y --no-install-recommends python3
    ;;
  cpu)
    # g++, GoogleTest, bubblewrap, util-linux, python3-venv: the list is the batch's own.
    bash "$source_dir/grader/batch/install_cpu_tools.sh"
    python3 -m venv "$source_dir/.venv"
    "$source_dir/.venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
      -r "$source_dir/requirements.txt"
    # Build once now, so that each submission compiles only its own files. Not fatal: a sandbox
    # may be refused while the image is built and allowed when it runs.
    # grader/ is the import root of the grader's Python (CONTRIBUTING.md, "Python imports").
    if ! PATH="$source_dir/.venv/bin:$PATH" PYTHONPATH="$source_dir/grader${PYTHONPATH:+:$PYTHONPATH}" \
        "$source_dir/.venv/bin/python3" "$source_dir/grader/gradescope/autograder.py" warm-up; then
      echo "warning: the warm-up build failed (see above); submissions will build from scratch"
    fi
    ;;
  *)
    echo "error: $source_dir/gradescope_mode holds '$mode', not precomputed or cpu" >&2
    exit 1
    ;;
esac
