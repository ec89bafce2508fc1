"""The findings made of accesses (explain/site_findings.py), on hand-made records, no build: a
plain update pointed at the declared question, not at the counter it worsens; a worse access of
the reference's array at the counter's question; another array, or an update, with no question
declared: what differs and nothing more; a renamed array matched by its role.
Run: PYTHONPATH=grader python3 grader/explain/tests/test_site_matching.py"""
import unittest

from explain import site_findings


def access(line, kind, expression, array, requests=2048, update=False, **figures):
    return dict({'file': 'lab.cu', 'line': line, 'kind': kind, 'expression': expression, 'array': array,
                 'update': update, 'statement': expression or '', 'note': None, 'function': 'kernel',
                 'requests': requests, 'lanes': 32 * requests, 'sectors': 0, 'wavefronts': 0,
                 'bank_conflicts': 0, 'distinct_addresses': 0}, **figures)


class Findings(unittest.TestCase):
    REFERENCE = [access(32, 'global_load', 'd_samples[i]', 'd_samples', sectors=8192),
                 access(32, 'global_atomic', 'd_bins[d_samples[i]]', 'd_bins')]
    ARRAYS = {'d_samples': 'the samples', 'd_bins': 'the bins'}
    VERSION = {'version': 'v2 grid-stride'}
    PLAIN = {'difference': 'plain-update', 'space': 'global', 'question': 'Q2.1', 'fix': 'use atomicAdd'}

    def findings(self, student, counter_findings=(), entries=()):
        known = site_findings.roles(student, self.REFERENCE, self.ARRAYS)
        return site_findings.version_findings(self.VERSION, list(entries), known, student, self.REFERENCE,
                                              list(counter_findings), 'lab.cu')

    def plain(self):
        return [access(35, 'global_load', 'd_samples[i]', 'd_samples', sectors=8192),
                access(35, 'global_load', 'd_bins[d_samples[i]]', 'd_bins', update=True, sectors=58000),
                access(35, 'global_store', 'd_bins[d_samples[i]]', 'd_bins', update=True, sectors=58000)]

    def test_a_plain_update_names_its_line_and_the_declared_question(self):
        sectors = {'counter': 'global_load_sectors_per_request', 'question': 'Q2.5', 'fix': 'grid-stride',
                   'student': 16.2, 'reference': 4.0, 'line': 'kernel line'}
        found = self.findings(self.plain(), [sectors], [self.PLAIN])
        said = [f['line'] for f in found if f.get('line')]
        self.assertEqual(len(said), 1, said)  # the sectors are the update's: one line, not Q2.5
        self.assertTrue(said[0].startswith('v2 grid-stride: line 35, `d_bins[d_samples[i]]` (a global load and '
                                           'store, 28.32 sectors per request)'), said[0])
        self.assertTrue(said[0].endswith('— use atomicAdd (Q2.1)'), said[0])

    def test_without_a_declared_question_it_says_what_differs_and_stops(self):
        (found,) = self.findings(self.plain())
        self.assertIsNone(found['question'])
        self.assertTrue(found['line'].endswith('(`d_bins[d_samples[i]]`, 2048 requests)'), found['line'])
        self.assertNotIn('—', found['line'])

    def test_another_array_without_a_question_says_what_differs_and_stops(self):
        student = self.REFERENCE + [access(40, 'shared_load', 's_copy[i]', 's_copy')]
        self.REFERENCE = self.REFERENCE + [access(41, 'shared_load', 's_tile[i]', 's_tile', requests=16)]
        shared = {'counter': 'shared_requests', 'question': 'Q9', 'fix': 'x', 'line': 'kernel line'}
        (found,) = self.findings(student + [access(41, 'shared_load', 's_tile[i]', 's_tile', requests=16)], [shared])
        self.assertEqual((found['difference'], found['question']), ('other-array', None))
        self.assertIn('line 40, `s_copy[i]`', found['line'])
        self.assertNotIn('Q9', found['line'])

    def test_a_renamed_array_takes_the_references_role(self):
        student = [access(1, 'shared_atomic', 's_hist[v]', 's_hist'), access(2, 'shared_load', 's_hist[b]', 's_hist')]
        reference = [access(1, 'shared_atomic', 's_bins[v]', 's_bins'), access(2, 'shared_load', 's_bins[b]', 's_bins')]
        self.assertEqual(site_findings.roles(student, reference, {'s_bins': 'the private bins'})['s_hist'],
                         'the private bins')
        self.assertEqual(site_findings.roles(student, reference[:1], {})['s_hist'], '`s_hist`')

    def test_a_worse_access_of_the_same_array_gets_the_counters_question(self):
        student = [access(35, 'global_load', 'd_samples[i]', 'd_samples', sectors=65536), self.REFERENCE[1]]
        sectors = {'counter': 'global_load_sectors_per_request', 'question': 'Q2.5', 'fix': 'grid-stride',
                   'student': 32.0, 'reference': 4.0, 'line': 'kernel line'}
        (found,) = self.findings(student, [sectors], [self.PLAIN])
        self.assertEqual(found['difference'], 'same')
        self.assertEqual(found['line'], 'v2 grid-stride: line 35, `d_samples[i]` (a global load, 32.00 sectors per '
                         "request): the reference's global loads of the samples (`d_samples[i]`): 4.00 sectors "
                         'per request — see Q2.5 (grid-stride)')

    def test_the_reference_against_itself_has_no_finding(self):
        self.assertEqual(self.findings(self.REFERENCE, [], [self.PLAIN]), [])


if __name__ == '__main__':
    unittest.main()
