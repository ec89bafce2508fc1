"""grade.py --explain labNN[:vN]: every counter of the lab's graded functions, the submission's
beside the reference's, the declared ones marked with their question; then one warp's accesses of
one version on a tiny input, drawn into build/results/labNN-<function>-warp.svg."""
import os
import subprocess

import toolchain
from explain import counters, declarations, explanations, gpu_counters, in_grading, reference_table, warp_picture
from counting import count_kernels, programs

TRACE_N = 4096  # the picture's input: one warp's first accesses do not need more


def parse(spec):
    """'lab04:v2' -> ('04', 'v2'); 'lab04' or '04' -> ('04', None)."""
    lab, _, version = spec.partition(':')
    lab = lab.lower().replace('lab', '')
    if not (lab.isdigit() and len(lab) == 2):
        raise ValueError(f'--explain {spec}: give a lab as lab04, optionally a version, lab04:v2')
    return lab, version or None


def lab_of(spec, lab_names):
    """The lab number of an --explain spec, checked against the labs ('lab04', ...) there are."""
    lab = parse(spec)[0]
    if f'lab{lab}' not in lab_names:
        raise ValueError(f'--explain {spec}: there is no lab {lab} (labs/labs.txt lists them)')
    return lab


def chosen_versions(declared, version):
    versions = declared['versions']
    if version:
        versions = [v for v in versions if v['version'].split()[0] == version or v['function'] == version]
        if not versions:
            names = ', '.join(v['version'].split()[0] for v in declared['versions'])
            raise ValueError(f'no version {version} in this lab; its versions: {names}')
    return versions


def table_lines(section, versions, hardware=None, reference_gpu=None):
    """The table; `hardware`: {function: {counter: value}} read from the GPU, a third column;
    `reference_gpu`: the same for the reference, a fourth."""
    hardware, reference_gpu = hardware or {}, reference_gpu or {}
    flagged = {(v['function'], f['counter']): f for v in section['versions'] for f in v['findings']}
    watched = {(v['function'], w['counter']): w for v in versions for w in v['watch']}
    rows = []
    for version in section['versions']:
        if version['function'] not in {v['function'] for v in versions}:
            continue
        title = f"{version['version']} ({version['function']})"
        gpu, theirs = hardware.get(version['function']), reference_gpu.get(version['function'])
        rows.append(f"{title:<52} {'yours':>12} {'reference':>12}" + (f" {'yours (GPU)':>12}" if hardware else '')
                    + (f" {'ref. (GPU)':>12}" if reference_gpu else ''))
        for name, (words, _, _) in counters.COUNTERS.items():
            if name not in version['student'] or not (version['student'][name] or version['reference'].get(name)):
                continue  # absent, or nothing on either side
            mark = ''
            if (version['function'], name) in flagged:
                f = flagged[(version['function'], name)]
                mark = ("  <- differs: the plain update below" if f.get('explained_by') else
                        f"  <- differs: see {f['question']} ({f['fix']})" if f.get('question') else "  <- differs")
            elif (version['function'], name) in watched:
                mark = f"  (watched: {watched[(version['function'], name)]['question']})"
            on_gpu = f" {counters.show(name, gpu[name]) if gpu and name in gpu else '-':>12}" if hardware else ''
            if reference_gpu:
                on_gpu += f" {counters.show(name, theirs[name]) if theirs and name in theirs else '-':>12}"
            rows.append(f"  {words:<50} {counters.show(name, version['student'][name]):>12} "
                        f"{counters.show(name, version['reference'][name]):>12}{on_gpu}{mark}")
    return rows


def access_row(access):
    """One access as --explain lists it: where, what, and its figures."""
    figures = f"{access['requests']:>8} req"
    if access['kind'].startswith('global_') and not access['kind'].endswith('atomic') and access['requests']:
        figures += f"  {access['sectors'] / access['requests']:6.2f} sectors/req"
    elif access['kind'].startswith('shared_') and not access['kind'].endswith('atomic') and access['requests']:
        figures += f"  {access['bank_conflicts'] / access['requests']:6.2f} conflicts/req"
    elif access['lanes'] and access['distinct_addresses']:
        figures += f"  {access['lanes'] / access['distinct_addresses']:6.2f} lanes/address"
    what = f"`{access['expression']}`" if access['expression'] else (access['note'] or access['statement'])[:60]
    return f"    {os.path.basename(access['file'])}:{access['line']:<5} {access['kind']:<14} {what:<44} {figures}"


def access_lines(section, versions, reference):
    """Each chosen version's accesses, the submission's then the reference's (explain/sites.py),
    and which of them each finding names."""
    rows = []
    for version in section['versions']:
        if version['function'] not in {v['function'] for v in versions} or 'sites' not in version:
            continue
        rows.append(f"{version['version']}: its accesses (yours)")
        rows += [access_row(a) for a in version['sites']]
        rows.append("  the reference's")
        rows += [access_row(a) for a in (reference or {}).get(version['function'], [])]
    return rows


def picture(lab, submission_dir, build_dir, function, out_dir):
    """Draws one warp's accesses of `function`; returns the picture's path or why there is none."""
    try:
        _, trace = count_kernels.count(lab, submission_dir, n=TRACE_N, gpu=None, build_dir=build_dir,
                                       only=function, trace=function, timeout=explanations.TIMEOUT_S)
    except (programs.BuildError, subprocess.TimeoutExpired) as error:
        return None, f'no picture: {str(error).splitlines()[0][:200]}'
    if not trace or not trace.get('accesses'):
        return None, f'no picture: {function} made no memory access in block 0, warp 0'
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f'lab{lab}-{function}-warp.svg')
    warp_picture.write(trace, path, f'lab {lab} {function}: block 0, warp 0, n = {TRACE_N}')
    return path, None


def run(spec, submission_dir, build_dir, gpu=False):
    """Prints the explanation; returns the exit status (0, or 2 when nothing could be counted).
    `gpu`: a cuda build, whose GPU's own counters are read too (ncu), a third column."""
    try:
        lab, version = parse(spec)
        declared = declarations.load(lab)
        if not declared:
            having = [n for n in reference_table.LABS if declarations.load(n)]
            raise ValueError(f'lab {lab} has no counters to explain (no labs/{lab}-*/counters.json); '
                             f'these labs have: {", ".join(having)}')
        versions = chosen_versions(declared, version)
    except (ValueError, declarations.DeclarationError) as error:
        print(f'error: {error}')
        return 2
    print(f"Counting lab{lab}'s kernels in {submission_dir} (the CPU backend's counting mode) ...", flush=True)
    section = in_grading.with_ticks(f'lab{lab} counting', lambda: explanations.explain_lab(lab, submission_dir, build_dir))
    if section['status'] != 'counted':
        print(f"error: {section['reason']}")
        return 2
    given = reference_table.INPUT
    print(f"\nlab{lab}: counters per graded function on n = {given['n']} {given['input']} samples, seed "
          f"{given['seed']} (CPU model; the reference is the workbook's solution, counted the same way)")
    hardware, reference_gpu = {}, {}
    if gpu:
        print("Reading the same counters from the GPU (ncu), yours and the reference's ...", flush=True)
        arch, nvcc = gpu_counters.gpu_arch(), toolchain.find_cuda_toolkit()
        read = in_grading.with_ticks(f'lab{lab} GPU counters', lambda: gpu_counters.measure(
            lab, explanations.lab_file(lab, submission_dir), section['_launches'], arch, nvcc, build_dir=build_dir))
        hardware = read['functions']
        if read['status'] == 'measured':
            reference_gpu = in_grading.with_ticks(f"lab{lab} the reference's GPU counters",
                                                  lambda: in_grading.reference_on_gpu(lab, arch, nvcc, build_dir))
        print(read['message'])
    print('\n'.join(table_lines(section, versions, hardware, reference_gpu)))
    print('\n' + '\n'.join(access_lines(section, versions, (reference_table.load() or {}).get('sites', {}).get(lab))))
    lines = [f['line'] for v in section['versions'] for f in v['findings']
             if v['function'] in {x['function'] for x in versions} and f.get('line')]
    print('\n' + ('\n'.join(lines) if lines else 'Every watched counter is within what the lab calls normal.'))
    target = next((v for v in versions if any(f for x in section['versions'] if x['function'] == v['function']
                                              for f in x['findings'])), versions[0])
    path, why = in_grading.with_ticks(f'lab{lab} warp picture', lambda: picture(
        lab, os.path.abspath(submission_dir), build_dir, target['function'], os.path.join(build_dir, 'results')))
    print(f"One warp's accesses of {target['version']}: {os.path.relpath(path) if path else why}")
    return 0
