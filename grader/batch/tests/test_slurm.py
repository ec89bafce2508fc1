#!/usr/bin/env python3
"""grader/batch/slurm/ on a real one-node Slurm cluster (munged, slurmctld, slurmd started here
from a generated configuration): submit.sh grades a small class as an array of 2 shards and a
dependent merge job, on the CPU backend. The merged grades must equal one unsharded run with the
same seed; `merge` must refuse a missing, repeated or foreign shard, and take a missing one with
--allow-partial. Every daemon it starts is stopped at the end, also on failure.

Exit status 77 (skipped) without Slurm and munge, or not as root (slurmd starts jobs as their
user), unless GRADER_REQUIRE_SLURM=1 (CI) makes that a failure; 77 too where the backend is not cpu."""
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from batch.tests import machine_speed  # time limits scaled to this machine now
from batch.tests.fixture_class_run import HIDDEN_SEED, MAX, ROOT, TOOL, load, make_class
from batch.cpus import available_cpus

SUBMIT = os.path.join(ROOT, "grader", "batch", "slurm", "submit.sh")
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scontrol", "scancel")
PACKAGES = "slurm-wlm munge (or, smaller: slurmctld slurmd slurm-client munge)"
STUDENTS = ["correct", "hard_coded", "wrong_tail"]  # dealt: shard 1 = correct, wrong_tail
OPTIONS = "--backend cpu --labs 01 --no-matplotlib --jobs 1 --timeout".split() + [machine_speed.seconds(5)]
JOBS_DEADLINE_S = 900  # meson's timeout for this test is 1200 s


def find_program(name):  # the daemons are in sbin, often not on a user's PATH
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin:/usr/local/sbin")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def say(message):
    print(message, flush=True)


class OneNodeCluster:
    """munged, slurmctld and slurmd for one node (this machine), everything under `folder`."""

    def __init__(self, folder):
        self.folder = folder
        self.conf = os.path.join(folder, "slurm.conf")
        self.node = "localhost"
        self.cpus = len(os.sched_getaffinity(0))
        self.processes = {}  # name -> Popen, in start order

    def path(self, *parts):
        return os.path.join(self.folder, *parts)

    def env(self, **extra):
        return dict(os.environ, SLURM_CONF=self.conf, **extra)

    def write_config(self):
        for sub in ("", "state", "spool"):
            os.makedirs(self.path(sub), mode=0o700)
        with open("/proc/meminfo") as f:
            memory_mb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1)) // 1024
        controller = socket.gethostname().split(".")[0]  # slurmctld insists on its own host name
        lines = [
            "ClusterName=gradetest", f"SlurmctldHost={controller}(127.0.0.1)",
            f"SlurmctldPort={free_port()}", f"SlurmdPort={free_port()}", "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={self.path('munge.socket')}",
            f"StateSaveLocation={self.path('state')}", f"SlurmdSpoolDir={self.path('spool')}",
            f"SlurmctldPidFile={self.path('slurmctld.pid')}", f"SlurmdPidFile={self.path('slurmd.pid')}",
            # No cgroups (containers and CI machines often cannot make them), no accounting.
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none", "MpiDefault=none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
            "SchedulerType=sched/builtin", "SlurmdParameters=config_overrides",
            "ReturnToService=2", "MinJobAge=3600", "KillWait=5", "MailProg=/bin/true",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} "
            f"RealMemory={memory_mb * 8 // 10} State=UNKNOWN",
            f"PartitionName=grading Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]
        write(self.conf, "\n".join(lines) + "\n")
        write(self.path("cgroup.conf"), "# Nothing confined: proctrack/linuxproc and task/none use no "
              "cgroups.\nConstrainCores=no\nConstrainRAMSpace=no\nConstrainDevices=no\n")
        with open(os.open(self.path("munge.key"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400), "wb") as f:
            f.write(os.urandom(1024))  # munged wants a key only its user can read

    def start_daemon(self, name, command):
        # In this process's group: a test runner that kills the group on a timeout ends them too.
        with open(self.path(f"{name}.out"), "w") as log:
            self.processes[name] = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                                    stdin=subprocess.DEVNULL, env=self.env())

    def wait_for(self, what, check, deadline_s):
        started = time.monotonic()
        while time.monotonic() - started < deadline_s:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited ({process.returncode}) while waiting for "
                                       f"{what}:\n{self.log_tail(name)}")
            if check():
                say(f"  {what}: {time.monotonic() - started:.1f} s")
                return
            time.sleep(0.3)
        raise RuntimeError(f"no {what} after {deadline_s} s:\n"
                           + "\n".join(self.log_tail(n) for n in self.processes))

    def client(self, *command, timeout=60):
        return subprocess.run(list(command), env=self.env(), capture_output=True, text=True,
                              timeout=timeout)

    def start(self):
        self.write_config()
        socket_path = self.path("munge.socket")
        self.start_daemon("munged", [find_program("munged"), "--foreground", "--force",
                                     f"--socket={socket_path}", f"--key-file={self.path('munge.key')}",
                                     f"--pid-file={self.path('munged.pid')}",
                                     f"--seed-file={self.path('munged.seed')}",
                                     f"--log-file={self.path('munged.log')}"])
        self.wait_for("munged's socket", lambda: os.path.exists(socket_path), 30)
        self.start_daemon("slurmctld", [find_program("slurmctld"), "-D", "-c", "-i",
                                        "-L", self.path("slurmctld.log")])
        self.wait_for("slurmctld answering",
                      lambda: "is UP" in self.client("scontrol", "ping", timeout=20).stdout, 60)
        self.start_daemon("slurmd", [find_program("slurmd"), "-D", "-N", self.node,
                                     "-L", self.path("slurmd.log")])
        self.wait_for(f"node {self.node} idle ({self.cpus} CPUs)", lambda: self.client(
            "sinfo", "-h", "-n", self.node, "-o", "%T").stdout.strip() == "idle", 90)

    def job_states(self, *job_ids):
        """{"id or id_task": (state, exit code)} of the jobs and every task of the array jobs."""
        lines = [line for job in job_ids
                 for line in self.client("scontrol", "-o", "show", "job", job).stdout.splitlines()]
        states = {}
        for line in lines:
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            name = fields.get("JobId", "?")
            if fields.get("ArrayTaskId"):  # a task of an array: 12_1
                name = f"{fields.get('ArrayJobId')}_{fields['ArrayTaskId']}"
            states[name] = (fields.get("JobState"), fields.get("ExitCode"))
        return states

    def wait_for_jobs(self, job_ids, deadline_s):
        """Poll squeue until none of `job_ids` is queued or running; prints each change."""
        started, last = time.monotonic(), None
        while time.monotonic() - started < deadline_s:
            queue = self.client("squeue", "-h", "-j", ",".join(job_ids), "-o", "%i %T %M").stdout.strip()
            if not queue:
                return time.monotonic() - started
            shown = re.sub(r" \S+$", "", queue, flags=re.M)  # without the elapsed time
            if shown != last:
                say(f"  [{time.monotonic() - started:5.0f} s] " + "; ".join(queue.splitlines()))
                last = shown
            time.sleep(2)
        raise RuntimeError(f"jobs {job_ids} still queued after {deadline_s} s")

    def log_tail(self, name, lines=25):
        text = read(self.path(f"{name}.log")) or read(self.path(f"{name}.out"))  # else its stdout
        return f"--- {name} ---\n" + "\n".join(text.splitlines()[-lines:])

    def stop(self):
        """Cancel every job of this cluster, stop the daemons (slurmd first), then end any process
        still carrying this cluster's SLURM_CONF (a job step left behind). Never raises."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self.client("scancel", "--full", "--user", str(os.geteuid()), timeout=30)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and self.client("squeue", "-h").stdout.strip():
                    time.sleep(1)
        for process in reversed(list(self.processes.values())):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
        for pid in self.leftover_processes():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                say(f"  killed leftover process {pid} of this cluster")

    def leftover_processes(self):
        """Processes other than this one whose environment names this cluster's configuration."""
        marker = f"SLURM_CONF={self.conf}".encode()
        def ours(pid):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    return marker in f.read().split(b"\0")
            except OSError:
                return False
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid() and ours(p)]


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def read_json(path):
    return json.loads(read(path) or "null")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def merge(*arguments):
    done = subprocess.run(TOOL + ["merge", "--no-matplotlib"] + list(arguments),
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


class SlurmArrayGrading(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="batch-slurm-")
        cls.cluster = OneNodeCluster(os.path.join(cls.tmp, "cluster"))
        cls.work = os.path.join(cls.tmp, "work")  # shared by every run: lab 01 is built once
        cls.class_dir, cls.report, cls.single = (os.path.join(cls.tmp, n) for n in ("class", "report", "single"))
        cls.shards = [os.path.join(cls.report, "shards", k) for k in ("1", "2")]
        make_class(cls.class_dir, STUDENTS)
        try:
            cls.grade_everything()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def grade_everything(cls):
        started = time.monotonic()
        say(f"Starting a one-node Slurm cluster in {cls.cluster.folder} ...")
        cls.cluster.start()
        say(f"Cluster up in {time.monotonic() - started:.1f} s")

        say("Grading the class in one unsharded run (it builds lab 01 once, for every run) ...")
        began = time.monotonic()
        done = subprocess.run(TOOL + [cls.class_dir, "--out", cls.single, "--work-dir", cls.work,
                                      "--input-seed", HIDDEN_SEED, "--data-seed", HIDDEN_SEED]
                              + OPTIONS, capture_output=True, text=True, timeout=JOBS_DEADLINE_S)
        say(done.stdout[-2500:] + done.stderr[-2500:])
        if done.returncode != 0:
            raise AssertionError(f"the unsharded run failed ({done.returncode})")
        say(f"Unsharded run: {time.monotonic() - began:.0f} s")
        cls.single_config = read_json(os.path.join(cls.single, "batch.json"))["config"]

        # Two CPUs per task (1 on a 1-CPU machine): --jobs then defaults to 1, from Slurm's
        # allocation, whatever this machine's size; tasks sharing WORK_DIR take turns.
        per_task = str(min(2, cls.cluster.cpus))
        seed_file = os.path.join(cls.tmp, "seed")
        write(seed_file, HIDDEN_SEED + "\n")
        env = cls.cluster.env(CLASS=cls.class_dir, REPORT=cls.report, SHARDS="2",
                              SEED_FILE=seed_file, WORK_DIR=cls.work, BACKEND="cpu", LABS="01",
                              EXTRA=f"--timeout {machine_speed.seconds(5)} --no-matplotlib", PYTHON=sys.executable)
        say(f"$ CLASS=... REPORT=... SHARDS=2 SEED_FILE=... WORK_DIR=... BACKEND=cpu {SUBMIT} "
            f"--cpus-per-task={per_task}")
        began = time.monotonic()
        done = subprocess.run([SUBMIT, f"--cpus-per-task={per_task}"], env=env, cwd=cls.tmp,
                              capture_output=True, text=True, timeout=120)
        say(done.stdout + done.stderr)
        match = re.search(r"grading: job (\d+).*merge: job (\d+)", done.stdout)
        if done.returncode != 0 or not match:
            raise AssertionError(f"submit.sh failed ({done.returncode})")
        cls.array_job, cls.merge_job = match.groups()
        cls.cluster.wait_for_jobs([cls.array_job, cls.merge_job], JOBS_DEADLINE_S)
        cls.states = cls.cluster.job_states(cls.array_job, cls.merge_job)
        say(f"Array of 2 shards and the merge job: {time.monotonic() - began:.0f} s; states: "
            + ", ".join(f"{job} {state} (exit {code})" for job, (state, code) in sorted(cls.states.items())))
        cls.logs = {name: read(os.path.join(cls.report, "logs", f"{name}.log"))
                    for name in ("shard-1", "shard-2", "merge")}
        for name, text in cls.logs.items():
            say(f"--- {name}.log (last lines) ---\n" + "\n".join(text.splitlines()[-8:]))
        say(f"Total so far: {time.monotonic() - started:.0f} s")

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "stopped", False) or not hasattr(cls, "cluster"):
            return
        cls.stopped = True
        began = time.monotonic()
        cls.cluster.stop()
        left = cls.cluster.leftover_processes()
        say(f"Cluster stopped in {time.monotonic() - began:.1f} s"
            + (f"; STILL RUNNING: {left}" if left else "; nothing left running"))
        if os.environ.get("BATCH_KEEP_TMP"):
            say(f"kept {cls.tmp} (BATCH_KEEP_TMP)")
        else:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_job_completed(self):
        self.assertEqual(len(self.states), 3, self.states)
        for job, (state, code) in self.states.items():
            self.assertEqual((state, code), ("COMPLETED", "0:0"), job)

    def test_each_task_graded_its_shard_with_the_cpus_it_was_given(self):
        self.assertEqual(sorted(load(self.shards[0])), ["correct", "wrong_tail"])
        self.assertEqual(sorted(load(self.shards[1])), ["hard_coded"])
        for k in (1, 2):
            summary = read_json(os.path.join(self.shards[k - 1], "batch.json"))
            self.assertEqual(summary["shard"], f"{k}/2")
            # the template passed the same settings (seeds from SEED_FILE, labs, backend) as the
            # unsharded run; "project" is left out: it changes if the checkout is edited meanwhile
            self.assertEqual(dict(summary["config"], project=""), dict(self.single_config, project=""))
            # --jobs followed SLURM_CPUS_PER_TASK (2 CPUs -> 1 worker build, the one shared)
            self.assertIn("Setting up 1 worker build(s)", self.logs[f"shard-{k}"])

    def test_the_merge_job_gives_the_grades_of_one_run(self):
        single, merged = load(self.single), load(self.report)
        self.assertEqual(sorted(merged), STUDENTS)
        self.assertEqual({s: r["score"] for s, r in merged.items()},
                         {s: r["score"] for s, r in single.items()})
        self.assertEqual(merged["correct"]["score"], MAX)
        self.assertLess(merged["hard_coded"]["score"], MAX)
        self.assertEqual(read_json(os.path.join(self.report, "batch.json"))["merged_shards"],
                         {"count": 2, "merged": [1, 2], "missing": []})

    def test_merge_refuses_a_missing_shard_unless_allow_partial(self):
        shard1, shard2 = self.shards
        code, output = merge("--out", os.path.join(self.tmp, "refused"), shard1)
        self.assertEqual(code, 2, output)
        self.assertIn("shard 2 of 2 is missing", output)
        self.assertIn("--allow-partial", output)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "refused")))
        partial = os.path.join(self.tmp, "partial")
        code, output = merge("--out", partial, "--allow-partial", shard1)
        self.assertEqual(code, 0, output)
        self.assertEqual(sorted(load(partial)), ["correct", "wrong_tail"])
        summary = read_json(os.path.join(partial, "batch.json"))
        self.assertEqual(summary["merged_shards"]["missing"], [2])
        self.assertTrue(any("shard 2 of 2 is missing" in w for w in summary["warnings"]))

    def test_merge_refuses_a_repeated_shard_and_a_foreign_split(self):
        shard1, shard2 = self.shards
        code, output = merge("--out", os.path.join(self.tmp, "twice"), shard1, shard2, shard1)
        self.assertEqual(code, 2, output)
        self.assertIn("shard 1 of 2 is given 2 times", output)
        code, output = merge("--out", os.path.join(self.tmp, "mixed"), shard1, shard2, self.single)
        self.assertEqual(code, 2, output)
        self.assertIn("different splits", output)
        self.assertIn("whole-class run", output)


class AvailableCpus(unittest.TestCase):
    """What --jobs and the worker builds' ninja -j are sized on; needs no cluster."""

    def test_follows_the_slurm_allocation_and_the_affinity_mask(self):
        mask = len(os.sched_getaffinity(0))
        self.assertEqual(available_cpus({}), mask)
        self.assertEqual(available_cpus({"SLURM_CPUS_ON_NODE": "1"}), 1)
        self.assertEqual(available_cpus({"SLURM_CPUS_PER_TASK": "1", "SLURM_CPUS_ON_NODE": "64"}), 1)
        self.assertEqual(available_cpus({"SLURM_CPUS_PER_TASK": "100000"}), mask)  # never above the mask
        self.assertEqual(available_cpus({"SLURM_CPUS_ON_NODE": "2(x3)"}), mask)   # unreadable: ignored


def main():
    # A runner's timeout (SIGTERM) unwinds like Ctrl-C, so the daemons are still stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if os.environ.get("BATCH_OUTER_BACKEND", "cpu") != "cpu":
        say("skipped: this build's backend is not cpu; the Slurm test grades on the CPU backend")
        return 77
    missing = [name for name in DAEMONS + CLIENTS if not find_program(name)]
    reason = (f"Slurm/munge not installed ({', '.join(missing)} not found)" if missing else
              "not root: slurmd has to run as root to start jobs" if os.geteuid() != 0 else None)
    if reason:
        if not unittest.TextTestRunner(verbosity=2).run(
                unittest.defaultTestLoader.loadTestsFromTestCase(AvailableCpus)).wasSuccessful():
            return 1
        if os.environ.get("GRADER_REQUIRE_SLURM") == "1":
            say(f"FAILED: {reason}, and GRADER_REQUIRE_SLURM=1 requires this test to run: install "
                f"the Debian packages {PACKAGES} (apt-get install -y ...) and run it as root")
            return 1
        say(f"skipped: {reason}; install the Debian packages {PACKAGES} and run as root to test "
            "the Slurm template (GRADER_REQUIRE_SLURM=1 makes this a failure)")
        return 77
    started = time.monotonic()
    try:
        result = unittest.main(exit=False, verbosity=2).result
    finally:
        SlurmArrayGrading.tearDownClass()  # already done unless interrupted
    say(f"test_slurm.py: {time.monotonic() - started:.0f} s in all")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
