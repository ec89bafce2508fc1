#!/usr/bin/env python3
"""What Nsight Compute would count for a lab's kernels, counted on the CPU (no GPU needed): the CPU
backend's counting mode (grader/cpu_backend/README.md, "Counting mode"). Builds the lab's count
program (labs/NN-*/labNN_count.cu) with the chosen lab file, runs each graded function once on
a seeded input, and prints per launch: global load/store requests and sectors per request, shared
load/store wavefronts and bank conflicts, atomics and the distinct addresses per warp-level
atomic, warp instructions and their active lanes, barriers, and the theoretical occupancy on a
named GPU; --sites adds the same per source line.

  python3 grader/counting/count_kernels.py --lab 04 [--submission solutions|starter|DIR]
      [--known-wrong N] [--n 65536] [--input uniform|equal|ramp] [--seed 1] [--only FUNCTION]
      [--gpu H100] [--sites] [--json] [--build-dir build]

--build-dir: a meson build folder whose CPU backend is built (a CPU build, or a cuda build with
project tests; configured with `meson setup BUILD -Dkernel_backend=cpu` if it does not exist).
Exit status: 0, 1 a launch faulted or the count program failed, 2 usage or build error."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Run as a file, Python sees this folder only: run again with grader/, the import root, on
# PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

import toolchain  # noqa: E402
from counting import programs, occupancy  # noqa: E402

ROOT = programs.ROOT
# The per-launch line: (heading, counter) in the order printed (counters: metrics.py).
COLUMNS = [
    ('ld req', 'global_load_requests'), ('ld sect', 'global_load_sectors'),
    ('st req', 'global_store_requests'), ('st sect', 'global_store_sectors'),
    ('lds req', 'shared_load_requests'), ('lds wavef', 'shared_load_wavefronts'),
    ('lds confl', 'shared_load_bank_conflicts'),
    ('sts req', 'shared_store_requests'), ('sts wavef', 'shared_store_wavefronts'),
    ('sts confl', 'shared_store_bank_conflicts'),
    ('g.atom req', 'global_atomic_requests'), ('g.atom addr', 'global_atomic_distinct_addresses'),
    ('s.atom req', 'shared_atomic_requests'), ('s.atom addr', 'shared_atomic_distinct_addresses'),
]


def submission_file(lab, submission, known_wrong):
    """The lab .cu file to count: of solutions/, starter/, a folder, or the lab's known-wrong file
    (the yardsticks: the grader's own, grader/core/yardstick_launches.cu)."""
    if lab == programs.YARDSTICKS:
        return programs.YARDSTICK_LAB_FILE
    folder, name = programs.lab_folder(lab)
    if known_wrong is not None:
        path = os.path.join(ROOT, 'labs', folder, 'known_wrong', f'lab{lab}_known_wrong.cu')
    elif submission in ('solutions', 'starter'):
        path = os.path.join(ROOT, submission, name)
    else:
        path = os.path.join(os.path.abspath(submission), name)
    if not os.path.isfile(path):
        raise programs.BuildError(f'no {path}')
    return path


def ensure_build_dir(build_dir):
    if os.path.isfile(os.path.join(build_dir, 'meson-info', 'intro-compilers.json')):
        return
    done = subprocess.run(['meson', 'setup', build_dir, '-Dkernel_backend=cpu', '-Dproject_tests=false'],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise programs.BuildError(f'meson setup {build_dir} failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}')


def add_occupancy(launches, source, lab, gpu, defines):
    """Adds 'occupancy' to each launch: for `gpu`, with nvcc's registers and static shared memory
    where the toolkit is found ('resources': 'nvcc') or from the launch shape alone ('shape')."""
    usage = kernel_resources(source, lab, gpu, defines)
    for launch in launches:
        launch['occupancy'] = launch_occupancy(launch, usage, gpu)


def kernel_resources(source, lab, gpu, defines):
    """nvcc's registers and static shared memory of each kernel of `source` for `gpu`'s
    architecture (occupancy.resources), or None without the toolkit."""
    _, lab_dir, _, _, _ = programs.target(lab)
    return occupancy.resources(toolchain.find_cuda_toolkit(), source, occupancy.GPUS[gpu]['arch'],
                               [ROOT, lab_dir], defines)


def launch_occupancy(launch, usage, gpu, name=None):
    """One launch's 'occupancy' record for `gpu`. usage: occupancy.resources' figures of its file;
    name: the kernel's name where the launch's own is not it (a kernel launched through a
    variable is counted under the variable's name)."""
    threads = launch['block'][0] * launch['block'][1] * launch['block'][2]
    found = (usage or {}).get((name or launch['kernel']).split('<')[0].split('::')[-1])
    result = occupancy.occupancy(gpu, threads, found['registers'] if found else None,
                                 found['shared'] if found else 0, launch['dynamic_shared_bytes'])
    result['from'] = 'nvcc' if found else 'shape'
    if found:
        result.update(registers=found['registers'], static_shared=found['shared'])
    return result


def count(lab, submission='solutions', known_wrong=None, n=65536, input_kind='uniform', seed=1,
          only=None, gpu='H100', build_dir='build', trace=None, timeout=600, sms=None):
    """The records of every launch (the counting mode's JSON, 'launches'), with occupancy added.
    trace: 'LABEL' or 'LABEL:BLOCK:WARP' (block 0 warp 0 by default): then returns (launches,
    the JSON's 'trace'), one warp's first accesses lane by lane in the first launch labelled LABEL
    (its 'kernel' empty when none ran). sms: the multiprocessors kernels see (default: `gpu`'s, else an
    H100's: the counting mode runs one host thread, whose count no GPU has). Raises programs.BuildError when something cannot be
    built or run."""
    source = submission_file(lab, submission, known_wrong)
    ensure_build_dir(build_dir)
    defines = [f'KNOWN_WRONG={known_wrong}'] if known_wrong is not None else []
    program = programs.build(build_dir, lab, source, counting=True, defines=defines)
    with tempfile.TemporaryDirectory(prefix='counts_') as scratch:
        counts = os.path.join(scratch, 'counts.json')
        sms = sms or occupancy.GPUS[gpu or 'H100']['sms']
        status, out, err = programs.run(program, n, input_kind, seed, only, counts, timeout=timeout,
                                                     trace=trace, sms=sms)
        if status != 0 or not os.path.isfile(counts):
            raise programs.BuildError(f'{program} ended with status {status}:\n{out[-2000:]}{err[-2000:]}')
        with open(counts, encoding='utf-8') as f:
            records = json.load(f)
    launches = records['launches']
    if trace is not None and 'trace' not in records:
        raise programs.BuildError(f'no trace for {trace!r} (LABEL or LABEL:BLOCK:WARP):\n{err[-2000:]}')
    name_backend_lines(launches, records.get('trace'), [source] + programs.target(lab)[3])
    if gpu:
        add_occupancy(launches, source, lab, gpu, defines)
    return launches if trace is None else (launches, records['trace'])


def kernel_line(sources, kernel):
    """'FILE:LINE' of the __global__ function `kernel` ('name' or 'name<...>') in the first of
    `sources` that defines it, or None."""
    for source in sources:
        try:
            with open(source, encoding='utf-8', errors='replace') as f:
                text = f.read()
        except OSError:
            continue
        found = re.search(r'__global__[^;{}]*?\b(' + re.escape(kernel.split('<')[0]) + r')\s*\(', text)
        if found:
            return f'{source}:{text[:found.start(1)].count(chr(10)) + 1}'
    return None


def name_backend_lines(launches, trace, sources):
    """Where the compiler kept no line of the kernel for an access (its debug line is the CPU
    backend's launch code, or the transformed file itself: e.g. a loop under #pragma unroll at
    -O3), the site names the kernel's first line and says so. `sources`: where kernels are defined."""
    def fix(location, kernel):
        if '/cpu_backend/include/' not in location and os.path.basename(location.split(':')[0]) != 'lab.cpp':
            return location
        line = kernel_line(sources, kernel)
        return f'{line} ({kernel}: no finer line kept)' if line else location
    for launch in launches:
        for site in launch.get('sites', []):
            site['location'] = fix(site['location'], launch['kernel'])
    for access in (trace or {}).get('accesses', []):
        access['location'] = fix(access['location'], trace.get('kernel', ''))


def print_table(launches, sites):
    for launch in launches:
        shape = 'grid {} block {} smem {}'.format('x'.join(map(str, launch['grid'])),
                                                  'x'.join(map(str, launch['block'])), launch['dynamic_shared_bytes'])
        print(f"{launch['label']}: {launch['kernel']}  {shape}{'  FAULTED' if launch['faulted'] else ''}")
        m = launch['metrics']
        print('  ' + ' '.join(f'{h:>11}' for h, _ in COLUMNS))
        print('  ' + ' '.join(f'{m[k]:>11}' for _, k in COLUMNS))
        ratios = []
        for what in ('load', 'store'):
            r = m[f'global_{what}_requests']
            if r:
                ratios.append(f"sectors/request {what} {m[f'global_{what}_sectors'] / r:.2f}")
        if m['warp_instructions']:
            ratios.append(f"active lanes {m['active_lanes'] / m['warp_instructions']:.1f}/32")
        ratios.append(f"barriers {launch['barriers']} ({launch['max_barriers_per_block']} per block at most)")
        occ = launch.get('occupancy')
        if occ:
            ratios.append(f"occupancy on {occ['gpu']} {occ['occupancy']:.0%} ({occ['blocks_per_sm']} blocks/SM, "
                          f"limited by {occ['limited_by']}{'' if occ['from'] == 'nvcc' else '; registers unknown: no nvcc'})")
        print('  ' + '; '.join(ratios))
        if sites:
            for s in launch['sites']:
                cost = {'global_load': f"sectors {s['sectors']}", 'global_store': f"sectors {s['sectors']}",
                        'shared_load': f"wavefronts {s['wavefronts']} conflicts {s['bank_conflicts']}",
                        'shared_store': f"wavefronts {s['wavefronts']} conflicts {s['bank_conflicts']}"}.get(
                            s['kind'], f"distinct addresses {s['distinct_addresses']}")
                where = os.path.relpath(s['location'], ROOT) if s['location'].startswith('/') else s['location']
                print(f"    {where:<44} {s['kind']:<13} {s['bytes']:>2}B requests {s['requests']:>8} "
                      f"lanes {s['lanes']:>9} {cost}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--lab', required=True, help=f'01 to 06, or {programs.YARDSTICKS} (the grader\'s)')
    parser.add_argument('--submission', default='solutions', help='solutions, starter or a folder of lab files')
    parser.add_argument('--known-wrong', type=int, help="count the lab's known-wrong kernel KNOWN_WRONG=N")
    parser.add_argument('--n', type=int, default=65536, help='samples (elements, pixels) of the input')
    parser.add_argument('--input', default='uniform', choices=['uniform', 'equal', 'ramp'])
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--only', help='one graded function, e.g. histogram_v1_inverse')
    parser.add_argument('--gpu', default='H100', choices=sorted(occupancy.GPUS), help='for the occupancy')
    parser.add_argument('--sites', action='store_true', help='also per source line')
    parser.add_argument('--json', action='store_true', help='the records as JSON')
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    options = parser.parse_args(argv)
    lab = options.lab if options.lab == programs.YARDSTICKS else options.lab.zfill(2)
    try:
        launches = count(lab, options.submission, options.known_wrong, options.n, options.input, options.seed,
                         options.only, options.gpu, options.build_dir)
    except programs.BuildError as error:
        print(f'count_kernels: {error}', file=sys.stderr)
        return 2
    if options.json:
        json.dump({'schema': 'cpu-backend-counts/v2', 'lab': lab, 'launches': launches}, sys.stdout, indent=1)
        print()
    else:
        print_table(launches, options.sites)
    return 1 if any(launch['faulted'] for launch in launches) else 0


if __name__ == '__main__':
    sys.exit(main())
