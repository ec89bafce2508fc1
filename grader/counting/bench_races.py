#!/usr/bin/env python3
"""What the race detector costs, per lab, on one core: each lab's count program run on races.py's
inputs (races.INPUTS: a ragged uniform input and all-equal data, the two runs summed), pinned to
one CPU (taskset), in five builds or settings:

  plain          the ordinary CPU backend (no instrumentation): what a CPU test run costs today
  hooks only     instrumented (-fsanitize=thread hooks), counting and detector off: what the graded
                 CPU runner, which is the instrumented build, pays when neither is asked for
  races          instrumented, detector on, counts off (races.py, and a graded run that watches races)
  counts         instrumented, counts on, detector off (count_kernels.py)
  both           instrumented, counts and detector on

Prints CPU seconds (user + system, which other work on a shared machine does not inflate) and,
for "races", wall seconds too. Builds first (not timed). A benchmark, not a test: the figures
depend on the machine.

  python3 grader/counting/bench_races.py [--build-dir build] [--submission solutions] [--repeat 3]
      [--labs 01,03]"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from counting import count_kernels, programs, races  # noqa: E402

SETTINGS = [  # (heading, instrumented build, CUDA_CPU_BACKEND_COUNTING, CUDA_CPU_BACKEND_RACES)
    ('plain', False, None, None),
    ('hooks only', True, '0', '0'),
    ('races', True, '0', '1'),
    ('counts', True, '1', '0'),
    ('both', True, '1', '1'),
]


def timed(program, counting, detecting):
    """(CPU seconds, wall seconds) of the program on races.INPUTS, on CPU 0, one host thread."""
    pin = ['taskset', '-c', '0'] if shutil.which('taskset') else []
    env = dict(os.environ, CUDA_CPU_BACKEND_THREADS='1', CUDA_CPU_BACKEND_SM_COUNT='132')
    for variable in ('CUDA_CPU_BACKEND_COUNTS', 'CUDA_CPU_BACKEND_TRACE', 'CUDA_CPU_BACKEND_COUNTING',
                     'CUDA_CPU_BACKEND_RACES'):
        env.pop(variable, None)
    if counting is not None:
        env.update(CUDA_CPU_BACKEND_COUNTING=counting, CUDA_CPU_BACKEND_RACES=detecting)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for input_kind, n in races.INPUTS:
        subprocess.run(pin + [program, f'--n={n}', f'--input={input_kind}'], env=env, check=True,
                       capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--build-dir', default=os.path.join(programs.ROOT, 'build'))
    parser.add_argument('--submission', default='solutions')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--labs', default='00,01,02,03,04,05,06,yardsticks')
    options = parser.parse_args()
    count_kernels.ensure_build_dir(options.build_dir)
    inputs = ' + '.join(f'{kind} n={n}' for kind, n in races.INPUTS)
    print(f'CPU seconds, best of {options.repeat}, one core, {inputs}')
    print(f"{'lab':<11}" + ''.join(f'{heading:>12}' for heading, *_ in SETTINGS) + f"{'races/plain':>13}"
          + f"{'races wall':>12}")
    for lab in options.labs.split(','):
        source = count_kernels.submission_file(lab, options.submission, None)
        built = {instrumented: programs.build(options.build_dir, lab, source, counting=instrumented)
                 for instrumented in (False, True)}
        runs = [[timed(built[instrumented], counting, detecting) for _ in range(options.repeat)]
                for _, instrumented, counting, detecting in SETTINGS]
        row = [min(cpu for cpu, _ in setting) for setting in runs]
        print(f'{lab:<11}' + ''.join(f'{t:>12.2f}' for t in row) + f'{row[2] / max(row[0], 1e-2):>12.1f}x'
              + f'{min(wall for _, wall in runs[2]):>12.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
