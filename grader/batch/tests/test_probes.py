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

    def test_descriptor_tricks_are_seen_however_qualified(self):
        # Issue 51, attack 4: `::dup2` passed the host-call rule, which skipped any `::` before a name.
        found = self.findings("void f(int fd) { ::dup2(fd, 1); ::write(1, \"x\", 1); ::std::exit(0); "
                              "a.write(1); my::write(2); }\n")
        self.assertIn("line 1: moves, copies or makes a descriptor or standard stream (dup2): what kernels "
                      "print, read back on the host, would carry the work there", [f["detail"] for f in found])
        self.assertEqual(sorted(f["detail"] for f in found if f["rule"] == "host-call"),
                         ["line 1: calls exit()", "line 1: calls write()"])
        self.assertFalse(integrity.withholds_score(found))
        wrapped = self.findings("extern \"C\" int __real_printf(const char*, ...);\n")
        self.assertTrue(integrity.withholds_score(wrapped))

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
                                           ("T", "getenv"), ("U", "dup2@GLIBC_2.2.5"), ("U", "setvbuf"),
                                           ("U", "__real_printf")])
        self.assertEqual([(f["category"], f["rule"]) for f in found],
                         [("suspicious", "environment"), ("suspicious", "loaded-libraries"),
                          ("suspicious", "other-processes"), ("tamper", "l2-persistence"),
                          ("suspicious", "descriptors"), ("suspicious", "descriptors"),
                          ("tamper", "grader-api")])

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
    RUNNER = "lab01::histogram_v2_grid_stride: the process running your code "
    FAILED = "lab01::histogram_v2_grid_stride failed while running: cudaErrorLaunchFailure: "

    def test_the_race_detector_fails_a_racy_or_unwatched_function_whatever_the_schedule(self):
        def watched(witnesses):
            return [{"function": "lab03::histogram_v1_shared_slices", "collected": True, "unavailable": "",
                     "entries": [], "races": {"races": witnesses, "unchecked": []}}]
        access = {"location": "/s/lab03_shared_privatization.cu:49", "operation": "write", "thread": [5, 0, 0],
                  "block": [0, 0, 0], "warp": 0, "lane": 5}
        witness = {"kind": "write after write", "memory": "shared", "array": "s_bins", "index": 17,
                   "first": access, "second": dict(access, thread=[37, 0, 0], lane=5, warp=1)}
        gpu = run_of(**{n: ("passed", "", "") for n in ("Shared.A", "Shared.B", "Bytes.C", "Wide.D", "Wide.E",
                                                      "Letters.F")})
        race = run_of(**{"Shared.A": ("passed", "", ""), "Bytes.C": ("passed", "", ""),
                         "Wide.D": ("failed", "timed out: still running after 10 s", "timeout"),
                         "Letters.F": ("failed", "bins wrong: bin 3 is 7, expected 9", "")})
        race.outcomes["Shared.A"].evidence = watched([witness])
        race.outcomes["Bytes.C"].evidence = watched([])
        failed = second_opinion.race_verdict("lab03", gpu.outcomes, race)
        # Shared: a race; Letters: failed when watched, held against the student; Wide: a hang there
        # (the backend's, not held): judged without it
        self.assertEqual(failed, ["Shared.A", "Shared.B", "Letters.F"])
        self.assertIn("data race", gpu.outcomes["Shared.B"].message)
        self.assertIn("histogram_v1_shared_slices", gpu.outcomes["Shared.B"].message)
        self.assertIn("could not watch", gpu.outcomes["Letters.F"].message)
        self.assertEqual(gpu.outcomes["Wide.E"].status, "passed")

    def test_a_test_passes_only_if_both_pass(self):
        gpu = run_of(A=("passed", "", ""), B=("passed", "", ""), C=("passed", "", ""),
                     D=("failed", "bins wrong", ""), F=("passed", "", ""))
        cpu = run_of(A=("failed", "bins wrong: bin 3 is 7, expected 9", ""), B=("passed", "", ""),
                     C=("failed", "timed out", "timeout"), D=("failed", "bins wrong", ""),
                     F=("failed", "bins wrong", ""))
        failed = second_opinion.apply(gpu.outcomes, ["A", "B", "C", "D"], cpu)
        self.assertEqual(failed, ["A"])  # F: the reference fails it on the CPU backend
        self.assertEqual(gpu.outcomes["A"].fault, "cpu-schedule")
        self.assertIn("passed on the GPU", gpu.outcomes["A"].message)
        self.assertIn("bin 3 is 7", gpu.outcomes["A"].message)
        self.assertEqual({n: o.status for n, o in gpu.outcomes.items()},
                         {"A": "failed", "B": "passed", "C": "passed", "D": "failed", "F": "passed"})

    def test_the_students_code_stopping_the_run_is_held_against_it(self):
        # Issue 51, attack 2: code that adds up its own bins and traps when they are wrong turns
        # the race into a crash. A trap, an abort, a failed assert, any signal (each CUDA thread
        # has 1 MiB of stack: an overflow is the code's), an exit, an exception, the backend's
        # __trap(), memory written out of bounds: all held, with their own words.
        cases = {"Trap": self.RUNNER + "crashed: SIGILL (illegal instruction)",
                 "Assert": self.RUNNER + "crashed: SIGABRT (aborted (abort(), a failed assert, ...))",
                 "Overflow": self.RUNNER + "crashed: SIGSEGV (segmentation fault)",
                 "Exit": self.RUNNER + "exited with status 0",
                 "Reply": self.RUNNER + "sent the grader a malformed reply (a short packet)",
                 "Throw": "lab01::histogram_v2_grid_stride threw an exception: sum is not n",
                 "DeviceTrap": self.FAILED + "thread 5 of block (0,0,0) executed __trap()",
                 "OutOfBounds": self.FAILED + "block (1,0,0) wrote past the end of its 4096 bytes of "
                                              "dynamic shared memory (byte offset 4100)",
                 "Flood": 'C++ exception with description "lab01::histogram_v1_slices threw an '
                          'exception: Resource temporarily unavailable"',
                 "LaunchError": "lab01::histogram_v2_grid_stride: a launch failed: cudaErrorInvalidValue"}
        gpu = run_of(**{name: ("passed", "", "") for name in cases})
        cpu = run_of(**{name: ("failed", message, "") for name, message in cases.items()})
        failed = second_opinion.apply(gpu.outcomes, list(cases), cpu)
        self.assertEqual(sorted(failed), sorted(cases))
        self.assertIn("your code stopped the run there (crashed: SIGILL)", gpu.outcomes["Trap"].message)
        self.assertIn(f"{second_opinion.STACK_KB} KiB of stack", gpu.outcomes["Overflow"].message)
        self.assertIn("executed __trap()", gpu.outcomes["DeviceTrap"].message)
        self.assertEqual(second_opinion.ENVIRONMENT, {"CUDA_CPU_BACKEND_STACK_KB": "1024"})

    def test_what_the_backend_causes_itself_is_not_held_and_says_so(self):
        cases = {"Dynamic": self.FAILED.replace("LaunchFailure", "NotSupported") + "thread 0 of block "
                            "(0,0,0) launched kernel 'k': launching kernels from device code is not "
                            "supported by the CPU backend",
                 "Stacks": self.FAILED + "block (0,0,0): could not map a fiber stack (fewer host threads)",
                 "EarlyExit": self.FAILED + "thread 1000 of block (3,0,0) exited while 24 threads wait "
                              "at __syncthreads() (1000 threads of the block exited without reaching it)",
                 "Mask": self.FAILED + "thread 3 of block (0,0,0) (warp 0, lane 3) exited while 2 lanes "
                         "of its warp (0-1) wait for it in __shfl_sync with mask 0xffffffff",
                 "Spin": self.RUNNER + "did not finish within 30 s: an endless loop",
                 "Start": self.RUNNER + "never started"}
        gpu = run_of(**{name: ("passed", "", "") for name in cases})
        cpu = run_of(**{name: ("failed", message, "timeout" if name == "Spin" else "")
                        for name, message in cases.items()})
        self.assertEqual(second_opinion.apply(gpu.outcomes, list(cases), cpu), [])
        self.assertTrue(all(o.status == "passed" for o in gpu.outcomes.values()))
        self.assertIn("does not model", gpu.outcomes["Dynamic"].message)
        self.assertIn("ran out of fiber stacks", gpu.outcomes["Stacks"].message)
        self.assertIn("exited threads miss", gpu.outcomes["EarlyExit"].message)
        self.assertIn("exited threads miss", gpu.outcomes["Mask"].message)
        self.assertIn("spin loop", gpu.outcomes["Spin"].message)
        self.assertTrue(gpu.outcomes["Start"].message.startswith("(not judged on the CPU backend"))

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
