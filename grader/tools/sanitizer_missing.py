#!/usr/bin/env python3
"""Stand-in for compute-sanitizer where it is not installed (or on the CPU backend): explain, and
report the test as skipped. Takes and ignores compute-sanitizer's arguments and the test command."""
import sys

print("compute-sanitizer was not found at configure time, so this setup cannot run.\n"
      "It ships with the CUDA toolkit (cuda/bin or cuda/compute-sanitizer); put it on PATH and run\n"
      "`meson setup --reconfigure BUILD_DIR`. The CPU backend has no sanitizer setups.", file=sys.stderr)
sys.exit(77)
