#!/usr/bin/env python3
"""What a kernel file has no business doing (integrity.PROBES): found in its source through the
grader's scanner, in its compiled object's symbols and strings, sorted into tampering and review;
and the second opinion's verdicts (second_opinion.py) on made-up GPU and CPU outcomes. Fast: it
builds nothing (the scanner is the built batch_source_scan, BATCH_SOURCE_SCAN)."""
import os
import shutil
import tempfile
import unittest

from batch import integrity, second_opinion
from runs.harness import RunResult, TestOutcome

HERE = os.path.dirname(os.path.abspath(__file__))

FIXTURE = os.path.join(os.path.dirname(HERE), "fixtures", "sanitizer_aware", "lab01_global_atomics.cu")


def scanner():
    path = os.environ.get("BATCH_SOURCE_SCAN")
    return path if path and os.path.exists(path) else None


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="batch-probes-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path


@unittest.skipUnless(scanner(), "BATCH_SOURCE_SCAN (the built batch_source_scan) is not set")
class SourceProbesTest(Temp):
    def findings(self, source):
        path = self.write("lab01_global_atomics.cu", source)
        scanned = integrity.scan_sources(scanner(), [path])[path]
        return integrity.source_findings(source, scanned, {"lab01_global_atomics.cuh"})

    def test_looking_for_the_sanitizer_or_pinning_l2_withholds_the_score(self):
        for source in ('const char* p = getenv("CUDA_INJECTION64_PATH");\n',
                       "#define S(x) #x\nconst char* t = S(race##check);\n",
                       "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20);\n"):
            found = self.findings(source)
            self.assertTrue(integrity.withholds_score(found), source)

    def test_probes_for_review_leave_the_score(self):
        found = self.findings('#define G get##env\nint f() { return G("X") != 0; }\n'
                              'void g() { fopen("/proc/self/maps", "r"); kill(1, 9); }\n'
                              "#ifdef CUDA_CPU_BACKEND\n#endif\n")
        self.assertFalse(integrity.withholds_score(found))
        self.assertEqual(sorted(f["rule"] for f in found if f["rule"] != "host-call"),
                         ["backend-test", "environment", "other-processes", "system-paths"])
        self.assertIn("line 1: reads the environment (getenv)", [f["detail"] for f in found])

    def test_comments_naming_the_tool_are_no_finding(self):
        self.assertEqual(self.findings("// checked with compute-sanitizer --tool racecheck\n"
                                       "/* getenv, /proc/self/maps, kill() */ int x;\n"), [])

    def test_the_fixture_is_withheld(self):
        with open(FIXTURE) as f:
            found = self.findings(f.read())
        self.assertTrue(integrity.withholds_score(found))
        self.assertTrue(integrity.summary(found).startswith("grader tampering: line "))


class CompiledProbesTest(Temp):
    def test_symbols_catch_a_name_no_text_rule_sees(self):
        # CAT(get, env)(...) or a macro from elsewhere: the object still calls getenv.
        found = integrity.symbol_findings([("U", "getenv"), ("U", "dl_iterate_phdr"), ("U", "tgkill"),
                                           ("U", "cudaCtxResetPersistingL2Cache"), ("U", "cudaMalloc"),
                                           ("T", "getenv")])
        self.assertEqual([(f["category"], f["rule"]) for f in found],
                         [("suspicious", "environment"), ("suspicious", "loaded-libraries"),
                          ("suspicious", "other-processes"), ("tamper", "l2-persistence")])

    def test_strings_of_the_object(self):
        obj = self.write("lab.o", b"\x7fELF\x00\x01racecheck\x00/proc/self/maps\x00ordinary text\x00")
        found = integrity.object_findings([obj])
        self.assertEqual([(f["category"], f["rule"]) for f in found],
                         [("tamper", "sanitizer"), ("suspicious", "system-paths")])
        self.assertIn('"racecheck"', found[0]["detail"])
        self.assertEqual(integrity.object_findings([self.write("ok.o", b"\x00bins wrong\x00")]), [])

    def test_the_compiled_code_is_not_said_twice(self):
        source = integrity.finding("suspicious", "environment", "line 3: reads the environment (getenv)",
                                   "source")
        compiled = integrity.symbol_findings([("U", "getenv"), ("U", "kill")])
        kept = integrity.calibrate([source] + compiled, [])
        self.assertEqual([f["rule"] for f in kept], ["environment", "other-processes"])
        # What the reference's object holds too is the toolchain's, not the student's.
        reference = integrity.symbol_findings([("U", "kill")])
        self.assertEqual([f["rule"] for f in integrity.calibrate(compiled, reference)], ["environment"])


def run_of(**statuses):
    result = RunResult()
    for name, (status, message, fault) in statuses.items():
        result.outcomes[name] = TestOutcome(name, status, message, fault=fault)
    return result


class SecondOpinionTest(unittest.TestCase):
    def test_a_test_passes_only_if_both_pass(self):
        gpu = run_of(A=("passed", "", ""), B=("passed", "", ""), C=("passed", "", ""),
                     D=("failed", "bins wrong", ""), E=("passed", "", ""), F=("passed", "", ""))
        cpu = run_of(A=("failed", "bins wrong: bin 3 is 7, expected 9", ""), B=("passed", "", ""),
                     C=("failed", "timed out", "timeout"),
                     D=("failed", "bins wrong", ""),
                     E=("failed", "the process running your code crashed: SIGSEGV", ""),
                     F=("failed", "bins wrong", ""),
                     # a fork flood (fixture process_flood) leaves the backend no threads to start
                     G=("failed", 'C++ exception with description "lab01::histogram_v1_slices threw '
                                  'an exception: Resource temporarily unavailable"', ""))
        gpu.outcomes["G"] = TestOutcome("G", "passed", "", fault="")
        failed = second_opinion.apply(gpu.outcomes, ["A", "B", "C", "D", "E", "G"], cpu)
        self.assertEqual(failed, ["A"])  # F: the reference fails it on the CPU backend
        self.assertEqual(gpu.outcomes["A"].fault, "cpu-schedule")
        self.assertIn("passed on the GPU", gpu.outcomes["A"].message)
        self.assertIn("bin 3 is 7", gpu.outcomes["A"].message)
        self.assertEqual({n: o.status for n, o in gpu.outcomes.items()},
                         {"A": "failed", "B": "passed", "C": "passed", "D": "failed", "E": "passed",
                          "F": "passed", "G": "passed"})

    def test_judged_tests_are_those_the_reference_passes(self):
        reference = run_of(A=("passed", "", ""), S=("skipped", "speed: GPU only", ""),
                           F=("failed", "bins wrong", ""))
        self.assertEqual(second_opinion.judged_tests(reference), ["A"])

    def test_it_runs_with_the_sanitizer_pass_on_a_gpu(self):
        class Settings:
            backend, sanitizers = "cuda", "auto"
        self.assertTrue(second_opinion.wanted(Settings))
        Settings.sanitizers = "none"
        self.assertFalse(second_opinion.wanted(Settings))
        Settings.backend, Settings.sanitizers = "cpu", "auto"
        self.assertFalse(second_opinion.wanted(Settings))


if __name__ == "__main__":
    unittest.main()
