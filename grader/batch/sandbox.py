"""The sandbox every compile and every run of student code goes through: bubblewrap (`bwrap`).

A sandboxed process sees the system's programs and libraries read-only (/usr, /bin, /lib*, /etc,
/opt, and the prefixes of the tools the build uses where they live elsewhere: a pyenv Python, the
project's .venv), the paths its caller names (read-only unless asked), a private /tmp, /var/tmp
and /dev/shm, each a tmpfs of limited size (TMPFS), a minimal /dev with the GPU's device nodes,
and its own /proc. Nothing else is writable: the sandbox's root and its /dev (tmpfs that
bubblewrap makes without a size, which the sandboxed user owns in a user namespace) are
remounted read-only once set up. It has no network and its own PID, IPC and UTS namespaces, so
it sees no other process and nothing it starts outlives it: when the runner kills the sandbox, the
kernel ends every process of its PID namespace. Limits on processes, open files, file size, CPU
time and memory are set before it starts (LIMITS); a run's memory as a whole, its tmpfs pages
included, is held by a cgroup where the host delegates one (memory_cgroup.py).

It never runs as root or as the instructor's own account:
- grader run as root: bwrap is privileged, and the command is started through `setpriv` as the run
  user (`nobody` by default), with no capabilities and no_new_privs;
- grader run as an ordinary user (a cluster job): bwrap makes a user namespace in which the command
  is uid 65534, with no capabilities outside it; only what is bound is visible.
When neither works, `detect` says why and the batch refuses to start (unless the instructor gives
--unsafe-no-sandbox, which the report then states at its top). Where no namespace can be made (a
container that gives none), `--sandbox uid` chooses uid_sandbox.py instead, which says what it
cannot hide.
"""
import glob
import os
import pwd
import re
import shutil
import subprocess
import sys

# Runs of student code that may overlap each get a uid of their own (root mode): the process limit
# counts a uid's processes, so one submission's fork flood cannot starve another's run. Compiles
# run as the run user itself. These uids have no account; nothing on the machine belongs to them.
RUN_UID_BASE = 2_000_000_000
SYSTEM_ROOTS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"]
INSIDE_UID = 65534

# Per kind of use: largest file, processes of the run user, open files, CPU seconds and memory of
# each process. Memory: the address space (RLIMIT_AS) of a compile and of a
# CPU-backend run; a CUDA program reserves far more address space than it uses, so a GPU run's
# limit is on its data (RLIMIT_DATA: heap and private writable mappings, not reservations).
LIMITS = {
    "compile": {"file_bytes": 2 << 30, "processes": 2048, "files": 4096,
                "cpu_s": 1800, "memory_bytes": 8 << 30},
    "run": {"file_bytes": 128 << 20, "processes": 1024, "files": 4096,
            "cpu_s": 3600, "memory_bytes": 4 << 30, "gpu_data_bytes": 32 << 30},
}
# Every writable place of the sandbox, per kind of use, and its size: tmpfs pages belong to no
# process, so no per-process limit holds them; the size does (and, where the host delegates one,
# the run's cgroup: memory_cgroup.py). A compile's /tmp holds the compiler's temporary files.
TMPFS = {
    "compile": {"/tmp": 4 << 30, "/var/tmp": 256 << 20, "/dev/shm": 256 << 20},
    "run": {"/tmp": 256 << 20, "/var/tmp": 256 << 20, "/dev/shm": 256 << 20},
}
# A run's glibc keeps few malloc arenas (each reserves 64 MiB of address space per thread that
# allocates), so its address-space limit measures memory used rather than the machine's cores.
RUN_ENVIRONMENT = {"MALLOC_ARENA_MAX": "2"}

REMEDY = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow user namespaces "
          "(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also "
          "kernel.apparmor_restrict_unprivileged_userns=0), or run the batch as root; in a "
          "container that gives no namespaces (PrairieLearn's), run as root with --sandbox uid; "
          "--unsafe-no-sandbox grades without one (student code then sees this machine)")


class SandboxUnavailable(RuntimeError):
    pass


def _within(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def tool_prefixes(extra_programs=()):
    """Folders outside the system roots that the build's tools need, read-only: the Python that
    runs meson and the build's scripts, meson, ninja, nvcc, the compilers, LD_LIBRARY_PATH."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    programs = [sys.executable] + [shutil.which(p) for p in ("meson", "ninja", "nvcc", "c++", "cc")]
    for program in list(programs) + list(extra_programs):
        if not program:
            continue
        for path in {os.path.abspath(program), os.path.realpath(program)}:
            folder = os.path.dirname(path)
            candidates.add(os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder)
    for entry in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if entry:
            candidates.add(os.path.abspath(entry))
    found = set()
    for path in candidates:
        if path and os.path.isdir(path) and not _within(path, SYSTEM_ROOTS) and path != "/":
            found.add(path)
            real = os.path.realpath(path)
            if not _within(real, SYSTEM_ROOTS):
                found.add(real)
    # A folder inside another one is bound with it.
    return sorted(p for p in found if not any(p != q and _within(p, [q]) for q in found))


def gpu_device_nodes():
    return sorted(p for p in glob.glob("/dev/nvidia*") if os.path.exists(p))


class Sandbox:
    """How to start a command in the sandbox. `user` is a pwd entry (root mode) or None."""
    binds = True  # a command sees only what is bound, some of it at paths.SANDBOXED
    uid_base = RUN_UID_BASE  # the first of the run uids (root mode)

    def __init__(self, bwrap, mode, user, prefixes, gpu):
        self.bwrap = bwrap
        self.mode = mode                  # "root" (setpriv to user) or "userns"
        self.user = user
        self.prefixes = prefixes
        self.gpu = gpu
        self.setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        # bubblewrap before 0.8 (Ubuntu 22.04 has 0.6) cannot size a tmpfs: /tmp, /var/tmp and
        # /dev/shm are then limited only by the file size limit and the run's cgroup, where the
        # host delegates one, and the report says so (notes).
        self.sized_tmp = _supports(bwrap, "--size")
        self.notes = [] if self.sized_tmp else [
            "this bubblewrap cannot limit the size of the sandbox's /tmp, /var/tmp and /dev/shm "
            "(it has no --size; 0.8 or newer has): each file there is still limited, their total "
            "only by the run's cgroup where there is one"]

    def describe(self):
        if self.mode == "root":
            return (f"bubblewrap sandbox, as {self.user.pw_name} (uid {self.user.pw_uid}); "
                    "no network, own PID namespace, private /tmp")
        return (f"bubblewrap sandbox in a user namespace (uid {INSIDE_UID} inside, "
                f"{pwd.getpwuid(os.getuid()).pw_name} outside); no network, own PID namespace, "
                "private /tmp")

    def owner(self):
        """(uid, gid) that must own what sandboxed processes write (a build folder)."""
        if self.mode == "root":
            return self.user.pw_uid, self.user.pw_gid
        return os.getuid(), os.getgid()

    def sweep(self, uid):
        """Nothing to do after a run: its PID namespace ended its processes, its /tmp and IPC
        were its own (uid_sandbox.py has work to do here)."""

    def command(self, argv, kind, read_only=(), writable=(), chdir="/tmp", gpu=None, uid=None):
        """The full command line. `read_only`/`writable`: [(outside path, inside path)]; `uid`:
        the uid to run as in root mode (default: the run user's)."""
        limits = LIMITS[kind]
        bwrap = [self.bwrap, "--die-with-parent", "--new-session",
                 "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                 "--unshare-cgroup-try", "--hostname", "sandbox"]
        if self.mode == "userns":
            bwrap += ["--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID)]
        else:
            bwrap += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        for root in SYSTEM_ROOTS:
            if os.path.isdir(root):
                if os.path.islink(root):
                    bwrap += ["--symlink", os.readlink(root), root]
                else:
                    bwrap += ["--ro-bind", root, root]
        if os.path.isdir("/sys"):
            bwrap += ["--ro-bind", "/sys", "/sys"]
        bwrap += ["--proc", "/proc", "--dev", "/dev"]
        for path, size in TMPFS[kind].items():
            bwrap += [*(["--size", str(size)] if self.sized_tmp else []),
                      "--tmpfs", path, "--chmod", "1777", path]
        if (self.gpu if gpu is None else gpu):
            for node in gpu_device_nodes():
                bwrap += ["--dev-bind", node, node]
        # The folders above each bound path, made here and open to the run user (bwrap would make
        # them 0700 for root); they are the sandbox's own, empty but for what is bound. (--chmod,
        # not --perms: bubblewrap 0.6, Ubuntu 22.04's, has only the former for these.)
        inside_paths = list(self.prefixes) + [inside for _, inside in list(read_only) + list(writable)]
        made = set()
        for path in inside_paths:
            parents = []
            parent = os.path.dirname(path)
            while parent not in ("/", *TMPFS[kind]) and not _within(parent, SYSTEM_ROOTS):
                parents.append(parent)
                parent = os.path.dirname(parent)
            for folder in reversed(parents):
                if folder not in made:
                    made.add(folder)
                    bwrap += ["--dir", folder, "--chmod", "0755", folder]
        for prefix in self.prefixes:
            bwrap += ["--ro-bind", prefix, prefix]
        for outside, inside in read_only:
            bwrap += ["--ro-bind", outside, inside]
        for outside, inside in writable:
            bwrap += ["--bind", outside, inside]
        # The root and /dev are bubblewrap's own tmpfs, of no size; the sandboxed user owns them in
        # a user namespace: read-only from here on (the mounts above keep their own flags).
        bwrap += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", chdir, "--"]
        if self.mode == "root":
            bwrap += [self.setpriv, f"--reuid={uid if uid is not None else self.user.pw_uid}",
                      f"--regid={self.user.pw_gid}",
                      "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--"]
        processes = limits["processes"]
        if self.mode == "userns":
            processes += _processes_of(os.getuid())  # the count is the outer user's, all included
        rule, memory = memory_limit(kind, self.gpu if gpu is None else gpu)
        prlimit = [shutil.which("prlimit") or "/usr/bin/prlimit", f"--nproc={processes}",
                   f"--nofile={limits['files']}", f"--fsize={limits['file_bytes']}", "--core=0",
                   f"--cpu={limits['cpu_s']}", f"--{rule}={memory}", "--"]
        return prlimit + bwrap + list(argv)


def memory_limit(kind, gpu):
    """(prlimit's option, bytes) limiting the memory of each process of `kind`."""
    if kind == "run" and gpu:
        return "data", LIMITS["run"]["gpu_data_bytes"]
    return "as", LIMITS[kind]["memory_bytes"]


def gib(count):
    return f"{count / (1 << 30):g} GiB"


# Host memory running out; on the CPU backend a cudaMalloc is host memory too (on a GPU, "out of
# memory" is the device's, which this limit does not cover).
OUT_OF_MEMORY = re.compile(r"std::bad_alloc|cannot allocate memory|memory exhausted", re.I)
CPU_BACKEND_OUT_OF_MEMORY = re.compile(r"out of memory|cudaErrorMemoryAllocation", re.I)
COMPILER_OUT_OF_MEMORY = re.compile(r"virtual memory exhausted|out of memory allocating|"
                                    r"instance of 'std::bad_alloc'|^\S*(cicc|ptxas)\S*: .*out of memory",
                                    re.I | re.M)


def compile_limit_verdict(output):
    """The compiler's messages, led by the limit it ran into (memory, CPU time), if any."""
    if COMPILER_OUT_OF_MEMORY.search(output):
        return (f"the compile used more than {gib(LIMITS['compile']['memory_bytes'])} of memory "
                "(the grader's limit for a compile)\n" + output)
    if re.search(r"CPU time limit exceeded|SIGXCPU", output):
        return (f"the compile used more than {LIMITS['compile']['cpu_s']} s of CPU time (the "
                "grader's limit)\n" + output)
    return output


def explain_run_limits(outcomes, gpu):
    """Failed tests whose message shows the run out of memory say what the limit is."""
    rule, memory = memory_limit("run", gpu)
    note = (f"\nthe run ran out of memory: each process of a run may use at most {gib(memory)} "
            f"({'data' if rule == 'data' else 'address space'}; the grader's limit)")
    for outcome in outcomes.values():
        ran_out = OUT_OF_MEMORY.search(outcome.message) or (
            not gpu and CPU_BACKEND_OUT_OF_MEMORY.search(outcome.message))
        if outcome.status == "failed" and ran_out and "the grader's limit" not in outcome.message:
            outcome.message += note


def _supports(bwrap, option):
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return option in done.stdout + done.stderr


def _processes_of(uid):
    count = 0
    for entry in glob.glob("/proc/[0-9]*/task/[0-9]*"):
        try:
            if os.stat(entry).st_uid == uid:
                count += 1
        except OSError:
            pass
    return count


def _probe(sandbox):
    """Start `true` in the sandbox; None when it works, else what bwrap said."""
    try:
        done = subprocess.run(sandbox.command(["id", "-u"], "run"),
                              capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode != 0:
        return (done.stderr or done.stdout).strip()[-500:] or f"exit status {done.returncode}"
    inside = done.stdout.strip()
    if inside == "0":
        return "the sandboxed command ran as root"
    return None


def detect(run_as="nobody", gpu=False, extra_programs=()):
    """The sandbox for this machine and user, or SandboxUnavailable saying why. `extra_programs`
    (e.g. compute-sanitizer) are made visible inside too."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed; " + REMEDY)
    for tool in ("prlimit", "setpriv"):
        if shutil.which(tool) is None:
            raise SandboxUnavailable(f"{tool} (util-linux) is not installed")
    prefixes = tool_prefixes([p for p in extra_programs if p])
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam(run_as)
        except KeyError:
            raise SandboxUnavailable(f"no user {run_as!r} on this machine to run student code as; "
                                     "give an unprivileged one with --run-as") from None
        if user.pw_uid == 0:
            raise SandboxUnavailable(f"--run-as {run_as} is root; give an unprivileged user")
        sandbox = Sandbox(bwrap, "root", user, prefixes, gpu)
    else:
        sandbox = Sandbox(bwrap, "userns", None, prefixes, gpu)
    problem = _probe(sandbox)
    if problem:
        raise SandboxUnavailable(f"bubblewrap could not start a sandbox here ({problem}); " + REMEDY)
    return sandbox


def make_readable(folder):
    """Let the run user read (and enter) everything in `folder`: its files are inputs."""
    for directory, subdirs, names in os.walk(folder):
        os.chmod(directory, os.stat(directory).st_mode | 0o555)
        for name in names:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)


def give_to(folder, uid, gid):
    """Make the run user own `folder` (a build folder the sandboxed compiler writes)."""
    if os.geteuid() != 0:
        return
    for directory, subdirs, names in os.walk(folder):
        os.lchown(directory, uid, gid)
        for name in names:
            os.lchown(os.path.join(directory, name), uid, gid)
