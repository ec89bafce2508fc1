"""explain/gpu_counters.py without a GPU: a stand-in ncu (a script printing what ncu prints) and the
count program's build mocked. The counters come out per function as the counting mode's do; a
driver that keeps the counters to administrators is said in one line with the fix; launches that
do not match the counting mode's are refused, not guessed.
Run: PYTHONPATH=grader python3 grader/explain/tests/test_gpu_counters.py"""
import os
import stat
import tempfile
import unittest
from unittest import mock

from explain import gpu_counters
from counting import metrics, ncu as ncu_tool

HEADER = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"'
COUNTED = [{'label': 'histogram_v2_banks', 'kernel': 'histogram_v2_banks_kernel', 'metrics': {}}]


def ncu_script(folder, text, status=0):
    path = os.path.join(folder, 'ncu')
    with open(path, 'w') as f:
        f.write(f"#!/bin/sh\ncat <<'EOF'\n{text}\nEOF\nexit {status}\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def ncu_name(counter, which=0):
    """The ncu metric of a counter (metrics.py: the one table), as ncu's CSV names it."""
    return metrics.COUNTERS[counter][which]


def rows(kernel, values, launch=0):
    return '\n'.join(f'"{launch}","{kernel}(int const*, int, int*, int)","{m}","","{v}"' for m, v in values.items())


class Measure(unittest.TestCase):
    def measure(self, text, counted=COUNTED):
        with tempfile.TemporaryDirectory() as folder:
            ncu = ncu_script(folder, text)
            with mock.patch.object(ncu_tool, 'build_program', return_value='/bin/true'):
                return gpu_counters.measure('04', 'lab.cu', counted, '90', nvcc='/usr/bin/nvcc', ncu=ncu)

    def test_the_counters_per_function_as_the_counting_modes(self):
        found = self.measure(HEADER + '\n' + rows('histogram_v2_banks_kernel', {
            ncu_name('global_load_requests'): 2048, ncu_name('global_load_sectors'): 8192,
            ncu_name('shared_load_requests'): 100, ncu_name('shared_load_bank_conflicts'): 410,
            ncu_name('global_atomic_requests', 1): 512, ncu_name('warp_instructions'): 1000,
            ncu_name('active_lanes'): 32000}))
        self.assertEqual(found['status'], 'measured')
        values = found['functions']['histogram_v2_banks']
        self.assertEqual((values['global_load_sectors_per_request'], values['shared_bank_conflicts_per_request'],
                          values['global_atomic_requests'], values['active_lanes_per_instruction']), (4.0, 4.1, 512, 32.0))
        self.assertNotIn('global_atomic_lanes_per_address', values)  # the CPU model's alone
        self.assertNotIn('barriers', values)

    def test_counters_kept_to_administrators_say_so_with_the_fix(self):
        found = self.measure('==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU '
                             'Performance Counters on the target device 0.')
        self.assertEqual(found['status'], 'not-permitted')
        self.assertIn('NVreg_RestrictProfilingToAdminUsers=0', found['message'])
        self.assertIn("the counters shown are the CPU model's", found['message'])

    def test_launches_that_differ_from_the_counting_modes_are_refused(self):
        found = self.measure(HEADER + '\n' + rows('some_other_kernel', {ncu_name('warp_instructions'): 1}))
        self.assertEqual(found['status'], 'unavailable')
        found = self.measure(HEADER)
        self.assertIn('ncu profiled 0 launches, the counting mode counted 1', found['message'])

    def test_a_measured_result_is_kept_until_the_file_changes(self):
        text = HEADER + '\n' + rows('histogram_v2_banks_kernel', {ncu_name('warp_instructions'): 10})
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, 'lab04.cu')
            with open(source, 'w') as f:
                f.write('// v1')
            ncu = ncu_script(folder, text)
            with mock.patch.object(ncu_tool, 'build_program', return_value='/bin/true') as built:
                first = gpu_counters.measure('04', source, COUNTED, '90', '/usr/bin/nvcc', ncu, build_dir=folder)
                again = gpu_counters.measure('04', source, COUNTED, '90', '/usr/bin/nvcc', ncu, build_dir=folder)
                self.assertEqual((first, built.call_count), (again, 1))  # read back, not built again
                with open(source, 'w') as f:
                    f.write('// v2')
                gpu_counters.measure('04', source, COUNTED, '90', '/usr/bin/nvcc', ncu, build_dir=folder)
                self.assertEqual(built.call_count, 2)
                # The launches may come from a function (the reference's): called only when nothing is kept.
                counted = mock.Mock(return_value=COUNTED)
                kept = gpu_counters.measure('04', source, counted, '90', '/usr/bin/nvcc', ncu, build_dir=folder)
                self.assertEqual((kept['status'], counted.call_count), ('measured', 0))
                with open(source, 'w') as f:
                    f.write('// v3')
                made = gpu_counters.measure('04', source, counted, '90', '/usr/bin/nvcc', ncu, build_dir=folder)
                self.assertEqual((made['status'], counted.call_count), ('measured', 1))

    def test_no_ncu_or_nvcc_is_said(self):
        found = gpu_counters.measure('04', 'lab.cu', COUNTED, '90', nvcc=None, ncu=None)
        self.assertEqual(found['status'], 'unavailable')
        self.assertIn('needs nvcc and ncu', found['message'])


if __name__ == '__main__':
    unittest.main()
