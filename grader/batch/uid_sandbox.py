"""The uid sandbox (--sandbox uid), for machines where bubblewrap cannot start because they give no
namespaces: PrairieLearn's grader containers, Docker's default profile. The grader runs as root
and starts every compile and run of student code through prlimit and setpriv: as a uid of its own
(COMPILE_UID for compiles, UID_BASE and up for runs; the group of --run-as), with no groups, no
capabilities, no new privileges, and the limits of sandbox.LIMITS.

Without namespaces, student code shares the machine's view: every file others may read, the
process list (command lines; not environments or memory: the checker is not dumpable), the
machine's network, its world-writable folders and System V IPC. The batch makes up for each, and
refuses to start where it cannot (session.BatchSession.choose_isolation):
- it grades one submission per batch (a container per job, as PrairieLearn's), so no other
  student's file or process is on the machine; it ends the processes of its own uids only (OWN_UIDS,
  which no account has: never --run-as's, often `nobody`, which other graders of the host use),
  and refuses to start while any process runs as one of them (another batch of it here);
- before any student code runs, it checks as the run uids that none of the grader's secrets can
  be read (`hide_secrets`): the seed file, the report, the work folder's salt and data, the
  project's answers (project.answer_paths); one that can is an error that names it;
- before each command, uid_start.py kills every process of its uid (a fresh checker starts with
  none of student code beside it); before and after each run, `sweep` also removes what that uid
  owns in the machine's world-writable folders, its System V IPC objects and its kernel keyrings,
  and its commands may make no POSIX message queue, so no run reaches the next;
- the report names the network interfaces that are up (PrairieLearn's containers have none).
"""
import os
import pwd
import shutil
import subprocess
import sys

from batch import project, sandbox
from batch import uid_start
from batch.uid_start import KILL_DEADLINE_S, kill_processes

# Where no grader file is, and what a walk for world-writable folders never enters.
NOT_WALKED = ("/proc", "/sys")
START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "uid_start.py")
# Its run uids: apart from bubblewrap's (sandbox.RUN_UID_BASE), whose runs its sweeps would end
# if both graded on one machine; its compiles' uid just below them. No account has any of them.
UID_BASE = sandbox.RUN_UID_BASE + 1_000_000
COMPILE_UID = UID_BASE - 1
OWN_UIDS = range(COMPILE_UID, UID_BASE + 1024)


class UidSandbox:
    """The sandbox.Sandbox interface for --sandbox uid. `user`: the pwd entry compiles run as."""
    mode = "uid"
    binds = False  # paths are the machine's own: nothing is bound, nothing renamed
    uid_base = UID_BASE

    def __init__(self, user, gpu):
        self.user = user  # its group is the sandbox's
        self.compile_uid = COMPILE_UID
        self.gpu = gpu
        self.setpriv = shutil.which("setpriv")
        self.prlimit = shutil.which("prlimit")
        self.writable = world_writable_folders(user.pw_gid)
        with open(START) as f:  # its text: a run uid may not reach the project's folder
            self.start_code = f.read()
        self.notes = []
        interfaces = network_interfaces_up()
        if interfaces:
            self.notes.append(f"the uid sandbox has no network namespace: student code could reach "
                              f"this machine's network ({', '.join(interfaces)} up)")

    def describe(self):
        return (f"uid sandbox (no namespaces): each run as a uid of its own, compiles as uid "
                f"{self.compile_uid}, group {self.user.pw_name}; limits, no capabilities; it sees "
                "the files of this machine others may read")

    def owner(self):
        return self.compile_uid, self.user.pw_gid

    def command(self, argv, kind, read_only=(), writable=(), chdir=None, gpu=None, uid=None):
        """The full command line; `read_only`, `writable` and `chdir` are bubblewrap's (paths
        here are the machine's own, and the caller's folder is the command's)."""
        limits = sandbox.LIMITS[kind]
        rule, memory = sandbox.memory_limit(kind, self.gpu if gpu is None else gpu)
        uid = self.compile_uid if uid is None else uid
        if uid not in OWN_UIDS:  # its sweeps would end another user's processes
            raise ValueError(f"uid sandbox: uid {uid} is not one of its own")
        # First, as root, no process of the uid left (uid_start.py); no POSIX message queue:
        # without their file system mounted, the sweep could not find one.
        return [sys.executable, "-S", START, str(uid), "--",
                self.prlimit, f"--nproc={limits['processes']}", f"--nofile={limits['files']}",
                f"--fsize={limits['file_bytes']}", "--core=0", f"--cpu={limits['cpu_s']}",
                f"--{rule}={memory}", "--msgqueue=0", "--",
                self.setpriv, f"--reuid={uid}",
                f"--regid={self.user.pw_gid}", "--clear-groups", "--no-new-privs",
                "--inh-caps=-all", "--"] + list(argv)

    def sweep(self, uid):
        """End everything of `uid`: its processes, its files in world-writable folders, its
        System V IPC objects, its kernel keyrings. RuntimeError when a process of it outlives
        the deadline, or its keyrings cannot be cleared; ValueError for a uid not its own."""
        if uid not in OWN_UIDS:
            raise ValueError(f"uid sandbox: uid {uid} is not one of its own")
        left = kill_processes(uid)
        if left:
            raise RuntimeError(f"uid sandbox: {len(left)} process(es) of uid {uid} survived "
                               f"{KILL_DEADLINE_S} s of SIGKILL")
        for folder in self.writable:
            remove_owned(folder, uid)
        remove_ipc(uid)
        done = subprocess.run([sys.executable, "-S", "-c", self.start_code, "--clear-keyrings"], capture_output=True,
                              text=True, timeout=60, cwd="/", user=uid, group=self.user.pw_gid,
                              extra_groups=[])
        if done.returncode != 0:
            raise RuntimeError(f"uid sandbox: could not clear the keyrings of uid {uid}: "
                               f"{(done.stdout + done.stderr).strip()[-300:]}")

    def readable(self, paths, uid, test="-r"):
        """Of `paths`, those `uid` can read (a folder: list), as `test -r` (or `test`) finds in a
        shell running as `uid` (its permissions, ACLs included); RuntimeError when it cannot run."""
        script = f'while IFS= read -r p; do if [ {test} "$p" ]; then printf "%s\\n" "$p"; fi; done'
        done = subprocess.run(["/bin/sh", "-c", script], input="".join(p + "\n" for p in paths),
                              capture_output=True, text=True, timeout=300, cwd="/",
                              user=uid, group=self.user.pw_gid, extra_groups=[])
        if done.returncode != 0:
            raise RuntimeError(f"uid sandbox: could not check what uid {uid} can read: "
                               f"{done.stderr.strip()[-300:]}")
        return done.stdout.splitlines()


def detect(run_as, gpu):
    """The uid sandbox, or sandbox.SandboxUnavailable saying why."""
    if os.geteuid() != 0:
        raise sandbox.SandboxUnavailable("the uid sandbox needs the grader to run as root (it "
                                         "starts student code as uids of its own)")
    for tool in ("prlimit", "setpriv", "ipcrm"):
        if shutil.which(tool) is None:
            raise sandbox.SandboxUnavailable(f"{tool} (util-linux) is not installed")
    try:
        user = pwd.getpwnam(run_as)
    except KeyError:
        raise sandbox.SandboxUnavailable(f"no user {run_as!r} on this machine to run student code "
                                         "as; give an unprivileged one with --run-as") from None
    if user.pw_uid == 0:
        raise sandbox.SandboxUnavailable(f"--run-as {run_as} is root; give an unprivileged user")
    chosen = UidSandbox(user, gpu)
    programs = {os.path.realpath(p) for p in [sys.executable] + [shutil.which(t) for t in
                ("meson", "ninja", "c++", "nvcc")] if p}
    others = uid_start.processes_of_any(OWN_UIDS)
    if others:
        shown = ", ".join(f"uid {uid}: pid {' '.join(map(str, pids[:3]))}" for uid, pids in sorted(others.items())[:3])
        raise sandbox.SandboxUnavailable(
            f"processes run as the uid sandbox's own uids ({shown}): another batch is grading "
            "here, or one left them behind. It ends every process of those uids, so it will not "
            "start beside them: wait for that batch, or end them")
    runnable = set(chosen.readable(sorted(programs), chosen.compile_uid, "-x"))
    if programs - runnable:
        raise sandbox.SandboxUnavailable(
            f"uid {chosen.compile_uid} cannot run {', '.join(sorted(programs - runnable))}: in the uid sandbox the "
            "build's tools must be where every user can run them (system packages, /usr/local, "
            "or the project's .venv made from such a Python)")
    done = subprocess.run(chosen.command(["id", "-u"], "run", uid=UID_BASE),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    if done.returncode != 0 or done.stdout.strip() != str(UID_BASE):
        raise sandbox.SandboxUnavailable("setpriv could not start a command as another uid here: "
                                         + (done.stderr or done.stdout).strip()[-300:])
    return chosen


def hide_secrets(box, settings):
    """Make the report private and the work folder unlistable, then check, as the uids student
    code compiles and runs as, that no secret of the grader can be read (the report, the seed
    file, the work folder's salt and data, the project's answers); RuntimeError naming those
    that can."""
    os.chmod(settings.report.root, 0o700)
    os.chmod(settings.work.root, 0o711)
    own = [settings.report.root, settings.work.root, settings.submissions]
    secret = [settings.report.root, settings.work.seed_salt, settings.work.data_dir]
    secret += [settings.seed_file] if settings.seed_file else []
    secret = [p for p in secret if os.path.lexists(p)] + project.answer_paths(project.ROOT, own)
    for uid in (box.compile_uid, UID_BASE):
        try:
            readable = box.readable(secret, uid)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
            raise RuntimeError(f"no sandbox for student code: {error}") from None
        if readable:
            readable.sort(key=lambda p: (not any(k in p for k in ("solutions", "answers")), p))
            raise RuntimeError(
                f"no sandbox for student code: the uid sandbox cannot hide {len(readable)} "
                f"file(s) student code must not read (uid {uid} can read {', '.join(readable[:4])}"
                f"{' ...' if len(readable) > 4 else ''}): grade from the students' copy of the "
                "project (grade_pl.py export DIR), or chmod go-rwx them")


def world_writable_folders(gid):
    """Folders any uid of the sandbox may create files in: writable by others, or by group `gid`
    (the run user's group)."""
    found = []
    for directory, subdirs, _ in os.walk("/"):
        subdirs[:] = [d for d in subdirs if os.path.join(directory, d) not in NOT_WALKED
                      and not os.path.islink(os.path.join(directory, d))]
        try:
            st = os.lstat(directory)
        except OSError:
            continue
        if st.st_mode & 0o002 or (st.st_gid == gid and st.st_mode & 0o020):
            found.append(directory)
    return found


def network_interfaces_up():
    names = []
    for name in sorted(os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else []:
        try:
            with open(f"/sys/class/net/{name}/operstate") as f:
                state = f.read().strip()
        except OSError:
            continue
        if name != "lo" and state in ("up", "unknown"):
            names.append(name)
    return names


def remove_owned(folder, uid):
    """Remove what `uid` owns directly in `folder` (a folder of it with all it holds)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)  # never follows a link
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def remove_ipc(uid):
    """Remove the System V shared memory segments, message queues and semaphore sets `uid`
    owns or made (they outlive their processes)."""
    for kind, option in (("shm", "-m"), ("msg", "-q"), ("sem", "-s")):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                header, *rows = [line.split() for line in f]
        except OSError:
            continue
        for row in rows:
            record = dict(zip(header, row))
            if str(uid) in (record.get("uid"), record.get("cuid")):
                subprocess.run(["ipcrm", option, record.get("shmid") or record.get("msqid")
                                or record.get("semid")], capture_output=True, timeout=30)
