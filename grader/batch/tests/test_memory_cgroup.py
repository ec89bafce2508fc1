#!/usr/bin/env python3
"""What holds a run's memory as a whole (grader/batch/memory_cgroup.py), fast: the limit; the
per-run cgroup of a writable subtree (on a made-up cgroup folder: made, limited, entered by the
run's first process before the command, its events read, removed), and on a real one where this
host delegates the memory controller to root (else that test skips, saying why); a systemd scope's
command line; what auto finds here; the note where nothing holds a run; an out-of-memory kill
named in the failed tests."""
import os
import shutil
import subprocess
import tempfile
import unittest

from batch import memory_cgroup, sandbox
from runs.outcomes import TestOutcome


def fake_cgroup(folder, controllers="cpu memory pids"):
    os.makedirs(folder)
    for name, text in (("cgroup.controllers", controllers), ("cgroup.subtree_control", ""),
                       ("cgroup.procs", "")):
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    return folder


def real_subtree():
    """A cgroup v2 folder root may give a child the memory controller in, or (None, why)."""
    if os.geteuid() != 0:
        return None, "not root"
    with open("/proc/self/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[2:3] == ["cgroup2"]]
    for mount in mounts:
        with open(os.path.join(mount, "cgroup.subtree_control")) as f:
            if "memory" in f.read().split():  # its children have it
                return mount, ""
    return None, f"no cgroup v2 mount here has the memory controller ({', '.join(mounts) or 'none'})"


class MemoryCgroupTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memory-cgroup-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_a_run_is_two_processes_at_their_limit_and_every_tmpfs_full(self):
        tmpfs = sum(sandbox.TMPFS["run"].values())
        self.assertEqual(memory_cgroup.run_memory_bytes(False), 2 * (4 << 30) + tmpfs)
        self.assertEqual(memory_cgroup.run_memory_bytes(True), 2 * (32 << 30) + tmpfs)

    def test_a_subtree_run_is_limited_entered_first_and_removed(self):
        tree = fake_cgroup(os.path.join(self.tmp, "grader"))
        with memory_cgroup.Subtree(tree).run(gpu=False) as run:
            limit_file = os.path.join(run.path, "memory.max")
            with open(limit_file) as f:
                self.assertEqual(f.read(), str(memory_cgroup.run_memory_bytes(False)))
            with open(os.path.join(run.path, "memory.events"), "w") as f:
                f.write("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
            done = subprocess.run([*run.prefix, "/bin/sh", "-c", "echo $$"], capture_output=True,
                                  text=True, timeout=30)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(os.path.join(run.path, "cgroup.procs")) as f:  # the command itself, exec'd
                self.assertEqual(f.read().strip(), done.stdout.strip())
        self.assertEqual(run.events["oom_kill"], 1)

    def test_a_subtree_without_the_memory_controller_is_refused(self):
        tree = fake_cgroup(os.path.join(self.tmp, "cpu-only"), controllers="cpu pids")
        with self.assertRaisesRegex(memory_cgroup.CgroupUnavailable, "memory controller is not delegated"):
            memory_cgroup.detect(tree)
        with self.assertRaisesRegex(memory_cgroup.CgroupUnavailable, "not a cgroup"):
            memory_cgroup.detect(self.tmp)

    def test_a_real_subtree_holds_a_run(self):
        mount, why = real_subtree()
        if mount is None:
            self.skipTest(why)
        tree = os.path.join(mount, f"grader-test-{os.getpid()}")
        os.mkdir(tree)
        try:
            chosen = memory_cgroup.detect(tree)
            with chosen.run(gpu=False) as run:
                done = subprocess.run([*run.prefix, "/bin/sh", "-c", "cat /proc/self/cgroup; cat $(ls -d "
                                       f"{run.path})/memory.max"], capture_output=True, text=True, timeout=30)
            self.assertIn(os.path.basename(run.path), done.stdout)
            self.assertIn(str(memory_cgroup.run_memory_bytes(False)), done.stdout)
            self.assertFalse(os.path.exists(run.path))
        finally:
            os.rmdir(tree)

    def test_a_systemd_scope_is_limited_without_swap(self):
        scope = memory_cgroup.Systemd("/usr/bin/systemd-run", user=True)
        command = scope.run(gpu=True).prefix
        self.assertEqual(command[:3], ("/usr/bin/systemd-run", "--user", "--scope"))
        self.assertIn(f"MemoryMax={memory_cgroup.run_memory_bytes(True)}", command)
        self.assertIn("MemorySwapMax=0", command)
        self.assertEqual(command[-1], "--")
        self.assertNotIn("--user", memory_cgroup.Systemd("systemd-run", user=False).run(False).prefix)

    def test_auto_says_what_holds_runs_here(self):
        chosen = memory_cgroup.detect("auto")
        print(f"here: {chosen.describe()}")
        if chosen.kind == "none":
            note = chosen.note(gpu=False)
            self.assertIn("each process is held to 4 GiB (address space)", note)
            self.assertIn("/var/tmp 0.25 GiB", note)
            self.assertIn("memfd", note)
        self.assertEqual(memory_cgroup.detect("none").kind, "none")

    def test_an_out_of_memory_kill_is_named_in_the_failed_tests(self):
        outcomes = {"A": TestOutcome("A", "failed", "crashed: SIGKILL"), "B": TestOutcome("B", "passed", "")}
        memory_cgroup.explain(outcomes, {"oom_kill": 0}, 1 << 30)
        self.assertEqual(outcomes["A"].message, "crashed: SIGKILL")
        memory_cgroup.explain(outcomes, {"oom_kill": 2}, 1 << 30)
        self.assertIn("reached 1 GiB, the grader's limit", outcomes["A"].message)
        self.assertEqual(outcomes["B"].message, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
