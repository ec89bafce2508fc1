#!/usr/bin/env python3
"""Unit tests of grader/counting/occupancy.py: the occupancy calculator's limits, and kernel names read
from nvcc's mangled names whatever a demangler prints. No CUDA toolkit is needed."""
import unittest

from counting import count_kernels, occupancy, ptxas, shared_codegen


# Lab 01's kernels live in an anonymous namespace inside `namespace lab01`.
SLICES = '_ZN5lab0156_GLOBAL__N__a8b4016a_23_lab01_global_atomics_cu_1e9f51cb26histogram_v1_slices_kernelEPKiiPii'
READ = '_ZN6grader17yardstick_kernels15read_everythingILi4EEEvPK4int4mPKiiPi'


class MangledBaseName(unittest.TestCase):
    def test_global_nested_anonymous_and_template_names(self):
        cases = {
            '_Z16histogram_kernelPKiiPi': 'histogram_kernel',
            SLICES: 'histogram_v1_slices_kernel',
            READ: 'read_everything',
            '_Z15blelloch_kernelILb1EEvPKiPii': 'blelloch_kernel',
            '_ZN12_GLOBAL__N_13fooEv': 'foo',
        }
        for mangled, name in cases.items():
            self.assertEqual(occupancy.mangled_base_name(mangled), name, mangled)

    def test_names_that_are_not_mangled_are_left_to_the_demangler(self):
        for name in ('histogram', '_Z', '_ZNE', ''):
            self.assertIsNone(occupancy.mangled_base_name(name), name)


class Resources(unittest.TestCase):
    def test_kernel_names_do_not_follow_the_demanglers_wording(self):
        # A demangler that prints an anonymous namespace as '<unnamed>' (not c++filt's
        # '(anonymous namespace)') used to leave every lab 01-06 kernel without its registers.
        usage = {(SLICES, '90'): {'registers': 22, 'shared': 0, 'spills': 0},
                 (READ, '90'): {'registers': 32, 'shared': 0, 'spills': 0}}
        shown = {SLICES: 'lab01::<unnamed>::histogram_v1_slices_kernel', READ: 'read_everything<4>'}
        saved = (ptxas.compile_for_resources, ptxas.readable_names)
        ptxas.compile_for_resources = lambda *args: (usage, {}, '')
        ptxas.readable_names = lambda names, demangler: {m: shown[m] for m in names}
        try:
            found = occupancy.resources(__file__, 'k.cu', '90', [])
        finally:
            ptxas.compile_for_resources, ptxas.readable_names = saved
        self.assertEqual(found, {'histogram_v1_slices_kernel': usage[(SLICES, '90')],
                                 'read_everything': usage[(READ, '90')]})

    def test_no_nvcc_gives_no_figures(self):
        self.assertIsNone(occupancy.resources(None, 'k.cu', '90', []))


class LaunchOccupancy(unittest.TestCase):
    def test_a_kernel_launched_through_a_variable_is_found_under_ncus_name(self):
        # Lab 04's known-wrong file launches each kernel through a parameter named `kernel`.
        launch = {'kernel': 'kernel', 'block': [512, 1, 1], 'dynamic_shared_bytes': 4096}
        usage = {'histogram_v1_inverse_kernel': {'registers': 100, 'shared': 0}}
        self.assertEqual(count_kernels.launch_occupancy(launch, usage, 'H100')['from'], 'shape')
        named = count_kernels.launch_occupancy(
            launch, usage, 'H100', shared_codegen.base_name('void lab04::<unnamed>::histogram_v1_inverse_kernel(const int *)'))
        # 100 registers round up to 104 a thread: 53248 a block of 512, one block, 16 of 64 warps.
        self.assertEqual((named['from'], named['registers'], named['occupancy']), ('nvcc', 100, 0.25))


class Occupancy(unittest.TestCase):
    def test_each_limit(self):
        self.assertEqual(occupancy.occupancy('H100', 256)['limited_by'], 'warps')
        self.assertEqual(occupancy.occupancy('H100', 256)['occupancy'], 1.0)
        # 128 registers x 256 threads = 32768 registers a block: two blocks, 16 of 64 warps.
        regs = occupancy.occupancy('H100', 256, registers=128)
        self.assertEqual((regs['limited_by'], regs['blocks_per_sm'], regs['occupancy']), ('registers', 2, 0.25))
        # 100 KB + the 1 KB reserved a block: two blocks of 228 KB.
        shared = occupancy.occupancy('H100', 128, static_shared=100 * 1024)
        self.assertEqual((shared['limited_by'], shared['blocks_per_sm']), ('shared', 2))
        self.assertEqual(occupancy.occupancy('H100', 32)['limited_by'], 'blocks')
        self.assertEqual(occupancy.occupancy('H100', 128, dynamic_shared=228 * 1024)['blocks_per_sm'], 0)


if __name__ == '__main__':
    unittest.main()
