"""grade.py's explanation step: after every lab's tests (so nothing here runs inside a timed
round), each graded lab's counters are counted (explanations.py; the GPU's too on a cuda build,
gpu_counters.py) and attached to its results file, which report.py then reads."""
import os
import subprocess
import time

import terminal
import toolchain
from explain import declarations, explanations, gpu_counters
from runs import results
from counting import programs

TICK_S = 8  # a student never waits 10 s without a line


def with_ticks(what, work):
    """Runs work() and prints a line every TICK_S seconds until it returns; returns its value."""
    return terminal.ticking(what, work, TICK_S)


def reference_on_gpu(number, arch, nvcc, build_dir):
    """{function: {counter: value}} of the workbook's solution of lab `number` read from this GPU
    (kept in build_dir after the first time), or {} when it cannot be read: a Why line then
    compares the GPU's figure for the student's kernel with the reference's on the same GPU."""
    solutions = os.path.join(programs.ROOT, 'solutions')
    source = explanations.lab_file(number, solutions)
    if not source:
        return {}

    def counted():
        try:
            return explanations.count_submission(number, solutions, build_dir)[0]
        except (programs.BuildError, subprocess.TimeoutExpired):
            return []
    found = gpu_counters.measure(number, source, counted, arch, nvcc, build_dir=build_dir)
    return found['functions'] if found['status'] == 'measured' else {}


def explain_labs(build_dir, results_dir, labs, submission, gpu):
    """`labs`: names (lab04); `gpu`: read the GPU's counters too (a cuda build)."""
    arch = gpu_counters.gpu_arch() if gpu else None
    nvcc = toolchain.find_cuda_toolkit() if gpu else None
    machine_problem = None  # the counting mode cannot be built here: said once, for the first lab
    for lab in labs:
        number = lab.replace('lab', '')
        if machine_problem:
            results.attach_counters(results_dir, lab, explanations.not_counted(machine_problem))
            continue
        try:
            if not declarations.load(number):
                continue
        except declarations.DeclarationError:
            pass  # explain_lab says what is wrong with it
        document = results.load_file(os.path.join(results_dir, f"{lab}.json")) or {}
        if not any(t.get('kind') == 'main' and t.get('status') == 'passed' for t in document.get('tests', [])):
            # Counters of kernels that compute nothing right yet say nothing: the untouched starter
            # costs no counting time.
            results.attach_counters(results_dir, lab, explanations.not_counted('no version passes its tests yet'))
            continue
        terminal.say(f"Counting {lab}'s kernels (the CPU backend's counting mode{', then the GPU' if gpu else ''}) ...")
        section = count_lab(number, submission, build_dir, gpu, arch, nvcc)
        if section.pop('machine', False):
            machine_problem = section['reason']
        results.attach_counters(results_dir, lab, section)


def count_lab(number, submission, build_dir, gpu=False, arch=None, nvcc=None):
    """Lab `number`'s "counters" section for the submission folder: the CPU model's counts and
    findings, and with `gpu` (a cuda build) the GPU's counters read by ncu beside them."""
    lab, started = f'lab{number}', time.monotonic()
    section = with_ticks(f"{lab} counting", lambda: explanations.explain_lab(number, submission, build_dir))
    if gpu and section.get('status') == 'counted':
        source = explanations.lab_file(number, submission)
        launches = section.pop('_launches', None)
        section['hardware'] = with_ticks(f"{lab} GPU counters", lambda: gpu_counters.measure(
            number, source, launches, arch, nvcc, build_dir=build_dir))
        if section['hardware']['status'] == 'measured' and any(v['findings'] for v in section['versions']):
            section['hardware']['reference'] = with_ticks(
                f"{lab} the reference's GPU counters", lambda: reference_on_gpu(number, arch, nvcc, build_dir))
    section.pop('_launches', None)
    section['seconds'] = round(time.monotonic() - started, 1)
    return section
