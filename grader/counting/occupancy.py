"""Theoretical occupancy of a launch shape on a named GPU, as CUDA's occupancy calculator (and
ncu's sm__maximum_warps_per_active_cycle_pct) works it out from the block's threads, its registers
per thread and its shared memory (static from the toolkit's resource usage, plus dynamic).
Registers and static shared memory come from `nvcc --resource-usage` (ptxas.py reads it);
without nvcc the figure uses the launch shape and dynamic shared memory alone, and says so."""
import os
import re

from counting import ptxas

# Per SM: warps, blocks, 32-bit registers, shared memory (bytes) and the most a block may have,
# the shared memory the system reserves per block, and the architecture. CUDA C++ Programming
# Guide, "Technical Specifications per Compute Capability". 'sms': the multiprocessors of the
# model's usual board (H100 and H200 SXM: 132; an H100 PCIe has 114), the grid the counting mode
# gives a kernel that sizes its grid by multiProcessorCount.
GPUS = {
    'H100': {'arch': '90', 'warps': 64, 'blocks': 32, 'registers': 65536, 'shared': 228 * 1024,
             'shared_per_block': 227 * 1024, 'reserved': 1024, 'sms': 132},
    'H200': {'arch': '90', 'warps': 64, 'blocks': 32, 'registers': 65536, 'shared': 228 * 1024,
             'shared_per_block': 227 * 1024, 'reserved': 1024, 'sms': 132},
    'A100': {'arch': '80', 'warps': 64, 'blocks': 32, 'registers': 65536, 'shared': 164 * 1024,
             'shared_per_block': 163 * 1024, 'reserved': 1024, 'sms': 108},
    'RTX4090': {'arch': '89', 'warps': 48, 'blocks': 24, 'registers': 65536, 'shared': 100 * 1024,
                'shared_per_block': 99 * 1024, 'reserved': 1024, 'sms': 128},
}
SHARED_UNIT = 128  # shared memory is allocated to a block in these units


def occupancy(gpu, threads, registers=None, static_shared=0, dynamic_shared=0):
    """{'blocks_per_sm', 'warps_per_sm', 'occupancy' (0..1), 'limited_by', 'gpu'}."""
    g = GPUS[gpu]
    warps = -(-threads // 32)
    limits = {'warps': g['warps'] // warps, 'blocks': g['blocks']}
    if registers:
        per_block = ptxas.registers_per_block(registers, threads)
        limits['registers'] = g['registers'] // per_block if per_block else g['blocks']
    shared = static_shared + dynamic_shared
    if shared:
        if shared > g['shared_per_block']:
            limits['shared'] = 0
        else:
            per_block = -(-(shared + g['reserved']) // SHARED_UNIT) * SHARED_UNIT
            limits['shared'] = g['shared'] // per_block
    limited_by = min(limits, key=lambda k: limits[k])
    blocks = limits[limited_by]
    return {'gpu': gpu, 'blocks_per_sm': blocks, 'warps_per_sm': blocks * warps,
            'occupancy': blocks * warps / g['warps'], 'limited_by': limited_by}


def resources(nvcc, source, arch, include_dirs, defines=()):
    """{kernel name: {'registers', 'shared'}} for `arch`, or None (no nvcc, or it failed)."""
    if not nvcc or not os.path.isfile(nvcc):
        return None
    usage, _, error = ptxas.compile_for_resources(nvcc, source, [arch], include_dirs, list(defines))
    if usage is None:
        return None
    names = ptxas.readable_names(sorted({m for m, _ in usage}), ptxas.demangler_for(nvcc))
    return {mangled_base_name(m) or names[m].split('<')[0]: u for (m, a), u in usage.items() if a == arch}


def mangled_base_name(mangled):
    """A kernel's name without namespaces, template arguments and parameters, read from its
    Itanium-mangled name ('_ZN5lab0156_GLOBAL__N__..._cu_1e9f51cb26histogram_v1_slices_kernelEPKiiPii'
    -> 'histogram_v1_slices_kernel'), or None where the name is not one this reads. The demanglers
    do not agree on how they print an anonymous namespace (c++filt's '(anonymous namespace)'), so
    the name is not taken from their output."""
    nested = mangled.startswith('_ZN')
    if not (nested or mangled.startswith('_Z')):
        return None
    i, last = 3 if nested else 2, None
    while i < len(mangled) and mangled[i].isdigit():
        digits = re.match(r'\d+', mangled[i:]).group()
        start = i + len(digits)
        last, i = mangled[start:start + int(digits)], start + int(digits)
        if not nested or mangled[i:i + 1] in ('E', 'I'):
            break
    return last or None
