#!/usr/bin/env python3
"""The uid sandbox (grader/batch/uid_sandbox.py) on its own, fast (a few seconds): its command
runs as the uid it names with the limits (no POSIX message queue), after ending every process of
that uid (a fresh checker starts alone), one whose main thread has ended included; compiles run as
a uid of its own, and it never ends a process of another uid (nobody's), refusing to start while
one of its own uids runs anything; `sweep` ends a detached process, removes the uid's files
in world-writable folders, its System V shared memory and its keyrings' keys; `readable` tells
what a uid can read;
the project's answers are listed (project.answer_paths) and a students' copy has none; and a batch
refuses to start, saying why, with two submissions or a seed file others can read.

Needs root (the sandbox starts commands as other uids) and a Python, meson and ninja every user
can run (the system's, on SYSTEM_PATH: the test runs itself again with that Python where the one
it was started with is out of their reach, e.g. in /root): elsewhere it skips, saying so (exit
77); GRADER_REQUIRE_UID_SANDBOX=1 (CI) makes that a failure. PrairieLearn's entry point grades in it
end to end (grader/prairielearn/tests/test_grade_pl.py)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from batch import project, sandbox, uid_sandbox, uid_start

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
RUN_UID = uid_sandbox.UID_BASE + 7  # a run uid no batch of this machine is likely to use now
ROOT = project.ROOT


def as_uid(script, uid=RUN_UID):
    return subprocess.run(["setpriv", f"--reuid={uid}", "--regid=65534", "--clear-groups", "/bin/sh",
                           "-c", script], capture_output=True, text=True, timeout=60, cwd="/")


class UidSandboxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.box = uid_sandbox.UidSandbox(__import__("pwd").getpwnam("nobody"), gpu=False)
        cls.tmp = tempfile.mkdtemp(prefix="uid-sandbox-")
        os.chmod(cls.tmp, 0o755)
        cls.copy = os.path.join(cls.tmp, "copy")  # the students' copy, as a PrairieLearn image has it
        project.sync_snapshot(cls.copy, ROOT)

    @classmethod
    def tearDownClass(cls):
        cls.box.sweep(RUN_UID)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_command_runs_as_the_uid_with_limits(self):
        done = subprocess.run(self.box.command(["/bin/sh", "-c", "id -u; id -G; grep -E "
                                                "'^Max (processes|core|msgqueue)' /proc/self/limits"],
                                               "run", uid=RUN_UID),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split()[:2], [str(RUN_UID), "65534"])
        self.assertRegex(done.stdout, rf"Max processes +{sandbox.LIMITS['run']['processes']} ")
        self.assertRegex(done.stdout, r"Max core file size +0 ")
        self.assertRegex(done.stdout, r"Max msgqueue size +0 ")
        self.assertNotIn("bwrap", " ".join(self.box.command(["true"], "run")))

    def test_a_command_can_make_no_posix_message_queue(self):
        # Without the mqueue file system mounted, a queue left behind could not be found: none
        # may be made (the limit on its bytes is 0).
        code = ("import ctypes, os\nrt = ctypes.CDLL('librt.so.1', use_errno=True)\n"
                "fd = rt.mq_open(b'/uid-sandbox-test', os.O_CREAT | os.O_RDWR, 0o666, None)\n"
                "print(fd)\nif fd >= 0: rt.mq_unlink(b'/uid-sandbox-test')\n")
        done = subprocess.run(self.box.command([sys.executable, "-S", "-c", code], "run", uid=RUN_UID),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.stdout.strip(), "-1", done.stderr)

    def test_a_command_starts_with_no_process_of_its_uid_alive(self):
        as_uid("setsid sleep 300 >/dev/null 2>&1 < /dev/null &")
        time.sleep(0.2)
        self.assertTrue(uid_start.processes_of(RUN_UID))
        done = subprocess.run(self.box.command(["true"], "run", uid=RUN_UID), capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(uid_start.processes_of(RUN_UID), [])  # the sleep is gone (a zombie at most)

    def test_it_ends_the_processes_of_its_own_uids_only(self):
        # Compiles run as a uid of its own too: never --run-as's (nobody), which other graders of
        # the host use; a process of nobody outlives its commands and sweeps.
        done = subprocess.run(self.box.command(["id", "-u"], "compile"), capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(done.stdout.strip(), str(uid_sandbox.COMPILE_UID), done.stderr)
        self.assertEqual(self.box.owner()[0], uid_sandbox.COMPILE_UID)
        marker = f"uid-sandbox-nobody-{os.getpid()}"
        as_uid(f"setsid env {marker}=1 sleep 300 >/dev/null 2>&1 < /dev/null &", 65534)
        time.sleep(0.2)
        theirs = [p for p in uid_start.processes_of(65534)
                  if marker.encode() in open(f"/proc/{p}/environ", "rb").read()]
        try:
            self.assertTrue(theirs)
            subprocess.run(self.box.command(["true"], "compile"), check=True, timeout=60)
            subprocess.run(self.box.command(["true"], "run", uid=RUN_UID), check=True, timeout=60)
            self.box.sweep(uid_sandbox.COMPILE_UID)
            self.assertTrue(all(os.path.exists(f"/proc/{p}") for p in theirs))
            with self.assertRaises(ValueError):
                self.box.command(["true"], "run", uid=65534)
            with self.assertRaises(ValueError):
                self.box.sweep(65534)
        finally:
            for pid in theirs:
                os.kill(pid, 9)

    def test_it_refuses_to_start_beside_a_process_of_its_uids(self):
        as_uid("setsid sleep 300 >/dev/null 2>&1 < /dev/null &")
        time.sleep(0.2)
        try:
            with self.assertRaisesRegex(sandbox.SandboxUnavailable, f"uid {RUN_UID}: pid .*another batch"):
                uid_sandbox.detect("nobody", False)
        finally:
            self.box.sweep(RUN_UID)
        self.assertIsInstance(uid_sandbox.detect("nobody", False), uid_sandbox.UidSandbox)

    def test_a_process_whose_main_thread_ended_is_found_and_killed(self):
        # Its status says Z (zombie) while its other thread runs: a red-team find, 2026-11-27.
        source, program = os.path.join(self.tmp, "leader.c"), os.path.join(self.tmp, "leader")
        with open(source, "w") as f:
            f.write("#include <pthread.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n"
                    "static void* spin(void* a) { for (;;) sleep(1); return a; }\n"
                    "int main(void) { if (fork()) return 0; setsid(); pthread_t t;\n"
                    "  pthread_create(&t, 0, spin, 0); syscall(SYS_exit, 0); }\n")
        subprocess.run(["cc", "-o", program, source, "-lpthread"], check=True)
        os.chmod(program, 0o755)
        as_uid(f"{program} >/dev/null 2>&1 < /dev/null")
        time.sleep(0.3)
        self.assertTrue(uid_start.processes_of(RUN_UID))
        subprocess.run(self.box.command(["true"], "run", uid=RUN_UID), check=True, timeout=60)
        self.assertEqual(uid_start.processes_of(RUN_UID), [])

    def test_sweep_clears_the_uids_keyrings(self):
        # keyctl(2) through ctypes, as the uid: add a key to its user keyring, then describe it
        # (-1 once it is gone; an unlinked key is collected within moments).
        script = ("import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                  "nr = {'x86_64': (248, 250), 'aarch64': (217, 219)}[os.uname().machine]\n"
                  "if sys.argv[1] == 'add':\n"
                  "    print(libc.syscall(nr[0], b'user', b'uid-sandbox-test', b'x', 1, -4))\n"
                  "else:\n"
                  "    print(libc.syscall(nr[1], 6, int(sys.argv[2]), ctypes.create_string_buffer(256), 256))\n")
        run = lambda *step: subprocess.run([sys.executable, "-S", "-c", script, *step], capture_output=True,
                                           text=True, timeout=60, user=RUN_UID, group=65534,
                                           extra_groups=[], cwd="/").stdout.strip()
        key = run("add")
        if key == "-1":
            self.skipTest("keyctl is refused here (as in Docker's default profile): nothing to clear")
        self.assertNotEqual(run("describe", key), "-1")
        self.box.sweep(RUN_UID)
        for _ in range(50):
            if run("describe", key) == "-1":
                break
            time.sleep(0.1)
        self.assertEqual(run("describe", key), "-1")

    def test_sweep_ends_what_a_run_leaves(self):
        marker = f"uid-sandbox-test-{os.getpid()}"
        left = as_uid(f"setsid sleep 300 >/dev/null 2>&1 < /dev/null & "
                      f"mkdir /tmp/{marker}-dir && touch /tmp/{marker}-dir/f /tmp/{marker} && "
                      f"ipcmk -M 4096 && echo started")
        self.assertIn("started", left.stdout, left.stderr)
        time.sleep(0.2)
        self.assertTrue(uid_start.processes_of(RUN_UID))

        def segments():
            with open("/proc/sysvipc/shm") as f:
                return [line for line in f.read().splitlines()[1:] if str(RUN_UID) in line.split()]
        self.assertTrue(segments())
        self.box.sweep(RUN_UID)
        self.assertEqual(uid_start.processes_of(RUN_UID), [])
        self.assertFalse(os.path.lexists(f"/tmp/{marker}"))
        self.assertFalse(os.path.lexists(f"/tmp/{marker}-dir"))
        self.assertEqual(segments(), [])

    def test_readable_is_what_the_uid_can_read(self):
        open_file, closed_file = os.path.join(self.tmp, "open"), os.path.join(self.tmp, "closed")
        for path, mode in ((open_file, 0o644), (closed_file, 0o600)):
            with open(path, "w") as f:
                f.write("x")
            os.chmod(path, mode)
        self.assertEqual(self.box.readable([open_file, closed_file, self.tmp], RUN_UID),
                         [open_file, self.tmp])

    def test_answers_are_listed_and_a_students_copy_has_none(self):
        answers = [os.path.relpath(p, ROOT) for p in project.answer_paths(ROOT)]
        for rel in ("solutions/lab01_global_atomics.cu", "handouts/01-global-atomics-answers.md",
                    "grader/batch/fixtures/correct/lab01_global_atomics.cu"):
            if os.path.exists(os.path.join(ROOT, rel)):
                self.assertIn(rel, answers)
        self.assertNotIn("starter/lab01_global_atomics.cu", answers)
        self.assertEqual(project.answer_paths(self.copy), [])

    def grade(self, folder, *options):
        return subprocess.run([sys.executable, os.path.join(self.copy, "grader", "grade_submissions.py"),
                               folder, "--out", os.path.join(self.tmp, "report"), "--work-dir",
                               os.path.join(self.tmp, "work"), "--labs", "01", "--backend", "cpu",
                               "--sandbox", "uid", *options], capture_output=True, text=True,
                              timeout=300)

    def test_a_batch_refuses_two_submissions(self):
        folder = os.path.join(self.tmp, "two")
        for name in ("alice", "bob"):
            os.makedirs(os.path.join(folder, name))
            shutil.copy(os.path.join(ROOT, "starter", "lab01_global_atomics.cu"), os.path.join(folder, name))
        done = self.grade(folder)
        self.assertEqual(done.returncode, 2, done.stdout[-2000:])
        self.assertIn("one submission per batch (2 here)", done.stderr)

    def test_a_batch_refuses_a_seed_file_others_can_read(self):
        folder = os.path.join(self.tmp, "one")
        os.makedirs(os.path.join(folder, "alice"))
        shutil.copy(os.path.join(ROOT, "starter", "lab01_global_atomics.cu"), os.path.join(folder, "alice"))
        seed = os.path.join(self.tmp, "seed")
        with open(seed, "w") as f:
            f.write("input-seed 12345\n")
        os.chmod(seed, 0o644)
        done = self.grade(folder, "--seed-file", seed)
        self.assertEqual(done.returncode, 2, done.stdout[-2000:])
        self.assertIn(f"can read {seed}", done.stderr)


def python_for_others():
    """A Python on SYSTEM_PATH that nobody may run, or None."""
    python = shutil.which("python3", path=SYSTEM_PATH)
    if python and as_uid(f"test -x {python}", 65534).returncode == 0:
        return python
    return None


if __name__ == "__main__":
    if os.geteuid() == 0 and as_uid(f"test -x {sys.executable}", 65534).returncode != 0:
        python = python_for_others()
        if python:
            os.execve(python, [python] + sys.argv, dict(os.environ, PATH=SYSTEM_PATH))
    problem = None
    if os.geteuid() != 0:
        problem = "not root: the uid sandbox starts commands as other uids"
    else:
        try:
            uid_sandbox.detect("nobody", False)
        except sandbox.SandboxUnavailable as error:
            problem = str(error)
    if problem and os.environ.get("GRADER_REQUIRE_UID_SANDBOX") != "1":
        print(f"skipped: {problem}")
        sys.exit(77)
    if problem:
        print(f"GRADER_REQUIRE_UID_SANDBOX=1, but the uid sandbox cannot start: {problem}")
        sys.exit(1)
    unittest.main(verbosity=2)
