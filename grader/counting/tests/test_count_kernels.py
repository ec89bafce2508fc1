"""Pins of the CPU backend's counting mode (count_kernels.py) on the solutions, against figures
worked out by hand from the kernels' code and the hardware's rules (32 banks of 4 bytes, 32-byte
sectors). Inputs: the count programs' defaults, n = 65536 samples (elements), seed 1.
  test_count_kernels.py BUILD_DIR      (a build folder with the CPU backend; meson gives it)"""
import os
import sys
import threading
import unittest

from counting import count_kernels, programs

BUILD_DIR = None
LD_REQ, LD_SECT = 'global_load_requests', 'global_load_sectors'
LDS_REQ, STS_REQ = 'shared_load_requests', 'shared_store_requests'
LDS_WAVE, LDS_CONFL = 'shared_load_wavefronts', 'shared_load_bank_conflicts'
STS_WAVE, STS_CONFL = 'shared_store_wavefronts', 'shared_store_bank_conflicts'


def launches(lab, **options):
    """{label: metrics} of the solutions' launches (the first launch of each label)."""
    found = {}
    for launch in count_kernels.count(lab, 'solutions', build_dir=BUILD_DIR, gpu=None, **options):
        found.setdefault(launch['label'], dict(launch['metrics'], barriers=launch['barriers']))
    return found


def blelloch_shared(padded):
    """Shared loads and stores of lab 05's Blelloch kernel, one 1024-element tile (512 threads,
    16 warps), worked out lane by lane: each request costs, per bank, its distinct words; with
    padding, element j lives in word j + j / 32. Returns (ld requests, ld wavefronts, st requests,
    st wavefronts) per block."""
    def slot(j):
        return j + j // 32 if padded else j

    def wavefronts(words):  # one phase: 4-byte accesses
        per_bank = {}
        for w in set(words):
            per_bank[w % 32] = per_bank.get(w % 32, 0) + 1
        return max(per_bank.values())

    ld = [0, 0]
    st = [0, 0]
    # Copy in and out: j = t and t + 512, 32 consecutive elements a warp: one wavefront each.
    st[:] = [32, 32]
    ld[:] = [32, 32]
    steps = []
    s = 1
    while s < 1024:  # up-sweep: thread t adds element j - s into j = (t+1)*2s - 1, if j < 1024
        steps.append([(t, (t + 1) * 2 * s - 1 - s, (t + 1) * 2 * s - 1) for t in range(512) if (t + 1) * 2 * s - 1 < 1024])
        s *= 2
    s = 256
    while s >= 1:  # down-sweep: thread t adds j = (t+1)*2s - 1 into j + s, if j + s < 1024
        steps.append([(t, (t + 1) * 2 * s - 1, (t + 1) * 2 * s - 1 + s) for t in range(512) if (t + 1) * 2 * s - 1 + s < 1024])
        s //= 2
    for step in steps:
        for warp in range(16):
            lanes = [(a, b) for t, a, b in step if t // 32 == warp]
            if not lanes:
                continue
            # Two loads (the source and the target) and one store (the target) per active warp.
            ld[0] += 2
            ld[1] += wavefronts([slot(a) for a, _ in lanes]) + wavefronts([slot(b) for _, b in lanes])
            st[0] += 1
            st[1] += wavefronts([slot(b) for _, b in lanes])
    return ld[0], ld[1], st[0], st[1]


class CountingPins(unittest.TestCase):
    def test_lab02_slices_load_a_sector_per_lane(self):
        # 256 threads x 16 samples: 16 blocks; a thread reads 16 consecutive ints, so a warp's 32
        # lanes are 64 bytes apart: 32 sectors per request; 65536 loads / 32 lanes = 2048 requests.
        m = launches('02', only='histogram_v1_slices')['histogram_v1_slices']
        self.assertEqual((m[LD_REQ], m[LD_SECT]), (2048, 2048 * 32))

    def test_lab01_grid_stride_loads_coalesce(self):
        # Neighbouring lanes read neighbouring ints: 128 bytes a request, 4 sectors.
        m = launches('01', only='histogram_v2_grid_stride')['histogram_v2_grid_stride']
        self.assertEqual((m[LD_REQ], m[LD_SECT]), (2048, 2048 * 4))

    def test_lab03_shared_atomics_then_one_global_per_nonzero_bin(self):
        # --input equal: every sample is 512. Each of the 65536 samples is one shared atomicAdd,
        # 2048 warp-level ones, each on one address (the whole warp collides). The merge adds only
        # non-zero bins: one global atomic per block, 16 blocks (256 threads x 16 samples each).
        m = launches('03', only='histogram_v1_shared_slices', input_kind='equal')['histogram_v1_shared_slices']
        self.assertEqual((m['shared_atomic_operations'], m['shared_atomic_requests'],
                          m['shared_atomic_distinct_addresses']), (65536, 2048, 2048))
        self.assertEqual((m['global_atomic_operations'], m['global_atomic_requests']), (16, 16))
        self.assertEqual(m['barriers'], 16 * 2)  # zero_private's and merge_private's, per block

    def test_lab03_merge_is_one_request_per_warp_iteration_whichever_bins_are_zero(self):
        # Uniform input: 4096 samples a block over 1024 bins, so some bins stay 0 and their lanes
        # skip the merge's atomicAdd. A warp executes it once per loop iteration with the other
        # lanes: 16 blocks x 1024 bins / 32 lanes = 512 requests (ncu counts 512 on an H100), not
        # one per lane's k-th atomic.
        m = launches('03', only='histogram_v1_shared_slices')['histogram_v1_shared_slices']
        self.assertLess(m['global_atomic_operations'], 16 * 1024)  # bins were skipped
        self.assertEqual(m['global_atomic_requests'], 16 * 1024 // 32)

    def test_a_grid_sized_by_the_multiprocessors_is_a_gpus(self):
        # Lab 06's equalize sizes its histogram grid by multiProcessorCount (the solution: 4 blocks an
        # SM). The counting mode runs one host thread, yet gives kernels an H100's 132 multiprocessors,
        # so the grid is the GPU's: 528 blocks, each zeroing and merging 256 bins.
        equalize = [l for l in count_kernels.count('06', 'solutions', build_dir=BUILD_DIR, gpu=None, only='equalize')
                    if l['kernel'] == 'histogram_kernel']
        self.assertEqual([l['grid'][0] for l in equalize], [4 * 132])
        other = count_kernels.count('06', 'solutions', build_dir=BUILD_DIR, gpu=None, only='equalize', sms=2)
        self.assertEqual([l['grid'][0] for l in other if l['kernel'] == 'histogram_kernel'], [8])

    def test_lab04_broadcasts_and_the_inverse_kernels_stores(self):
        found = launches('04')
        # 16 blocks of 4096 samples; every thread reads every sample: 4096 requests per warp, all
        # lanes on one word (a broadcast, one wavefront, no conflict).
        for label, warps in (('histogram_v2_banks', 32), ('histogram_v3_banks2', 16), ('histogram_v4_banks4', 8)):
            m = found[label]
            self.assertEqual((m[LDS_REQ], m[LDS_WAVE], m[LDS_CONFL]), (16 * warps * 4096,) * 2 + (0,), label)
            self.assertEqual(m[STS_REQ], 65536 // 32, label)  # the chunk copy: 32 samples a store
        # v1 also stores: s_counts[bin] = 0 (32 warps x 16 blocks), the copy (2048), and
        # ++s_counts[bin] each time a sample equals a lane's bin: exactly one lane of the block per
        # sample, so one single-lane request per sample (65536).
        m = found['histogram_v1_inverse']
        self.assertEqual(m[STS_REQ], 512 + 2048 + 65536)
        self.assertEqual(m[STS_CONFL], 0)

    def test_lab05_blelloch_conflicts_and_padding(self):
        found = launches('05')
        for label, padded in (('scan_v2_blelloch', False), ('scan_v3_blelloch_padded', True)):
            ld_req, ld_wave, st_req, st_wave = blelloch_shared(padded)
            m = found[label]
            # 64 tiles of 1024 elements; a barrier after the copy and after each of 19 steps.
            self.assertEqual((m[LDS_REQ], m[LDS_WAVE], m[LDS_CONFL]), (64 * ld_req, 64 * ld_wave, 64 * (ld_wave - ld_req)), label)
            self.assertEqual((m[STS_REQ], m[STS_WAVE], m[STS_CONFL]), (64 * st_req, 64 * st_wave, 64 * (st_wave - st_req)), label)
            self.assertEqual(m['barriers'], 64 * 20, label)
        # The lesson: padding removes most conflicts (hand figures, not the tool's).
        self.assertEqual(blelloch_shared(False)[0], 174)  # 32 + 2 x (36 up-sweep + 35 down-sweep warps)


class Yardsticks(unittest.TestCase):
    def test_the_graders_yardsticks_count_as_worked_out(self):
        # 65536 samples over 1056 blocks of 256 threads (132 SMs x 8): the first 256 blocks hold
        # one sample a thread, 2048 warps; the privatized kernel zeroes and merges 1024 bins with
        # 8 warps a block, 4 requests each (32 a block), behind 2 barriers a block.
        found = {launch['label']: dict(launch['metrics'], barriers=launch['barriers'], grid=launch['grid'][0])
                 for launch in count_kernels.count('yardsticks', build_dir=BUILD_DIR, gpu=None)}
        base, private, read = found['baseline_histogram'], found['privatized_histogram'], found['read_everything']
        self.assertEqual((base['grid'], base[LD_REQ], base[LD_SECT], base['global_atomic_requests']), (1056, 2048, 8192, 2048))
        self.assertEqual((private[STS_REQ], private[LDS_REQ], private['barriers']), (1056 * 32, 1056 * 32, 1056 * 2))
        self.assertEqual((private['shared_atomic_requests'], private[LD_REQ], private[STS_CONFL]), (2048, 2048, 0))
        # 16384 int4 loads by 512 warps; the host compiler splits each into 4 scalar loads, each
        # spanning the warp's 512 bytes: 16 sectors a request, as the GPU's one 16-byte load.
        self.assertEqual(read[LD_SECT] / read[LD_REQ], 16.0)


class WholeProgram(unittest.TestCase):
    def test_lab00s_program_counts_as_worked_out(self):
        # Its main() runs on a file of 65536 samples: a thread a sample, 256 blocks of 256, one
        # coalesced load (4 sectors) and one atomic a warp.
        (launch,) = count_kernels.count('00', build_dir=BUILD_DIR, gpu=None)
        m = launch['metrics']
        self.assertEqual((launch['label'], launch['grid'][0]), ('lab00_program', 256))
        self.assertEqual((m[LD_REQ], m[LD_SECT], m['global_atomic_requests']), (2048, 8192, 2048))


class SiteLines(unittest.TestCase):
    def test_sites_name_the_lab_file_never_the_backends_code(self):
        # At -O3, g++ keeps no line of lab 02 v2's loop under #pragma unroll: its accesses carry the
        # CPU backend's launch line, which the sites replace with the kernel's first line.
        found = count_kernels.count('02', 'solutions', build_dir=BUILD_DIR, gpu=None, only='histogram_v2_pragma_unroll')
        locations = {site['location'] for launch in found for site in launch['sites']}
        self.assertTrue(locations)
        for location in locations:
            self.assertIn('solutions/lab02_unrolling_ilp.cu:', location)
            self.assertNotIn('cpu_backend', location)


class ParallelBuilds(unittest.TestCase):
    def test_two_builds_of_one_driver_at_once(self):
        # meson runs the counting tests side by side: both may build the same driver. CI once
        # failed with "Text file busy" when they shared one output file; this race is rare, so the
        # test pins the outcome (one program, no build folder left), not the old failure.
        source = count_kernels.submission_file('01', 'solutions', None)
        defines = [f'COUNTING_BUILD_RACE_TEST={os.getpid()}']  # a key no other build has
        built, errors = [], []

        def build():
            try:
                built.append(programs.build(BUILD_DIR, '01', source, counting=False, defines=defines))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)
        threads = [threading.Thread(target=build) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(set(built)), 1)
        status, out, err = programs.run(built[0], n=1024)
        self.assertEqual(status, 0, err)
        self.assertEqual([f for f in os.listdir(os.path.dirname(built[0])) if f.startswith('build-')], [])


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_count_kernels.py BUILD_DIR')
    BUILD_DIR = sys.argv.pop(1)
    programs.REBUILD_LIBRARIES = False
    unittest.main()
