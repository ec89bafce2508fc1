"""The explanation's decisions on hand-made counters, no build: which watched counter differs, the
lines the score table prints (one or two per version, a missed speed tier with nothing to show,
the GPU's figure beside), the declarations' checks, and the reference table's comparison.
Run: PYTHONPATH=grader python3 grader/explain/tests/test_explanations.py"""
import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

import report
from explain import counters, declarations, explanations, reference_table, slow_variants

DECLARED = {'versions': [
    {'function': 'histogram_v2_banks', 'version': 'v2 banks', 'speed_tests': ['Lab04Speed.Banks'],
     'watch': [{'counter': 'shared_bank_conflicts_per_request', 'slack': 0.5, 'floor': 0.25,
                'question': 'Q3.2', 'fix': 'the xor of the bank index'},
               {'counter': 'global_atomic_requests', 'slack': 0.1, 'floor': 8, 'question': 'Q3.3', 'fix': 'one atomic per bin'},
               {'counter': 'barriers', 'slack': 0, 'floor': 0, 'question': 'Q3.4', 'fix': 'one barrier'}]},
    {'function': 'histogram_v1_inverse', 'version': 'v1 inverse', 'speed_tests': ['Lab04Speed.Inverse'],
     'watch': [{'counter': 'active_lanes_per_instruction', 'slack': 0.1, 'floor': 1, 'question': 'Q2.1', 'fix': 'all lanes'}]}]}
REFERENCE = {'histogram_v2_banks': {'shared_bank_conflicts_per_request': 0.0, 'global_atomic_requests': 512, 'barriers': 16},
             'histogram_v1_inverse': {'active_lanes_per_instruction': 31.0}}


def document(student, tests=()):
    with mock.patch.object(declarations, 'load', return_value=DECLARED):
        found = explanations.section('04', student, DECLARED, REFERENCE)
    return {'lab': 'lab04', 'tests': list(tests), 'counters': found}


class Differs(unittest.TestCase):
    def test_worse_by_more_than_slack_and_floor(self):
        self.assertTrue(counters.differs('shared_bank_conflicts_per_request', 4.1, 0.0, 0.5, 0.25))
        self.assertFalse(counters.differs('shared_bank_conflicts_per_request', 0.2, 0.0, 0.5, 0.25))
        self.assertFalse(counters.differs('global_atomic_requests', 560, 512, 0.1, 8))  # within 10 %
        self.assertTrue(counters.differs('global_atomic_requests', 570, 512, 0.1, 8))

    def test_better_is_never_a_difference(self):
        self.assertFalse(counters.differs('global_atomic_requests', 0, 512, 0, 0))
        self.assertTrue(counters.differs('active_lanes_per_instruction', 20.0, 31.0, 0.1, 1))  # lower is worse
        self.assertFalse(counters.differs('active_lanes_per_instruction', 32.0, 31.0, 0.1, 1))

    def test_per_function_sums_launches_then_divides(self):
        launch = {'label': 'f', 'barriers': 2, 'metrics': {
            'global_load_requests': 10, 'global_load_sectors': 40,
            'shared_load_requests': 4, 'shared_load_bank_conflicts': 12}}
        other = dict(launch, metrics=dict(launch['metrics'], **{'global_load_sectors': 320}))
        found = counters.per_function([launch, other])['f']
        self.assertEqual(found['global_load_sectors_per_request'], 18.0)  # (40 + 320) / 20, not the mean of 4 and 32
        self.assertEqual((found['launches'], found['barriers'], found['shared_bank_conflicts_per_request']), (2, 4, 3.0))


class Lines(unittest.TestCase):
    def slow(self):
        return {'histogram_v2_banks': {'shared_bank_conflicts_per_request': 4.1, 'global_atomic_requests': 9000, 'barriers': 48},
                'histogram_v1_inverse': {'active_lanes_per_instruction': 31.0}}

    def test_at_most_two_lines_a_version_naming_counter_and_question(self):
        with mock.patch.object(declarations, 'load', return_value=DECLARED):
            printed = explanations.lines(document(self.slow()))
        self.assertEqual(printed, [
            'v2 banks: 4.10 shared bank conflicts per request, the reference 0.00 — see Q3.2 (the xor of the bank index)',
            'v2 banks: 9000 warp-level global atomics, the reference 512 — see Q3.3 (one atomic per bin)'])

    def test_a_missed_speed_tier_with_the_reference_counters_says_so(self):
        tests = [{'name': 'Lab04Speed.Inverse', 'kind': 'speed', 'status': 'failed', 'tiers': []},
                 {'name': 'Lab04Speed.Banks', 'kind': 'speed', 'status': 'passed',
                  'tiers': [{'name': 'pass', 'met': True}, {'name': 'stretch', 'met': False}]}]
        with mock.patch.object(declarations, 'load', return_value=DECLARED):
            printed = explanations.lines(document(REFERENCE, tests))
        self.assertEqual(len(printed), 1)  # a missed stretch tier alone is not a miss
        self.assertIn('v1 inverse: missed its speed tier, yet its counters are the reference', printed[0])
        with mock.patch.object(declarations, 'load', return_value=DECLARED):
            printed = explanations.lines(document(REFERENCE, tests[1:]))
        self.assertEqual(printed, ["2 versions counted: no watched counter is worse than the reference's by "
                                   'more than the lab allows'])

    def test_the_gpus_figure_and_a_refusal_are_shown(self):
        found = document(self.slow())
        found['counters']['hardware'] = {'status': 'measured', 'functions': {
            'histogram_v2_banks': {'shared_bank_conflicts_per_request': 3.97}}}
        with mock.patch.object(declarations, 'load', return_value=DECLARED):
            self.assertIn('(the GPU counted 3.97)', explanations.lines(found)[0])
        # The reference read from the same GPU: the student's figure is compared with it there.
        found['counters']['hardware']['reference'] = {'histogram_v2_banks': {'shared_bank_conflicts_per_request': 0.0}}
        with mock.patch.object(declarations, 'load', return_value=DECLARED):
            self.assertIn('(on this GPU: 3.97, the reference 0.00)', explanations.lines(found)[0])
        found['counters']['hardware'] = {'status': 'not-permitted', 'message': 'kept to administrators (ERR_NVGPUCTRPERM)'}
        with mock.patch.object(declarations, 'load', return_value=DECLARED):
            self.assertEqual(explanations.lines(found)[-1], 'kept to administrators (ERR_NVGPUCTRPERM)')

    def test_nothing_counted_says_why_in_one_line(self):
        printed = explanations.lines({'lab': 'lab04', 'counters': explanations.unavailable('no file')})
        self.assertEqual(printed, ['counters not counted: no file'])
        self.assertEqual(explanations.lines({'lab': 'lab04', 'counters': explanations.not_counted('starter')}), [])
        self.assertEqual(explanations.lines({'lab': 'lab04', 'tests': []}), [])

    def test_the_score_table_prints_them_under_why(self):
        found = dict(document(self.slow()), score=0, max_score=1, backend='cpu', device='CPU', submission='s',
                     schema='gpu-histogram-workbook/results/v2')
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, 'results'))
            with open(os.path.join(build, 'results', 'lab04.json'), 'w') as f:
                json.dump(found, f)
            out = io.StringIO()
            with mock.patch.object(declarations, 'load', return_value=DECLARED), contextlib.redirect_stdout(out):
                report.main(['report.py', build])
        self.assertIn("Why: your kernels' counters", out.getvalue())
        self.assertIn('  lab04 v2 banks: 4.10 shared bank conflicts per request', out.getvalue())


class ExplainTable(unittest.TestCase):
    def test_a_lab_and_version_are_read_or_refused_with_the_form(self):
        from explain import cli
        self.assertEqual((cli.parse('lab04:v2'), cli.parse('04'), cli.parse('LAB05')), (('04', 'v2'), ('04', None), ('05', None)))
        for wrong in ('foo', 'lab4', 'lab004', ''):
            with self.assertRaisesRegex(ValueError, 'give a lab as lab04'):
                cli.parse(wrong)
        self.assertEqual(cli.lab_of('lab04:v2', ['lab00', 'lab04']), '04')
        with self.assertRaisesRegex(ValueError, 'there is no lab 09'):
            cli.lab_of('lab09', ['lab00', 'lab04'])

    def test_the_gpus_counters_are_a_third_column(self):
        from explain import cli
        found = document(Lines().slow())['counters']
        plain = cli.table_lines(found, DECLARED['versions'])
        self.assertTrue(plain[0].endswith('reference'))
        rows = cli.table_lines(found, DECLARED['versions'],
                               {'histogram_v2_banks': {'shared_bank_conflicts_per_request': 3.97}})
        self.assertTrue(rows[0].endswith('yours (GPU)'))
        conflicts = next(r for r in rows if 'shared bank conflicts per request' in r)
        self.assertRegex(conflicts, r'4\.10 +0\.00 +3\.97  <- differs: see Q3\.2')
        barriers = next(r for r in rows if 'block barriers' in r)
        self.assertRegex(barriers, r'48 +16 +-  <- differs')  # the GPU gives no barriers


class InGrading(unittest.TestCase):
    def test_a_machine_that_cannot_build_the_counting_mode_is_said_once(self):
        from explain import in_grading
        from runs import results
        with tempfile.TemporaryDirectory() as folder:
            for lab in ('lab03', 'lab04'):
                results.write(folder, results.document(lab, 's', 'cpu', 'CPU', [
                    results.test_entry('T.Main', 'main', 'passed', 1)]), '')
            broken = dict(explanations.unavailable('the counting mode cannot be built here (x)'), machine=True)
            with mock.patch.object(declarations, 'load', return_value=DECLARED), \
                    mock.patch.object(explanations, 'explain_lab', return_value=broken) as counted, \
                    contextlib.redirect_stdout(io.StringIO()):
                in_grading.explain_labs(folder, folder, ['lab03', 'lab04'], folder, gpu=False)
            self.assertEqual(counted.call_count, 1)
            first, second = (results.load_file(os.path.join(folder, f'{lab}.json'))['counters'] for lab in ('lab03', 'lab04'))
            self.assertEqual((first['status'], second['status']), ('unavailable', 'not-counted'))
            self.assertNotIn('machine', first)
            with mock.patch.object(declarations, 'load', return_value=DECLARED):
                self.assertEqual(explanations.lines({'lab': 'lab04', 'counters': second}), [])


class Declarations(unittest.TestCase):
    def test_an_unknown_counter_is_refused_with_where_they_are_named(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, 'counters.json'), 'w') as f:
                json.dump({'versions': [{'function': 'f', 'version': 'v1', 'watch': [{'counter': 'bank_conflicts'}]}]}, f)
            with mock.patch.object(declarations, 'lab_folder', return_value=folder):
                with self.assertRaisesRegex(declarations.DeclarationError, 'unknown counter .*counters.py'):
                    declarations.load('04')

    def test_every_lab_declaration_loads(self):
        for lab in reference_table.LABS:
            declared = declarations.load(lab)
            if declared:
                table = reference_table.load()
                sources = ''.join(open(os.path.join(declarations.lab_folder(lab), f), encoding='utf-8').read()
                                  for f in os.listdir(declarations.lab_folder(lab)) if f.startswith('test_'))
                for version in declared['versions']:
                    self.assertIn(version['function'], table['labs'][lab], f'lab {lab}: not in the reference table')
                    for test in version.get('speed_tests', []):
                        suite, name = test.split('.')
                        self.assertRegex(sources, rf'TEST\w*\(\s*{suite},\s*{name},', f'lab {lab}: no speed test {test}')


class SlowVariants(unittest.TestCase):
    PATCH = ['--- a/solutions/x.cu', '+++ b/solutions/x.cu', '@@ -2,3 +2,3 @@', ' b', '-c', '+C // SLOW VARIANT: x', ' d']

    def test_a_patch_applies_strictly(self):
        self.assertEqual(slow_variants.apply(list('abcde'), self.PATCH, 'p'), ['a', 'b', 'C // SLOW VARIANT: x', 'd', 'e'])
        with self.assertRaisesRegex(slow_variants.PatchError, 'line 3 of the solution .* remake the patch'):
            slow_variants.apply(list('abXde'), self.PATCH, 'p')

    def test_every_variant_applies_to_its_solution_now(self):
        with tempfile.TemporaryDirectory() as out:
            for name in slow_variants.names():
                folder = slow_variants.make(name, out)
                (lab_file,) = os.listdir(folder)
                with open(os.path.join(folder, lab_file), encoding='utf-8') as f:
                    self.assertIn(slow_variants.MARKERS[slow_variants.kind(name)], f.read(), name)


class ReferenceTable(unittest.TestCase):
    def test_differences_name_lab_function_and_counter(self):
        old = {'labs': {'04': {'f': {'barriers': 16}}}}
        new = {'labs': {'04': {'f': {'barriers': 17}}, '05': {'g': {'launches': 1}}}}
        self.assertEqual(reference_table.differences(old, new),
                         ['lab 04 f barriers: table 16, counted now 17', 'lab 05 g launches: table None, counted now 1'])

    def test_the_checked_in_table_is_complete(self):
        table = reference_table.load()
        self.assertIsNotNone(table, 'grader/explain/reference_counts.json is missing or not a table')
        self.assertEqual(table['input'], reference_table.INPUT)
        self.assertEqual(sorted(table['labs']), reference_table.LABS)
        for lab, functions in table['labs'].items():
            for function, values in functions.items():
                self.assertEqual(set(values) - set(counters.COUNTERS), set(), f'{lab} {function}')


if __name__ == '__main__':
    unittest.main()
