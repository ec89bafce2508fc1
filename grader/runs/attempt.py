"""One process of a checker over a list of tests (harness.py runs as many as it takes): started
with the results channel's key in a pipe, listened to until it ends or is stopped, and concluded:
a test it was in the middle of fails with the fault that stopped it (a hang, a crash, an exit)."""
import json
import os
import secrets
import selectors
import signal
import subprocess
import time

from runs.outcomes import (KILL_GRACE_S, MAX_CHANNEL_LINE, NEVER_STARTED, OUTPUT_HEAD_BYTES,
                           OUTPUT_TAIL_BYTES, STICKY_ERRORS, TIMED_OUT, WATCHDOG_EXIT, Attempt,
                           TestOutcome)
from runs.processes import REGISTRY, kill_group


class CappedOutput:
    def __init__(self, head=OUTPUT_HEAD_BYTES, tail=OUTPUT_TAIL_BYTES):
        self.head, self.tail_limit = bytearray(), tail
        self.head_limit = head
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data):
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.tail_limit:
                cut = len(self.tail) - self.tail_limit
                self.dropped += cut
                del self.tail[:cut]

    def text(self):
        head = self.head.decode("utf-8", "replace")
        if not self.tail:
            return head
        gap = f"\n[... {self.dropped} bytes of output dropped ...]\n" if self.dropped else ""
        return head + gap + self.tail.decode("utf-8", "replace")


def describe_signal(number):
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    meaning = {"SIGSEGV": "segmentation fault: a read or write outside the program's memory; on "
                          "the CPU backend, often a kernel index past the end of a buffer (a "
                          "missing i < n tail check?)",
               "SIGBUS": "bus error: a misaligned or invalid memory access",
               "SIGABRT": "aborted (abort(), a failed assert, or an uncaught exception)",
               "SIGFPE": "arithmetic fault (an integer division by zero?)",
               "SIGILL": "illegal instruction", "SIGKILL": "killed",
               "SIGXFSZ": "file size limit exceeded: it wrote a file larger than the sandbox allows",
               "SIGXCPU": "CPU time limit exceeded"}.get(name, "")
    return f"{name} ({meaning})" if meaning else name


def parse_event(line, key):
    """The JSON of a line carrying the key, or None for a line that does not (forged or torn)."""
    prefix = key + " "
    if not line.startswith(prefix):
        return None
    try:
        event = json.loads(line[len(prefix):])
    except ValueError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("event"), str) else None


def outcome_from_event(event):
    status = event.get("status")
    if status not in ("passed", "failed", "skipped"):
        status = "failed"
    metrics = {k: v for k, v in (event.get("metrics") or {}).items() if isinstance(v, (int, float))}
    tiers = [t for t in (event.get("tiers") or []) if isinstance(t, dict)]
    return TestOutcome(name=str(event.get("test")), status=status,
                       message=str(event.get("message") or ""),
                       kind=event.get("kind") if event.get("kind") in ("main", "edge", "speed")
                       else "main",
                       points=float(event.get("points") or 0),
                       stretch_points=float(event.get("stretch_points") or 0),
                       needs=[str(n) for n in (event.get("needs") or []) if isinstance(n, str)],
                       metrics=metrics, tiers=tiers, evidence=evidence_from_event(event))


def evidence_from_event(event):
    """The end event's evidence, kept where well formed (the checker wrote it; a malformed part is
    dropped, and a check that needs it then finds none)."""
    found = []
    for call in event.get("evidence") or []:
        if not isinstance(call, dict) or not isinstance(call.get("entries"), list):
            continue
        entries = [e for e in call["entries"] if isinstance(e, list) and len(e) == 7
                   and isinstance(e[0], str) and isinstance(e[2], str)
                   and all(isinstance(v, (int, float)) for v in (e[1],) + tuple(e[3:]))]
        kept = {"function": str(call.get("function")), "collected": call.get("collected") is True,
                "unavailable": str(call.get("unavailable") or ""), "entries": entries}
        races = races_from_text(call.get("races"))
        if races is not None:
            kept["races"] = races
        found.append(kept)
    return found


def races_from_text(text):
    """The race detector's witnesses of a call (grader/runner/evidence.hpp, `races`: JSON as text),
    {"races": [witness, ...], "unchecked": [sentence, ...]} where well formed, else None (the
    detector did not watch the call, as where it cannot run)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get("schema") != "cpu-backend-races/v1":
        return None
    witnesses, unchecked = document.get("races"), document.get("unchecked", [])
    if not isinstance(witnesses, list) or not isinstance(unchecked, list):
        return None
    return {"races": [w for w in witnesses if isinstance(w, dict) and isinstance(w.get("first"), dict)],
            "unchecked": [str(u) for u in unchecked]}




def run_attempt(command, tests, env, cwd, timeout, user, result, deadline_total, seed=None,
                wrap=None, progress=None):
    """One process over `tests`; fills result.outcomes; returns the Attempt. `wrap` turns the
    program's command line into the sandboxed one; `seed` (the hidden one) goes in the key pipe;
    `progress` (a progress.LabProgress) hears of the wait and of each test stopped for time."""
    key = secrets.token_hex(24)
    attempt = Attempt(command=command + ["--gtest_filter=" + ":".join(tests)], filter_count=len(tests))
    started = start(attempt, env, cwd, user, key, seed, wrap)
    if started is None:
        return attempt
    process, chan_read = started
    listener = Listener(process, key, tests, timeout, deadline_total, result, attempt, progress)
    output = listener.listen(chan_read)
    conclude(listener, output, wrap)
    return attempt


def start(attempt, env, cwd, user, key, seed, wrap):
    """Starts the program with the channel's descriptors: (process, the channel's read end), or
    None (the attempt then says why)."""
    key_read, key_write = os.pipe()
    chan_read, chan_write = os.pipe()
    child_env = dict(env, GRADER_RESULTS_CHANNEL=f"{key_read},{chan_write}")
    # The key (and the hidden seed) wait in the pipe, far smaller than its buffer, for the grader
    # to read: neither is ever in the program's environment or arguments.
    os.write(key_write, key.encode() + b"\n" + (f"seed {seed}\n".encode() if seed is not None else b""))
    os.close(key_write)
    popen_user = dict(user=user.uid, group=user.gid, extra_groups=[]) if user is not None else {}
    attempt.started = time.monotonic()
    try:
        process = subprocess.Popen(wrap(attempt.command) if wrap else attempt.command, cwd=cwd,
                                   env=child_env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   pass_fds=(key_read, chan_write), start_new_session=True,
                                   **popen_user)
    except OSError as error:
        os.close(key_read), os.close(chan_write), os.close(chan_read)
        attempt.returncode, attempt.reason = "not started", f"could not start the program: {error}"
        return None
    os.close(key_read)
    os.close(chan_write)
    REGISTRY.add(process.pid)
    try:
        import resource
        resource.prlimit(process.pid, resource.RLIMIT_CORE, (0, 0))  # no core files
    except (OSError, ValueError, AttributeError):
        pass
    return process, chan_read


class Listener:
    """Reads a started program's output and its results channel until it ends, stopping it for
    time (the per-test timeout, the submission's budget) and after a sticky error or a runner that
    never started. `current`: the test it is in; `killed_for`: why it was stopped, if it was."""

    def __init__(self, process, key, tests, timeout, deadline_total, result, attempt, progress):
        self.process, self.key, self.tests, self.timeout = process, key, tests, timeout
        self.deadline_total, self.result, self.attempt, self.progress = deadline_total, result, attempt, progress
        self.current, self.killed_for = None, ""
        self.deadline = attempt.started + timeout

    def handle_line(self, raw):
        line = raw.decode("utf-8", "replace")
        event = parse_event(line, self.key)
        if event is None:
            self.result.forged_lines += 1
            if len(self.result.forged_samples) < 3:
                self.result.forged_samples.append(line[:200])
            return
        if self.killed_for:
            return  # what the process said after it was stopped is not believed (sticky error)
        kind, now = event["event"], time.monotonic()
        if kind == "hello":
            self.result.hello = {k: event.get(k) for k in ("backend", "device", "seed")}
        elif kind == "start":
            self.current = str(event.get("test"))
            self.deadline = now + self.timeout
        elif kind == "end":
            self.ended(outcome_from_event(event), now)

    def ended(self, outcome, now):
        if outcome.status == "failed" and TIMED_OUT in outcome.message:
            outcome.fault = "timeout"  # the checker stopped a call into the code for time
            if self.progress:
                self.progress.timed_out(outcome)
        if outcome.name in self.tests and outcome.name not in self.result.outcomes:
            self.result.outcomes[outcome.name] = outcome
        self.current = None
        self.deadline = now + self.timeout
        if outcome.status == "failed" and NEVER_STARTED in outcome.message:
            self.stop("never_started")
            self.attempt.reason = outcome.message
        elif outcome.status == "failed" and STICKY_ERRORS.search(outcome.message):
            self.stop("sticky")

    def stop(self, why):
        self.killed_for = why
        kill_group(self.process.pid)

    def listen(self, chan_read):
        """Until the program and its pipes are done; returns its CappedOutput."""
        output, pending, exited_at = CappedOutput(), b"", None
        selector = selectors.DefaultSelector()
        out_fd = self.process.stdout.fileno()
        for fd in (out_fd, chan_read):
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        open_fds = {out_fd, chan_read}
        while open_fds:
            now = time.monotonic()
            if self.progress:
                self.progress.tick(len(self.result.outcomes), self.current)
            if exited_at is None and self.process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > KILL_GRACE_S:
                break  # a descendant holds a pipe open: stop listening
            if exited_at is None and not self.killed_for:
                if now > self.deadline:
                    self.stop("timeout")
                elif now > self.deadline_total:
                    self.stop("budget")
            wait = 0.1 if exited_at is not None else max(0.01, min(self.deadline, self.deadline_total) - now)
            for key_event, _ in selector.select(timeout=min(wait, 0.25)):
                fd = key_event.fd
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(fd)
                    open_fds.discard(fd)
                    continue
                if fd == out_fd:
                    output.add(data)
                    continue
                pending += data
                while b"\n" in pending:
                    raw, pending = pending.split(b"\n", 1)
                    self.handle_line(raw)
                if len(pending) > MAX_CHANNEL_LINE:
                    self.result.forged_lines += 1
                    pending = b""
        selector.close()
        os.close(chan_read)
        return output


def conclude(listener, output, wrap):
    """The ended program's attempt: its status and reason, and the fault of the test it was in."""
    process, attempt, result, current = listener.process, listener.attempt, listener.result, listener.current
    kill_group(process.pid)  # whatever of its group is left
    returncode = process.wait()
    if wrap and 128 < returncode < 128 + 65:
        returncode = 128 - returncode  # bwrap exits 128+N when its command died of signal N
    REGISTRY.remove(process.pid)
    process.stdout.close()
    attempt.duration_s = time.monotonic() - attempt.started
    attempt.output, attempt.dropped_bytes = output.text().replace(listener.key, "[key]"), output.dropped
    tail = "\n".join(attempt.output.rstrip().splitlines()[-12:])
    timeout, killed_for = listener.timeout, listener.killed_for
    if killed_for == "timeout":
        attempt.returncode = "killed"
        attempt.reason = (f"{current} did not finish within {timeout:g} s" if current else
                          f"the program did not go on within {timeout:g} s (outside any test)")
        fault, why = "timeout", (f"timed out: still running after {timeout:g} s (an endless loop, or "
                                 f"a kernel far too slow?); the grader killed it")
    elif killed_for == "budget":
        attempt.returncode = "killed"
        attempt.reason = "the submission's time budget ran out"
        fault, why = "budget", "not finished when the submission's time budget ran out"
    elif killed_for == "never_started":
        attempt.returncode = "stopped"
        fault, why = "", ""
    elif killed_for == "sticky":
        attempt.returncode = "stopped"
        attempt.reason = "stopped after a sticky CUDA error; the remaining tests run in a new process"
        fault, why = "", ""
    elif returncode == WATCHDOG_EXIT and "[ watchdog ]" in tail:
        attempt.returncode = returncode
        attempt.reason = f"{current} overstayed the program's own watchdog"
        fault, why = "timeout", ("timed out: " + next(line for line in tail.splitlines()
                                                      if "[ watchdog ]" in line).split("] ", 1)[1])
    elif returncode < 0:
        attempt.returncode = returncode
        attempt.reason = f"the program crashed: {describe_signal(-returncode)}"
        fault, why = "crash", f"crashed during this test: {describe_signal(-returncode)}"
    else:
        attempt.returncode = returncode
        attempt.reason = "" if current is None else f"the program exited (status {returncode}) during {current}"
        fault, why = "exit", (f"the program exited (status {returncode}) in the middle of this test, "
                              "without the grader's verdict: exiting early earns nothing")
    if current is not None and current not in result.outcomes and why:
        message = why + (("\nlast lines of output:\n" + tail) if tail and fault != "timeout" else "")
        result.outcomes[current] = TestOutcome(name=current, status="failed", message=message,
                                               fault=fault)
        if listener.progress and fault == "timeout":
            listener.progress.timed_out(result.outcomes[current])


