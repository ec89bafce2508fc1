"""The counting mode's trace of one warp (CUDA_CPU_BACKEND_TRACE, count_kernels.count(trace=...)):
each lane's shared offset and global address against what lab 04's solution code says for lanes
0..31 of block 0 (solutions/lab04_thread_per_bin.cu, histogram_v2_banks: 1024 threads, a chunk
of 4096 samples a block), a variant with a 32-way bank conflict, and the counts unchanged by
the trace, byte for byte.
  test_count_trace.py BUILD_DIR      (a build folder with the CPU backend; meson gives it)"""
import json
import os
import sys
import tempfile
import unittest

from explain import warp_picture
from counting import count_kernels, programs

BUILD_DIR = None
LABEL = 'histogram_v2_banks'
SOLUTION = os.path.join(programs.ROOT, 'solutions', 'lab04_thread_per_bin.cu')
COPY_LINE = 's_chunk[i] = d_samples[chunk.first + i];'
SCAN_LINE = 'count += (s_chunk[i] == bin) ? 1 : 0;'
# The variant: lane l of the scan reads sample (i + 32 l) % count, 32 words apart: one bank.
CONFLICT_LINE = 'count += (s_chunk[(i + 32 * threadIdx.x) % chunk.count] == bin) ? 1 : 0;'


def line_of(path, code):
    with open(path, encoding='utf-8') as f:
        found = [n for n, line in enumerate(f, 1) if code in line and not line.lstrip().startswith('//')]
    assert len(found) == 1, (code, found)
    return found[0]


def traced(submission='solutions', spec=LABEL, n=4096, input_kind='uniform'):
    """(launches, trace) of the function spec names alone on n samples (4096: one block)."""
    only = spec.split(':')[0] if spec.split(':')[0].startswith('histogram_') else LABEL
    return count_kernels.count('04', submission, n=n, input_kind=input_kind, only=only, gpu=None,
                               build_dir=BUILD_DIR, trace=spec)


class SolutionTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.launches, cls.trace = traced()

    def test_the_warp_named(self):
        t = self.trace
        self.assertEqual((t['label'], t['kernel'], t['block'], t['warp']), (LABEL, 'histogram_v2_banks_kernel', 0, 0))
        self.assertEqual(len(t['accesses']), 64)  # the first 64; the scan alone has 4096 per warp

    def test_the_copy_lane_by_lane(self):
        # copy_chunk_to_shared: for (i = threadIdx.x; i < 4096; i += 1024) s_chunk[i] = d_samples[i]
        # (block 0: chunk.first = 0). Lane l, iteration j: i = l + 1024 j, so the load reads
        # d_samples + 4 i and the store writes byte 4 i of the dynamic shared memory: bank l.
        copy = line_of(SOLUTION, COPY_LINE)
        base = self.trace['accesses'][0]['lanes'][0]
        for j in range(4):
            load, store = self.trace['accesses'][2 * j:2 * j + 2]
            self.assertEqual((load['kind'], load['bytes'], load['region']), ('global_load', 4, 'global'))
            self.assertEqual((store['kind'], store['bytes'], store['region']), ('shared_store', 4, 'dynamic'))
            for a in (load, store):
                self.assertTrue(a['location'].endswith(f'lab04_thread_per_bin.cu:{copy}'), a['location'])
            self.assertEqual(load['lanes'], [base + 4 * (lane + 1024 * j) for lane in range(32)])
            self.assertEqual(store['lanes'], [4 * (lane + 1024 * j) for lane in range(32)])
            self.assertEqual(len(warp_picture.global_cost(load)['sectors']), 4)
            self.assertEqual(warp_picture.shared_cost(store)['conflicts'], 0)

    def test_the_scan_reads_one_word_for_all_lanes(self):
        # After __syncthreads(): for (i = 0; i < 4096; ++i) every lane reads s_chunk[i]: byte 4 i,
        # a broadcast (one wavefront). The trace's 8th to 64th accesses are i = 0..55.
        scan = line_of(SOLUTION, SCAN_LINE)
        for i, a in enumerate(self.trace['accesses'][8:]):
            self.assertEqual((a['kind'], a['region']), ('shared_load', 'dynamic'))
            self.assertTrue(a['location'].endswith(f':{scan}'), a['location'])
            self.assertEqual(a['lanes'], [4 * i] * 32)
            self.assertEqual(warp_picture.shared_cost(a)['wavefronts'], 1)

    def test_another_warp_and_block(self):
        _, t = traced(spec=f'{LABEL}:1:3', n=8192)
        self.assertEqual((t['block'], t['warp']), (1, 3))
        # Block 1, warp 3: threads 96..127; the store of iteration 0 writes byte 4 (96 + l).
        self.assertEqual(t['accesses'][1]['lanes'], [4 * (96 + lane) for lane in range(32)])
        self.assertEqual(t['accesses'][0]['lanes'][1] - t['accesses'][0]['lanes'][0], 4)

    def test_a_label_never_launched(self):
        _, t = traced(spec='no_such_function')
        self.assertEqual((t['kernel'], t['accesses']), ('', []))
        with self.assertRaises(programs.BuildError):
            traced(spec=f'{LABEL}:zero:0')


class StaticSharedTrace(unittest.TestCase):
    def test_the_inverse_kernels_counts_in_s_counts(self):
        # v1: __shared__ int s_counts[kNumBins]; s_counts[bin] = 0 with bin = threadIdx.x: lane l
        # writes byte 4 l of s_counts (warp 0). The ramp input makes sample i = i: in the scan,
        # ++s_counts[bin] runs where s_chunk[i] == bin, so lane l alone writes byte 4 l of s_counts
        # right after the warp's load of s_chunk[l] (byte 4 l). The trace holds the requests in
        # the order their first lane made them: the lane that runs the loop first (the schedule's
        # shuffle picks it) fills the trace with its loads and its one increment (l < 32).
        _, t = traced(spec='histogram_v1_inverse', input_kind='ramp')
        zero = line_of(SOLUTION, 's_counts[bin] = 0;')
        increment = line_of(SOLUTION, 'if (s_chunk[i] == bin) ++s_counts[bin];')
        stores = [a for a in t['accesses'] if a['kind'] == 'shared_store' and a['region'] == 'static']
        self.assertTrue(stores[0]['location'].endswith(f':{zero}'), stores[0]['location'])
        self.assertTrue(stores[0]['variable'].endswith('::s_counts'), stores[0]['variable'])
        self.assertEqual(stores[0]['lanes'], [4 * lane for lane in range(32)])
        scan = [a for a in t['accesses'] if a['location'].endswith(f':{increment}')]
        loads = [a for a in scan if a['kind'] == 'shared_load']
        self.assertEqual([a['lanes'] for a in loads], [[4 * i] * 32 for i in range(len(loads))])
        increments = [n for n, a in enumerate(scan) if a['kind'] == 'shared_store']
        self.assertGreaterEqual(len(increments), 1)
        for n in increments:
            lane = [i for i, value in enumerate(scan[n]['lanes']) if value is not None]
            self.assertEqual(len(lane), 1, scan[n]['lanes'])
            self.assertEqual(scan[n]['lanes'][lane[0]], 4 * lane[0])  # byte 4 l of s_counts
            self.assertEqual(scan[n - 1]['lanes'], [4 * lane[0]] * 32)  # after the load of s_chunk[l]


class ConflictTrace(unittest.TestCase):
    def test_a_32_way_conflict_lane_by_lane(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(SOLUTION, encoding='utf-8') as f:
                code = f.read()
            self.assertEqual(code.count(SCAN_LINE), 1)
            variant = os.path.join(folder, 'lab04_thread_per_bin.cu')
            with open(variant, 'w', encoding='utf-8') as f:
                f.write(code.replace(SCAN_LINE, CONFLICT_LINE))
            launches, t = traced(folder)
        scan = [a for a in t['accesses'] if a['kind'] == 'shared_load']
        self.assertEqual(len(scan), 56)
        for i, a in enumerate(scan):  # lane l reads byte 4 ((i + 32 l) % 4096): bank i % 32 for all
            self.assertEqual(a['lanes'], [4 * ((i + 32 * lane) % 4096) for lane in range(32)])
            cost = warp_picture.shared_cost(a)
            self.assertEqual((cost['wavefronts'], cost['conflicts'], set(cost['hot'])), (32, 31, {(0, i % 32)}))
        # The counts agree with the picture: 31 conflicts in each of the scan's requests.
        site = [s for s in launches[0]['sites'] if s['kind'] == 'shared_load']
        self.assertEqual(len(site), 1)
        requests = site[0]['requests']
        self.assertEqual((site[0]['wavefronts'], site[0]['bank_conflicts']), (32 * requests, 31 * requests))
        self.assertIn('32 wavefronts (31 conflicts): 32-way conflict', warp_picture.render(t, 'variant'))


class TraceChangesNoCount(unittest.TestCase):
    def test_counts_byte_for_byte(self):
        program = programs.build(BUILD_DIR, '04', SOLUTION, counting=True)
        with tempfile.TemporaryDirectory() as scratch:
            texts = {}
            for name, spec in (('plain', None), ('traced', f'{LABEL}:2:5')):
                path = os.path.join(scratch, f'{name}.json')
                status, _, err = programs.run(program, 16384, counts_file=path, trace=spec)
                self.assertEqual(status, 0, err)
                with open(path, encoding='utf-8') as f:
                    texts[name] = f.read()
        plain, with_trace = texts['plain'], texts['traced']
        self.assertNotIn('"trace"', plain)
        self.assertTrue(plain.endswith('\n]}\n'))
        # The trace only adds its key after 'launches': everything before it is the same text.
        self.assertEqual(with_trace[:len(plain) - 2], plain[:-2])
        self.assertTrue(with_trace[len(plain) - 2:].startswith(',\n"trace": {'))
        self.assertEqual(json.loads(with_trace)['launches'], json.loads(plain)['launches'])
        self.assertEqual(len(json.loads(with_trace)['trace']['accesses']), 64)


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_count_trace.py BUILD_DIR')
    BUILD_DIR = sys.argv.pop(1)
    programs.REBUILD_LIBRARIES = False
    unittest.main()
