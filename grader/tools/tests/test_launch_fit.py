#!/usr/bin/env python3
"""Unit tests of grader/tools/launch_fit.py: parsing ptxas and PTX output, the limits, and the whole
run against a stand-in nvcc (a script printing canned output), so no CUDA toolkit is needed."""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

from counting import ptxas
from tools import launch_fit

HERE = os.path.dirname(os.path.abspath(__file__))

TILE_OFFSETS = '_ZN5lab0552_GLOBAL__N__222f4b3f_19_lab05_scan_warps_cu_cccfc74b19tile_offsets_kernelEPii'
SCAN_TILES = '_ZN5lab0552_GLOBAL__N__222f4b3f_19_lab05_scan_warps_cu_cccfc74b17scan_tiles_kernelEPKiiPiS2_'

# What nvcc 13.0 --resource-usage printed for lab 05's solution before the fix (sm_86), trimmed.
PTXAS_SM86 = f"""\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '{SCAN_TILES}' for 'sm_86'
ptxas info    : Function properties for {SCAN_TILES}
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 256 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function '{TILE_OFFSETS}' for 'sm_86'
ptxas info    : Function properties for {TILE_OFFSETS}
    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 72 registers, used 1 barriers, 256 bytes smem, 364 bytes cmem[0]
"""

PTX = f"""\
.visible .entry {SCAN_TILES}(
\t.param .u64 p0
)
{{
}}
.visible .entry {TILE_OFFSETS}(
\t.param .u64 p0,
\t.param .u32 p1
)
\t.maxntid 1024, 1, 1
{{
}}
"""


class ParsingTest(unittest.TestCase):
    def test_reads_registers_shared_memory_and_spills_per_kernel_and_arch(self):
        usage = ptxas.parse_resource_usage(PTXAS_SM86)
        self.assertEqual(usage[(TILE_OFFSETS, '86')], {'registers': 72, 'shared': 256, 'spills': 8})
        self.assertEqual(usage[(SCAN_TILES, '86')], {'registers': 40, 'shared': 256, 'spills': 0})

    def test_a_kernel_without_shared_memory_has_zero(self):
        text = "ptxas info    : Compiling entry function 'k' for 'sm_75'\nptxas info    : Used 4 registers, 352 bytes cmem[0]\n"
        self.assertEqual(ptxas.parse_resource_usage(text)[('k', '75')]['shared'], 0)

    def test_reads_launch_bounds_from_ptx(self):
        bounds = ptxas.parse_max_threads(PTX)
        self.assertEqual(bounds[TILE_OFFSETS], 1024)
        self.assertIsNone(bounds[SCAN_TILES])

    def test_matches_kernels_by_source_name_in_any_namespace(self):
        self.assertTrue(ptxas.kernel_matches(TILE_OFFSETS, 'tile_offsets_kernel'))
        self.assertFalse(ptxas.kernel_matches(TILE_OFFSETS, 'offsets_kernel'))
        self.assertTrue(ptxas.kernel_matches('_Z15blelloch_kernelILb1EEvPKiiPi', 'blelloch_kernel'))


class LimitsTest(unittest.TestCase):
    def test_registers_are_allocated_per_warp_in_units_of_256(self):
        self.assertEqual(ptxas.registers_per_block(64, 1024), 65536)
        self.assertEqual(ptxas.registers_per_block(72, 1024), 73728)
        self.assertEqual(ptxas.registers_per_block(33, 32), 40 * 32)  # 33 rounds up to 40
        self.assertEqual(ptxas.registers_per_block(10, 33), 2 * 512)  # two warps

    def test_72_registers_do_not_fit_1024_threads_but_64_do(self):
        usage = {'registers': 72, 'shared': 256, 'spills': 0}
        _, block, problems = launch_fit.check_kernel('86', usage, 1024, 1024, 0)
        self.assertEqual(block, 73728)
        self.assertTrue(any('73728 > 65536' in p for p in problems))
        usage['registers'] = 64
        self.assertEqual(launch_fit.check_kernel('86', usage, 1024, 1024, 0)[2], [])

    def test_a_fixed_launch_needs_its_launch_bounds(self):
        usage = {'registers': 8, 'shared': 0, 'spills': 0}
        problems = launch_fit.check_kernel('90', usage, None, 256, 0)[2]
        self.assertEqual(problems, ['launched with 256 threads: needs __launch_bounds__(256), has none'])
        self.assertTrue(launch_fit.check_kernel('90', usage, 128, 256, 0)[2])

    def test_a_variable_launch_is_checked_at_1024_threads(self):
        usage = {'registers': 65, 'shared': 0, 'spills': 0}
        threads, _, problems = launch_fit.check_kernel('80', usage, None, None, 0)
        self.assertEqual(threads, 1024)
        self.assertTrue(problems)
        self.assertTrue(launch_fit.check_kernel('80', {'registers': 8, 'shared': 0, 'spills': 0}, 512, None, 0)[2])

    def test_shared_memory_over_48_kib_needs_the_architectures_opt_in(self):
        usage = {'registers': 8, 'shared': 40 * 1024, 'spills': 0}
        self.assertEqual(launch_fit.check_kernel('75', usage, None, None, 8 * 1024)[2], [])
        self.assertEqual(launch_fit.check_kernel('75', usage, None, None, 24 * 1024)[2], [])  # 64 KiB
        self.assertTrue(launch_fit.check_kernel('75', usage, None, None, 25 * 1024)[2])
        self.assertEqual(launch_fit.check_kernel('90', usage, None, None, 100 * 1024)[2], [])
        usage['shared'] = 49 * 1024  # static shared memory cannot opt in
        self.assertTrue(launch_fit.check_kernel('90', usage, None, None, 0)[2])


FAKE_NVCC = textwrap.dedent('''\
    #!/usr/bin/env python3
    import sys
    args = sys.argv[1:]
    if '-ptx' in args:
        open(args[args.index('-o') + 1], 'w').write(open(sys.argv[0] + '.ptx').read())
    else:
        if 'broken.cu' in args[-1]:
            print('broken.cu(3): error: expected a ";"'); sys.exit(2)
        print(open(sys.argv[0] + '.ptxas').read())
    ''')


class WholeRunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.nvcc = os.path.join(self.dir.name, 'nvcc')
        with open(self.nvcc, 'w') as f:
            f.write(FAKE_NVCC)
        os.chmod(self.nvcc, os.stat(self.nvcc).st_mode | stat.S_IXUSR)
        with open(self.nvcc + '.ptx', 'w') as f:
            f.write(PTX)
        self.source = os.path.join(self.dir.name, 'solutions', 'lab05.cu')
        os.makedirs(os.path.dirname(self.source))
        open(self.source, 'w').close()

    def tearDown(self):
        self.dir.cleanup()

    def run_tool(self, ptxas, *extra):
        with open(self.nvcc + '.ptxas', 'w') as f:
            f.write(ptxas)
        command = [sys.executable, os.path.join(HERE, '..', 'launch_fit.py'), '--nvcc', self.nvcc,
                   '--archs', '86', '--lab', 'lab05', '--fixed', 'tile_offsets_kernel=1024', *extra, self.source]
        return subprocess.run(command, capture_output=True, text=True)

    def test_fails_with_a_table_naming_the_kernel_that_does_not_fit(self):
        done = self.run_tool(PTXAS_SM86)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn('lab05 sm_86', done.stdout)
        self.assertIn('72 registers x 1024 threads = 73728 > 65536 registers per block', done.stdout)
        self.assertIn('scan_tiles', done.stdout)

    def test_passes_once_the_kernel_fits(self):
        done = self.run_tool(PTXAS_SM86.replace('Used 72 registers', 'Used 64 registers'))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn('every launch fits sm_86', done.stdout)

    def test_a_kernel_named_in_the_table_must_exist(self):
        done = self.run_tool(PTXAS_SM86.replace('Used 72', 'Used 64'), '--fixed', 'no_such_kernel=256')
        self.assertEqual(done.returncode, 1)
        self.assertIn('no kernel named no_such_kernel', done.stdout)

    def test_a_file_that_does_not_compile_is_reported(self):
        broken = os.path.join(self.dir.name, 'solutions', 'broken.cu')
        open(broken, 'w').close()
        self.source = broken
        done = self.run_tool(PTXAS_SM86)
        self.assertEqual(done.returncode, 1)
        self.assertIn('does not compile', done.stdout)

    def test_skips_without_nvcc(self):
        done = subprocess.run([sys.executable, os.path.join(HERE, '..', 'launch_fit.py'), '--nvcc', '',
                               '--archs', '', self.source], capture_output=True, text=True)
        self.assertEqual(done.returncode, 77)
        self.assertIn('SKIP', done.stdout)


if __name__ == '__main__':
    unittest.main()
