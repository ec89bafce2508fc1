#!/usr/bin/env python3
"""The CPU backend's race detector against compute-sanitizer racecheck on this machine's GPU, kernel
by kernel. Every graded function of the solutions and of each known-wrong case (labs/*/meson.build)
whose kernels touch shared memory (the counting mode says which) runs once under racecheck (the
count program built by nvcc with -lineinfo, --only=the function) and once under the race detector
(races.py, the same input), and the verdicts are compared: racy or not, per kernel. Racecheck sees
shared memory only: the detector's global-memory races and uninitialised shared reads are listed
beside, not compared. Prints the table (kernel, racecheck hazards, detector races, agree?) in
Markdown, with the GPU, driver, compute-sanitizer and date; exit 0 when every verdict agrees, 1
when one does not, 2 on a build error, 77 (skip) without a GPU or compute-sanitizer.

  python3 grader/counting/compare_racecheck.py [--build-dir build] [--labs 03,05] [--sanitizer PATH]
      [--arch 90] [--n 65537] [--only-solutions] [--markdown FILE]

Needs nvcc, compute-sanitizer (searched on PATH and beside nvcc) and a build folder with the CPU
backend (a cuda build configured with project tests, the default). On an H100 the whole run takes
a few minutes: racecheck slows each kernel down a hundredfold."""
import argparse
import datetime
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
from counting import compare_ncu, count_kernels, programs, races  # noqa: E402

SKIP = 77
ROOT = programs.ROOT
SHARED = ('shared_load_requests', 'shared_store_requests', 'shared_atomic_requests')
# racecheck's report of one race: "Error: Race reported between Write access at KERNEL(...)+0x1f0 in
# FILE:LINE" then "and Read access at ... [N hazards]" (--racecheck-report analysis, the default).
RACE = re.compile(r'^=+\s+(Error|Warning): Race reported between (\w+) access at (.*?) in (\S+?):(\d+)')
AND = re.compile(r'^=+\s+and (\w+) access at (.*?) in (\S+?):(\d+)(?:.*\[(\d+) hazards?\])?')
SUMMARY = re.compile(r'RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)')


def find_sanitizer(given, nvcc):
    if given:
        return given if os.path.isfile(given) else None
    found = shutil.which('compute-sanitizer')
    if found or not nvcc:
        return found
    for candidate in (os.path.join(os.path.dirname(nvcc), 'compute-sanitizer'),
                      os.path.join(os.path.dirname(os.path.dirname(nvcc)), 'compute-sanitizer', 'compute-sanitizer')):
        if os.path.isfile(candidate):
            return candidate
    return None


def build_gpu_program(nvcc, arch, lab, source, defines, out_dir, build_dir):
    """The count program built by nvcc for sm_`arch`, with line information for racecheck's reports
    (the meson build's nvcc flags, as ncu.build_program's)."""
    made = programs.target(lab)
    program = os.path.join(out_dir, f'{made.name}_{abs(hash((source, tuple(defines)))):x}')
    common = ([nvcc] + programs.compile_flags(build_dir)['nvcc'] + ['-lineinfo',
              f'-gencode=arch=compute_{arch},code=sm_{arch}', '-I', ROOT, '-I', made.folder, '-I', programs.COUNTING,
              '-DGRADER_RUNNER_SIDE', '-w'] + [f'-D{d}' for d in defines])
    lab_only = [f'-D{d}' for d in programs.LAB_FILE_DEFINES.get(lab, [])]
    for command in (common + lab_only + ['-c', source, '-o', program + '.lab.o'],
                    common + [made.main, program + '.lab.o', '-o', program]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise programs.BuildError(f'nvcc failed for {source} {defines}:\n{done.stderr[-3000:]}')
    return program


def racecheck(sanitizer, program, function, n, timeout):
    """racecheck's races of one graded function: [(severity, kernel text, (file:line, file:line), hazards)],
    the summary's (errors, warnings) or None, and its output."""
    done = subprocess.run([sanitizer, '--tool', 'racecheck', '--print-limit', '10000', program, f'--n={n}',
                           '--input=uniform', f'--only={function}'], capture_output=True, text=True, timeout=timeout)
    text = done.stdout + done.stderr
    found, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        race = RACE.match(line)
        if not race:
            continue
        other = AND.match(lines[i + 1]) if i + 1 < len(lines) else None
        where = (f'{os.path.basename(race.group(4))}:{race.group(5)}',
                 f'{os.path.basename(other.group(3))}:{other.group(4)}' if other else '?')
        hazards = int(other.group(5)) if other and other.group(5) else 1
        found.append((race.group(1), race.group(3) + (' / ' + other.group(2) if other else ''), where, hazards))
    summary = SUMMARY.search(text)
    return found, (int(summary.group(2)), int(summary.group(3))) if summary else None, text


def shared_kernels(lab, variant, define, n, build_dir):
    """{(function, kernel)} of the launches that touch shared memory, from the counting mode."""
    launches = count_kernels.count(lab, variant, define, n=n, gpu=None, build_dir=build_dir)
    return sorted({(l['label'], l['kernel']) for l in launches if any(l['metrics'][m] for m in SHARED)})


def gpu_info():
    info = subprocess.run(['nvidia-smi', '--query-gpu=name,driver_version', '--format=csv,noheader'],
                          capture_output=True, text=True).stdout.splitlines()
    return info[0] if info else '?'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--labs', default=f'00,01,02,03,04,05,06,{programs.YARDSTICKS}')
    parser.add_argument('--sanitizer', help='compute-sanitizer (default: on PATH or beside nvcc)')
    parser.add_argument('--arch', help='compute capability to build for (default: the first GPU)')
    parser.add_argument('--n', type=int, default=races.INPUTS[0][1])
    parser.add_argument('--only-solutions', action='store_true')
    parser.add_argument('--markdown', help='also write the table to this file')
    parser.add_argument('--timeout', type=int, default=1200, help='seconds per racecheck run')
    options = parser.parse_args(argv)
    nvcc = toolchain.find_cuda_toolkit()
    archs = toolchain.detected_archs()
    sanitizer = find_sanitizer(options.sanitizer, nvcc)
    if not archs:
        print('SKIP: no NVIDIA GPU (nvidia-smi finds none)')
        return SKIP
    if not nvcc or not sanitizer:
        print(f'SKIP: needs nvcc and compute-sanitizer (nvcc: {nvcc or "not found"}, '
              f'compute-sanitizer: {sanitizer or "not found"})')
        return SKIP
    arch = options.arch or str(archs[0]).replace('.', '')
    version = subprocess.run([sanitizer, '--version'], capture_output=True, text=True).stdout.strip().splitlines()
    out = [f'GPU: {gpu_info()}; {version[-1] if version else sanitizer}; sm_{arch}; '
           f'{datetime.date.today().isoformat()}; input uniform n={options.n}',
           '', '| kernel | racecheck hazards | detector races | agree? |', '|---|---|---|---|']
    disagree = errors = 0
    with tempfile.TemporaryDirectory(prefix='racecheck_') as scratch:
        for lab in options.labs.split(','):
            variants = [('solutions', None)] if lab == programs.YARDSTICKS else (
                [('solutions', None)] + [('known-wrong', d) for d in compare_ncu.known_wrong_defines(lab)])
            for variant, define in variants[:1] if options.only_solutions else variants:
                name = compare_ncu.known_wrong_names(lab).get(define, '')
                if name == compare_ncu.NOT_COMPARED:
                    out.append(f'| lab{lab} known-wrong {define} {name} | not run: it writes past its buffers | | |')
                    continue
                source = count_kernels.submission_file(lab, 'solutions', int(define) if define else None)
                defines = [f'KNOWN_WRONG={define}'] if define else []
                try:
                    kernels = shared_kernels(lab, variant, int(define) if define else None, options.n, options.build_dir)
                    if not kernels:
                        continue
                    found = races.find(lab, 'solutions', int(define) if define else None,
                                       inputs=(('uniform', options.n),), build_dir=options.build_dir)
                    program = build_gpu_program(nvcc, arch, lab, source, defines, scratch, options.build_dir)
                except (programs.BuildError, races.RunError) as error:
                    out.append(f'| lab{lab} {variant} {define or ""} | not compared: {str(error).splitlines()[0]} | | |')
                    errors += 1
                    continue
                checked = {}
                for function, kernel in kernels:
                    if function not in checked:
                        checked[function] = racecheck(sanitizer, program, function, options.n, options.timeout)
                    reported, summary, _ = checked[function]
                    base = kernel.split('<')[0].split('::')[-1]
                    mine = [r for r in reported if re.search(r'\b' + re.escape(base) + r'\b', r[1])]
                    hazards = sum(r[3] for r in mine)
                    lines = sorted({f'{r[0].lower()} {r[2][0]}/{r[2][1]}' for r in mine})
                    ours = [w for w in found if w['label'] == function and w['kernel'] == kernel]
                    shared = [w for w in ours if w['memory'] == 'shared' and w['second'] is not None]
                    beside = [w for w in ours if w not in shared]
                    agree = bool(mine) == bool(shared)
                    disagree += not agree
                    what = f"lab{lab} {'solutions' if define is None else f'known-wrong {define} {name}'}: {function} / {base}"
                    theirs = f"{hazards} ({len(mine)} races{': ' + '; '.join(lines) if lines else ''})" if mine else '0'
                    if summary is None:
                        theirs += ' (no summary: see racecheck\'s output)'
                    ours_text = '; '.join(f"{w['kind']} {os.path.basename(w['first']['location'])}/"
                                          f"{os.path.basename(w['second']['location'])}" for w in shared) or '0'
                    if beside:
                        ours_text += ' (not compared: ' + '; '.join(
                            f"{w['memory']} {w['kind']} {os.path.basename(w['first']['location'])}" for w in beside) + ')'
                    out.append(f"| {what} | {theirs} | {ours_text} | {'yes' if agree else 'NO'} |")
    out.append('')
    out.append(f'{disagree} disagreement(s), {errors} case(s) not compared')
    text = '\n'.join(out)
    print(text)
    if options.markdown:
        with open(options.markdown, 'w', encoding='utf-8') as f:
            f.write(text + '\n')
    return 2 if errors and not disagree else 1 if disagree else 0


if __name__ == '__main__':
    sys.exit(main())
