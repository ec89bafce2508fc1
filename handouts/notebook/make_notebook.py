#!/usr/bin/env python3
"""Writes handouts/workbook.ipynb, the workbook as a Colab/Jupyter notebook: check the runtime, get
the workbook, install its tools with pip, edit lab 01 in a cell, grade it, read why it is slow,
see its sweep. The edit cell holds starter/lab01_global_atomics.cu as it is now, so the notebook
is made, never edited by hand:

    python3 handouts/notebook/make_notebook.py           write it
    python3 handouts/notebook/make_notebook.py --check   exit 1 when the checked-in one differs

Each step: one markdown line, then a short code cell. The first two code cells need nothing of
the workbook (it is not there yet)."""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NOTEBOOK = os.path.join(ROOT, 'handouts', 'workbook.ipynb')
LAB_FILE = 'lab01_global_atomics.cu'

RUNTIME = r'''import os, re, shutil, subprocess, sys

def run(*command):
    """Runs a command, its output shown as it comes; returns its exit status."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    for line in child.stdout:
        print(line, end='', flush=True)
    return child.wait()

def output(*command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ''

gpu = output('nvidia-smi', '--query-gpu=name,driver_version,compute_cap', '--format=csv,noheader').strip()
nvcc = shutil.which('nvcc') or ('/usr/local/cuda/bin/nvcc' if os.path.exists('/usr/local/cuda/bin/nvcc') else None)
toolkit = re.search(r'release (\d+)\.(\d+)', output(nvcc, '--version')) if nvcc else None
driver = re.search(r'CUDA Version: (\d+)\.(\d+)', output('nvidia-smi'))
BACKEND = 'cuda' if gpu and toolkit else 'cpu'
if not gpu:
    print('No GPU on this runtime. In Colab: Runtime > Change runtime type > a GPU (T4) > Save, then run '
          'the notebook again from the top. Until then the workbook grades correctness and technique, not speed, on its CPU backend.')
elif not toolkit:
    print(f'GPU {gpu}, but no nvcc (CUDA toolkit) found: install it, or grade correctness on the CPU backend.')
else:
    print(f'GPU: {gpu} (name, driver, compute capability); nvcc {toolkit[1]}.{toolkit[2]}'
          + (f'; the driver runs CUDA up to {driver[1]}.{driver[2]}' if driver else ''))
    if driver and int(toolkit[1]) > int(driver[1]):
        print(f'The toolkit (CUDA {toolkit[1]}) is newer than the driver (CUDA {driver[1]}): its programs will not '
              'start. Use a toolkit of the driver\'s major version (in Colab, the one the runtime ships).')
        BACKEND = 'cpu'
print(f'Backend: {BACKEND}')
'''

WORKBOOK = r'''WORKBOOK_URL = ''  # your course's repository, e.g. https://github.com/COURSE/WORKBOOK.git
WORKBOOK_PATH = os.environ.get('WORKBOOK_PATH') or ('/content/workbook' if os.path.isdir('/content') else os.path.abspath('workbook'))
if not os.path.isdir(os.path.join(WORKBOOK_PATH, 'grader')):
    if not WORKBOOK_URL:
        raise RuntimeError("Set WORKBOOK_URL in this cell to your course's repository, then run the cell again.")
    if run('git', 'clone', '--depth', '1', WORKBOOK_URL, WORKBOOK_PATH) != 0:
        raise RuntimeError('git clone failed (see above): check WORKBOOK_URL.')
os.chdir(WORKBOOK_PATH)
print('Workbook:', os.getcwd())
'''

TOOLS = r'''if run(sys.executable, '-m', 'pip', 'install', '--progress-bar', 'off', '--disable-pip-version-check', '-r', 'requirements.txt') != 0:
    raise RuntimeError('pip could not install meson, ninja and numpy (see above).')
os.environ['PATH'] = os.pathsep.join([os.path.dirname(sys.executable), os.path.expanduser('~/.local/bin'), os.environ['PATH']])
if not (os.path.exists('/usr/include/gtest/gtest.h') or os.path.isdir('/usr/src/googletest')) and shutil.which('apt-get') and os.geteuid() == 0:
    run('bash', '-c', 'apt-get -q update && apt-get -q install -y libgtest-dev')  # a line every few seconds
print('meson', output('meson', '--version').strip(), '- ninja', output('ninja', '--version').strip())
'''

WORK_FOLDER = r'''if not os.path.isdir('my_work'):
    shutil.copytree('starter', 'my_work')
SUBMISSION = os.environ.get('WORKBOOK_SUBMISSION', 'my_work')  # solutions, starter: the notebook's own tests
print('Graded folder:', SUBMISSION, sorted(os.listdir(SUBMISSION)))
'''

GRADE = r'''status = run(sys.executable, 'grader/grade.py', '--labs', '01', '--submission', SUBMISSION, '--backend', BACKEND)
'''

EXPLAIN = r'''from IPython.display import SVG, display
run(sys.executable, 'grader/grade.py', '--explain', 'lab01', '--submission', SUBMISSION, '--backend', BACKEND)
for name in sorted(os.listdir('build/results')):
    if name.startswith('lab01') and name.endswith('-warp.svg'):
        display(SVG(filename=os.path.join('build/results', name)))
'''

SWEEP = r'''from IPython.display import Image, display
if BACKEND == 'cuda' and run(sys.executable, 'grader/bench/plot_sweeps.py', '--lab', '01') == 0:
    display(Image(filename='plots/lab01_beside.png'))
else:
    print("No GPU here: the handout's own sweep (its caption names the GPU and the date).")
    display(Image(filename='handouts/figures/lab01_sweep.png'))
'''


def cells():
    with open(os.path.join(ROOT, 'starter', LAB_FILE), encoding='utf-8') as f:
        starter = f.read()
    return [
        ('markdown', '# GPU histograms and scans: the workbook in a notebook\n\n'
                     'Run the cells from the top; each step is one line of prose and one short cell. '
                     'The handouts are in `handouts/` of the workbook.'),
        ('markdown', '**1. The runtime.** Is there a GPU, which one, and a CUDA compiler that its driver can run?'),
        ('code', RUNTIME),
        ('markdown', "**2. The workbook.** Clones your course's repository (set `WORKBOOK_URL`) unless a copy is here."),
        ('code', WORKBOOK),
        ('markdown', '**3. Tools.** Installs meson, ninja and numpy with pip into this Python, and GoogleTest where apt can.'),
        ('code', TOOLS),
        ('markdown', '**4. Your folder.** `my_work/` starts as a copy of `starter/` and keeps your files between runs.'),
        ('code', WORK_FOLDER),
        ('markdown', '**5. Edit lab 01.** Fill the `TODO`s in this cell (handout `handouts/01-global-atomics.md`), '
                     'then run it: it writes `my_work/' + LAB_FILE + '`.'),
        ('code', f'%%writefile my_work/{LAB_FILE}\n{starter}'),
        ('markdown', '**6. Grade lab 01.** Builds and grades it; under the score table, **Why** compares '
                     "your kernels' counters with the reference's."),
        ('code', GRADE),
        ('markdown', '**7. Why, in full.** Every counter of your lab 01 kernels beside the reference\'s, '
                     "and one warp's accesses drawn."),
        ('code', EXPLAIN),
        ('markdown', "**8. The sweep.** On a GPU, your kernels over several launch shapes beside the handout's run."),
        ('code', SWEEP),
    ]


def notebook():
    made = []
    for kind, text in cells():
        lines = text.rstrip('\n').split('\n')
        source = [line + '\n' for line in lines[:-1]] + [lines[-1]]
        cell = {'cell_type': kind, 'metadata': {}, 'source': source}
        if kind == 'code':
            cell.update(execution_count=None, outputs=[])
        made.append(cell)
    return {'cells': made, 'metadata': {
        'accelerator': 'GPU', 'colab': {'provenance': []},
        'kernelspec': {'display_name': 'Python 3', 'language': 'python', 'name': 'python3'},
        'language_info': {'name': 'python'}}, 'nbformat': 4, 'nbformat_minor': 4}


def text():
    return json.dumps(notebook(), indent=1, ensure_ascii=False) + '\n'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--check', action='store_true')
    options = parser.parse_args(argv)
    if options.check:
        try:
            with open(NOTEBOOK, encoding='utf-8') as f:
                same = f.read() == text()
        except OSError:
            same = False
        if not same:
            print(f'{os.path.relpath(NOTEBOOK)} is not what make_notebook.py makes from the starter now: '
                  'run python3 handouts/notebook/make_notebook.py and commit it')
            return 1
        print('the notebook is up to date')
        return 0
    with open(NOTEBOOK, 'w', encoding='utf-8') as f:
        f.write(text())
    print(f'wrote {os.path.relpath(NOTEBOOK)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
