#!/usr/bin/env python3
"""Grade a whole class: a folder of submissions in, per-student Gradescope results and a class
report (CSV, HTML) out.

    grade_submissions.py SUBMISSIONS --out REPORT_DIR [--labs 01,03] [--backend cuda|cpu]
                         [--jobs N] [--shard K/N] [--seed-file FILE | --input-seed N --data-seed N]
                         [--timeout SECONDS] [--force]
    grade_submissions.py merge --out REPORT_DIR SHARD_REPORT_DIR...

The instructor's guide is handouts/instructor-guide.md; the code is in grader/batch/ (cli.py
parses the options into settings.py's Settings; pipeline.py grades from them).
"""
import os
import sys

from batch.cli import main
from grade import ensure_cuobjdump, ensure_tools  # into .venv when missing
from toolchain import find_cuda_toolkit


def backend_asked(argv):
    """The --backend the command line names (batch/cli.py's default: cuda)."""
    for i, arg in enumerate(argv):
        if arg == "--backend" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--backend="):
            return arg.split("=", 1)[1]
    return "cuda"


if __name__ == "__main__":
    if sys.argv[1:2] != ["merge"]:
        ensure_tools(os.path.abspath(__file__))
        if backend_asked(sys.argv[1:]) == "cuda":
            ensure_cuobjdump(find_cuda_toolkit())  # its technique checks read each runner's code
    sys.exit(main())
