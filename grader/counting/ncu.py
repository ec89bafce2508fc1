"""Nsight Compute (ncu) on a lab's count program: finding ncu, building the count program with nvcc
(its flags from the meson build, as programs.py's), running it under ncu and reading ncu's CSV. The
counters come back under the counting mode's names (metrics.py). Used by explain/gpu_counters.py
(a GPU's figures beside the CPU model's) and compare_ncu.py (the maintainer's comparison)."""
import csv
import io
import os
import shutil
import subprocess
from collections import namedtuple

from counting import programs

# A run under ncu: [(kernel name, {ncu metric: value})] in launch order, ncu's ==ERROR== lines,
# everything it printed, and its exit status.
Run = namedtuple('Run', 'launches errors text status')


def find(given, nvcc):
    """ncu: `given`, else on PATH, else beside nvcc or in the toolkit's nsight-compute folder."""
    if given:
        return given if os.path.isfile(given) else None
    found = shutil.which('ncu')
    if found or not nvcc:
        return found
    for candidate in (os.path.join(os.path.dirname(nvcc), 'ncu'),
                      os.path.join(os.path.dirname(os.path.dirname(nvcc)), 'nsight-compute', 'ncu')):
        if os.path.isfile(candidate):
            return candidate
    return None


def build_program(nvcc, arch, lab, lab_file, defines, out_dir, build_dir):
    """The count program of `lab` with `lab_file`, built by nvcc for sm_`arch` into `out_dir`, with
    the meson build's nvcc flags (programs.compile_flags). Raises programs.BuildError."""
    made = programs.target(lab)
    program = os.path.join(out_dir, f'{made.name}_{abs(hash((lab_file, tuple(defines)))):x}')
    common = ([nvcc] + programs.compile_flags(build_dir)['nvcc'] + [f'-gencode=arch=compute_{arch},code=sm_{arch}',
              '-I', programs.ROOT, '-I', made.folder, '-I', programs.COUNTING, '-DGRADER_RUNNER_SIDE', '-w']
              + [f'-D{d}' for d in defines])
    lab_only = [f'-D{d}' for d in programs.LAB_FILE_DEFINES.get(lab, [])]
    # The lab file alone first: its own defines (lab 00's renamed main) must not reach the rest.
    steps = [common + lab_only + ['-c', lab_file, '-o', program + '.lab.o'],
             common + [made.main, program + '.lab.o', '-o', program]]
    for command in steps:
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise programs.BuildError(f'nvcc failed for {lab_file} {defines}:\n{done.stderr[-3000:]}')
    return program


def parse_csv(text):
    """[(kernel name, {metric: value})] in launch order, from `ncu --csv --print-units base`."""
    launches = {}
    lines = [line for line in text.splitlines() if line.startswith('"')]
    for row in csv.DictReader(io.StringIO('\n'.join(lines))):
        key = int(row['ID'])
        name, values = launches.setdefault(key, (row['Kernel Name'], {}))
        values[row['Metric Name']] = float(row['Metric Value'].replace(',', '') or 0)
    return [launches[k] for k in sorted(launches)]


def run(ncu, program, ncu_metrics, program_args, timeout):
    """The count program under ncu, reading `ncu_metrics`. Raises subprocess.TimeoutExpired."""
    done = subprocess.run([ncu, '--metrics', ','.join(ncu_metrics), '--csv', '--print-units', 'base', program]
                          + program_args, capture_output=True, text=True, timeout=timeout)
    text = done.stdout + done.stderr
    return Run(parse_csv(done.stdout), [line for line in text.splitlines() if line.startswith('==ERROR==')],
               text, done.returncode)
