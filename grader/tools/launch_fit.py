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
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
MAX_THREADS_PER_BLOCK = 1024
REGISTERS_PER_BLOCK = 65536        # every architecture from sm_70 to sm_121
REGISTER_UNIT_PER_WARP = 256       # registers are allocated to a warp in units of 256
MAX_REGISTERS_PER_THREAD = 255
SHARED_WITHOUT_OPT_IN = 48 * 1024  # static shared memory can never exceed it
# Largest shared memory per block with cudaFuncSetAttribute (CUDA C++ Programming Guide, technical
# specifications per compute capability). Architectures missing here are held to 48 KiB.
SHARED_OPT_IN_MAX = {
    '70': 96 * 1024, '72': 96 * 1024, '75': 64 * 1024, '80': 163 * 1024, '86': 99 * 1024,
    '87': 163 * 1024, '89': 99 * 1024, '90': 227 * 1024, '100': 227 * 1024, '101': 227 * 1024,
    '103': 227 * 1024, '120': 99 * 1024, '121': 99 * 1024,
}
# A kernel whose block size the grader chooses is launched with up to this many threads.
VARIABLE_BLOCK_THREADS = MAX_THREADS_PER_BLOCK


def registers_per_block(registers_per_thread, threads):
    warps = -(-threads // 32)
    per_warp = -(-registers_per_thread * 32 // REGISTER_UNIT_PER_WARP) * REGISTER_UNIT_PER_WARP
    return warps * per_warp


def kernel_matches(mangled, name):
    """Whether the mangled (Itanium ABI) entry name is the kernel `name`, in any namespace or with
    any template arguments: its source name appears as <length><name>. Needs no demangler."""
    return f'{len(name)}{name}' in mangled or mangled == name


def demangler_for(nvcc):
    """cu++filt next to nvcc, else c++filt: only to show kernel names readably."""
    for candidate in (os.path.join(os.path.dirname(os.path.realpath(nvcc)), 'cu++filt'), shutil.which('c++filt')):
        if candidate and os.path.isfile(candidate):
            return candidate
    return None


def readable_names(mangled_names, demangler):
    """{mangled: 'kernel<template args>'}, without namespaces and parameters."""
    names = {m: m for m in mangled_names}
    if demangler and mangled_names:
        ordered = sorted(mangled_names)
        out = subprocess.run([demangler], input='\n'.join(ordered) + '\n', capture_output=True, text=True)
        lines = out.stdout.splitlines()
        if out.returncode == 0 and len(lines) == len(ordered):
            for mangled, demangled in zip(ordered, lines):
                depth, cut = 0, len(demangled)
                for i, c in enumerate(demangled):  # the parameter list: the first '(' outside <>
                    depth += c == '<'
                    depth -= c == '>'
                    if c == '(' and depth == 0 and not demangled.startswith('(anonymous', i):
                        cut = i
                        break
                head = demangled[:cut]
                template = head.find('<')
                base = head[:template] if template >= 0 else head
                names[mangled] = base.rsplit('::', 1)[-1] + (head[template:] if template >= 0 else '')
    return names


def parse_resource_usage(text):
    """ptxas --resource-usage output -> {(mangled, arch): {'registers', 'shared', 'spills'}}."""
    usage = {}
    current = None
    for line in text.splitlines():
        entry = re.search(r"Compiling entry function '([^']+)' for 'sm_(\d+)a?'", line)
        if entry:
            current = (entry.group(1), entry.group(2))
            usage[current] = {'registers': 0, 'shared': 0, 'spills': 0}
            continue
        if current is None:
            continue
        spills = re.search(r'(\d+) bytes spill stores', line)
        if spills:
            usage[current]['spills'] = int(spills.group(1))
        used = re.search(r'Used (\d+) registers', line)
        if used:
            usage[current]['registers'] = int(used.group(1))
            shared = re.search(r'(\d+) bytes smem', line)
            usage[current]['shared'] = int(shared.group(1)) if shared else 0
    return usage


def parse_max_threads(ptx):
    """PTX -> {mangled entry: threads of its __launch_bounds__ (.maxntid), or None}."""
    bounds = {}
    for match in re.finditer(r'\.entry\s+(\S+?)\s*\(([^{]*)\{', ptx, re.S):
        maxntid = re.search(r'\.maxntid\s+(\d+)\s*,\s*(\d+)\s*,\s*(\d+)', match.group(2))
        threads = None
        if maxntid:
            threads = int(maxntid.group(1)) * int(maxntid.group(2)) * int(maxntid.group(3))
        bounds[match.group(1)] = threads
    return bounds


def compile_for_resources(nvcc, source, archs, include_dirs, defines):
    """Returns (resource usage per kernel and arch, launch bounds per kernel, error text)."""
    common = [nvcc, '-std=c++17', '-Xcompiler=-Wno-unused-parameter']
    common += [f'-I{d}' for d in include_dirs] + [f'-D{d}' for d in defines]
    with tempfile.TemporaryDirectory(prefix='launch_fit_') as scratch:
        gencodes = [f'-gencode=arch=compute_{a},code=sm_{a}' for a in archs]
        # -fatbin: the device code alone, for every architecture; no host object is needed here.
        compiled = subprocess.run(common + ['-fatbin', '--resource-usage', '-o', os.path.join(scratch, 'k.fatbin')]
                                  + gencodes + [source], capture_output=True, text=True)
        if compiled.returncode != 0:
            return None, None, compiled.stdout + compiled.stderr
        ptx_file = os.path.join(scratch, 'k.ptx')
        # One PTX is enough for the bounds: __launch_bounds__ does not depend on the architecture.
        ptx = subprocess.run(common + ['-ptx', f'-arch=compute_{archs[0]}', '-o', ptx_file, source],
                             capture_output=True, text=True)
        if ptx.returncode != 0:
            return None, None, ptx.stdout + ptx.stderr
        with open(ptx_file, encoding='utf-8') as f:
            bounds = parse_max_threads(f.read())
    return parse_resource_usage(compiled.stdout + compiled.stderr), bounds, ''


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
