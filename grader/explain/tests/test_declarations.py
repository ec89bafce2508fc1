"""The labs' counter declarations (labs/NN-*/counters.json) against the CPU backend's counting mode:
  (a) each parses, names counters of explain/counters.py, one entry per function its lab's count
      driver runs, and questions its handout asks;
  (b) the solutions are never flagged: on the other input kinds (equal, ramp) and another seed,
      against their own counters on the default input (n = 65536, uniform, seed 1);
  (c) each variant (solutions/slow/NAME.patch, made into a lab file) is flagged by a watched counter
      of the versions it changes, and no other version of its lab is; a slow one computes what its
      solution computes (the same output checksums on two inputs); a racy one may not on a GPU.
      test_variant_lines.py checks the line and question each one's Why line names.
  test_declarations.py BUILD_DIR      (a build folder with the CPU backend; meson gives it)"""
import json
import os
import re
import sys
import unittest

from explain import counters, slow_variants
from counting import count_kernels, programs

BUILD_DIR = None
ROOT = programs.ROOT
LABS = programs.counted_labs()
DEFAULT = ('uniform', 1)
OTHER_INPUTS = [('equal', 1), ('ramp', 1), ('uniform', 2)]
KEYS = {'counter', 'slack', 'floor', 'question', 'fix'}
SITE_KEYS = {'difference', 'space', 'function', 'question', 'fix'}
# Each variant: its patch under solutions/slow/ and the functions (versions) it changes.
SLOW_VARIANTS = {
    'lab01-v2-chunks': {'histogram_v2_grid_stride'},
    'lab01-v2-plain-increment': {'histogram_v2_grid_stride'},
    'lab01-v2-transposed-index': {'histogram_v2_grid_stride'},
    'lab02-v3-serial-loads': {'histogram_v3_manual_ilp'},
    'lab03-v1-plain-increment': {'histogram_v1_shared_slices'},
    'lab03-v2-global-atomics': {'histogram_v2_shared_grid_stride'},
    'lab04-v2-lane-offsets': {'histogram_v2_banks'},
    'lab05-v3-no-padding': {'scan_v3_blelloch_padded'},
    'lab05-v4-shared-warp-scan': {'scan_v4_warp_shuffle'},
    'lab05-v4-staged-tile': {'scan_v4_warp_shuffle'},
    'lab06-cdf-shared-warp-scan': {'cdf_exclusive_scan'},
    'lab06-histogram-global-atomics': {'histogram_256', 'equalize'},
    'lab06-remap-global-table': {'remap'},
}
# The count program's calls: {"name", [&] ...}, version("name", ...), block_scan("name", ...).
DRIVER_CALL = re.compile(r'(?:\{|\bversion\(|\bblock_scan\()"([a-z][a-z0-9_]*)"')
HANDOUT_PART = re.compile(r'^##\s+Q(\d+)\b', re.M)
HANDOUT_LABEL = re.compile(r'\*\*Q(\d+(?:\.\d+)?)(?=[\s.*\u2014(-])')
_counted = {}


def outputs(lab, folder):
    """The checksums of every graded function's output (the count program built for the ordinary
    CPU backend) on a ragged uniform input and an all-equal one."""
    source = os.path.join(folder, programs.lab_folder(lab)[1])
    program = programs.build(BUILD_DIR, lab, source, counting=False)
    lines = []
    for input_kind, n in (('uniform', 50001), ('equal', 4097)):
        status, out, err = programs.run(program, n, input_kind)
        lines += [f'{input_kind} status {status}'] + [x for x in out.splitlines() if x.startswith('output ')]
    return lines


def declarations(lab):
    folder, _ = programs.lab_folder(lab)
    with open(os.path.join(ROOT, 'labs', folder, 'counters.json'), encoding='utf-8') as f:
        return json.load(f)


def driver_functions(lab):
    with open(programs.target(lab).main, encoding='utf-8') as f:
        return DRIVER_CALL.findall(f.read())


def handout_questions(lab):
    """The question numbers of the lab's handout: its parts (## Qn) and bold labels (**Qn.m)."""
    folder, _ = programs.lab_folder(lab)
    with open(os.path.join(ROOT, 'handouts', folder + '.md'), encoding='utf-8') as f:
        text = f.read()
    return {'Q' + q for q in HANDOUT_PART.findall(text) + HANDOUT_LABEL.findall(text)}


def per_function(lab, submission='solutions', inputs=DEFAULT):
    """{function: {counter: value}} of one count of the lab's driver (counted once per test run)."""
    key = (lab, submission, inputs)
    if key not in _counted:
        launches = count_kernels.count(lab, submission, input_kind=inputs[0], seed=inputs[1],
                                       build_dir=BUILD_DIR, gpu=None)
        faulted = [launch['kernel'] for launch in launches if launch['faulted']]
        if faulted:
            raise AssertionError(f'lab {lab}, {submission}, {inputs}: launches faulted: {faulted}')
        _counted[key] = counters.per_function(launches)
    return _counted[key]


def flagged(lab, student, reference):
    """[(function, counter, student's value, reference's value)] the declarations flag."""
    found = []
    for version in declarations(lab)['versions']:
        function = version['function']
        for watch in version['watch']:
            counter = watch['counter']
            mine, theirs = student[function][counter], reference[function][counter]
            if counters.differs(counter, mine, theirs, watch['slack'], watch['floor']):
                found.append((function, counter, counters.show(counter, mine), counters.show(counter, theirs)))
    return found


class Declarations(unittest.TestCase):
    def test_every_declaration_names_real_counters_functions_and_questions(self):
        for lab in LABS:
            with self.subTest(lab=lab):
                found = declarations(lab)
                self.assertEqual(set(found), {'about', 'arrays', 'sites', 'versions'})
                self.assertTrue(found['about'].strip())
                for entry in found['sites'] + [e for v in found['versions'] for e in v.get('sites', [])]:
                    self.assertLessEqual(set(entry), SITE_KEYS, entry)
                    self.assertIn(entry['question'], handout_questions(lab), entry)
                functions = [v['function'] for v in found['versions']]
                self.assertEqual(sorted(functions), sorted(driver_functions(lab)),
                                 'one entry per function the count program runs')
                questions = handout_questions(lab)
                for version in found['versions']:
                    self.assertEqual(set(version) - {'speed_tests', 'sites'}, {'function', 'version', 'watch'})
                    self.assertTrue(1 <= len(version['watch']) <= 3, version['function'])
                    for watch in version['watch']:
                        where = f"{version['function']} {watch.get('counter')}"
                        self.assertEqual(set(watch), KEYS, where)
                        self.assertIn(watch['counter'], counters.COUNTERS, where)
                        self.assertIn(watch['question'], questions, where)
                        self.assertTrue(watch['fix'].strip(), where)
                        for number in ('slack', 'floor'):
                            self.assertIsInstance(watch[number], (int, float), where)
                            self.assertGreaterEqual(watch[number], 0, where)
                    counters_named = [w['counter'] for w in version['watch']]
                    self.assertEqual(len(counters_named), len(set(counters_named)), version['function'])

    def test_the_checks_can_fail(self):
        self.assertIn('histogram_v2_grid_stride', driver_functions('01'))
        self.assertIn('Q2.5', handout_questions('01'))
        self.assertIn('Q2', handout_questions('04'))  # a part without labels is a question
        self.assertNotIn('Q9.9', handout_questions('01'))

    def test_the_solutions_are_never_flagged(self):
        for lab in LABS:
            reference = per_function(lab)
            for inputs in [DEFAULT] + OTHER_INPUTS:
                with self.subTest(lab=lab, inputs=inputs):
                    self.assertEqual(flagged(lab, per_function(lab, inputs=inputs), reference), [])

    def test_each_slow_variant_is_flagged_where_it_is_slow_and_nowhere_else(self):
        self.assertEqual(slow_variants.names(), sorted(SLOW_VARIANTS))
        out = os.path.join(BUILD_DIR, 'slow')  # a lasting folder: the count programs' cache keys name it
        for name, functions in SLOW_VARIANTS.items():
            with self.subTest(variant=name):
                folder = slow_variants.make(name, out)
                files = [f for f in os.listdir(folder) if f.endswith('.cu')]
                self.assertEqual(len(files), 1, 'one lab file per variant')
                lab = files[0][3:5]
                with open(os.path.join(folder, files[0]), encoding='utf-8') as f:
                    self.assertIn(slow_variants.MARKERS[slow_variants.kind(name)], f.read())
                found = flagged(lab, per_function(lab, folder), per_function(lab))
                self.assertTrue(found, f'{name}: no watched counter of {functions} differs')
                self.assertEqual({f for f, _, _, _ in found}, functions, found)
                if slow_variants.kind(name) == 'slow':
                    self.assertEqual(outputs(lab, folder), outputs(lab, os.path.join(ROOT, 'solutions')),
                                     f'{name}: slow, but must compute what the solution computes')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_declarations.py BUILD_DIR')
    BUILD_DIR = sys.argv.pop(1)
    programs.REBUILD_LIBRARIES = False
    unittest.main()
