#!/usr/bin/env python3
"""How long the CPU backend's counting mode takes to count every kernel of each lab, on one core:
the issue's input sizes (2^16 samples; 2^16 elements for the scans; a 256 x 256 image for lab 06),
the solutions. Builds first (not timed), then runs each lab's count program pinned to one CPU
(taskset) and prints wall and CPU seconds, beside the same count program without counting. A benchmark,
not a test: the figures depend on the machine.

  python3 grader/counting/bench_count_kernels.py [--build-dir build] [--submission solutions] [--repeat 3]"""
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

from counting import count_kernels, programs  # noqa: E402
from runs import labs as lab_list  # noqa: E402


def timed(program, counts):
    """(wall seconds, CPU seconds of the child) of one run on CPU 0."""
    pin = ['taskset', '-c', '0'] if shutil.which('taskset') else []
    env = dict(os.environ, CUDA_CPU_BACKEND_THREADS='1')
    if counts:
        env['CUDA_CPU_BACKEND_COUNTS'] = counts
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(pin + [program, '--n=65536'], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--build-dir', default=os.path.join(programs.ROOT, 'build'))
    parser.add_argument('--submission', default='solutions')
    parser.add_argument('--repeat', type=int, default=3)
    options = parser.parse_args()
    count_kernels.ensure_build_dir(options.build_dir)
    print(f"{'lab':<5} {'launches':>8} {'counting wall s':>16} {'counting CPU s':>15} {'plain wall s':>13}  (best of {options.repeat}, one core)")
    for lab in lab_list.kernel_lab_numbers():
        source = count_kernels.submission_file(lab, options.submission, None)
        counted = programs.build(options.build_dir, lab, source, counting=True)
        plain = programs.build(options.build_dir, lab, source, counting=False)
        counts = os.path.join(os.path.dirname(counted), 'bench_counts.json')
        runs = [timed(counted, counts) for _ in range(options.repeat)]
        plain_wall = min(timed(plain, None)[0] for _ in range(options.repeat))
        launches = open(counts, encoding='utf-8').read().count('"kernel":')
        print(f'{lab:<5} {launches:>8} {min(w for w, _ in runs):>16.2f} {min(c for _, c in runs):>15.2f} {plain_wall:>13.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
