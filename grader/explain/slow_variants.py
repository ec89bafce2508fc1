#!/usr/bin/env python3
"""The solutions' slow variants (solutions/slow/NAME.patch: a solution with one version made
correct but slow), made into lab files: each patch applied to its solution, strictly (every
context line must match), into OUT/NAME/labNN_*.cu, a folder grade.py and count_kernels.py take as
a submission. A patch that no longer applies (its solution changed) is an error that says so.

    python3 grader/explain/slow_variants.py [--out build/slow] [NAME ...]
    python3 grader/grade.py --submission build/slow/lab04-v2-lane-offsets --labs 04"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
SLOW = os.path.join(ROOT, 'solutions', 'slow')
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


class PatchError(Exception):
    pass


def names():
    return sorted(f[:-len('.patch')] for f in os.listdir(SLOW) if f.endswith('.patch'))


def apply(original, patch_lines, where):
    """`original` (a list of lines) with the unified diff's hunks applied, checked line by line."""
    result, at, i = [], 0, 0
    while i < len(patch_lines):
        found = HUNK.match(patch_lines[i])
        i += 1
        if not found:
            continue
        start = int(found.group(1)) - (0 if found.group(2) == '0' else 1)
        if start < at:
            raise PatchError(f'{where}: hunks out of order')
        result += original[at:start]
        at = start
        while i < len(patch_lines) and not patch_lines[i].startswith('@@'):
            line = patch_lines[i]
            i += 1
            kind, text = line[:1], line[1:]
            if kind == '+':
                result.append(text)
            elif kind in (' ', '-'):
                if at >= len(original) or original[at] != text:
                    raise PatchError(f'{where}: line {at + 1} of the solution is not what the patch expects '
                                     f'(the solution changed: remake the patch against it)')
                if kind == ' ':
                    result.append(text)
                at += 1
            elif line.startswith('\\'):
                continue  # "\ No newline at end of file"
    return result + original[at:]


def make(name, out):
    """Writes OUT/NAME/<lab file>; returns the folder."""
    path = os.path.join(SLOW, name + '.patch')
    with open(path, encoding='utf-8') as f:
        patch_lines = f.read().split('\n')
    target = next((line[len('+++ b/'):].strip() for line in patch_lines if line.startswith('+++ b/')), None)
    if not target or not target.startswith('solutions/'):
        raise PatchError(f'{path}: no "+++ b/solutions/..." line')
    with open(os.path.join(ROOT, target), encoding='utf-8') as f:
        original = f.read().split('\n')
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, os.path.basename(target)), 'w', encoding='utf-8') as f:
        f.write('\n'.join(apply(original, patch_lines, os.path.relpath(path, ROOT))))
    return folder


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', default=os.path.join(ROOT, 'build', 'slow'))
    parser.add_argument('names', nargs='*', help=f'variants (default: all): {", ".join(names())}')
    options = parser.parse_args(argv)
    unknown = sorted(set(options.names) - set(names()))
    if unknown:
        print(f'slow_variants: no variant {", ".join(unknown)}; there are: {", ".join(names())}', file=sys.stderr)
        return 2
    try:
        for name in options.names or names():
            print(os.path.relpath(make(name, options.out)))
    except PatchError as error:
        print(f'slow_variants: {error}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
