"""The same counters read from the GPU: the lab's count program built with nvcc around the
submission's file and run once under Nsight Compute (ncu) on the explanations' input, its launches
matched in order with the counting mode's. Never inside a timed round (grade.py runs it after the
speed tests). When the driver keeps the counters to administrators (ERR_NVGPUCTRPERM), one line
says so and how to lift it; the CPU model's counters stay, labelled as such.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from explain import counters, reference_table
from counting import metrics, ncu, programs

PERMISSION = ('the GPU\'s performance counters are kept to administrators on this machine '
              '(ERR_NVGPUCTRPERM): the counters shown are the CPU model\'s; an administrator can lift it with '
              'the driver option NVreg_RestrictProfilingToAdminUsers=0 '
              '(https://developer.nvidia.com/ERR_NVGPUCTRPERM)')
# The counters the GPU gives (lanes per atomic address and barriers are the CPU model's alone),
# and the counting mode's counters they are made of (metrics.py names ncu's metrics for them).
MEASURED = ['global_load_requests', 'global_load_sectors_per_request', 'global_store_requests',
            'global_store_sectors_per_request', 'global_atomic_requests', 'shared_atomic_requests',
            'shared_requests', 'shared_wavefronts', 'shared_bank_conflicts_per_request',
            'warp_instructions', 'active_lanes_per_instruction', 'launches']
# The counting mode's counters ncu gives (metrics.py), read for each launch.
READ = [counter for counter, names in metrics.COUNTERS.items() if names]
TIMEOUT_S = 120


def not_read(status, message):
    return {'status': status, 'message': message, 'functions': {}}


def as_records(profiled, counted):
    """The ncu launches as counting-mode records, labelled by the counting mode's launches in the
    same order; None when the two disagree on the launches."""
    if len(profiled) != len(counted):
        return None
    records = []
    for (kernel, values), launch in zip(profiled, counted):
        if launch['kernel'].split('<')[0] not in kernel:
            return None
        found = metrics.from_ncu(values)
        records.append({'label': launch['label'], 'kernel': kernel, 'barriers': 0,
                        'metrics': {counter: found.get(counter, 0) for counter in READ}})
    return records


def cache_path(build_dir, lab, source, arch, nvcc):
    """Where a measured result is kept: keyed by the lab file's and the count program's contents, the
    architecture and the toolkit, so a run that changed none of them reads no counter again."""
    made = programs.target(lab)
    digest = hashlib.sha256(repr((lab, arch, nvcc, reference_table.INPUT)).encode())
    for path in [source, made.main, programs.PROGRAM_HEADER] + made.headers:
        with open(path, 'rb') as f:
            digest.update(f.read())
    return os.path.join(build_dir, 'counting', 'gpu-counters', f'{lab}-{digest.hexdigest()[:16]}.json')


def measure(lab, source, counted, arch, nvcc=None, ncu=None, build_dir=None):
    """{'status': 'measured'|'not-permitted'|'unavailable', 'message', 'functions': {function:
    {counter: value}}} of the submission's file `source`, whose counting-mode launches are
    `counted` (or a function that returns them, called only when nothing is kept), on a GPU of
    compute capability `arch` ('90'). With `build_dir`, a measured result is kept there and read
    back while nothing it depends on changed."""
    if not arch:
        return not_read('unavailable', 'GPU counters not read: nvidia-smi names no GPU')
    cached = cache_path(build_dir, lab, source, arch, nvcc) if build_dir else None
    if cached and os.path.isfile(cached):
        with open(cached, encoding='utf-8') as f:
            return json.load(f)
    found = _measure(lab, source, counted() if callable(counted) else counted, arch, nvcc, ncu, build_dir)
    if cached and found['status'] == 'measured':
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        with open(cached + '.partial', 'w', encoding='utf-8') as f:
            json.dump(found, f)
        os.replace(cached + '.partial', cached)
    return found


def _measure(lab, source, counted, arch, nvcc, ncu_path, build_dir):
    ncu_path = ncu_path or ncu.find(None, nvcc)
    if not nvcc or not ncu_path:
        return not_read('unavailable', f'GPU counters not read: needs nvcc and ncu (Nsight Compute); '
                                       f'found {"ncu" if ncu_path else "no ncu"}, {"nvcc" if nvcc else "no nvcc"}')
    given = reference_table.INPUT
    with tempfile.TemporaryDirectory(prefix='gpu_counters_') as scratch:
        try:
            program = ncu.build_program(nvcc, arch, lab, source, [], scratch, build_dir)
        except programs.BuildError as error:
            return not_read('unavailable', f'GPU counters not read: nvcc could not build the count program '
                                           f'({str(error).splitlines()[0][:160]})')
        try:
            done = ncu.run(ncu_path, program, metrics.ncu_names(READ),
                           [f"--n={given['n']}", f"--input={given['input']}", f"--seed={given['seed']}"], TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return not_read('unavailable', f'GPU counters not read: ncu ran past {TIMEOUT_S} s')
    if 'ERR_NVGPUCTRPERM' in done.text:
        return not_read('not-permitted', PERMISSION)
    records = as_records(done.launches, counted)
    if records is None:
        return not_read('unavailable', f'GPU counters not read: ncu profiled {len(done.launches)} launches, the '
                                       f'counting mode counted {len(counted)} (status {done.status})')
    functions = {f: {k: v for k, v in values.items() if k in MEASURED}
                 for f, values in counters.per_function(records).items()}
    return {'status': 'measured', 'message': f'GPU counters read by {os.path.basename(ncu_path)}',
            'functions': functions}


def gpu_arch():
    """The first GPU's compute capability ('90'), or None."""
    if not shutil.which('nvidia-smi'):
        return None
    done = subprocess.run(['nvidia-smi', '--query-gpu=compute_cap', '--format=csv,noheader'],
                          capture_output=True, text=True)
    found = done.stdout.split()
    return found[0].replace('.', '') if done.returncode == 0 and found else None
