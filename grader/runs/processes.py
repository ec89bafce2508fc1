"""The process groups a grading run starts, so that an interrupted run stops them all.

Every program the harness starts runs in a process group (a session) of its own, registered here
while it runs: a checker (its runner, the student's code, dies with it: grader/runner/
child_process.cpp), and for grade.py also meson, ninja and the compilers ninja starts. Ctrl-C
(interrupt_stops_everything) then stops every group, waits a moment for them to go, kills what is
left and exits with one line, no traceback.
"""
import os
import signal
import subprocess
import sys
import threading
import time

STOP_GRACE_S = 2.0  # after SIGTERM (ninja stops its compilers), before SIGKILL
INTERRUPTED_EXIT = 130  # as a shell reports a program ended by SIGINT


class ProcessRegistry:
    """The process groups running now, so an interrupted run can stop them all."""

    def __init__(self):
        self._lock = threading.Lock()
        self._groups = set()

    def add(self, pgid):
        with self._lock:
            self._groups.add(pgid)

    def remove(self, pgid):
        with self._lock:
            self._groups.discard(pgid)

    def groups(self):
        with self._lock:
            return list(self._groups)

    def kill_all(self):
        for pgid in self.groups():
            kill_group(pgid)

    def stop_all(self, grace_s=STOP_GRACE_S):
        """SIGTERM to every group (ninja then stops the compilers it started, each in a group of
        its own), up to `grace_s` for them to end, then SIGKILL to what is left."""
        groups = self.groups()
        for pgid in groups:
            signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and any(group_alive(pgid) for pgid in groups):
            time.sleep(0.05)
        for pgid in groups:
            kill_group(pgid)
            group_alive(pgid)  # reaps the leader


REGISTRY = ProcessRegistry()
STOP = threading.Event()  # set when the run is interrupted: start no new process


def signal_group(pgid, number):
    try:
        os.killpg(pgid, number)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(pgid):
    signal_group(pgid, signal.SIGKILL)


def group_alive(pgid):
    """Whether a process of the group is left (its leader, our child, reaped once it ended)."""
    try:
        os.waitpid(pgid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_grouped(command, capture_output=False, text=False, timeout=None, **popen_args):
    """subprocess.run, with the program in a process group of its own, registered while it runs."""
    if capture_output:
        popen_args.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with subprocess.Popen(command, start_new_session=True, text=text, **popen_args) as process:
        REGISTRY.add(process.pid)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(process.pid)
            process.communicate()
            raise
        finally:
            kill_group(process.pid)  # whatever it left behind in its group
            REGISTRY.remove(process.pid)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def interrupt_stops_everything(what):
    """On SIGINT (Ctrl-C) or SIGTERM: stop every registered group, say so in one line, exit 130."""
    def stop(number, _frame):
        STOP.set()
        for handled in (signal.SIGINT, signal.SIGTERM):
            signal.signal(handled, signal.SIG_IGN)  # a second Ctrl-C does not cut the clean-up short
        REGISTRY.stop_all()
        name = "Ctrl-C" if number == signal.SIGINT else signal.Signals(number).name
        try:
            sys.stdout.flush()
        except (OSError, ValueError, RuntimeError):
            pass  # the main thread was writing: what it had is lost, not the line below
        os.write(2, f"\n{what} stopped ({name}); every program it had started is stopped too.\n"
                 .encode())
        os._exit(INTERRUPTED_EXIT)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
