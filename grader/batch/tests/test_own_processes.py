#!/usr/bin/env python3
"""own_processes.py, which the fixture class and the sandbox tests ask for what of their run is
still running: it finds a process marked in its command line, environment, working folder or (in
a sandbox) mount table, and nothing unmarked; a zombie is not counted. Seconds."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import uuid

from batch.tests import own_processes


def pids_of(found):
    return {int(line.split()[0]) for line in found}


class OwnProcesses(unittest.TestCase):
    def setUp(self):
        self.marker = f"own-processes-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.started = []
        self.folder = tempfile.mkdtemp(prefix=self.marker + "-")

    def tearDown(self):
        for process in self.started:
            process.kill()
            process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(self, argv, **kwargs):
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **kwargs)
        self.started.append(process)
        time.sleep(0.3)  # exec'd, its /proc entries in place
        return process

    def test_marked_processes_are_found_and_others_not(self):
        by_name = self.start([self.marker, "60"], executable="/bin/sleep")
        by_env = self.start(["sleep", "61"], env=dict(os.environ, RUN_MARK=self.marker))
        by_cwd = self.start(["sleep", "62"], cwd=self.folder)
        other = self.start(["sleep", "63"])
        found = own_processes.started_by_run(self.marker)
        self.assertEqual(pids_of(found), {by_name.pid, by_env.pid, by_cwd.pid}, found)
        self.assertNotIn(other.pid, pids_of(found))
        self.assertIn("(environment)", " ".join(found))
        by_name.kill()
        by_name.wait()  # reaped: gone from /proc
        self.assertNotIn(by_name.pid, pids_of(own_processes.started_by_run(self.marker)))

    def test_a_zombie_is_not_counted(self):
        zombie = self.start([self.marker, "0.1"], executable="/bin/sleep")
        time.sleep(0.5)  # exited, not yet reaped
        self.assertEqual(own_processes.started_by_run(self.marker), [])
        zombie.wait()

    def test_a_short_marker_is_refused(self):
        with self.assertRaises(ValueError):
            own_processes.started_by_run("runner")

    def test_a_detached_process_in_a_sandbox_is_found_by_its_mounts(self):
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            self.skipTest("bubblewrap (bwrap) is not installed: the mount-table case needs it")
        roots = [a for root in ("/usr", "/bin", "/lib", "/lib64", "/etc") if os.path.isdir(root)
                 for a in (["--symlink", os.readlink(root), root] if os.path.islink(root)
                           else ["--ro-bind", root, root])]
        # Its command line and environment say nothing of the run; only the bound folder does.
        self.start([bwrap, "--die-with-parent", "--unshare-pid", *roots, "--proc", "/proc",
                    "--dev", "/dev", "--dir", "/sandbox", "--ro-bind", self.folder, "/sandbox/in",
                    "--", "sh", "-c", "setsid sleep 64 & sleep 65"], env={"PATH": "/usr/bin:/bin"})
        found = own_processes.started_by_run(os.path.basename(self.folder))
        sleeps = [line for line in found if line.split()[1] == "sleep"]
        self.assertEqual(len(sleeps), 2, found)
        self.assertTrue(all("mount table" in line for line in sleeps), found)


if __name__ == "__main__":
    unittest.main(verbosity=2)
