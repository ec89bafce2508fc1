"""Accesses named from their source lines (explain/sites.py), on hand-made lines and records, no
build: which subscript a site is (an atomic's target, a plain update's read and write), an
update's read told from another load by its figures, and the function a line is in.
Run: PYTHONPATH=grader python3 grader/explain/tests/test_sites.py"""
import unittest

from explain import sites


def texts(found):
    return {op: [(c[2], c[4]) for c in found[op]] for op in found}


class Candidates(unittest.TestCase):
    def test_an_atomics_target_is_not_a_load_but_its_index_is(self):
        self.assertEqual(texts(sites.candidates('atomicAdd(&d_bins[d_samples[i]], 1);')),
                         {'load': [('d_samples[i]', False)], 'store': [], 'atomic': [('d_bins[d_samples[i]]', False)]})
        self.assertEqual(texts(sites.candidates('t = atomicAdd(d_next, 1u);'))['atomic'], [('d_next', False)])

    def test_a_plain_update_is_read_and_written(self):
        for code in ('d_bins[d_samples[i]]++;', '++d_bins[d_samples[i]];', 'd_bins[d_samples[i]] += 1;',
                     'd_bins[d_samples[i]] = d_bins[d_samples[i]] + 1;'):
            found = texts(sites.candidates(code))
            self.assertIn(('d_bins[d_samples[i]]', True), found['load'], code)
            self.assertEqual(found['store'], [('d_bins[d_samples[i]]', True)], code)
        self.assertEqual(texts(sites.candidates('b[1 - f][t] = b[f][t] + b[f][t - o];'))['store'],
                         [('b[1 - f][t]', False)])

    def test_the_updates_read_is_the_load_shaped_like_its_store(self):
        shape = {'requests': 2048, 'lanes': 65536}
        sample = dict(kind='global_load', pc='0x20', sectors=8192, **shape)
        bin_read = dict(kind='global_load', pc='0x10', sectors=58000, **shape)
        bin_write = dict(kind='global_store', pc='0x30', sectors=58000, **shape)
        named = sites.name_line({'load': [sample, bin_read], 'store': [bin_write]}, 'd_bins[d_samples[i]]++;', set())
        self.assertEqual((named[id(sample)][2], named[id(bin_read)][2], named[id(bin_write)][2]),
                         ('d_samples[i]', 'd_bins[d_samples[i]]', 'd_bins[d_samples[i]]'))

    def test_a_shuffle_is_named_by_its_call(self):
        shuffle = {'location': '/x/lab.cu:2', 'kind': 'shuffle', 'pc': '0x1', 'requests': 10, 'lanes': 320}
        named = sites.shuffle_calls({'shuffle': [shuffle]}, 'const int b = __shfl_up_sync(kFullMask, v, o);')
        self.assertEqual(named[id(shuffle)][2], '__shfl_up_sync(kFullMask, v, o)')

    def test_a_line_is_in_the_function_whose_braces_hold_it(self):
        text = ['__global__ void __launch_bounds__(f(4))', '    kernel(int* d) {', '  d[0] = 1;', '}',
                '__device__ int scan(int v) {', '  return v;', '}', 'int x[4];']
        self.assertEqual([sites.enclosing_function(text, n) for n in (3, 6, 8)], ['kernel', 'scan', None])




if __name__ == '__main__':
    unittest.main()
