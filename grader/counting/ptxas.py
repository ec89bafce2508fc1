"""What ptxas makes of a kernel, and what one SM grants a block: registers, spills and static
shared memory per kernel and architecture (`nvcc --resource-usage`), the __launch_bounds__ in its
PTX, kernel names read readably, and the per-block limits of every architecture the project
supports. No GPU needed. occupancy.py works out a launch's occupancy from them; the project's
portability check (grader/tools/launch_fit.py) holds every lab's launches to them.
"""
import os
import re
import shutil
import subprocess
import tempfile

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
