#!/usr/bin/env python3
"""Does every kernel launch of a lab fit every GPU architecture the project supports? No GPU needed.

A launch is refused when its block needs more registers or shared memory than one SM grants a
block, and the number of registers a kernel takes depends on the architecture ptxas compiles for
(lab 05's tile_offsets_kernel took 56 registers for sm_90 but 72 for sm_86: 72 x 1024 threads is
more than the 65536 registers of a block, so the lab could not run on any GPU but Hopper). This
tool compiles the lab's .cu files for every architecture with `nvcc --resource-usage`, reads
registers, spills and static shared memory per kernel, and checks each kernel's launch shape:

  * a kernel named in --fixed KERNEL=THREADS is always launched with THREADS threads: it must carry
    __launch_bounds__(THREADS) (read back as .maxntid from the PTX), so that ptxas keeps whatever
    code a student writes in it within the registers that block size allows;
  * every other kernel takes its block size from the grader, which launches it with up to 1024
    threads: it must fit a 1024-thread block;
  * --dynamic-shared KERNEL=BYTES adds the largest dynamic shared memory the lab launches it with.

Limits checked, per architecture: threads per block (1024); registers per block (65536, allocated
per warp in units of 256, at most 255 per thread); shared memory per block (48 KiB without opting
in; above that the architecture's opt-in maximum, which the kernel must request with
cudaFuncSetAttribute). Prints one table per architecture; exits 1 if anything does not fit, 77 when
there is no nvcc.

  launch_fit.py --nvcc /usr/local/cuda/bin/nvcc --archs 75,80,86,89,90 -I . -I labs/05-scan-warps \
      --fixed tile_offsets_kernel=1024 --fixed single_pass_kernel=512 \
      solutions/lab05_scan_warps.cu starter/lab05_scan_warps.cu
"""
import argparse
import concurrent.futures
import os
import shutil
import sys

# Run as a file, Python sees this folder only: run again with grader/, the import root, on
# PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

# The limits and nvcc's resource usage: grader/counting/ptxas.py (occupancy.py reads them too).
from counting.ptxas import (MAX_THREADS_PER_BLOCK, REGISTERS_PER_BLOCK, SHARED_OPT_IN_MAX,  # noqa: E402
                                SHARED_WITHOUT_OPT_IN, VARIABLE_BLOCK_THREADS, compile_for_resources,
                                demangler_for, kernel_matches, readable_names, registers_per_block)

SKIP = 77


def check_kernel(arch, usage, bound, fixed_threads, dynamic_shared):
    """Returns (threads checked, registers per block, problems) for one kernel on one arch."""
    threads = fixed_threads if fixed_threads is not None else VARIABLE_BLOCK_THREADS
    problems = []
    if fixed_threads is not None and bound != fixed_threads:
        have = 'none' if bound is None else f'__launch_bounds__({bound})'
        problems.append(f'launched with {fixed_threads} threads: needs __launch_bounds__({fixed_threads}), has {have}')
    if fixed_threads is None and bound is not None and bound < VARIABLE_BLOCK_THREADS:
        problems.append(f'__launch_bounds__({bound}) but the grader launches it with up to {threads} threads')
    if threads > MAX_THREADS_PER_BLOCK:
        problems.append(f'{threads} threads > {MAX_THREADS_PER_BLOCK} per block')
    block_registers = registers_per_block(usage['registers'], threads)
    if block_registers > REGISTERS_PER_BLOCK:
        problems.append(f'{usage["registers"]} registers x {threads} threads = {block_registers} > '
                        f'{REGISTERS_PER_BLOCK} registers per block')
    shared = usage['shared'] + dynamic_shared
    opt_in = SHARED_OPT_IN_MAX.get(arch, SHARED_WITHOUT_OPT_IN)
    if usage['shared'] > SHARED_WITHOUT_OPT_IN:
        problems.append(f'{usage["shared"]} bytes of static shared memory > {SHARED_WITHOUT_OPT_IN}')
    elif shared > opt_in:
        problems.append(f'{shared} bytes of shared memory > {opt_in} (sm_{arch} opt-in maximum)')
    return threads, block_registers, problems


def print_register_matrix(lab, archs, rows_per_arch):
    """All architectures side by side: registers per thread, '!' where the launch does not fit."""
    kernels = []
    cells = {}
    for arch in archs:
        for variant, name, threads, registers, *_, fits in rows_per_arch[arch]:
            key = (variant, name, threads)
            if key not in cells:
                kernels.append(key)
                cells[key] = {}
            cells[key][arch] = f'{registers}{"" if fits == "yes" else "!"}'
    header = ['variant', 'kernel', 'threads'] + [f'sm_{a}' for a in archs]
    rows = [header] + [list(key) + [cells[key].get(a, '-') for a in archs] for key in kernels]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    print(f'\n{lab}: registers per thread by architecture (! = the launch does not fit)')
    for row in rows:
        print('  ' + '  '.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def key_value_pairs(items, what):
    table = {}
    for item in items:
        name, _, value = item.partition('=')
        if not name or not value.isdigit():
            sys.exit(f'launch_fit.py: {what} takes KERNEL=NUMBER, got "{item}"')
        table[name] = int(value)
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nvcc', default=shutil.which('nvcc') or '', help="nvcc; '' = skip (exit 77)")
    parser.add_argument('--archs', required=True, help='compute capabilities, e.g. 75,80,86,89,90')
    parser.add_argument('--lab', default='', help='name shown in the tables')
    parser.add_argument('-I', dest='include_dirs', action='append', default=[])
    parser.add_argument('-D', dest='defines', action='append', default=[])
    parser.add_argument('--fixed', action='append', default=[], metavar='KERNEL=THREADS')
    parser.add_argument('--dynamic-shared', action='append', default=[], metavar='KERNEL=BYTES')
    parser.add_argument('--jobs', type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument('sources', nargs='+', help='.cu files (e.g. solutions/ and starter/ of one lab)')
    args = parser.parse_args()

    if not args.nvcc or not (os.path.isfile(args.nvcc) or shutil.which(args.nvcc)):
        print('SKIP: no nvcc (the CUDA toolkit) to compile with; launch shapes not checked')
        return SKIP
    archs = [a.strip().replace('sm_', '') for a in args.archs.split(',') if a.strip()]
    fixed = key_value_pairs(args.fixed, '--fixed')
    dynamic = key_value_pairs(args.dynamic_shared, '--dynamic-shared')
    names = sorted(set(fixed) | set(dynamic), key=len, reverse=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(
            lambda s: compile_for_resources(args.nvcc, s, archs, args.include_dirs, args.defines),
            args.sources))

    demangler = demangler_for(args.nvcc)
    failures = []
    rows_per_arch = {arch: [] for arch in archs}
    for source, (usage, bounds, error) in zip(args.sources, results):
        variant = os.path.basename(os.path.dirname(os.path.abspath(source)))
        if usage is None:
            failures.append(f'{source} does not compile:\n{error}')
            continue
        shown = readable_names({mangled for mangled, _ in usage}, demangler)
        seen = set()
        for (mangled, arch), kernel_usage in sorted(usage.items(), key=lambda item: shown[item[0][0]]):
            # The table names kernels without namespace or template arguments.
            listed = next((name for name in names if kernel_matches(mangled, name)), None)
            seen.add(listed)
            threads, block_registers, problems = check_kernel(
                arch, kernel_usage, bounds.get(mangled), fixed.get(listed), dynamic.get(listed, 0))
            rows_per_arch.setdefault(arch, []).append(
                (variant, shown[mangled], f'{threads}{"*" if listed in fixed else ""}',
                 kernel_usage['registers'], block_registers, kernel_usage['shared'],
                 dynamic.get(listed, 0), kernel_usage['spills'], 'yes' if not problems else 'NO'))
            for problem in problems:
                failures.append(f'sm_{arch} {variant} {shown[mangled]}: {problem}')
        for name in fixed:
            if name not in seen:
                failures.append(f'{source}: no kernel named {name} (listed in the lab\'s fixed_launches)')

    header = ('variant', 'kernel', 'threads', 'regs', 'regs/block', 'static smem', 'dyn smem',
              'spills', 'fits')
    for arch in archs:
        rows = [header] + [tuple(str(c) for c in row) for row in rows_per_arch[arch]]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        opt_in = SHARED_OPT_IN_MAX.get(arch)
        opt_in_text = f'{opt_in // 1024} KiB with opt-in' if opt_in else 'opt-in maximum not known here'
        print(f'\n{args.lab} sm_{arch}: at most {MAX_THREADS_PER_BLOCK} threads, {REGISTERS_PER_BLOCK} '
              f'registers, 48 KiB shared per block ({opt_in_text})')
        for row in rows:
            print('  ' + '  '.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f'\n* fixed block size (__launch_bounds__ required); others: the grader launches them with up '
          f'to {VARIABLE_BLOCK_THREADS} threads')
    print_register_matrix(args.lab, archs, rows_per_arch)
    if failures:
        print(f'\n{len(failures)} launch(es) would be refused or are not bounded:')
        for failure in failures:
            print('  ' + failure)
        return 1
    print(f'every launch fits sm_{", sm_".join(archs)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
