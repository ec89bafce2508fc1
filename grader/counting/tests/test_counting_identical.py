"""The counting mode changes no result: each lab's count program, built once for the ordinary CPU
backend and once for the counting mode (instrumented, counting library linked), prints the same
checksum of every output of every graded function, for the solutions and the starter, on two
inputs; and the counting build did count (each call made at least one launch record).
  test_counting_identical.py BUILD_DIR"""
import json
import os
import sys
import tempfile
import unittest

from counting import programs
from runs import labs as lab_list

BUILD_DIR = None
LABS = lab_list.kernel_lab_numbers()


def outputs(text):
    return [line for line in text.splitlines() if line.startswith(('output ', 'call '))]


class CountingChangesNoResult(unittest.TestCase):
    def check(self, folder, input_kind, n):
        for lab in LABS:
            _, name = programs.lab_folder(lab)
            source = os.path.join(programs.ROOT, folder, name)
            plain = programs.build(BUILD_DIR, lab, source, counting=False)
            counted = programs.build(BUILD_DIR, lab, source, counting=True)
            with tempfile.TemporaryDirectory() as scratch:
                counts = os.path.join(scratch, 'counts.json')
                status_a, out_a, err_a = programs.run(plain, n, input_kind)
                status_b, out_b, err_b = programs.run(counted, n, input_kind, counts_file=counts)
                self.assertEqual((status_a, status_b), (0, 0), f'lab {lab} {folder}: {err_a}{err_b}')
                self.assertEqual(outputs(out_a), outputs(out_b), f'lab {lab} {folder} {input_kind}')
                self.assertGreater(len([x for x in outputs(out_a) if x.startswith('output ')]), 0)
                with open(counts, encoding='utf-8') as f:
                    labels = {launch['label'] for launch in json.load(f)['launches']}
                calls = {x.split()[1] for x in outputs(out_a) if x.startswith('call ')}
                if folder == 'solutions':
                    self.assertEqual(labels, calls, f'lab {lab}: calls without a launch record')

    def test_solutions_uniform(self):
        self.check('solutions', 'uniform', 65536)

    def test_solutions_equal_ragged(self):
        self.check('solutions', 'equal', 50001)  # a ragged size: the tails' code paths

    def test_starter(self):
        self.check('starter', 'uniform', 4096)


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_counting_identical.py BUILD_DIR')
    BUILD_DIR = sys.argv.pop(1)
    programs.REBUILD_LIBRARIES = False
    unittest.main()
