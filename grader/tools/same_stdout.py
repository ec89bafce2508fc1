#!/usr/bin/env python3
"""Run two commands and succeed only if both succeed and print the same thing.

Usage: same_stdout.py -- COMMAND_A ARGS... -- COMMAND_B ARGS...
"""
import subprocess
import sys


def main(argv):
    if argv.count("--") != 2 or argv[0] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--", 1)
    outputs = []
    for command in (argv[1:split], argv[split + 1:]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}", file=sys.stderr)
            return 1
        outputs.append(done.stdout.strip())
        print(f"{' '.join(command)}\n  -> {outputs[-1]}")
    if outputs[0] != outputs[1]:
        print("the two outputs differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
