#!/usr/bin/env python3
"""Two steps of the uid sandbox (uid_sandbox.py) that run as programs of their own, on the
standard library alone:

    python3 -S uid_start.py UID -- COMMAND...   as root, before each command of the sandbox:
        kill every process of UID, then exec COMMAND. So no process of an earlier attempt (a
        detached child of student code) is alive while a fresh checker starts, before it makes
        itself not dumpable (its pipes and environment are its uid's to open until then).
    python3 -S -c "$(cat uid_start.py)" --clear-keyrings   as the uid (given the text, as the
        uid may not reach the project's folder): empty its user, user-session and persistent
        kernel keyrings, which outlive its processes (no namespace holds them; where keyctl is
        refused, as Docker's default profile does, there is nothing to clear).
"""
import ctypes
import os
import signal
import sys
import time

KILL_DEADLINE_S = 10
# keyctl(2): the system call's number per machine, and its operations.
KEYCTL = {"x86_64": 250, "aarch64": 219}
GET_KEYRING_ID, CLEAR, GET_PERSISTENT = 0, 7, 22
USER_KEYRING, USER_SESSION_KEYRING, PROCESS_KEYRING = -4, -5, -2


def processes_of(uid):
    """Processes with `uid` as real, effective or saved uid that have a live thread: a process
    whose main thread has ended shows Z (zombie) in its status while its other threads run, so
    each thread's state is read. The uid from /proc/PID/status, not the folder's owner: a process
    that is not dumpable shows root there."""
    return processes_of_any([uid]).get(uid, [])


def processes_of_any(uids):
    """{uid: [pids]} of the processes of any of `uids` (as processes_of), in one look."""
    wanted, found = {str(u) for u in uids}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except (OSError, ValueError):
            continue
        mine = wanted.intersection(fields.get("Uid", "").split()[:3])
        if mine and _live_thread(pid):
            found.setdefault(int(min(mine)), []).append(int(pid))
    return found


def _live_thread(pid):
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X", "x"):
            return True
    return False


def kill_processes(uid):
    """SIGKILL every process of `uid`, again while any is left (a fork between two looks);
    the pids still alive after KILL_DEADLINE_S."""
    deadline = time.monotonic() + KILL_DEADLINE_S
    while True:
        left = processes_of(uid)
        if not left or time.monotonic() > deadline:
            return left
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)


def clear_keyrings():
    number = KEYCTL.get(os.uname().machine)
    if number is None:
        return f"no keyctl number known for {os.uname().machine}"
    libc = ctypes.CDLL(None, use_errno=True)

    def keyctl(*args):
        return libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    for ring in (keyctl(GET_KEYRING_ID, USER_KEYRING, 0), keyctl(GET_KEYRING_ID, USER_SESSION_KEYRING, 0),
                 keyctl(GET_PERSISTENT, -1, PROCESS_KEYRING)):
        if ring > 0:
            keyctl(CLEAR, ring)
    return None


def main(argv):
    if argv[1:] == ["--clear-keyrings"]:
        problem = clear_keyrings()
        print(problem or "", end="")
        return 1 if problem else 0
    uid, command = int(argv[1]), argv[3:]
    left = kill_processes(uid)
    if left:
        print(f"uid sandbox: {len(left)} process(es) of uid {uid} survived {KILL_DEADLINE_S} s of "
              "SIGKILL; the command was not started", file=sys.stderr)
        return 125
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
