#!/usr/bin/env python3
"""Unit tests of grader/toolchain.py with stand-in programs (scripts printing what nvcc, meson or a
python without ensurepip print), so they run on any machine, with or without CUDA."""
import os
import re
import stat
import tempfile
import textwrap
import unittest

import toolchain

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))

CUDA_12_4_ARCHS = 'compute_50\ncompute_52\ncompute_53\ncompute_60\ncompute_61\ncompute_62\ncompute_70\n' \
                  'compute_72\ncompute_75\ncompute_80\ncompute_86\ncompute_87\ncompute_89\ncompute_90\n'
CUDA_13_0_ARCHS = 'compute_75 compute_80 compute_86 compute_87 compute_88 compute_89 compute_90 compute_100 ' \
                  'compute_110 compute_103 compute_120 compute_121\n'


def write_program(folder, name, body):
    path = os.path.join(folder, name)
    os.makedirs(folder, exist_ok=True)
    with open(path, 'w') as f:
        f.write('#!/bin/sh\n' + textwrap.dedent(body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_nvcc(folder, release, archs):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'archs.txt'), 'w') as f:
        f.write(archs)
    return write_program(folder, 'nvcc', f"""\
        case "$1" in
          --version) echo "Cuda compilation tools, release {release}, V{release}.88";;
          --list-gpu-arch) cat "$(dirname "$0")/archs.txt";;
          *) exit 1;;
        esac
        """)


class CudaToolkitTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name
        self.empty_path = os.path.join(self.tmp, 'empty-path')
        os.makedirs(self.empty_path)

    def tearDown(self):
        self.dir.cleanup()

    def test_nvcc_on_path_wins(self):
        on_path = fake_nvcc(os.path.join(self.tmp, 'on-path'), '12.4', CUDA_12_4_ARCHS)
        cuda_path = fake_nvcc(os.path.join(self.tmp, 'cuda', 'bin'), '13.0', CUDA_13_0_ARCHS)
        env = {'PATH': os.path.dirname(on_path), 'CUDA_PATH': os.path.dirname(os.path.dirname(cuda_path))}
        self.assertEqual(toolchain.find_cuda_toolkit(env), on_path)
        self.assertTrue(toolchain.nvcc_on_path(on_path, env))

    def test_cuda_path_then_cuda_home_then_the_fixed_folders(self):
        home = fake_nvcc(os.path.join(self.tmp, 'home', 'bin'), '12.4', CUDA_12_4_ARCHS)
        env = {'PATH': self.empty_path, 'CUDA_HOME': os.path.dirname(os.path.dirname(home))}
        self.assertEqual(toolchain.find_cuda_toolkit(env, toolchain.cuda_search_dirs(env)[:1]), home)
        dirs = toolchain.cuda_search_dirs({'CUDA_PATH': '/a', 'CUDA_HOME': '/b'})
        self.assertEqual(dirs[:3], ['/a/bin', '/b/bin', '/usr/local/cuda/bin'])
        self.assertEqual(dirs[-1], '/opt/cuda/bin')

    def test_versioned_folders_newest_first(self):
        dirs = [d for d in toolchain.cuda_search_dirs({}) if '/usr/local/cuda-' in d]
        versions = [toolchain.version_tuple(d.split('cuda-')[1].split('/')[0]) for d in dirs]
        self.assertEqual(versions, sorted(versions, reverse=True))

    def test_none_when_nowhere(self):
        self.assertIsNone(toolchain.find_cuda_toolkit({'PATH': self.empty_path}, search_dirs=[self.empty_path]))

    def test_version_and_architectures_of_cuda_12_4(self):
        nvcc = fake_nvcc(os.path.join(self.tmp, 'c124'), '12.4', CUDA_12_4_ARCHS)
        self.assertEqual(toolchain.nvcc_version(nvcc), '12.4')
        self.assertEqual(toolchain.nvcc_archs(nvcc), ['70', '72', '75', '80', '86', '87', '89', '90'])

    def test_architectures_of_cuda_13_sorted_without_variants(self):
        nvcc = fake_nvcc(os.path.join(self.tmp, 'c130'), '13.0', CUDA_13_0_ARCHS + 'compute_90a sm_100f\n')
        self.assertEqual(toolchain.nvcc_archs(nvcc),
                         ['75', '80', '86', '87', '88', '89', '90', '100', '103', '110', '120', '121'])

    def test_an_off_path_nvcc_gets_its_folder_put_first_on_path(self):
        nvcc = fake_nvcc(os.path.join(self.tmp, 'cuda', 'bin'), '13.0', CUDA_13_0_ARCHS)
        env = toolchain.environment_with_nvcc(nvcc, {'PATH': self.empty_path})
        self.assertEqual(env['PATH'].split(os.pathsep)[0], os.path.dirname(nvcc))
        self.assertEqual(toolchain.environment_with_nvcc(nvcc, env)['PATH'], env['PATH'])

    def test_meson_reads_the_four_lines(self):
        nvcc = fake_nvcc(os.path.join(self.tmp, 'cuda', 'bin'), '12.8', CUDA_12_4_ARCHS)
        env = {'PATH': self.empty_path, 'CUDA_PATH': os.path.join(self.tmp, 'cuda')}
        lines = toolchain.cuda_toolkit_lines(env)
        self.assertEqual(lines[:2], [nvcc, '12.8'])
        self.assertTrue(lines[2].startswith('70,72,75'))
        self.assertEqual(lines[3], 'off-path')


class MesonVersionTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def meson(self, version):
        return write_program(os.path.join(self.dir.name, version), 'meson', f'echo {version}\n')

    def test_versions_compare_as_numbers(self):
        self.assertTrue(toolchain.meson_version_ok(self.meson('1.0.1'))[0])
        self.assertTrue(toolchain.meson_version_ok(self.meson('1.10.0'))[0])
        ok, version, why = toolchain.meson_version_ok(self.meson('0.61.2'))
        self.assertEqual((ok, version), (False, '0.61.2'))
        self.assertIn('needs meson >= 1.0.1', why)
        self.assertFalse(toolchain.meson_version_ok(self.meson('1.0.0'))[0])

    def test_a_missing_or_broken_meson_is_not_ok(self):
        self.assertFalse(toolchain.meson_version_ok(os.path.join(self.dir.name, 'nope'))[0])
        broken = write_program(os.path.join(self.dir.name, 'broken'), 'meson', 'exit 3\n')
        self.assertFalse(toolchain.meson_version_ok(broken)[0])

    def test_the_minimum_is_the_one_meson_build_declares(self):
        with open(os.path.join(ROOT, 'meson.build')) as f:
            declared = re.search(r"meson_version: '>=([0-9.]+)'", f.read()).group(1)
        self.assertEqual(toolchain.version_tuple(declared), toolchain.MIN_MESON)


class VenvTest(unittest.TestCase):
    def test_this_python_is_judged(self):
        ok, why = toolchain.venv_available()
        self.assertIsInstance(ok, bool)
        self.assertTrue(why)

    def test_a_python_without_ensurepip_names_the_package(self):
        with tempfile.TemporaryDirectory() as tmp:
            python = write_program(tmp, 'python3', 'echo "ModuleNotFoundError: No module named ensurepip" >&2; exit 1\n')
            ok, why = toolchain.venv_available(python)
        self.assertFalse(ok)
        self.assertIn('python3-venv', why)


if __name__ == '__main__':
    unittest.main()
