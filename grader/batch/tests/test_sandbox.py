#!/usr/bin/env python3
"""The batch's sandbox (grader/batch/sandbox.py) on its own, and the sanitizer evidence parser
(grader/batch/sanitize.py): what a sandboxed command can see and do, fast (a few seconds).

Without a working sandbox the sandbox tests fail, naming the package: the batch refuses to grade
without one, and the cpu-backend build (CI's, and the one that grades the fixture class) must have
it. They skip, saying why (exit status 77 once the other tests passed), where bubblewrap is not
installed in a cuda-backend build (a GPU host, where the batch is an instructor's option), or where
GRADER_NO_SANDBOX_HERE=1; GRADER_REQUIRE_SANDBOX=1 makes every such skip a failure."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

from batch import sandbox, sanitize
from runs import harness
from batch.tests import own_processes  # this run's processes only


def run_inside(box, script, **kwargs):
    command = box.command(["/bin/sh", "-c", script], kwargs.pop("kind", "run"), **kwargs)
    return subprocess.run(command, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def excused(error, env, bwrap_found):
    """Why the sandbox tests may skip here (the sandbox unavailable: `error`), or None: fail."""
    if env.get("GRADER_REQUIRE_SANDBOX") == "1":
        return None
    if env.get("GRADER_NO_SANDBOX_HERE") == "1":
        return f"{error} (GRADER_NO_SANDBOX_HERE=1 says this machine has none)"
    if not bwrap_found and env.get("BATCH_OUTER_BACKEND", "cpu") != "cpu":
        return (f"{error}. This cuda-backend build needs it only to grade a class here; "
                "GRADER_REQUIRE_SANDBOX=1 makes this a failure")
    return None


class Sandbox(unittest.TestCase):
    skipped_because = None

    @classmethod
    def setUpClass(cls):
        try:
            cls.box = sandbox.detect()
        except sandbox.SandboxUnavailable as error:
            why = excused(error, os.environ, shutil.which("bwrap") is not None)
            if why:
                Sandbox.skipped_because = why
                raise unittest.SkipTest(why)
            raise
        cls.tmp = tempfile.mkdtemp(prefix="sandbox-test-")
        cls.secret = os.path.join(cls.tmp, "secret.txt")
        with open(cls.secret, "w") as f:
            f.write("the report\n")
        cls.shown = os.path.join(cls.tmp, "shown")
        os.makedirs(cls.shown)
        with open(os.path.join(cls.shown, "input.txt"), "w") as f:
            f.write("an input\n")
        sandbox.make_readable(cls.shown)

    def test_it_never_runs_as_root(self):
        done = run_inside(self.box, "id -u")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotEqual(done.stdout.strip(), "0")

    def test_only_what_is_bound_is_visible(self):
        done = run_inside(self.box, f"cat {self.secret}; cat /sandbox/in/input.txt",
                          read_only=[(self.shown, "/sandbox/in")])
        self.assertIn("an input", done.stdout)
        self.assertNotIn("the report", done.stdout)
        self.assertIn("No such file", done.stderr)

    def test_memory_and_cpu_time_are_limited(self):
        # Address space for compiles and CPU-backend runs; data for GPU runs (CUDA reserves far
        # more address space than it uses); CPU seconds for both.
        for kind, gpu, rule in (("compile", False, "Max address space"), ("run", False, "Max address space"),
                                ("run", True, "Max data size")):
            done = run_inside(self.box, "cat /proc/self/limits", kind=kind, gpu=gpu)
            limits = {line[:26].strip(): line[26:].split() for line in done.stdout.splitlines()[1:]}
            self.assertEqual(int(limits[rule][0]), sandbox.memory_limit(kind, gpu)[1], (kind, gpu))
            self.assertEqual(int(limits["Max cpu time"][0]), sandbox.LIMITS[kind]["cpu_s"])
        done = run_inside(self.box, "python3 -c 'b = bytearray(5 << 30)'")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("MemoryError", done.stderr)

    def test_read_only_binds_cannot_be_written(self):
        done = run_inside(self.box, "echo x > /sandbox/in/input.txt",
                          read_only=[(self.shown, "/sandbox/in")])
        self.assertNotEqual(done.returncode, 0)
        with open(os.path.join(self.shown, "input.txt")) as f:
            self.assertEqual(f.read(), "an input\n")

    def test_no_other_process_and_no_network(self):
        done = run_inside(self.box, "ls /proc | grep -c '^[0-9]'; "
                                    "cat /proc/net/dev | grep -c ':' ")
        processes, interfaces = done.stdout.split()
        self.assertLessEqual(int(processes), 4)  # bwrap's init, sh, ls, grep
        self.assertEqual(int(interfaces), 1)     # loopback only, and it is down

    def test_nothing_it_starts_outlives_it(self):
        # Marked with this process's id, so that the same test of another user's run (or a
        # grader's runs) on this machine are not counted; the sandbox says it did start it.
        marker = f"sandbox-test-outliver-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        done = run_inside(self.box, f"(setsid env OUTLIVER={marker} sleep 300 &) ; sleep 0.3; "
                                    f"grep -l OUTLIVER={marker} /proc/[0-9]*/environ | wc -l")
        self.assertGreaterEqual(int(done.stdout.split()[-1]), 1, done.stdout + done.stderr)
        self.assertEqual(own_processes.started_by_run(marker), [])

    def test_every_writable_place_is_sized(self):
        # Files of 100 MB each (under the file size limit): the third fills each 256 MiB tmpfs.
        # The root and /dev (bubblewrap's own tmpfs, unsized) take no file at all.
        if not self.box.sized_tmp:
            self.skipTest("this bubblewrap has no --size (0.8 or newer has)")
        script = ("for d in /tmp /var/tmp /dev/shm; do for i in 1 2 3; do "
                  "head -c 100000000 /dev/zero > $d/f$i 2>/dev/null || { echo $d full at $i; break; }; "
                  "done; rm -f $d/f*; done; for d in / /dev /sandbox; do touch $d/x 2>/dev/null "
                  "&& echo $d writable; done; true")
        boxes = [self.box]
        if self.box.mode == "root":  # and as an ordinary user's grader: there it owns / and /dev
            boxes.append(sandbox.Sandbox(self.box.bwrap, "userns", None, self.box.prefixes, False))
        for box in boxes:
            done = run_inside(box, script, read_only=[(self.shown, "/sandbox/in")])
            self.assertEqual(done.stdout.split("\n")[:3], ["/tmp full at 3", "/var/tmp full at 3",
                                                          "/dev/shm full at 3"], box.mode + done.stderr)
            self.assertNotIn("writable", done.stdout, box.mode)
        self.assertEqual(set(sandbox.TMPFS["run"]), {"/tmp", "/var/tmp", "/dev/shm"})
        self.assertTrue(all(size == 256 << 20 for size in sandbox.TMPFS["run"].values()))

    def test_limits(self):
        done = run_inside(self.box, "cat /proc/self/limits")
        limits = {line[:26].strip(): line[26:].split()[0] for line in done.stdout.splitlines()[1:]}
        self.assertNotEqual(limits["Max processes"], "unlimited")
        self.assertEqual(limits["Max core file size"], "0")
        self.assertEqual(int(limits["Max file size"]), sandbox.LIMITS["run"]["file_bytes"])
        self.assertEqual(int(limits["Max open files"]), sandbox.LIMITS["run"]["files"])

    def test_runs_get_a_uid_of_their_own_as_root(self):
        if self.box.mode != "root":
            self.skipTest("as an ordinary user the sandbox maps every run to uid 65534")
        done = run_inside(self.box, "id -u", uid=sandbox.RUN_UID_BASE + 3)
        self.assertEqual(done.stdout.strip(), str(sandbox.RUN_UID_BASE + 3))


class SanitizerEvidence(unittest.TestCase):
    OUTPUT = "\n".join([
        "[ RUN      ] Lab03.Zeroes", "[       OK ] Lab03.Zeroes (3 ms)",
        "[ RUN      ] Lab03.Counts",
        "========= Error: Race reported between Write access at 0x1a0 in kernel(int*)",
        "=========     and Read access at 0x1b0 in kernel(int*) [1024 hazards]",
        "[       OK ] Lab03.Counts (9 ms)",
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"])

    def test_a_report_is_tied_to_the_test_it_happened_in(self):
        found = sanitize.hazards_by_test(self.OUTPUT)
        self.assertEqual(list(found), ["Lab03.Counts"])
        self.assertIn("Race reported", found["Lab03.Counts"][0])

    def test_a_hazard_or_a_wrong_result_fails_a_passing_test_but_a_crash_does_not(self):
        run = harness.RunResult()
        run.attempts.append(harness.Attempt(command=[], filter_count=3, output=self.OUTPUT))
        run.outcomes = {"Lab03.Wrong": harness.TestOutcome("Lab03.Wrong", "failed", "bins wrong"),
                        "Lab03.Crashed": harness.TestOutcome("Lab03.Crashed", "failed", "SIGSEGV",
                                                            fault="crash")}
        outcomes = {name: harness.TestOutcome(name, "passed") for name in
                    ("Lab03.Zeroes", "Lab03.Counts", "Lab03.Wrong", "Lab03.Crashed")}
        failed = sanitize.apply(outcomes, "racecheck", run)
        self.assertEqual(sorted(failed), ["Lab03.Counts", "Lab03.Wrong"])
        self.assertEqual(outcomes["Lab03.Crashed"].status, "passed")
        self.assertIn("racecheck", outcomes["Lab03.Counts"].message)
        self.assertIn("bins wrong", outcomes["Lab03.Wrong"].message)

    def test_the_runner_crashing_exiting_or_hanging_under_the_tool_fails_a_passing_test(self):
        # Code that checks its own bins and traps, exits or spins when they are wrong (issue 51,
        # attack 2) turns the race the tool's order exposes into a crash: it counts as the race.
        # The checker's own faults, the budget and a runner that never started do not.
        runner = "lab03::histogram_v2: the process running your code "
        run = harness.RunResult()
        run.outcomes = {
            "T.Trap": harness.TestOutcome("T.Trap", "failed", runner + "crashed: SIGILL (illegal instruction)"),
            "T.Abort": harness.TestOutcome("T.Abort", "failed", runner + "crashed: SIGABRT (aborted)"),
            "T.Exit": harness.TestOutcome("T.Exit", "failed", runner + "exited with status 3"),
            "T.Spin": harness.TestOutcome("T.Spin", "failed", runner + "did not finish within 150 s: "
                                          "an endless loop", fault="timeout"),
            "T.Sticky": harness.TestOutcome("T.Sticky", "failed", "lab03::histogram_v2 failed while "
                                            "running: cudaErrorLaunchFailure (unspecified launch failure)"),
            "T.NeverStarted": harness.TestOutcome("T.NeverStarted", "failed", runner + "never started"),
            "T.Budget": harness.TestOutcome("T.Budget", "failed", "not finished when the budget ran out",
                                            fault="budget"),
            "T.CheckerHung": harness.TestOutcome("T.CheckerHung", "failed", "timed out", fault="timeout"),
            "T.CheckerCrashed": harness.TestOutcome("T.CheckerCrashed", "failed", "crashed during this "
                                                    "test: SIGSEGV", fault="crash")}
        outcomes = {name: harness.TestOutcome(name, "passed") for name in run.outcomes}
        failed = sanitize.apply(outcomes, "racecheck", run)
        self.assertEqual(sorted(failed), ["T.Abort", "T.Exit", "T.Spin", "T.Sticky", "T.Trap"])
        self.assertIn("crashed: SIGILL under it, where the normal run passed", outcomes["T.Trap"].message)
        self.assertIn("did not finish within 150 s under it", outcomes["T.Spin"].message)
        self.assertIn("the result was wrong", outcomes["T.Sticky"].message)
        self.assertEqual(sanitize.runner_ending(run.outcomes["T.Exit"].message), ("exit", "exited with status 3"))
        self.assertEqual(sanitize.runner_ending("bins wrong"), (None, ""))

    def test_tool_choice(self):
        self.assertEqual(sanitize.parse_tools("auto", False), [])
        self.assertEqual(sanitize.parse_tools("auto", True), ["racecheck", "synccheck"])
        self.assertEqual(sanitize.parse_tools("none", True), [])
        with self.assertRaises(ValueError):
            sanitize.parse_tools("memcheck", True)
        with self.assertRaises(ValueError):
            sanitize.parse_tools("racecheck", False)


class SkipRule(unittest.TestCase):
    def test_the_sandbox_tests_skip_only_where_excused(self):
        cuda, cpu = {"BATCH_OUTER_BACKEND": "cuda"}, {"BATCH_OUTER_BACKEND": "cpu"}
        self.assertIn("GRADER_REQUIRE_SANDBOX=1", excused("bwrap missing", cuda, False))
        self.assertIsNone(excused("bwrap missing", cpu, False))           # CI's build: fails
        self.assertIsNone(excused("bwrap missing", {}, False))            # cpu by default
        self.assertIsNone(excused("userns refused", cuda, True))          # installed but broken
        self.assertIsNone(excused("bwrap missing", dict(cuda, GRADER_REQUIRE_SANDBOX="1"), False))
        self.assertIn("GRADER_NO_SANDBOX_HERE", excused("x", dict(cpu, GRADER_NO_SANDBOX_HERE="1"), True))
        self.assertIsNone(excused("x", dict(cpu, GRADER_NO_SANDBOX_HERE="1",
                                            GRADER_REQUIRE_SANDBOX="1"), True))


if __name__ == "__main__":
    outcome = unittest.main(verbosity=2, exit=False).result
    if not outcome.wasSuccessful():
        sys.exit(1)
    if Sandbox.skipped_because:  # meson counts it as skipped, with the reason as its last line
        print(f"skipped: the sandbox tests: {Sandbox.skipped_because}")
        sys.exit(77)
