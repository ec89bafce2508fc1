#!/usr/bin/env python3
"""grader/runs/labs.py: the one list of labs (labs/labs.txt) and the lists derived from it, on a
made-up project: a missing folder is an error, lab 00 (a host program, no counters.json) is not a
kernel lab, and --labs takes numbers, names and folders."""
import os
import tempfile
import unittest

from runs import labs


def project(folders, listed=None, counters=()):
    root = tempfile.mkdtemp()
    os.makedirs(os.path.join(root, "labs"))
    for folder in folders:
        os.makedirs(os.path.join(root, "labs", folder))
        open(os.path.join(root, "labs", folder, "meson.build"), "w").close()
        if folder in counters:
            open(os.path.join(root, "labs", folder, "counters.json"), "w").close()
    with open(os.path.join(root, "labs", "labs.txt"), "w") as f:
        f.write("# the labs\n" + "\n".join(listed if listed is not None else folders) + "\n")
    return root


class LabList(unittest.TestCase):
    def test_names_follow_from_folders_in_the_list_order(self):
        root = project(["00-host-program", "01-global-atomics"])
        found = labs.discover_labs(root)
        self.assertEqual([(lab.name, lab.number, lab.submission_file) for lab in found],
                         [("lab00", "00", "lab00_host_program.cu"), ("lab01", "01", "lab01_global_atomics.cu")])

    def test_a_listed_folder_without_meson_build_is_an_error(self):
        root = project(["01-global-atomics"], listed=["01-global-atomics", "02-unrolling-ilp"])
        with self.assertRaisesRegex(RuntimeError, "02-unrolling-ilp/meson.build does not exist"):
            labs.discover_labs(root)

    def test_kernel_labs_are_those_with_counters(self):
        root = project(["00-host-program", "01-global-atomics", "02-unrolling-ilp"],
                       counters=("01-global-atomics", "02-unrolling-ilp"))
        self.assertEqual(labs.kernel_lab_numbers(root), ["01", "02"])

    def test_the_project_s_kernel_labs_are_every_lab_but_the_host_program(self):
        numbers = [lab.number for lab in labs.discover_labs()]
        self.assertEqual(labs.kernel_lab_numbers(), [n for n in numbers if n != "00"])

    def test_select_takes_numbers_names_and_folders_and_refuses_others(self):
        found = labs.discover_labs(project(["00-host-program", "01-global-atomics"]))
        self.assertEqual([lab.name for lab in labs.select_labs(found, "01,lab00,01-global-atomics")],
                         ["lab01", "lab00"])
        with self.assertRaisesRegex(ValueError, "no lab '07'"):
            labs.select_labs(found, "07")


if __name__ == "__main__":
    unittest.main()
