#!/usr/bin/env python3
"""Every data race of a lab's kernels, found on the CPU whatever the schedule: the CPU backend's race
detector (grader/cpu_backend/README.md, "Race detector"). Builds the lab's count program
(labs/NN-*/labNN_count.cu: each graded function once) with the chosen lab file in the counting
mode, runs it with the detector on for each of INPUTS (a ragged uniform input, all-equal data),
and prints every witness with the handout question that teaches the fix (labs/NN-*/races.json).

  python3 grader/counting/races.py --lab 03 [--submission solutions|starter|DIR] [--known-wrong N]
      [--only FUNCTION] [--full] [--json] [--build-dir build]

For the grader: find() returns the witnesses (the detector's JSON, one dict each, with 'question',
'fix' and 'version' added); annotate() adds those to a witness of another program (the graded
runner's races_json()); one_line() and in_full() say one in a line or in full.
Exit status: 0 no race, 1 races found or a run failed, 2 usage or build error."""
import argparse
import json
import os
import sys
import tempfile

# Run as a file, Python sees this folder only: run again with grader/, the import root, on
# PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from counting import count_kernels, programs  # noqa: E402

ROOT = programs.ROOT
# (input, n): uniform samples with a ragged tail (no multiple of a block's or a grid's samples),
# and all-equal samples (every thread on one bin); the count programs' fixed shapes already have
# blocks smaller than the bins.
INPUTS = (('uniform', 65537), ('equal', 4099))
# What a race is made of, as races.json's "pattern" names it (pattern_of()).
PATTERNS = ('read-modify-write', 'write and atomic', 'read and atomic', 'write and read', 'write and write',
            'uninitialised read', 'other')


class RunError(Exception):
    """A count program that ended badly; `witnesses`: those found before."""

    def __init__(self, message, witnesses):
        super().__init__(message)
        self.witnesses = witnesses


def _lab_json(lab, name):
    try:
        folder, _ = programs.lab_folder(lab)
    except programs.BuildError:
        return None
    path = os.path.join(ROOT, 'labs', folder, name)
    if not os.path.isfile(path):
        return None
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def declaration(lab):
    """labs/NN-*/races.json, checked; None where the lab has none."""
    declared = _lab_json(lab, 'races.json')
    for entry in (declared or {}).get('races', []):
        unknown = set(entry) - {'functions', 'kernels', 'memory', 'pattern', 'lab', 'question', 'fix'}
        if unknown or 'question' not in entry or 'fix' not in entry:
            raise ValueError(f'lab {lab} races.json: {entry}: needs "question" and "fix", knows no {sorted(unknown)}')
        if entry.get('pattern', 'other') not in PATTERNS or entry.get('memory', 'shared') not in ('shared', 'global'):
            raise ValueError(f'lab {lab} races.json: {entry}: pattern one of {PATTERNS}, memory shared or global')
    return declared


def version(lab, function):
    """The version's name in labs/NN-*/counters.json ('v1 shared slices'), else the function's."""
    for entry in (_lab_json(lab, 'counters.json') or {}).get('versions', []):
        if entry['function'] == function:
            return entry['version']
    return function


def pattern_of(witness):
    """The race's pattern (PATTERNS): by the two accesses' operations."""
    if witness['second'] is None:
        return 'uninitialised read'
    first, second = witness['first'], witness['second']
    if first['read_modify_write'] or second['read_modify_write']:
        return 'read-modify-write'
    ops = sorted(a['operation'].split(' (')[0] for a in (first, second))
    return {('atomic', 'write'): 'write and atomic', ('atomic', 'read'): 'read and atomic',
            ('read', 'write'): 'write and read', ('write', 'write'): 'write and write'}.get(tuple(ops), 'other')


def teaching(witness, declared):
    """The first entry of a races.json that matches the witness, or None."""
    kernel = witness['kernel'].split('<')[0].split('::')[-1]
    for entry in (declared or {}).get('races', []):
        if 'functions' in entry and witness['label'] not in entry['functions']:
            continue
        if 'kernels' in entry and kernel not in entry['kernels']:
            continue
        if entry.get('memory', witness['memory']) != witness['memory']:
            continue
        if entry.get('pattern', pattern_of(witness)) != pattern_of(witness):
            continue
        return entry
    return None


def annotate(witness, lab, source_file=None, declared=None):
    """The detector's witness (a dict of races_json()'s list, from any program: a count program, the
    graded runner) with what one_line() and in_full() say added: 'lab', 'version' (counters.json's),
    'pattern', 'question', 'fix' and 'question_lab' (races.json's; '' where none matches) and
    'source_file' (the graded file: its lines are said as "line N"). Returns it."""
    entry = teaching(witness, declaration(lab) if declared is None else declared) or {}
    witness.update(lab=lab, version=version(lab, witness['label']), pattern=pattern_of(witness),
                   question=entry.get('question', ''), fix=entry.get('fix', ''),
                   question_lab=entry.get('lab', lab), source_file=source_file)
    return witness


def _key(w):
    second = w['second']['location'] if w['second'] else ''
    return (w['label'], w['kernel'], w['memory'], w['kind'] == 'uninitialised read',
            tuple(sorted((w['first']['location'], second))))


def find(lab, submission='solutions', known_wrong=None, only=None, inputs=INPUTS, build_dir=None, timeout=600,
         unchecked=None):
    """The witnesses of the lab's graded functions (each once, the first input's), each the detector's
    dict ('kind', 'first', 'second', 'message', ...: grader/cpu_backend/README.md) with 'lab', 'input',
    'version', 'pattern', 'question', 'fix' and 'question_lab' added. unchecked: a list that gets the
    detector's sentence for each launch whose global memory went unchecked (too many accesses).
    Raises programs.BuildError when the program cannot be built, RunError when a run ends badly."""
    build_dir = build_dir or os.path.join(ROOT, 'build')
    source = count_kernels.submission_file(lab, submission, known_wrong)
    count_kernels.ensure_build_dir(build_dir)
    defines = [f'KNOWN_WRONG={known_wrong}'] if known_wrong is not None else []
    program = programs.build(build_dir, lab, source, counting=True, defines=defines)
    declared = declaration(lab)
    found = {}
    with tempfile.TemporaryDirectory(prefix='races_') as scratch:
        for input_kind, n in inputs:
            report = os.path.join(scratch, f'{input_kind}-{n}.json')
            status, out, err = programs.run(program, n, input_kind, 1, only, report, timeout=timeout,
                                            sms=132, races=True, counts=False)
            witnesses = []
            if os.path.isfile(report):
                with open(report, encoding='utf-8') as f:
                    written = json.load(f)
                witnesses = written.get('races', [])
                if unchecked is not None:
                    unchecked += [u for u in written.get('races_unchecked', []) if u not in unchecked]
            for w in witnesses:
                if _key(w) not in found:
                    found[_key(w)] = annotate(w, lab, source, declared)
                    w['input'] = f'{input_kind} n={n}'

            if status != 0 or not os.path.isfile(report):
                raise RunError(f'{program} --input={input_kind} --n={n} ended with status {status}:\n'
                               f'{out[-1500:]}{err[-1500:]}', list(found.values()))
    return list(found.values())


def _where(location, witness):
    """'line 46' in the graded file, 'file.cuh:12' elsewhere."""
    path, _, line = location.rpartition(':')
    if path and witness.get('source_file') and os.path.realpath(path) == os.path.realpath(witness['source_file']):
        return f'line {line}'
    return f'{os.path.basename(path)}:{line}' if path else location


def _who(access):
    def shape(d):
        return str(d[0]) if d[1] == 0 and d[2] == 0 else '(' + ','.join(map(str, d)) + ')'
    return f"thread {shape(access['thread'])} of block {shape(access['block'])}"


def _what(access, witness):
    text = _where(access['location'], witness)
    if access['source']:
        text += f" `{access['source']}`"
    op = access['operation']
    if access['read_modify_write']:
        return text + ', a plain read-modify-write'
    return text + (f', a plain {op}' if op in ('read', 'write') else f', an {op}' if op[0] in 'aeiou' else f', a {op}')


def _interval(access, witness):
    def barrier(location, otherwise):
        return f'the barrier at {_where(location, witness)}' if location else otherwise
    return (f"between {barrier(access['barrier_before'], 'the kernel start')} "
            f"and {barrier(access['barrier_after'], 'the kernel end')}")


def _place(w):
    if w['array']:
        return f"{w['array']}[{w['index']}]"
    where = 'global memory' if w['memory'] == 'global' else 'dynamic shared memory'
    size = f" of {w['allocation_bytes']} bytes" if w['allocation_bytes'] else ''
    return f"{where} at byte {w['offset']}{size}"


def _fix(w):
    if not w.get('question'):
        return ''
    lab = '' if w.get('question_lab', w['lab']) == w['lab'] else f"lab {w['question_lab']} "
    return f": {w['fix']} ({lab}{w['question']})"


def one_line(w):
    """'lab03 v1 shared slices: race on s_bins[17] — thread 5 of block 0 (line 46, `s_bins[...]++`, a
    plain read-modify-write) and thread 37 of block 0 (the same line), both between the barrier at
    line 22 and the barrier at line 51: use atomicAdd (Q2.2)'."""
    head = f"lab{w['lab']} {w.get('version', w['label'])}: "
    first, second = w['first'], w['second']
    if second is None:
        return (f"{head}read of uninitialised shared memory {_place(w)} — {_who(first)} ({_what(first, w)}) reads "
                f"what no thread of its block wrote since it started, {_interval(first, w)}{_fix(w)}")
    same = second['location'] == first['location'] and second['operation'] == first['operation']
    text = (f"{head}race on {_place(w)} — {_who(first)} ({_what(first, w)}) and {_who(second)} "
            f"({'the same line' if same else _what(second, w)}), ")
    if first['block_linear'] != second['block_linear']:
        text += 'in different blocks: nothing but the end of the launch orders them'
    elif first['barriers_before'] == second['barriers_before']:
        text += 'both ' + _interval(first, w)
    else:
        text += f'{_interval(first, w)} and {_interval(second, w)}'
    return text + _fix(w)


def in_full(w):
    """The witness in a few lines: the race, each side's thread (warp, lane), line and interval, the fix."""
    kinds = [k for k in w['kinds'] if k != w['kind']]
    lines = [f"lab{w['lab']} {w.get('version', w['label'])} ({w['label']}; kernel {w['kernel']} launched at "
             f"{_where(w['launched_at'], w)}; input {w.get('input', '?')}):",
             f"  {w['kind']} on {_place(w)} ({w['memory']} memory"
             + (f"; also {', '.join(kinds)}" if kinds else '') + ')']
    for name, access in (('first', w['first']), ('second', w['second'])):
        if access is None:
            continue
        lines.append(f"  {name + ':':<8}{_who(access)} (warp {access['warp']}, lane {access['lane']}), "
                     f"{_what(access, w)}, {_interval(access, w)}")
    if w.get('question'):
        lines.append('  fix: ' + _fix(w)[2:])
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--lab', required=True, help=f'00 to 06, or {programs.YARDSTICKS} (the grader\'s)')
    parser.add_argument('--submission', default='solutions', help='solutions, starter or a folder of lab files')
    parser.add_argument('--known-wrong', type=int, help="the lab's known-wrong kernel KNOWN_WRONG=N")
    parser.add_argument('--only', help='one graded function, e.g. histogram_v1_shared_slices')
    parser.add_argument('--full', action='store_true', help='each witness in full')
    parser.add_argument('--json', action='store_true', help='the witnesses as JSON')
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    options = parser.parse_args(argv)
    lab = options.lab if options.lab == programs.YARDSTICKS else options.lab.zfill(2)
    status, unchecked = 0, []
    try:
        witnesses = find(lab, options.submission, options.known_wrong, options.only, build_dir=options.build_dir,
                         unchecked=unchecked)
    except programs.BuildError as error:
        print(f'races: {error}', file=sys.stderr)
        return 2
    except RunError as error:
        print(f'races: {error}', file=sys.stderr)
        witnesses, status = error.witnesses, 1
    if options.json:
        json.dump({'schema': 'cpu-backend-races/v1', 'lab': lab, 'races': witnesses, 'unchecked': unchecked},
                  sys.stdout, indent=1)
        print()
    else:
        for w in witnesses:
            print(in_full(w) if options.full else one_line(w))
        for sentence in unchecked:
            print(f'lab{lab}: {sentence}')
        if not witnesses:
            what = options.submission if options.known_wrong is None else f'known-wrong {options.known_wrong}'
            print(f'lab{lab}: no data race in {what}')
    return 1 if witnesses else status


if __name__ == '__main__':
    sys.exit(main())
