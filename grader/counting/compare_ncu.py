#!/usr/bin/env python3
"""The counting mode against a GPU: every launch of the count programs (labs/*/labNN_count.cu) runs once
under Nsight Compute on this machine's GPU and once under the CPU backend's counting mode, on the
same input, and their counters are compared metric by metric. Kernels: the solutions, the
starters (their given kernels), each known-wrong kernel (labs/*/meson.build's known-wrong
cases), and the grader's yardsticks (--labs yardsticks: read, global-atomics baseline,
privatized histogram, with a 132-multiprocessor grid). Prints a table (kernel, metric, CPU count, ncu count, verdict); exit 0 when every
compared figure agrees, 1 when one does not, 2 on a build error, 77 (skip) without a GPU or ncu.

  python3 grader/counting/compare_ncu.py [--build-dir build] [--labs 01,04,yardsticks] [--ncu PATH]
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
import ctypes
import functools
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
from counting import count_kernels, metrics, ncu, occupancy, programs, shared_codegen  # noqa: E402
from runs import labs as lab_list  # noqa: E402

SKIP = 77
ROOT = programs.ROOT
# Launches whose figures depend on timing, compared within 2 % (a bank-conflict count within 2 % of
# its wavefronts), with the reason.
TOLERANT = {
    ('05', 'scan_v6_single_pass', 'single_pass_kernel'):
        'its look-back polls its predecessors\' flags for as long as they are not ready',
    ('06', 'equalize', 'histogram_kernel'):
        'shared atomics of other warps in flight beside the merge\'s loads (ncu: 1316 conflicts on an H200, '
        '1042 on an H100, 2026-11-27; the model: 0)',
    (programs.YARDSTICKS, 'privatized_histogram', 'histogram_privatized'):
        'the same: 23 conflicts on an H200, 5 on an H100 (2026-11-27), 0 in the model',
}

# Figures where g++ (the counting mode's compiler) made other accesses than nvcc, seen in the
# counting mode's sites (count_kernels.py --sites): (lab, kernel, metric as printed): why.
CPU_CODEGEN = {
    ('05', 'hillis_steele_kernel', 'shared_load_requests'):
        'g++ loads buffer[from][t] once for both sides of the branch (sites: line 41 only, none on the '
        'else line); nvcc loads it in each: +1 for warp 0 in each of the 5 divergent steps, 320 in all',
    ('05', 'hillis_steele_kernel', 'shared_load_wavefronts'):
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


def within(counter, mine, theirs, values):
    """2 % of the figure, or for bank conflicts 2 % of the same operation's wavefronts."""
    base = values.get(metrics.wavefronts_of(counter), theirs) if 'bank_conflicts' in counter else theirs
    return abs(mine - theirs) <= 0.02 * max(abs(base), 1)


# ncu's theoretical occupancy, against occupancy.py's figure for the same GPU model.
OCCUPANCY_METRIC = metrics.OCCUPANCY
OCCUPANCY_ROW = 'theoretical occupancy %'


def requested_metrics(listed):
    """(the ncu metrics to ask for, those left out and said so): the metrics of the compared
    counters (metrics.COMPARED) that `ncu --query-metrics` lists, and OCCUPANCY_METRIC always (that
    list holds the hardware's counters, not the launch figures ncu's Occupancy section reads; a run
    that refuses it drops it, `profile`)."""
    wanted = metrics.ncu_names(metrics.COMPARED)
    asked = [m for m in wanted if m.rsplit('.', 1)[0] in listed]
    return asked + [OCCUPANCY_METRIC], [m for m in wanted if m not in asked]


def occupancy_line(model, named, requested):
    """Whether theoretical occupancy is compared, and for which GPU's model."""
    if not requested:
        return f'not compared (ncu refused {OCCUPANCY_METRIC})'
    return (f'compared for {model} where ncu reports {OCCUPANCY_METRIC} (the summary counts them)' if model
            else f'not compared (occupancy.py has no model of {(named or ["?"])[0]})')


def compared(cpu, gpu, occupancy=None):
    """[(counter, cpu value, ncu value)] of one launch; counters ncu did not report are left out.
    `gpu`: ncu's figures under the counters' names (metrics.from_ncu), with OCCUPANCY_METRIC where
    ncu gave it; `occupancy`: the counting mode's theoretical occupancy (occupancy.py) for this GPU's
    model."""
    rows = []
    if occupancy is not None and OCCUPANCY_METRIC in gpu:
        rows.append((OCCUPANCY_ROW, round(100 * occupancy, 2), round(gpu[OCCUPANCY_METRIC], 2)))
    for op, what in (('ld', 'load'), ('st', 'store')):
        req, sect = f'global_{what}_requests', f'global_{what}_sectors'
        if req in gpu and sect in gpu and (cpu[req] or gpu[req]):
            rows.append((f'sectors/request {op}', round(cpu[sect] / cpu[req], 4) if cpu[req] else 0,
                         round(gpu[sect] / gpu[req], 4) if gpu[req] else 0))
    for counter in ('shared_load_requests', 'shared_store_requests', 'shared_load_wavefronts',
                    'shared_load_bank_conflicts', 'shared_store_wavefronts', 'shared_store_bank_conflicts',
                    'global_atomic_requests', 'shared_atomic_requests'):
        if counter in gpu:
            rows.append((counter, cpu[counter], gpu[counter]))
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


@functools.lru_cache(maxsize=None)
def known_wrong_names(lab):
    """{define: case name} of labs/NN-*/meson.build's known-wrong cases, both lists
    ('known_wrong_cases': wrong results; 'known_wrong_techniques': right results the wrong way);
    the yardsticks have none."""
    if lab == programs.YARDSTICKS:
        return {}
    folder, _ = programs.lab_folder(lab)
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
    ('03', 'plain_shared_increment'): 'a race: lanes of a warp that hit one bin lose counts',
    ('06', 'missing_zero_barrier'): 'a race: warps count into bins others have not zeroed yet',
    ('06', 'missing_merge_barrier'): 'a race: the merge reads bins other warps are still counting into',
}


def racing_case(lab, define):
    """The reason a known-wrong case's figures are compared within 2 %, or None."""
    return RACING_CASES.get((lab, known_wrong_names(lab).get(define)))


def run_ncu(ncu_path, program, ncu_metrics, n, timeout=600):
    """([(kernel name, {counter or OCCUPANCY_METRIC: value})] in launch order, ncu's own error lines)."""
    done = ncu.run(ncu_path, program, ncu_metrics, [f'--n={n}'], timeout)
    launches = []
    for kernel, values in done.launches:
        found = metrics.from_ncu(values)
        if OCCUPANCY_METRIC in values:
            found[OCCUPANCY_METRIC] = values[OCCUPANCY_METRIC]
        launches.append((kernel, found))
    return launches, done.errors


def profile(ncu_path, program, ncu_metrics, n):
    """run_ncu's launches; where ncu profiled nothing and named the occupancy metric in its
    errors, that metric is dropped from `ncu_metrics` (for the rest of the run too) and it runs
    again, saying so."""
    launches, errors = run_ncu(ncu_path, program, ncu_metrics, n)
    if not launches and OCCUPANCY_METRIC in ncu_metrics and any(OCCUPANCY_METRIC in e for e in errors):
        ncu_metrics.remove(OCCUPANCY_METRIC)
        print(f'occupancy: {occupancy_line(None, None, False)}: {errors[0][:200]}')
        launches, errors = run_ncu(ncu_path, program, ncu_metrics, n)
    return launches


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--labs', default=','.join([lab.number for lab in lab_list.discover_labs()] + [programs.YARDSTICKS]))
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
    ncu_path = ncu.find(options.ncu, nvcc)
    if not nvcc or not ncu_path:
        print(f'SKIP: needs nvcc and ncu (nvcc: {nvcc or "not found"}, ncu: {ncu_path or "not found"})')
        return SKIP
    arch = options.arch or gpus.stdout.split()[0].replace('.', '')
    named = subprocess.run(['nvidia-smi', '--query-gpu=name', '--format=csv,noheader'], capture_output=True,
                           text=True).stdout.splitlines()
    model = next((m for m in occupancy.GPUS if named and m in named[0].replace(' ', '')), None)
    listed = subprocess.run([ncu_path, '--query-metrics'], capture_output=True, text=True).stdout
    asked, left_out = requested_metrics(listed)
    sms = multiprocessors()
    print(f'occupancy: {occupancy_line(model, named, OCCUPANCY_METRIC in asked)}; '
          f'the counting mode sees {sms or occupancy.GPUS["H100"]["sms"]} multiprocessors')
    print(f'ncu {ncu_path}, sm_{arch}; metrics ncu does not list, left out: {", ".join(left_out) or "none"}')
    failures = compared_count = 0
    tally = {'equal': 0, 'within 2 %': 0, 'compiler': 0, 'occupancy': 0}
    timed = set()  # the launches with a figure within 2 %
    print(f"{'kernel':<58} {'metric':<58} {'CPU':>12} {'ncu':>12}  verdict")
    with tempfile.TemporaryDirectory(prefix='ncu_compare_') as scratch:
        for lab in options.labs.split(','):
            if lab == programs.YARDSTICKS:
                variants = [('grader', None)]  # the grader's own kernels (grader/core/yardstick_launches.cu)
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
                    program = ncu.build_program(nvcc, arch, lab, source, defines, scratch, options.build_dir)
                    gpu = profile(ncu_path, program, asked, options.n)
                    sass = shared_codegen.read(program, nvcc)
                except (programs.BuildError, subprocess.TimeoutExpired) as error:
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
