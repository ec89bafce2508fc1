#!/usr/bin/env python3
"""The solutions' variants (solutions/slow/NAME.patch: a solution with one version made correct
but slow, marked `// SLOW VARIANT:`, or racy, a mistake a GPU loses counts to and the CPU backend
hides, marked `// RACY VARIANT:`), made into lab files: each patch applied to its solution,
strictly (every context line must match), into OUT/NAME/labNN_*.cu, a folder grade.py and
count_kernels.py take as a submission. A patch that no longer applies (its solution changed) is
an error that says so. --why prints each variant's Why lines as grade.py's score table would (on
a cuda build with the GPU's figures beside them, read by ncu), without grading its tests.

    python3 grader/explain/slow_variants.py [--out build/slow] [NAME ...]
    python3 grader/explain/slow_variants.py --why [--build-dir build] [NAME ...]
    python3 grader/grade.py --submission build/slow/lab04-v2-lane-offsets --labs 04"""
import argparse
import os
import re
import sys

# Run as a file, Python sees this folder only: run again with grader/, the import root, on
# PYTHONPATH (CONTRIBUTING.md, "Python imports"), which --why's imports need.
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

ROOT = os.path.dirname(GRADER)
SLOW = os.path.join(ROOT, 'solutions', 'slow')
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')
MARKERS = {'slow': '// SLOW VARIANT:', 'racy': '// RACY VARIANT:'}


class PatchError(Exception):
    pass


def names():
    return sorted(f[:-len('.patch')] for f in os.listdir(SLOW) if f.endswith('.patch'))


def kind(name):
    """'slow' or 'racy', from the marker the patch adds."""
    with open(os.path.join(SLOW, name + '.patch'), encoding='utf-8') as f:
        text = f.read()
    found = [k for k, marker in MARKERS.items()
             if any(line.startswith('+') and marker in line for line in text.split('\n'))]
    if len(found) != 1:
        raise PatchError(f'{name}.patch: add one marker, {" or ".join(MARKERS.values())}')
    return found[0]


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


def why(folders, build_dir):
    """Prints each variant's Why lines (explain/in_grading.py's count of its lab, then
    explanations.lines), with the GPU's figures where the build is a cuda one."""
    from explain import explanations, gpu_counters, in_grading
    import toolchain
    gpu = toolchain.backend_of(build_dir) == 'cuda'
    arch, nvcc = (gpu_counters.gpu_arch(), toolchain.find_cuda_toolkit()) if gpu else (None, None)
    for name, folder in folders:
        (lab_file,) = [f for f in os.listdir(folder) if f.endswith('.cu')]
        number = lab_file[3:5]
        section = in_grading.count_lab(number, folder, build_dir, gpu, arch, nvcc)
        print(f'{name} ({kind(name)}):', flush=True)
        for line in explanations.lines({'lab': f'lab{number}', 'tests': [], 'counters': section}):
            print(f'  lab{number} {line}', flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', default=os.path.join(ROOT, 'build', 'slow'))
    parser.add_argument('--why', action='store_true', help="print each variant's Why lines")
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'),
                        help='a configured build (grade.py made it) whose backend --why counts with')
    parser.add_argument('names', nargs='*', help=f'variants (default: all): {", ".join(names())}')
    options = parser.parse_args(argv)
    unknown = sorted(set(options.names) - set(names()))
    if unknown:
        print(f'slow_variants: no variant {", ".join(unknown)}; there are: {", ".join(names())}', file=sys.stderr)
        return 2
    try:
        made = [(name, make(name, options.out)) for name in options.names or names()]
    except PatchError as error:
        print(f'slow_variants: {error}', file=sys.stderr)
        return 1
    if options.why:
        why(made, os.path.abspath(options.build_dir))
    else:
        print('\n'.join(os.path.relpath(folder) for _, folder in made))
    return 0


if __name__ == '__main__':
    sys.exit(main())
