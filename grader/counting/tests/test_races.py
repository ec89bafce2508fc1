"""The race detector (races.py) against the project's own kernels, on its inputs (races.INPUTS):
  (a) no false report: the solutions, their slow variants, the starters' given code, the grader's
      yardsticks;
  (b) no miss: every known-wrong kernel whose defect is a race is reported, each race with its
      kind, both lines and the handout question of labs/NN-*/races.json (RACES below); every
      other known-wrong kernel is reported race-free; so is each racy variant of solutions/slow/
      (RACY below);
  (c) each races.json parses and names questions its handout asks (or the lab it names);
  and no launch's global memory goes unchecked (races_unchecked()).
  test_races.py BUILD_DIR      (a build folder with the CPU backend; meson gives it)"""
import os
import re
import sys
import tempfile
import unittest

from counting import programs, races
from explain import slow_variants

BUILD_DIR = None
ROOT = programs.ROOT
LABS = ['00', '01', '02', '03', '04', '05', '06']
# A known-wrong file's defects, from its header: "//   N name  what it does".
DEFECT = re.compile(r'^//\s+(\d+)\s+([a-z_0-9]+)[:\s]', re.M)
HANDOUT_QUESTION = re.compile(r'^##\s+Q(\d+)\b|\*\*Q(\d+(?:\.\d+)?)(?=[\s.*\u2014(-])', re.M)

COUNT = 'atomicAdd(&s_bins[bin], Bin{1});'                          # lab 03's counting atomic
MERGE = 'if (s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);'     # lab 03's merge
ZERO = 'for (int b = threadIdx.x; b < count; b += blockDim.x) s_bins[b] = 0;'
LAB03 = ['histogram_v1_shared_slices', 'histogram_v2_shared_grid_stride', 'histogram_v3_bytes',
         'histogram_v4_wide', 'histogram_v5_letters']
LAB04 = {'histogram_v1_inverse': 'if (s_chunk[i] == bin) {', 'histogram_v2_banks': 'count += (s_chunk[i] == bin) ? 1 : 0;',
         'histogram_v3_banks2': 'const int value = s_chunk[i];', 'histogram_v4_banks4': 'const int value = s_chunk[i];'}
LAB06_ZERO = 'for (int b = threadIdx.x; b < kGrayLevels; b += blockDim.x) s_bins[b] = 0;'
LAB06_COUNT = 'atomicAdd(&s_bins[d_pixels[i]], 1u);'
LAB06_MERGE = 'if (kWrongCase != 1 && s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);'
# The known-wrong defects that are races: (lab, define) -> the witnesses, each (graded function,
# kind, the texts of its two lines (one for an uninitialised read), question). Lines are found by
# their text in the known-wrong file, which must hold it once.
RACES = {
    ('01', 3): [(f, 'write after write', ['d_bins[value] = d_bins[value] + 1;'] * 2, 'Q2.1')
                for f in ('histogram_v1_slices', 'histogram_v2_grid_stride')],
    ('01', 20): [('histogram_v2_grid_stride', 'write after write', ['d_bins[d_samples[i]]++;'] * 2, 'Q2.1')],
    ('03', 3): [(f, 'uninitialised read', [text], 'Q2.1')
                for f in ('histogram_v1_shared_slices', 'histogram_v2_shared_grid_stride', 'histogram_v4_wide')
                for text in (COUNT, MERGE)],
    ('03', 4): [(f, 'read after write', [COUNT, MERGE], 'Q2.3') for f in LAB03],
    ('03', 8): [(f, 'write after write', [ZERO, COUNT], 'Q2.1') for f in LAB03],
    ('03', 20): [('histogram_v1_shared_slices', 'write after write', ['s_bins[d_samples[i]]++;'] * 2, 'Q2.2')],
    ('04', 2): [(f, 'read after write', ['for (int i = threadIdx.x; i < chunk.count; i += blockDim.x) s_chunk[i] = '
                                         'd_samples[chunk.first + i];', scan], 'Q1.1') for f, scan in LAB04.items()],
    ('05', 2): [('scan_v1_hillis_steele', 'write after read',
                 ['buffer[to][t] = buffer[from][t] + (t >= offset ? buffer[from][t - offset] : 0);'] * 2, 'Q1.1')],
    ('06', 2): [(f, 'write after write', ['s_bins[d_pixels[i]] = s_bins[d_pixels[i]] + 1;'] * 2, 'Q2.1')
                for f in ('histogram_256', 'equalize')],
    ('06', 20): [(f, 'write after write', [LAB06_ZERO, LAB06_COUNT], 'Q2.1') for f in ('histogram_256', 'equalize')],
    ('06', 21): [(f, 'read after write', [LAB06_COUNT, LAB06_MERGE], 'Q2.1') for f in ('histogram_256', 'equalize')],
}
# The racy variants of solutions/slow/ (a plain ++ on a bin): the graded function, the racy line's
# text and the handout question.
RACY = {'lab01-v2-plain-increment': ('histogram_v2_grid_stride', 'd_bins[d_samples[i]]++;', 'Q2.1'),
        'lab03-v1-plain-increment': ('histogram_v1_shared_slices', 's_bins[d_samples[i]]++;', 'Q2.2')}
# Known-wrong defects whose run ends in a fault of their own (out-of-bounds writes): what ran before
# must still be race-free.
FAULTS = {('01', 4), ('05', 6)}


def known_wrong_file(lab):
    return os.path.join(ROOT, 'labs', programs.lab_folder(lab)[0], 'known_wrong', f'lab{lab}_known_wrong.cu')


def defects(lab):
    with open(known_wrong_file(lab), encoding='utf-8') as f:
        return [(int(n), name) for n, name in DEFECT.findall(f.read().split('#include')[0])]


def line_of(lab, text):
    with open(known_wrong_file(lab), encoding='utf-8') as f:
        lines = [i + 1 for i, line in enumerate(f) if text in line]
    assert len(lines) == 1, f'lab {lab} known-wrong: {len(lines)} lines hold {text!r}'
    return f'{known_wrong_file(lab)}:{lines[0]}'


def witnessed(found):
    """The witnesses as (function, kind, sorted locations, question)."""
    return sorted((w['label'], w['kind'], tuple(sorted(a['location'] for a in (w['first'], w['second']) if a)),
                   w['question']) for w in found)


def find(lab, **options):
    """races.find() on the test's build; every launch's global memory must have been checked."""
    unchecked = []
    try:
        found = races.find(lab, build_dir=BUILD_DIR, unchecked=unchecked, **options)
    except races.RunError as error:
        if (lab, options.get('known_wrong')) not in FAULTS:
            raise
        found = error.witnesses
    assert not unchecked, unchecked
    return found


class NoFalseReports(unittest.TestCase):
    def test_solutions_and_starters(self):
        for lab in LABS:
            for submission in ('solutions', 'starter'):
                with self.subTest(lab=lab, submission=submission):
                    found = find(lab, submission=submission)
                    self.assertEqual(found, [], '\n'.join(map(races.one_line, found)))

    def test_slow_variants(self):
        with tempfile.TemporaryDirectory(prefix='slow_') as out:
            for name in slow_variants.names():
                if slow_variants.kind(name) != 'slow':
                    continue  # a racy one is NoMisses.test_racy_variants'
                with self.subTest(variant=name):
                    folder = slow_variants.make(name, out)
                    found = find(name[3:5], submission=folder)
                    self.assertEqual(found, [], '\n'.join(map(races.one_line, found)))

    def test_yardsticks(self):
        found = find(programs.YARDSTICKS)
        self.assertEqual(found, [], '\n'.join(map(races.one_line, found)))


class NoMisses(unittest.TestCase):
    def test_every_known_wrong_kernel(self):
        for lab in LABS:
            for define, name in defects(lab):
                with self.subTest(lab=lab, known_wrong=f'{define} {name}'):
                    expected = sorted((function, kind, tuple(sorted(line_of(lab, text) for text in texts)), question)
                                      for function, kind, texts, question in RACES.get((lab, define), []))
                    found = find(lab, known_wrong=define)
                    self.assertEqual(witnessed(found), expected, '\n'.join(map(races.one_line, found)))

    def test_racy_variants(self):
        self.assertEqual(sorted(RACY), [n for n in slow_variants.names() if slow_variants.kind(n) == 'racy'])
        with tempfile.TemporaryDirectory(prefix='racy_') as out:
            for name, (function, text, question) in RACY.items():
                with self.subTest(variant=name):
                    folder = slow_variants.make(name, out)
                    path, = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith('.cu')]
                    with open(path, encoding='utf-8') as f:
                        lines = [f'{path}:{i + 1}' for i, line in enumerate(f) if text in line]
                    self.assertEqual(len(lines), 1, f'{name}: {len(lines)} lines hold {text!r}')
                    found = find(name[3:5], submission=folder)
                    self.assertEqual(witnessed(found), [(function, 'write after write', (lines[0],) * 2, question)],
                                     '\n'.join(map(races.one_line, found)))

    def test_the_table_names_real_defects(self):
        for lab, define in RACES:
            self.assertIn(define, [d for d, _ in defects(lab)], f'lab {lab} has no known-wrong defect {define}')


class Declarations(unittest.TestCase):
    def test_each_parses_and_asks_its_handouts_questions(self):
        for lab in LABS[1:]:
            with self.subTest(lab=lab):
                declared = races.declaration(lab)
                self.assertIsNotNone(declared, f'lab {lab} has no races.json')
                for entry in declared['races']:
                    folder = programs.lab_folder(entry.get('lab', lab))[0]
                    with open(os.path.join(ROOT, 'handouts', folder + '.md'), encoding='utf-8') as f:
                        asked = {'Q' + (part or label) for part, label in HANDOUT_QUESTION.findall(f.read())}
                    self.assertIn(entry['question'], asked, f'{entry} in {folder}.md')

    def test_one_line_reads_like_the_issue(self):
        found = find('03', known_wrong=20)
        self.assertEqual(len(found), 1)
        line = races.one_line(found[0])
        self.assertRegex(line, r'^lab03 v1 shared slices: race on s_bins\[\d+\] — thread \d+ of block 0 \(line \d+ '
                               r'`s_bins\[d_samples\[i\]\]\+\+;`, a plain read-modify-write\) and thread \d+ of block 0 '
                               r'\(the same line\), both between the barrier at line \d+ and the barrier at line \d+: '
                               r'use atomicAdd \(Q2\.2\)$')
        self.assertIn('fix: use atomicAdd (Q2.2)', races.in_full(found[0]))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_races.py BUILD_DIR')
    BUILD_DIR = sys.argv.pop(1)
    programs.REBUILD_LIBRARIES = False
    unittest.main()
