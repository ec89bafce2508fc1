#!/usr/bin/env python3
"""The counting mode against a GPU: every launch of the count drivers (count_drivers/) runs once
under Nsight Compute on this machine's GPU and once under the CPU backend's counting mode, on the
same input, and their counters are compared metric by metric. Kernels: the solutions, the
starters (their given kernels), each known-wrong kernel (labs/*/meson.build's known-wrong
cases), and the grader's yardsticks (--labs yardsticks: read, global-atomics baseline,
privatized histogram, with a 132-multiprocessor grid). Prints a table (kernel, metric, CPU count, ncu count, verdict); exit 0 when every
compared figure agrees, 1 when one does not, 2 on a build error, 77 (skip) without a GPU or ncu.

  python3 grader/tools/compare_counters_ncu.py [--build-dir build] [--labs 01,04,yardsticks] [--ncu PATH]
      [--arch 90] [--n 65536] [--only-solutions]

Needs: nvcc, ncu (Nsight Compute; its default path is searched beside nvcc) with permission to
read the GPU's performance counters (root, or the driver option NVreg_RestrictProfilingToAdminUsers=0),
and a build folder with the CPU backend (a cuda build configured with project tests, the default).

Exact or not: a figure must match exactly where the access pattern does not depend on timing;
within 2 % where it does (TOLERANT below, each with its reason). A shared-memory instruction or
wavefront count may also differ where the kernel's SASS shows the compiler vectorized (LDS.128) or
predicated (@P0 LDS) those accesses (shared_codegen.py): the counting mode counts the source's
accesses, ncu the instructions; such a figure is printed with the SASS it follows and does not
fail. Nor do the few where g++, which compiles the counting mode, made other accesses than nvcc
(CPU_CODEGEN, each with the sites that show it). Every other difference fails.
  metric                                   compared as
  sectors per request, loads and stores    exact (ratio of the two sums, 4 decimals)
  shared wavefronts, bank conflicts ld/st  exact
  shared load/store requests               exact
  global atomic requests (atom + red)      exact
  shared atomic requests                   exact
  theoretical occupancy % (H100, H200,     exact to 0.01 (occupancy.py's table of the model named by
  A100, RTX 4090; registers from nvcc)     nvidia-smi, against ncu's sm__maximum_warps_per_active_cycle_pct)
                                           where ncu reports it; the summary counts these rows,
                                           and a launch whose kernel nvcc's resource usage does
                                           not name fails
"""
import argparse
import csv
import ctypes
import functools
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

import toolchain  # noqa: E402
from tools import count_kernels, counting_build, occupancy, shared_codegen  # noqa: E402

SKIP = 77
ROOT = counting_build.ROOT
# Launches whose figures depend on timing, compared within 2 % (a bank-conflict count within 2 % of
# its wavefronts), with the reason.
TOLERANT = {
    ('05', 'scan_v6_single_pass', 'single_pass_kernel'):
        'its look-back polls its predecessors\' flags for as long as they are not ready',
    ('06', 'equalize', 'histogram_kernel'):
        'shared atomics of other warps in flight beside the merge\'s loads (ncu: 1316 conflicts on an H200, '
        '1042 on an H100, 2026-11-27; the model: 0)',
    (counting_build.YARDSTICKS, 'privatized_histogram', 'histogram_privatized'):
        'the same: 23 conflicts on an H200, 5 on an H100 (2026-11-27), 0 in the model',
}

# Figures where g++ (the counting mode's compiler) made other accesses than nvcc, seen in the
# counting mode's sites (count_kernels.py --sites): (lab, kernel, metric as printed): why.
CPU_CODEGEN = {
    ('05', 'hillis_steele_kernel', 'smsp__inst_executed_op_shared_ld.sum'):
        'g++ loads buffer[from][t] once for both sides of the branch (sites: line 41 only, none on the '
        'else line); nvcc loads it in each: +1 for warp 0 in each of the 5 divergent steps, 320 in all',
    ('05', 'hillis_steele_kernel', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'):
        'the same loads: one wavefront each',
    ('06', 'remap_kernel', 'sectors/request ld'):
        'g++ loads each uchar4 as four 1-byte loads (sites: four 1B loads on its line, 4 sectors each); '
        'nvcc as one 32-bit LDG',
}


def tolerance_of(lab, launch):
    return TOLERANT.get((lab, launch['label'], launch['kernel'].split('<')[0]))


def host_note(lab, kernel, metric):
    found = CPU_CODEGEN.get((lab, kernel.split('<')[0], metric))
    return f'g++: {found}' if found else None


def within(metric, mine, theirs, values):
    """2 % of the figure, or for bank conflicts 2 % of the same operation's wavefronts."""
    base = theirs
    if 'bank_conflicts' in metric:
        base = values.get(metric.replace('data_bank_conflicts_pipe_lsu_mem_shared', 'data_pipe_lsu_wavefronts_mem_shared'), theirs)
    return abs(mine - theirs) <= 0.02 * max(abs(base), 1)
NCU_METRICS = [
    'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum', 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum',
    'l1tex__t_requests_pipe_lsu_mem_global_op_st.sum', 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum',
    'l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum', 'l1tex__t_requests_pipe_lsu_mem_global_op_red.sum',
    'smsp__inst_executed_op_shared_ld.sum', 'smsp__inst_executed_op_shared_st.sum',
    'smsp__inst_executed_op_shared_atom.sum',
    'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum',
    'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum',
]
# ncu's theoretical occupancy, against occupancy.py's figure for the same GPU model.
OCCUPANCY_METRIC = 'sm__maximum_warps_per_active_cycle_pct'
OCCUPANCY_ROW = 'theoretical occupancy %'


def requested_metrics(listed):
    """(the metrics to ask ncu for, those left out and said so): the counters of NCU_METRICS that
    `ncu --query-metrics` lists, and OCCUPANCY_METRIC always (that list holds the hardware's
    counters, not the launch figures ncu's Occupancy section reads; a run that refuses it drops
    it, `profile`)."""
    metrics = [m for m in NCU_METRICS if m.rsplit('.', 1)[0] in listed]
    return metrics + [OCCUPANCY_METRIC], [m for m in NCU_METRICS if m not in metrics]


def occupancy_line(model, named, requested):
    """Whether theoretical occupancy is compared, and for which GPU's model."""
    if not requested:
        return f'not compared (ncu refused {OCCUPANCY_METRIC})'
    return (f'compared for {model} where ncu reports {OCCUPANCY_METRIC} (the summary counts them)' if model
            else f'not compared (occupancy.py has no model of {(named or ["?"])[0]})')


def compared(cpu, gpu, occupancy=None):
    """[(metric, cpu value, ncu value)] of one launch; metrics ncu did not report are left out.
    `occupancy`: the counting mode's theoretical occupancy (occupancy.py) for this GPU's model."""
    rows = []
    if occupancy is not None and OCCUPANCY_METRIC in gpu:
        rows.append((OCCUPANCY_ROW, round(100 * occupancy, 2), round(gpu[OCCUPANCY_METRIC], 2)))
    for op in ('ld', 'st'):
        req, sect = f'l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum', f'l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum'
        if req in gpu and sect in gpu and (cpu[req] or gpu[req]):
            rows.append((f'sectors/request {op}', round(cpu[sect] / cpu[req], 4) if cpu[req] else 0,
                         round(gpu[sect] / gpu[req], 4) if gpu[req] else 0))
    for metric in NCU_METRICS[6:8] + NCU_METRICS[9:]:
        if metric in gpu:
            rows.append((metric, cpu[metric], gpu[metric]))
    atom = [m for m in NCU_METRICS[4:6] if m in gpu]
    if atom:
        rows.append(('global atomic requests (atom+red)', cpu['global_atomic_requests'], sum(gpu[m] for m in atom)))
    if 'smsp__inst_executed_op_shared_atom.sum' in gpu:
        rows.append(('shared atomic requests', cpu['shared_atomic_requests'], gpu['smsp__inst_executed_op_shared_atom.sum']))
    return rows


def multiprocessors():
    """The first visible GPU's multiprocessor count (the driver API), or None."""
    try:
        cuda = ctypes.CDLL('libcuda.so.1')
        device, count = ctypes.c_int(), ctypes.c_int()
        if cuda.cuInit(0) or cuda.cuDeviceGet(ctypes.byref(device), 0):
            return None
        # CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
        return count.value if cuda.cuDeviceGetAttribute(ctypes.byref(count), 16, device) == 0 else None
    except OSError:
        return None


def find_ncu(given, nvcc):
    if given:
        return given if os.path.isfile(given) else None
    found = shutil.which('ncu')
    if found or not nvcc:
        return found
    for candidate in (os.path.join(os.path.dirname(nvcc), 'ncu'), os.path.join(os.path.dirname(os.path.dirname(nvcc)), 'nsight-compute', 'ncu')):
        if os.path.isfile(candidate):
            return candidate
    return None


@functools.lru_cache(maxsize=None)
def known_wrong_names(lab):
    """{define: case name} of labs/NN-*/meson.build's known-wrong cases, both lists
    ('known_wrong_cases': wrong results; 'known_wrong_techniques': right results the wrong way);
    the yardsticks have none."""
    if lab == counting_build.YARDSTICKS:
        return {}
    folder, _ = counting_build.lab_folder(lab)
    with open(os.path.join(ROOT, 'labs', folder, 'meson.build'), encoding='utf-8') as f:
        text = f.read()
    return dict(re.findall(r"'define':\s*'(\d+)',\s*'name':\s*'(\w+)'", text))


def known_wrong_defines(lab, named=None):
    """The known-wrong cases' defines (`named`: only those of that name)."""
    cases = known_wrong_names(lab)
    return sorted((d for d, name in cases.items() if named in (None, name)), key=int)


# Known-wrong cases that write past their buffers: the CPU backend stops them (or the heap they
# broke does), the GPU does not; what either side counts after such a write is not the kernel's.
NOT_COMPARED = 'out_of_bounds'
# Known-wrong cases whose counts follow a race or memory never written: compared within 2 %.
RACING_CASES = {
    ('03', 'missing_merge_barrier'): 'a race: the merge reads bins other warps are still counting into',
    ('03', 'missing_zero_barrier'): 'a race: warps count into bins others have not zeroed yet',
    ('03', 'zero_only_own_bin'): 'its bins start with whatever the shared memory held',
}


def racing_case(lab, define):
    """The reason a known-wrong case's figures are compared within 2 %, or None."""
    return RACING_CASES.get((lab, known_wrong_names(lab).get(define)))


def build_gpu_driver(nvcc, arch, lab, source, defines, out_dir):
    name, lab_dir, driver, _, _ = counting_build.driver_target(lab)
    program = os.path.join(out_dir, f'{name}_{abs(hash((source, tuple(defines)))):x}')
    common = [nvcc, '-std=c++17', '-O3', '-lineinfo', f'-gencode=arch=compute_{arch},code=sm_{arch}',
              '-I', ROOT, '-I', lab_dir, '-I', counting_build.DRIVERS, '-DGRADER_RUNNER_SIDE', '-w'] + [
              f'-D{d}' for d in defines]
    lab_only = [f'-D{d}' for d in counting_build.LAB_FILE_DEFINES.get(lab, [])]
    # The lab file alone first: its own defines (lab 00's renamed main) must not reach the driver.
    steps = [common + lab_only + ['-c', source, '-o', program + '.lab.o'],
             common + [driver, program + '.lab.o', '-o', program]]
    for command in steps:
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise counting_build.BuildError(f'nvcc failed for {source} {defines}:\n{done.stderr[-3000:]}')
    return program


def parse_ncu_csv(text):
    """[(kernel name, {metric: value})] in launch order, from `ncu --csv --print-units base`."""
    launches = {}
    lines = [line for line in text.splitlines() if line.startswith('"')]
    for row in csv.DictReader(io.StringIO('\n'.join(lines))):
        key = int(row['ID'])
        name, values = launches.setdefault(key, (row['Kernel Name'], {}))
        values[row['Metric Name']] = float(row['Metric Value'].replace(',', '') or 0)
    return [launches[k] for k in sorted(launches)]


def run_ncu(ncu, program, metrics, n, timeout=600):
    """([(kernel name, {metric: value})] in launch order, ncu's own error lines)."""
    done = subprocess.run([ncu, '--metrics', ','.join(metrics), '--csv', '--print-units', 'base', program, f'--n={n}'],
                          capture_output=True, text=True, timeout=timeout)
    errors = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith('==ERROR==')]
    return parse_ncu_csv(done.stdout), errors


def profile(ncu, program, metrics, n):
    """run_ncu's launches; where ncu profiled nothing and named the occupancy metric in its
    errors, that metric is dropped from `metrics` (for the rest of the run too) and it runs again,
    saying so."""
    launches, errors = run_ncu(ncu, program, metrics, n)
    if not launches and OCCUPANCY_METRIC in metrics and any(OCCUPANCY_METRIC in e for e in errors):
        metrics.remove(OCCUPANCY_METRIC)
        print(f'occupancy: {occupancy_line(None, None, False)}: {errors[0][:200]}')
        launches, errors = run_ncu(ncu, program, metrics, n)
    return launches


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--labs', default=f'00,01,02,03,04,05,06,{counting_build.YARDSTICKS}')
    parser.add_argument('--ncu')
    parser.add_argument('--arch', help='compute capability to build for (default: the first GPU)')
    parser.add_argument('--n', type=int, default=65536)
    parser.add_argument('--only-solutions', action='store_true')
    options = parser.parse_args(argv)
    nvcc = toolchain.find_cuda_toolkit()
    gpus = subprocess.run(['nvidia-smi', '--query-gpu=compute_cap', '--format=csv,noheader'], capture_output=True,
                          text=True) if shutil.which('nvidia-smi') else None
    if gpus is None or gpus.returncode != 0 or not gpus.stdout.strip():
        print('SKIP: no NVIDIA GPU (nvidia-smi finds none)')
        return SKIP
    ncu = find_ncu(options.ncu, nvcc)
    if not nvcc or not ncu:
        print(f'SKIP: needs nvcc and ncu (nvcc: {nvcc or "not found"}, ncu: {ncu or "not found"})')
        return SKIP
    arch = options.arch or gpus.stdout.split()[0].replace('.', '')
    named = subprocess.run(['nvidia-smi', '--query-gpu=name', '--format=csv,noheader'], capture_output=True,
                           text=True).stdout.splitlines()
    model = next((m for m in occupancy.GPUS if named and m in named[0].replace(' ', '')), None)
    listed = subprocess.run([ncu, '--query-metrics'], capture_output=True, text=True).stdout
    metrics, left_out = requested_metrics(listed)
    sms = multiprocessors()
    print(f'occupancy: {occupancy_line(model, named, OCCUPANCY_METRIC in metrics)}; '
          f'the counting mode sees {sms or occupancy.GPUS["H100"]["sms"]} multiprocessors')
    print(f'ncu {ncu}, sm_{arch}; metrics ncu does not list, left out: {", ".join(left_out) or "none"}')
    failures = compared_count = 0
    tally = {'equal': 0, 'within 2 %': 0, 'compiler': 0, 'occupancy': 0}
    timed = set()  # the launches with a figure within 2 %
    print(f"{'kernel':<58} {'metric':<58} {'CPU':>12} {'ncu':>12}  verdict")
    with tempfile.TemporaryDirectory(prefix='ncu_compare_') as scratch:
        for lab in options.labs.split(','):
            if lab == counting_build.YARDSTICKS:
                variants = [('grader', None)]  # the grader's own kernels (count_drivers/yardstick_launches.cu)
            else:
                variants = [('solutions', None), ('starter', None)] + [('known-wrong', d) for d in known_wrong_defines(lab)]
            for variant, define in variants[:1] if options.only_solutions else variants:
                if known_wrong_names(lab).get(define) == NOT_COMPARED:
                    print(f'lab {lab} known-wrong {define} ({NOT_COMPARED}): not compared: it writes past its '
                          f'buffers, so neither side counts the kernel alone')
                    continue
                source = count_kernels.submission_file(lab, variant if define is None else 'solutions', define)
                defines = [f'KNOWN_WRONG={define}'] if define else []
                try:
                    cpu = count_kernels.count(lab, variant, define, n=options.n, gpu=model, build_dir=options.build_dir,
                                              sms=sms)
                    program = build_gpu_driver(nvcc, arch, lab, source, defines, scratch)
                    gpu = profile(ncu, program, metrics, options.n)
                    sass = shared_codegen.read(program, nvcc)
                except (counting_build.BuildError, subprocess.TimeoutExpired) as error:
                    print(f'lab {lab} {variant} {define or ""}: not compared: {error}')
                    failures += 1
                    continue
                if len(cpu) != len(gpu):
                    print(f'lab {lab} {variant} {define or ""}: {len(cpu)} launches counted, {len(gpu)} profiled')
                    failures += 1
                usage = None  # nvcc's resource usage of `source`, read once where a launch needs it
                for c, (kernel, values) in zip(cpu, gpu):
                    tolerant = tolerance_of(lab, c) is not None or racing_case(lab, define) is not None
                    label = f"{lab} {variant}{'=' + define if define else ''} {c['label']}:{c['kernel']}"
                    if c['kernel'].split('<')[0] not in kernel:
                        print(f'{label:<58} launch order differs: ncu ran {kernel}')
                        failures += 1
                        continue
                    record = c.get('occupancy') or {}
                    if model and record.get('from') != 'nvcc':  # launched through a variable
                        if usage is None:
                            usage = count_kernels.kernel_resources(source, lab, model, defines) or {}
                        record = count_kernels.launch_occupancy(c, usage, model, shared_codegen.base_name(kernel))
                    occupied = record['occupancy'] if record.get('from') == 'nvcc' else None
                    if model and occupied is None and OCCUPANCY_METRIC in values:
                        print(f'{label:<58} occupancy not compared: nvcc\'s resource usage names no {c["kernel"]}')
                        failures += 1
                    # A kernel launched through a variable ('kernel<<<...>>>') is found by ncu's name.
                    code = shared_codegen.of_kernel(sass, c['kernel']) or shared_codegen.of_kernel(sass, kernel)
                    for metric, mine, theirs in compared(c['metrics'], values, occupied):
                        equal = mine == theirs
                        near = not equal and tolerant and within(metric, mine, theirs, values)
                        why = None if equal or near else (
                            shared_codegen.note(metric, code) or host_note(lab, c['kernel'], metric))
                        compared_count += 1
                        tally['occupancy'] += metric == OCCUPANCY_ROW
                        tally['equal'] += equal
                        tally['within 2 %'] += near
                        if near:
                            timed.add(f"{lab} {c['label']}" + (f" (known-wrong {define})" if define else ''))
                        tally['compiler'] += why is not None
                        failures += not (equal or near or why)
                        verdict = 'ok' if equal else 'ok (within 2 %: timing)' if near else why or 'DIFFERS'
                        print(f"{label:<58} {metric:<58} {mine:>12} {theirs:>12}  {verdict}")
    print(f"{compared_count} figures compared: {tally['equal']} equal, {tally['within 2 %']} within 2 % where "
          f"timing decides ({', '.join(sorted(timed)) or 'none'}), {tally['compiler']} differ where nvcc "
          f"(vector or predicated shared accesses in the SASS) or g++ (CPU_CODEGEN) made other accesses than the "
          f"source's; {failures} differ otherwise or could not be compared; {tally['occupancy']} of them "
          f"theoretical occupancy")
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
