#!/usr/bin/env python3
"""Executes handouts/workbook.ipynb headless (nbclient) in a fresh copy of this checkout (its
tracked and unignored files, no build), grading lab 01 of the solutions, then of the starter, and
checks the cells' outputs: the runtime named, the solutions with no failed test, some points, Why
lines and a warp picture, the starter at 0 without Why lines, the explanation's table, a sweep
figure shown. The backend is
the notebook's own choice (cuda on a machine with a GPU and nvcc, else cpu).

    python3 handouts/notebook/run_notebook.py [--keep DIR] [--needs-gpu]

Exit 0 all checks hold, 1 one does not, 77 (skip) nbclient or ipykernel is missing (pip install
nbclient ipykernel); GRADER_REQUIRE_NOTEBOOK=1 (CI) makes that a failure."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NOTEBOOK = os.path.join(ROOT, 'handouts', 'workbook.ipynb')
SKIP = 77
GRADE_CELL, EXPLAIN_CELL, SWEEP_CELL, RUNTIME_CELL = 'grader/grade.py\', \'--labs\'', '\'--explain\'', 'plot_sweeps.py', 'nvidia-smi'


def fresh_copy(into):
    """The checkout's tracked and unignored files, as a clone would have them (and the edits not
    yet committed)."""
    listed = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split('\0')
    for rel in filter(None, listed):
        source = os.path.join(ROOT, rel)
        if os.path.isfile(source):
            os.makedirs(os.path.dirname(os.path.join(into, rel)), exist_ok=True)
            shutil.copy2(source, os.path.join(into, rel))


def text_of(cell):
    parts = []
    for out in cell.get('outputs', []):
        if out.get('output_type') == 'stream':
            parts.append(''.join(out.get('text', '')))
        elif out.get('output_type') == 'error':
            parts.append(f"ERROR {out.get('ename')}: {out.get('evalue')}")
    return ''.join(parts)


def execute(workbook, submission):
    import nbformat
    from nbclient import NotebookClient
    os.environ.update(WORKBOOK_PATH=workbook, WORKBOOK_SUBMISSION=submission)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=1800, kernel_name='python3', allow_errors=True,
                   resources={'metadata': {'path': workbook}}).execute()
    return notebook


def cell(notebook, marker):
    return next(c for c in notebook.cells if c.cell_type == 'code' and marker in ''.join(c.source))


def points(output):
    found = re.findall(r'Total: ([\d.]+) / ([\d.]+) points', output)
    return tuple(map(float, found[-1])) if found else None


def check(notebook, submission, failures):
    def expect(condition, what):
        print(f"  {'ok' if condition else 'FAILED'}: {submission}: {what}")
        if not condition:
            failures.append(f'{submission}: {what}')
    errors = [text_of(c) for c in notebook.cells if 'ERROR' in text_of(c)]
    expect(not errors, f'no cell raised ({errors[0][:300] if errors else ""})')
    runtime = text_of(cell(notebook, RUNTIME_CELL))
    expect('Backend: ' in runtime, f"the runtime cell names the backend ({runtime.strip().splitlines()[-1:] or ''})")
    graded = text_of(cell(notebook, GRADE_CELL))
    score = points(graded)
    expect(score is not None, 'the grade cell shows the score table\'s total')
    counts = re.findall(r'(\d+) passed, (\d+) failed, (\d+) skipped', graded)
    if submission == 'solutions':
        expect(bool(counts) and counts[-1][1] == '0' and int(counts[-1][0]) > 0, f'no test fails ({counts[-1:]})')
        expect(bool(score) and score[0] > 0, f'points earned ({score})')
    else:
        expect(bool(score) and score[0] == 0, f'the starter earns 0 ({score})')
    explained = cell(notebook, EXPLAIN_CELL)
    expect('lab01: counters per graded function' in text_of(explained), 'the explanation\'s table is shown')
    drawn = any('image/svg+xml' in out.get('data', {}) for out in explained.get('outputs', []))
    if submission == 'solutions':
        expect('Why: ' in graded, 'the score table has its Why lines')
        expect(drawn, 'one warp\'s accesses are drawn inline')
    else:  # nothing passes, so nothing is compared; the starter's kernels access no memory to draw
        expect('Why: ' not in graded, 'no Why lines while no test passes')
    sweep = cell(notebook, SWEEP_CELL)
    expect(any('image/png' in out.get('data', {}) for out in sweep.get('outputs', [])), 'a sweep figure is shown')
    return score


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--keep', help='copy the workbook here and keep it (default: a temporary folder)')
    parser.add_argument('--needs-gpu', action='store_true',
                        help='skip (77) without a GPU: a cuda build\'s run; the cpu build runs it on the CPU')
    options = parser.parse_args(argv)
    if options.needs_gpu and not subprocess.run(['sh', '-c', 'nvidia-smi -L'], capture_output=True, text=True).stdout.strip():
        print('SKIP: no GPU here: the notebook runs on the CPU backend in the cpu build')
        return SKIP
    try:
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
        import ipykernel  # noqa: F401
    except ImportError as error:
        print(f'SKIP: {error}: pip install nbclient ipykernel')
        return 1 if os.environ.get('GRADER_REQUIRE_NOTEBOOK') == '1' else SKIP
    scratch = None if options.keep else tempfile.mkdtemp(prefix='notebook_')
    workbook = os.path.abspath(options.keep or os.path.join(scratch, 'workbook'))
    try:
        if not os.path.isdir(os.path.join(workbook, 'grader')):
            fresh_copy(workbook)
        failures = []
        for submission in ('solutions', 'starter'):
            print(f'Running the notebook on {submission} in {workbook} ...', flush=True)
            check(execute(workbook, submission), submission, failures)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    print('the notebook ran end to end' if not failures else f'{len(failures)} check(s) failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
