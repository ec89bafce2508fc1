"""The Why lines of every variant of solutions/slow/ (slow or racy, made into lab files), counted by
the CPU backend's counting mode: each names the access that makes it slow (the line of the
variant's file and the expression, or no line where the counter is the kernel's own, loads in
flight, or where g++ kept no line of the loop) and the handout question about that access; no
other version of the lab gets a line; the solutions get none.
  test_variant_lines.py BUILD_DIR      (a build folder with the CPU backend; meson gives it)"""
import os
import re
import sys
import unittest

from explain import explanations, slow_variants
from counting import programs

BUILD_DIR = None
# variant: {function: (line in the variant's file, expression, question)}; line None: a line
# that names no access (the kernel's own counter).
VARIANTS = {
    'lab01-v2-chunks': {'histogram_v2_grid_stride': (37, 'd_samples[i]', 'Q2.5')},
    'lab01-v2-plain-increment': {'histogram_v2_grid_stride': (35, 'd_bins[d_samples[i]]', 'Q2.1')},
    'lab01-v2-transposed-index': {'histogram_v2_grid_stride': (35, 'd_samples[i]', 'Q2.5')},
    'lab02-v3-serial-loads': {'histogram_v3_manual_ilp': (None, None, 'Q3.2')},
    'lab03-v1-plain-increment': {'histogram_v1_shared_slices': (49, 's_bins[d_samples[i]]', 'Q2.2')},
    'lab03-v2-global-atomics': {'histogram_v2_shared_grid_stride': (56, 's_bins[v.x]', 'Q2.5')},
    'lab04-v2-lane-offsets': {'histogram_v2_banks': (76, 's_chunk[(start + i) % chunk.count]', 'Q3.1')},
    'lab05-v3-no-padding': {'scan_v3_blelloch_padded': (87, 'data[slot<kPadded>(j - stride)]', 'Q2.3')},
    'lab05-v4-shared-warp-scan': {'scan_v4_warp_shuffle': (114, 's_lanes[threadIdx.x]', 'Q4.1')},
    'lab05-v4-staged-tile': {'scan_v4_warp_shuffle': (144, 's_tile[threadIdx.x]', 'Q4.2')},
    'lab06-cdf-shared-warp-scan': {'cdf_exclusive_scan': (94, 's_lanes[threadIdx.x]', 'Q3.1')},
    'lab06-histogram-global-atomics': {'histogram_256': (56, 'd_bins[d_pixels[p]]', 'Q2.1'),
                                       'equalize': (56, 'd_bins[d_pixels[p]]', 'Q6.3')},
    'lab06-remap-global-table': {'remap': (None, None, 'Q5.1')},
}
QUESTION = re.compile(r'(?:see (Q[\d.]+) \(|\((Q[\d.]+)\)$)')


def first_lines(lab, folder):
    """{function: its first printed Why line} of a count of the lab file in `folder`."""
    section = explanations.explain_lab(lab, folder, BUILD_DIR)
    if section['status'] != 'counted':
        raise AssertionError(f'lab {lab} in {folder}: {section}')
    found = {}
    for version in section['versions']:
        said = [f['line'] for f in version['findings'] if f.get('line')]
        if said:
            found[version['function']] = said[0]
    return found


class VariantLines(unittest.TestCase):
    def test_every_variant_is_stated_here(self):
        self.assertEqual(sorted(VARIANTS), slow_variants.names())

    def test_each_names_its_line_and_question(self):
        out = os.path.join(BUILD_DIR, 'slow')  # a lasting folder: the count programs' cache keys name it
        for name, expected in VARIANTS.items():
            with self.subTest(variant=name):
                folder = slow_variants.make(name, out)
                (lab_file,) = os.listdir(folder)
                with open(os.path.join(folder, lab_file), encoding='utf-8') as f:
                    text = f.read().split('\n')
                printed = first_lines(lab_file[3:5], folder)
                self.assertEqual(set(printed), set(expected), printed)
                for function, (line, expression, question) in expected.items():
                    said = printed[function]
                    asked = QUESTION.search(said)
                    self.assertTrue(asked, said)
                    self.assertEqual(asked.group(1) or asked.group(2), question, said)
                    if line is None:
                        self.assertNotRegex(said, r': line \d+', said)
                        continue
                    self.assertIn(f': line {line}', said)
                    self.assertIn(f'`{expression}`', said)
                    self.assertIn(expression, text[line - 1], f'line {line} of {lab_file} holds no {expression}')

    def test_the_solutions_get_no_line(self):
        for lab in ('01', '02', '03', '04', '05', '06'):
            with self.subTest(lab=lab):
                self.assertEqual(first_lines(lab, os.path.join(programs.ROOT, 'solutions')), {})


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_variant_lines.py BUILD_DIR')
    BUILD_DIR = sys.argv.pop(1)
    programs.REBUILD_LIBRARIES = False
    unittest.main()
