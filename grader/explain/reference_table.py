#!/usr/bin/env python3
"""The references' counters: every graded function of solutions/, counted by the CPU backend's
counting mode on the explanations' input (INPUT), per function (explain/counters.py), with its
accesses (explain/sites.py: line, kind, expression, figures), kept in reference_counts.json
beside this file. Explanations compare a student's counters with it, so
they need no solutions/ (a batch's copy and a class's template have none).

  python3 grader/explain/reference_table.py --write [--build-dir build]   remake the table
  python3 grader/explain/reference_table.py --check [--build-dir build]   exit 1 when it differs

--check is a project test (grader/explain/meson.build): a change to a solution or to the counting
mode that changes a count fails until the table is remade with --write."""
import argparse
import json
import os
import sys

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from explain import counters, sites  # noqa: E402
from counting import count_kernels, programs  # noqa: E402

SCHEMA = 'gpu-histogram-workbook/reference-counters/v1'
TABLE = os.path.join(os.path.dirname(os.path.realpath(__file__)), 'reference_counts.json')
INPUT = {'n': 65536, 'input': 'uniform', 'seed': 1}
LABS = programs.counted_labs()


def rounded(values):
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in sorted(values.items())}


def make(build_dir, labs=LABS):
    """The table's contents, counted now from solutions/."""
    table = {'schema': SCHEMA, 'input': INPUT, 'labs': {}, 'sites': {}}
    for lab in labs:
        launches = count_kernels.count(lab, 'solutions', n=INPUT['n'], input_kind=INPUT['input'],
                                       seed=INPUT['seed'], gpu=None, build_dir=build_dir)
        table['labs'][lab] = {f: rounded(v) for f, v in sorted(counters.per_function(launches).items())}
        table['sites'][lab] = dict(sorted(sites.accesses(launches, root=programs.ROOT).items()))
    return table


def dump(table):
    """The table as text: the counters as indented JSON, each access on a line of its own."""
    text = json.dumps({k: v for k, v in table.items() if k != 'sites'}, indent=1, sort_keys=True)
    labs = []
    for lab, functions in sorted(table.get('sites', {}).items()):
        listed = [f'   {json.dumps(function)}: [\n' + ',\n'.join(
            '    ' + json.dumps(access, sort_keys=True) for access in accesses) + '\n   ]'
            for function, accesses in sorted(functions.items())]
        labs.append(f'  {json.dumps(lab)}: {{\n' + ',\n'.join(listed) + '\n  }')
    return text[:-2] + ',\n "sites": {\n' + ',\n'.join(labs) + '\n }\n}\n'


def load():
    """The checked-in table, or None when it is missing or not one."""
    try:
        with open(TABLE, encoding='utf-8') as f:
            table = json.load(f)
    except (OSError, json.JSONDecodeError):
        return None
    return table if table.get('schema') == SCHEMA else None


def differences(old, new):
    lines = []
    for lab in sorted(set(old.get('labs', {})) | set(new['labs'])):
        a, b = old.get('labs', {}).get(lab, {}), new['labs'].get(lab, {})
        for function in sorted(set(a) | set(b)):
            for counter in sorted(set(a.get(function, {})) | set(b.get(function, {}))):
                x, y = a.get(function, {}).get(counter), b.get(function, {}).get(counter)
                if x != y:
                    lines.append(f'lab {lab} {function} {counter}: table {x}, counted now {y}')
        a, b = old.get('sites', {}).get(lab, {}), new.get('sites', {}).get(lab, {})
        for function in sorted(set(a) | set(b)):
            if a.get(function) != b.get(function):
                lines.append(f'lab {lab} {function}: its accesses (sites) differ from the table\'s')
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument('--write', action='store_true')
    what.add_argument('--check', action='store_true')
    parser.add_argument('--build-dir', default=os.path.join(programs.ROOT, 'build'))
    options = parser.parse_args(argv)
    programs.REBUILD_LIBRARIES = not options.check  # under meson test, its own libraries
    try:
        table = make(options.build_dir)
    except programs.BuildError as error:
        print(f'reference_table: {error}', file=sys.stderr)
        return 2
    if options.write:
        with open(TABLE, 'w', encoding='utf-8') as f:
            f.write(dump(table))
        print(f'wrote {os.path.relpath(TABLE)}: {sum(len(v) for v in table["labs"].values())} functions')
        return 0
    lines = differences(load() or {}, table)
    for line in lines:
        print(line)
    if lines:
        print('the reference counters differ from the table: remake it with '
              'python3 grader/explain/reference_table.py --write (and say why in the commit)')
        return 1
    print(f'reference counters: {sum(len(v) for v in table["labs"].values())} functions, as in the table')
    return 0


if __name__ == '__main__':
    sys.exit(main())
