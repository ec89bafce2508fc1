"""What the compiler made of a kernel's shared-memory accesses, read from the SASS of the built
program: which shared loads and stores are vector instructions (LDS.64, LDS.128: one instruction
carries 2 or 4 words) and which are predicated (@P0 LDS: every warp that reaches it executes it,
with its lanes on or off). The counting mode counts the source's accesses, lane by lane; ncu counts
the instructions the GPU executes. Where the compiler vectorized or predicated a kernel's shared
accesses, the two instruction and wavefront counts differ by construction, not by a counting
error: compare_ncu.py says so for those figures, from this listing, and fails on the rest.
"""
import re

from counting import sass

SHARED = re.compile(r"^(@!?U?P(?:T|\d+)\s+)?(LDS|STS)((?:\.[A-Z0-9]+)*)\b")


def shared_code(instructions):
    """{'ld'|'st': {'vector': {'LDS.128', ...}, 'predicated': bool}} of one kernel's SASS."""
    code = {'ld': {'vector': set(), 'predicated': False}, 'st': {'vector': set(), 'predicated': False}}
    for ins in instructions:
        found = SHARED.match(ins.text)
        if not found:
            continue
        guard, opcode, suffix = found.groups()
        op = code['ld' if opcode == 'LDS' else 'st']
        widths = [w for w in suffix.split('.') if w in ('64', '128')]
        if widths:
            op['vector'].add(f'{opcode}.{widths[0]}')
        if guard and not guard.strip().lstrip('@!').startswith(('PT', 'UPT')):
            op['predicated'] = True
    return code


def base_name(name):
    """'histogram_kernel' of 'histogram_kernel', 'blelloch_kernel<true>' or ncu's
    'void lab04::<unnamed>::histogram_kernel<int>(const int *, int)'."""
    head = name.split('(')[0].strip()
    if head.endswith('>'):  # its template arguments, balanced
        depth = 0
        for i in range(len(head) - 1, -1, -1):
            depth += {'>': 1, '<': -1}.get(head[i], 0)
            if depth == 0:
                head = head[:i]
                break
    words = head.split('::')[-1].split()
    return words[-1] if words else ''


def of_kernel(kernels, name):
    """The shared code of kernel `name` ('histogram_kernel', 'blelloch_kernel<true>', or ncu's
    'void ns::histogram_kernel<int>(const int *, int)') among
    `kernels` ({mangled name: [Instruction]}): the union over every mangled name that holds the
    base name with its Itanium length prefix, or None when none does."""
    base = base_name(name)
    if not base:
        return None
    matched = [ins for mangled, ins in kernels.items() if f'{len(base)}{base}' in mangled or mangled == base]
    if not matched:
        return None
    return shared_code([i for instructions in matched for i in instructions])


def read(program, nvcc):
    """{mangled kernel name: [Instruction]} of the program's one architecture; {} when its SASS
    cannot be read (the differences then stay unexplained, and fail)."""
    try:
        by_arch, _ = sass.read_program(program, nvcc)
    except sass.Unreadable:
        return {}
    return next(iter(by_arch.values()), {})


def note(metric, code):
    """Why `metric` (a shared load or store counter, metrics.py) may differ for a kernel of this
    `code`, or None."""
    found = re.match(r'shared_(load|store)_', metric)
    if found is None or code is None:
        return None
    op = 'ld' if found.group(1) == 'load' else 'st'
    if code[op]['vector']:
        return f"compiler: {'/'.join(sorted(code[op]['vector']))} (vector shared {'loads' if op == 'ld' else 'stores'})"
    if code[op]['predicated']:
        return f"compiler: predicated {'LDS' if op == 'ld' else 'STS'} (executed by warps with lanes off)"
    return None
