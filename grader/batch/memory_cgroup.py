"""A run's memory held as a whole by a cgroup (v2), where the host delegates one: its processes,
and what no per-process limit holds, since those pages belong to no process: the sandbox's tmpfs
(/tmp, /var/tmp, /dev/shm), memory-backed files (memfd) and System V shared memory. Each run of
student code (a lab's checker and the runners it starts) gets a cgroup of its own, with
memory.max = run_memory_bytes() and no swap, entered by the run's first process before it starts
anything; a process the kernel ends at that limit is named in the failed test's message.

Two ways a host offers one (--cgroup auto tries them in this order):
- a writable cgroup subtree, --cgroup DIR: a cgroup this user may create children in, whose
  cgroup.controllers lists memory and which holds no process itself (the kernel enables a
  controller only for the children of a cgroup without processes). An administrator makes one
  with `mkdir /sys/fs/cgroup/grader; echo +memory > /sys/fs/cgroup/cgroup.subtree_control` (and
  chown it to a grader that is not root); systemd makes one for a unit with Delegate=yes. Each
  run is DIR/run-PID-N, removed after it. Given and unusable, the batch refuses to start.
- systemd: each run a transient scope (`systemd-run --scope`, the system manager as root, the
  user's own `--user` otherwise, which delegates the memory controller since systemd 244) with
  MemoryMax and MemorySwapMax=0; used once a probe scope reports the limit back.
Where neither is offered (cgroup v1, a container without delegation, no systemd running), each
process keeps its own limit (sandbox.LIMITS: address space on the CPU backend, data on a GPU),
each tmpfs of the sandbox its size (sandbox.TMPFS), each file the file size limit, and the report
says so in a note. --cgroup none does not look.
"""
import errno
import itertools
import os
import shutil
import subprocess
import time

from batch import sandbox

PROBE_TIMEOUT_S = 30


def run_memory_bytes(gpu):
    """A run's memory as a whole: two processes at their own limit (a checker and a runner), and
    every tmpfs of the sandbox full."""
    per_process = sandbox.memory_limit("run", gpu)[1]
    return 2 * per_process + sum(sandbox.TMPFS["run"].values())


class CgroupUnavailable(RuntimeError):
    pass


class _Run:
    """One run's cgroup: `prefix` goes in front of the run's command line; close() gives the
    kernel's memory events of the run ({"oom_kill": N, ...}; empty where none are readable)."""
    prefix = ()

    def __enter__(self):
        return self

    events = {}

    def __exit__(self, *exc):
        self.events = self.close()
        return False

    def close(self):
        return {}


NO_RUN = _Run()  # a run no cgroup holds


class NoCgroup:
    kind = "none"

    def __init__(self, why):
        self.why = why

    def describe(self):
        return f"no cgroup ({self.why})"

    def note(self, gpu):
        rule, memory = sandbox.memory_limit("run", gpu)
        tmpfs = ", ".join(f"{path} {sandbox.gib(size)}" for path, size in sandbox.TMPFS["run"].items())
        return (f"no cgroup holds a run's memory as a whole here ({self.why}): each process is held "
                f"to {sandbox.gib(memory)} ({'data' if rule == 'data' else 'address space'}), each "
                f"tmpfs of the sandbox to its size ({tmpfs}), each file to "
                f"{sandbox.gib(sandbox.LIMITS['run']['file_bytes'])}; memory-backed files outside "
                "those (memfd, System V shared memory) only by the file size and open-file limits. "
                "Give the grader a cgroup (--cgroup, batch/memory_cgroup.py) to hold them")

    def run(self, gpu):
        return _Run()


class _SubtreeRun(_Run):
    def __init__(self, path, limit):
        self.path = path
        os.mkdir(path)
        try:
            _write(os.path.join(path, "memory.max"), str(limit))
            if os.path.exists(os.path.join(path, "memory.swap.max")):
                _write(os.path.join(path, "memory.swap.max"), "0")
        except OSError:
            self.close()
            raise
        # The run's first process moves itself in, then becomes the command: all it starts is in.
        self.prefix = ("/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', os.path.join(path, "cgroup.procs"))

    def close(self):
        events = {}
        try:
            with open(os.path.join(self.path, "memory.events")) as f:
                events = {k: int(v) for k, v in (line.split() for line in f if len(line.split()) == 2)}
        except (OSError, ValueError):
            pass
        kill = os.path.join(self.path, "cgroup.kill")
        if os.path.exists(kill):  # nothing should be left (the sandbox ends its processes)
            try:
                _write(kill, "1")
            except OSError:
                pass
        for _ in range(100):  # busy while its last processes are being ended
            try:
                os.rmdir(self.path)
            except OSError as error:
                if error.errno == errno.EBUSY:
                    time.sleep(0.02)
                    continue
            break
        return events


class Subtree:
    """Runs as children of a cgroup this user may write (--cgroup DIR)."""
    kind = "subtree"
    _numbers = itertools.count()

    def __init__(self, path):
        self.path = os.path.abspath(path)

    def describe(self):
        return f"a cgroup of its own under {self.path}"

    def note(self, gpu):
        return None

    def run(self, gpu):
        name = f"run-{os.getpid()}-{next(self._numbers)}"
        return _SubtreeRun(os.path.join(self.path, name), run_memory_bytes(gpu))

    def check(self):
        """CgroupUnavailable saying why runs cannot be held here; enables the memory controller
        for the children where it is not yet."""
        if not os.path.isdir(self.path) or not os.path.exists(os.path.join(self.path, "cgroup.controllers")):
            raise CgroupUnavailable(f"{self.path} is not a cgroup (v2) folder")
        if "memory" not in _read(os.path.join(self.path, "cgroup.controllers")).split():
            raise CgroupUnavailable(f"the memory controller is not delegated to {self.path} "
                                    "(its cgroup.controllers does not list memory)")
        control = os.path.join(self.path, "cgroup.subtree_control")
        if "memory" not in _read(control).split():
            try:
                _write(control, "+memory")
            except OSError as error:
                raise CgroupUnavailable(
                    f"cannot enable the memory controller for the children of {self.path} "
                    f"({error.strerror}: a cgroup that holds processes itself cannot)") from None
        try:
            with self.run(gpu=False) as run:
                done = subprocess.run(list(run.prefix) + ["/bin/cat", "/proc/self/cgroup"],
                                      capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
        except OSError as error:
            raise CgroupUnavailable(f"cannot make a cgroup in {self.path} ({error.strerror})") from None
        if done.returncode != 0 or os.path.basename(run.path) not in done.stdout:
            raise CgroupUnavailable(f"a process could not enter a cgroup made in {self.path}: "
                                    f"{(done.stderr or done.stdout).strip()[-300:]}")


class Systemd:
    """Runs as transient scopes of systemd (the user's own manager when not root)."""
    kind = "systemd"

    def __init__(self, systemd_run, user):
        self.systemd_run = systemd_run
        self.user = user

    def describe(self):
        return f"a systemd scope of its own ({'the user manager' if self.user else 'the system manager'})"

    def note(self, gpu):
        return None

    def command(self, limit):
        return (self.systemd_run, *(("--user",) if self.user else ()), "--scope", "--quiet",
                "--collect", "-p", f"MemoryMax={limit}", "-p", "MemorySwapMax=0", "--")

    def run(self, gpu):
        run = _Run()
        run.prefix = self.command(run_memory_bytes(gpu))
        return run

    def check(self):
        limit = run_memory_bytes(False)
        script = ('p=$(sed -n "s/^0:://p" /proc/self/cgroup); '
                  'for m in $(awk \'$3 == "cgroup2" {print $2}\' /proc/self/mounts); do '
                  'cat "$m$p/memory.max" 2>/dev/null && break; done')
        try:
            done = subprocess.run(list(self.command(limit)) + ["/bin/sh", "-c", script],
                                  capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise CgroupUnavailable(f"systemd-run: {error}") from None
        if done.returncode != 0 or done.stdout.strip() != str(limit):
            said = (done.stderr or done.stdout).strip().splitlines()
            raise CgroupUnavailable("systemd-run could not start a scope that holds its memory"
                                    + (f" ({said[-1][:200]})" if said else ""))


def detect(choice):
    """How runs are held: `choice` is --cgroup (auto, none or a folder). A folder that cannot
    hold them raises CgroupUnavailable; auto falls back to NoCgroup, saying why."""
    if choice == "none":
        return NoCgroup("--cgroup none")
    if choice != "auto":
        chosen = Subtree(choice)
        chosen.check()
        return chosen
    why = []
    systemd_run = shutil.which("systemd-run")
    if systemd_run is None:
        why.append("no systemd-run")
    elif not os.path.isdir("/run/systemd/system"):
        why.append("systemd is not running")
    else:
        chosen = Systemd(systemd_run, user=os.geteuid() != 0)
        try:
            chosen.check()
            return chosen
        except CgroupUnavailable as error:
            why.append(str(error))
    if not _cgroup2_with_memory():
        why.insert(0, "no cgroup v2 with the memory controller")
    return NoCgroup("; ".join(why))


def _cgroup2_with_memory():
    try:
        with open("/proc/self/mounts") as f:
            mounts = [line.split()[1] for line in f if line.split()[2:3] == ["cgroup2"]]
    except OSError:
        return False
    return any("memory" in _read(os.path.join(m, "cgroup.controllers")).split() for m in mounts)


def explain(outcomes, events, limit):
    """Failed tests of a run the kernel ended a process of at its cgroup's limit say so."""
    if not events.get("oom_kill"):
        return
    note = (f"\nthe run's memory as a whole (its processes and the files it made in /tmp, /var/tmp, "
            f"/dev/shm) reached {sandbox.gib(limit)}, the grader's limit: the kernel ended a process")
    for outcome in outcomes.values():
        if outcome.status == "failed" and note not in outcome.message:
            outcome.message += note


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
