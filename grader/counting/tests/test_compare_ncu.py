#!/usr/bin/env python3
"""compare_ncu.py's verdicts without a GPU: shared_codegen.py on SASS lines of the kinds nvcc 13 made for sm_90 of the solutions
(cuobjdump -sass, 2026-11-27): lab 04's banks kernels (LDS.128), its inverse kernel (@!P0 LDS and
STS), lab 06's remap (LDS.U8, neither); which ncu metrics each explains, and that nothing else is;
the 2 % rule for bank conflicts; the known-wrong cases left out; the metrics ncu does not list are
said to be left out, occupancy's included."""
import unittest

from counting import compare_ncu, metrics, shared_codegen
from counting.listing import parse_sass

SASS = """
        Function : _ZN5lab0456_GLOBAL__N__f4f87896_23_lab04_thread_per_bin_cu_904cdbb925histogram_v2_banks_kernelEPKiiPii
        /*0100*/                   LDS.128 R8, [R3+UR4] ;
        /*0110*/                   LDS R12, [R2] ;
        /*0120*/                   STS [R3], R5 ;
        Function : _ZN5lab0456_GLOBAL__N__f4f87896_23_lab04_thread_per_bin_cu_904cdbb927histogram_v1_inverse_kernelEPKiiPii
        /*0100*/              @!P0 LDS R9, [R4] ;
        /*0110*/              @!P0 STS [R4], R9 ;
        /*0120*/               @PT LDS R10, [R6] ;
        Function : _ZN5lab0664_GLOBAL__N__a9d5c572_31_lab06_histogram_equalization_cu_1d263ad012remap_kernelEPKhiS2_Ph
        /*0100*/                   LDS.U8 R5, [R5+UR4] ;
        /*0110*/                   STS.U8 [R3], R2 ;
        Function : _Z20histogram_privatizedIiEvPKT_iPS0_
        /*0100*/                   LDS R5, [R5] ;
"""
LD_INST, ST_INST = 'shared_load_requests', 'shared_store_requests'
LD_WAVES, LD_CONFLICTS = 'shared_load_wavefronts', 'shared_load_bank_conflicts'


class SharedCodegen(unittest.TestCase):
    kernels = parse_sass(SASS)

    def code(self, name):
        return shared_codegen.of_kernel(self.kernels, name)

    def test_vector_loads_explain_load_counts_only(self):
        banks = self.code('histogram_v2_banks_kernel')
        self.assertEqual(banks['ld']['vector'], {'LDS.128'})
        for metric in (LD_INST, LD_WAVES, LD_CONFLICTS):
            self.assertIn('LDS.128', shared_codegen.note(metric, banks))
        self.assertIsNone(shared_codegen.note(ST_INST, banks))  # its one STS is plain

    def test_predicated_accesses_explain_both_but_pt_is_no_predicate(self):
        inverse = self.code('histogram_v1_inverse_kernel')
        self.assertTrue(inverse['ld']['predicated'] and inverse['st']['predicated'])
        self.assertIn('predicated STS', shared_codegen.note(ST_INST, inverse))
        always = shared_codegen.shared_code(parse_sass(
            "Function : k\n /*0000*/ @PT LDS R1, [R2] ;\n")['k'])
        self.assertFalse(always['ld']['predicated'])

    def test_byte_accesses_templates_and_global_metrics_explain_nothing(self):
        remap = self.code('remap_kernel')
        self.assertEqual((remap['ld']['vector'], remap['ld']['predicated']), (set(), False))
        self.assertIsNone(shared_codegen.note(LD_INST, remap))
        self.assertIsNotNone(self.code('histogram_privatized<int>'))  # found through its mangled name
        self.assertIsNone(self.code('histogram_v9_kernel'))
        self.assertIsNone(self.code('kernel'))  # a launch through a variable: ncu's name finds it
        self.assertEqual(shared_codegen.base_name('void a::<unnamed>::k<b<int>>(int *)'), 'k')
        ncu_name = 'lab04::<unnamed>::histogram_v1_inverse_kernel(const int *, int, int *)'
        self.assertTrue(self.code(ncu_name)['ld']['predicated'])
        self.assertIsNone(shared_codegen.note('sectors/request ld', self.code('histogram_v2_banks_kernel')))


class Verdicts(unittest.TestCase):
    def test_bank_conflicts_within_two_percent_of_their_wavefronts(self):
        values = {LD_WAVES: 136210.0}
        self.assertTrue(compare_ncu.within(LD_CONFLICTS, 0, 1042.0, values))  # 0.8 % of 136210
        self.assertFalse(compare_ncu.within(LD_CONFLICTS, 0, 3000.0, values))
        self.assertFalse(compare_ncu.within(LD_INST, 41024, 41344 * 1.03, {}))

    def test_gccs_own_accesses_are_named_per_kernel_and_metric(self):
        note = compare_ncu.host_note
        self.assertIn('uchar4', note('06', 'remap_kernel', 'sectors/request ld'))
        self.assertIsNone(note('06', 'remap_kernel', 'sectors/request st'))
        self.assertIsNone(note('06', 'histogram_kernel', 'sectors/request ld'))

    def test_racing_known_wrong_cases_are_compared_within_two_percent(self):
        self.assertIn('race', compare_ncu.racing_case('03', '4'))
        self.assertIsNone(compare_ncu.racing_case('03', '1'))
        self.assertIsNone(compare_ncu.racing_case('03', None))

    def test_the_out_of_bounds_known_wrong_cases_are_left_out(self):
        self.assertEqual([compare_ncu.known_wrong_defines(lab, compare_ncu.NOT_COMPARED)
                          for lab in ('01', '03', '05', 'yardsticks')], [['4'], [], ['6'], []])
        self.assertIn('4', compare_ncu.known_wrong_defines('01'))


class RequestedMetrics(unittest.TestCase):
    def test_counters_ncu_does_not_list_are_left_out_and_occupancy_is_always_asked(self):
        names = metrics.ncu_names(metrics.COMPARED)
        listed = "\n".join(m.rsplit('.', 1)[0] for m in names[1:])  # the first one missing
        asked, left_out = compare_ncu.requested_metrics(listed)
        self.assertEqual(left_out, names[:1])
        self.assertEqual(asked, names[1:] + [compare_ncu.OCCUPANCY_METRIC])
        self.assertIn('not compared', compare_ncu.occupancy_line('H100', ['NVIDIA H100'], False))
        self.assertTrue(compare_ncu.occupancy_line('H100', ['NVIDIA H100'], True).startswith(
            'compared for H100'))

    def test_occupancy_is_a_row_where_ncu_reports_it(self):
        row = (compare_ncu.OCCUPANCY_ROW, 50.0, 100.0)
        self.assertEqual(compare_ncu.compared({}, {compare_ncu.OCCUPANCY_METRIC: 100.0}, 0.5), [row])
        self.assertEqual(compare_ncu.compared({}, {}, 0.5), [])

    def test_a_run_that_refuses_the_occupancy_metric_drops_it_and_runs_again(self):
        calls = []

        def fake_run(ncu, program, asked, n):
            calls.append(list(asked))
            if compare_ncu.OCCUPANCY_METRIC in asked:
                return [], [f'==ERROR== Failed to find metric {compare_ncu.OCCUPANCY_METRIC}']
            return [('k', {})], []
        asked = ['a.sum', compare_ncu.OCCUPANCY_METRIC]
        original, compare_ncu.run_ncu = compare_ncu.run_ncu, fake_run
        try:
            self.assertEqual(compare_ncu.profile('ncu', 'p', asked, 1), [('k', {})])
        finally:
            compare_ncu.run_ncu = original
        self.assertEqual(asked, ['a.sum'])
        self.assertEqual(calls, [['a.sum', compare_ncu.OCCUPANCY_METRIC], ['a.sum']])


if __name__ == '__main__':
    unittest.main()
