#!/usr/bin/env python3
"""The build prints no warning from the grader's own files (issue 35: a first build's template
backtrace from grader/runner/wire.hpp read like a memory bug).

    test_build_warnings.py BUILD_DIR     check BUILD_DIR/meson-logs/compile-log.txt, which grade.py
                                         writes at each compile (SKIP without it); then the parser's
                                         own tests

A warning belongs to the grader when the compile that printed it is not of a lab file a student
writes (a runner of starter/, solutions/ or the graded folder), or when its location, or a line of
its backtrace ("In file included from", "inlined from", "required from"), is under grader/.
"""
import os
import re
import sys
import unittest

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
STEP = re.compile(r"^\[\d+/\d+\] (?:Compiling|Linking|Generating) .*?(\S+)$")
# gcc/clang "file:line[:col]: warning:", nvcc "file(line): warning #177-D:".
WARNING = re.compile(r"(?:^|\s)(\S+?)(?::\d+(?::\d+)?|\(\d+\)):\s+warning\b")
# The compiles of a student's lab file (its runner), whose own warnings are the student's.
STUDENT_STEP = re.compile(r"_runner_(?:graded|starter|solutions)\.p/(?!.*_calls\.)")


def grader_warnings(log_text):
    """The warning lines of the log that the grader's own code caused, with their compile step."""
    found, step, block = [], "", []

    def close():
        student = STUDENT_STEP.search(step)
        for index, line in enumerate(block):
            match = WARNING.search(line)
            if not match:
                continue
            context = block[max(0, index - 8):index + 1]  # the backtrace above it
            ours = "grader/" in match.group(1) or any(
                "grader/" in c for c in context if "from" in c or "In function" in c)
            if not student or ours:
                found.append(f"{step}: {line.strip()}")

    for raw in log_text.splitlines():
        line = ANSI.sub("", raw)
        if STEP.match(line):
            close()
            step, block = line.split("] ", 1)[1], []
        else:
            block.append(line)
    close()
    return found


class ParserTest(unittest.TestCase):
    def test_a_grader_header_warning_in_a_library_compile_is_found(self):
        log = ("[3/9] Compiling C++ object grader/runner/libgrader_channel.a.p/channel.cpp.o\n"
               "In file included from ../grader/runner/channel.cpp:2:\n"
               "In function 'void* memcpy(void*, const void*, size_t)',\n"
               "    inlined from 'void grader::put(T)' at ../grader/runner/wire.hpp:47:16:\n"
               "/usr/include/x86_64-linux-gnu/bits/string_fortified.h:29:33: warning: writing 8 "
               "bytes into a region of size 0 [-Wstringop-overflow=]\n")
        self.assertEqual(len(grader_warnings(log)), 1)

    def test_the_students_own_warnings_are_not_the_graders(self):
        log = ("[5/9] Compiling C++ object labs/lab01_runner_graded.p/meson-generated_lab01_global_"
               "atomics.cpp.o\n"
               "../starter/lab01_global_atomics.cu:40:7: warning: unused variable 'i' "
               "[-Wunused-variable]\n"
               "[6/9] Compiling Cuda object labs/lab03_runner_graded.p/lab03_shared.cu.o\n"
               "/home/s/starter/lab03_shared.cu(12): warning #177-D: variable \"bins\" was declared "
               "but never referenced\n")
        self.assertEqual(grader_warnings(log), [])

    def test_a_grader_header_included_by_the_students_file_is_the_graders(self):
        log = ("[5/9] Compiling Cuda object labs/lab01_runner_graded.p/lab01_global_atomics.cu.o\n"
               "/work/grader/core/device_buffer.cuh(30): warning #550-D: variable \"x\" was set\n")
        self.assertEqual(len(grader_warnings(log)), 1)

    def test_a_runner_side_call_table_is_the_graders(self):
        log = ("[7/9] Compiling C++ object labs/lab01_runner_graded.p/meson-generated_lab01_calls"
               ".cpp.o\n"
               "\x1b[01m\x1b[K../labs/01-global-atomics/lab01_calls.cu:9:3:\x1b[m\x1b[K "
               "\x1b[01;35m\x1b[Kwarning: \x1b[m\x1b[Kunused [-Wunused]\n")
        self.assertEqual(len(grader_warnings(log)), 1)

    def test_progress_lines_and_notes_are_not_warnings(self):
        log = ("[1/2] Generating data/standard-data with a custom command\n"
               "wrote data/data.bin: 33554432 samples\n"
               "[2/2] Linking target labs/lab01_checker\n")
        self.assertEqual(grader_warnings(log), [])


def check_build(build_dir):
    path = os.path.join(build_dir, "meson-logs", "compile-log.txt")
    if not os.path.exists(path):
        print(f"SKIP: {path} not found: grade.py writes it when it compiles (a `meson compile` of "
              "its own does not)")
        return 77
    with open(path, errors="replace") as f:
        found = grader_warnings(f.read())
    for line in found:
        print(f"warning from the grader's own code: {line}")
    print(f"{len(found)} warning(s) from the grader's own files in {path}")
    return 1 if found else 0


if __name__ == "__main__":
    build = sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else None
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(ParserTest)
    parsed = unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful()
    code = check_build(build) if build else 0
    sys.exit(1 if not parsed else code)
