"""Run one lab program of one submission and learn each test's verdict from the grader itself.

The verdicts come through a private channel (grader/core/results_channel.cpp): a pipe whose lines
carry a per-run key that only the grader's listener knows, so what the submission prints, and the
exit status, count for nothing. The runner also keeps one submission's faults to itself:

- a test that does not finish within the per-test timeout is killed and reported as a hang (a
  checker given a limit of its own, as grade.py's is, stops the call first, names the function,
  and gives that function's later calls only a short probe: one hang costs the limit once);
- a crash (a signal, an exit() in the middle of a test) fails the test that was running;
- a sticky CUDA error (illegal address, launch failure) fails its test, and the process is
  stopped, since every later GPU call in it would fail too;
in each case the tests that have not reported yet run again in a fresh process, so one fault
costs one test; but a runner that never reaches main() (code run before it hangs: the checker
says so, grader/remote/runner_process.cpp) would never start in a fresh process either, so the
remaining tests fail at once with that reason instead of each waiting out its timeout. Output is
captured up to a cap, the rest counted and dropped.
"""
import json
import os
import re
import secrets
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

from runs.processes import REGISTRY, STOP, kill_group  # noqa: F401  (the batch stops them)
from runs.unfair_timing import retry_unfair_timings

OUTPUT_HEAD_BYTES = 48 * 1024   # of each attempt's output, the first ...
OUTPUT_TAIL_BYTES = 16 * 1024   # ... and the last bytes are kept
MAX_CHANNEL_LINE = 1 << 20
KILL_GRACE_S = 0.5
WATCHDOG_EXIT = 124  # grader/core/watchdog.hpp: a test overstayed GRADER_TEST_TIMEOUT
NEVER_STARTED = "the process running your code never started"  # the checker's words (kNeverStarted)
TIMED_OUT = "the process running your code did not finish within"  # the checker's (kDidNotFinish)

# CUDA errors after which the context is unusable: every later call in the process fails too.
STICKY_ERRORS = re.compile(
    r"cudaError(IllegalAddress|LaunchFailure|IllegalInstruction|MisalignedAddress|"
    r"InvalidAddressSpace|InvalidPc|HardwareStackError|Assert|LaunchTimeout|ECCUncorrectable|"
    r"Unknown|ContextIsDestroyed)|\bsticky\b")


@dataclass
class TestOutcome:
    name: str
    status: str                  # passed, failed, skipped
    message: str = ""
    kind: str = "main"           # main, edge or speed (grader/core/results.hpp's TestKind)
    points: float = 0.0          # what the grader says the test is worth (trusted from the reference)
    stretch_points: float = 0.0
    needs: list = field(default_factory=list)  # tests its points need (edge tests; scoring.py)
    metrics: dict = field(default_factory=dict)
    tiers: list = field(default_factory=list)
    fault: str = ""              # timeout, crash, exit, no-result, budget: the harness decided


@dataclass
class Attempt:
    command: list
    filter_count: int
    returncode: object = None    # int, or "killed (timeout)" etc.
    reason: str = ""
    duration_s: float = 0.0
    output: str = ""
    dropped_bytes: int = 0


@dataclass
class RunResult:
    outcomes: dict = field(default_factory=dict)   # name -> TestOutcome
    attempts: list = field(default_factory=list)
    hello: dict = field(default_factory=dict)
    forged_lines: int = 0
    forged_samples: list = field(default_factory=list)


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
                       metrics=metrics, tiers=tiers)


def run_attempt(command, tests, env, cwd, timeout, user, result, deadline_total, seed=None,
                wrap=None, progress=None):
    """One process over `tests`; fills result.outcomes; returns the Attempt. `wrap` turns the
    program's command line into the sandboxed one; `seed` (the hidden one) goes in the key pipe;
    `progress` (a progress.LabProgress) hears of the wait and of each test stopped for time."""
    key = secrets.token_hex(24)
    key_read, key_write = os.pipe()
    chan_read, chan_write = os.pipe()
    full_command = command + ["--gtest_filter=" + ":".join(tests)]
    child_env = dict(env, GRADER_RESULTS_CHANNEL=f"{key_read},{chan_write}")
    attempt = Attempt(command=full_command, filter_count=len(tests))
    # The key (and the hidden seed) wait in the pipe, far smaller than its buffer, for the grader
    # to read: neither is ever in the program's environment or arguments.
    os.write(key_write, key.encode() + b"\n" + (f"seed {seed}\n".encode() if seed is not None else b""))
    os.close(key_write)
    popen_user = {}
    if user is not None:
        popen_user = dict(user=user.uid, group=user.gid, extra_groups=[])
    started = time.monotonic()
    try:
        process = subprocess.Popen(wrap(full_command) if wrap else full_command, cwd=cwd,
                                   env=child_env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   pass_fds=(key_read, chan_write), start_new_session=True,
                                   **popen_user)
    except OSError as error:
        os.close(key_read), os.close(chan_write), os.close(chan_read)
        attempt.returncode, attempt.reason = "not started", f"could not start the program: {error}"
        return attempt
    os.close(key_read)
    os.close(chan_write)
    REGISTRY.add(process.pid)
    try:
        import resource
        resource.prlimit(process.pid, resource.RLIMIT_CORE, (0, 0))  # no core files
    except (OSError, ValueError, AttributeError):
        pass

    output = CappedOutput()
    pending = b""
    current = None
    deadline = started + timeout
    killed_for = ""
    selector = selectors.DefaultSelector()
    out_fd = process.stdout.fileno()
    for fd in (out_fd, chan_read):
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    open_fds = {out_fd, chan_read}
    exited_at = None

    def handle_line(raw):
        nonlocal current, deadline, killed_for
        line = raw.decode("utf-8", "replace")
        event = parse_event(line, key)
        if event is None:
            result.forged_lines += 1
            if len(result.forged_samples) < 3:
                result.forged_samples.append(line[:200])
            return
        kind = event["event"]
        now = time.monotonic()
        if killed_for:
            return  # what the process said after it was stopped is not believed (sticky error)
        if kind == "hello":
            result.hello = {k: event.get(k) for k in ("backend", "device", "seed")}
        elif kind == "start":
            current = str(event.get("test"))
            deadline = now + timeout
        elif kind == "end":
            outcome = outcome_from_event(event)
            if outcome.status == "failed" and TIMED_OUT in outcome.message:
                outcome.fault = "timeout"  # the checker stopped a call into the code for time
                if progress:
                    progress.timed_out(outcome)
            if outcome.name in tests and outcome.name not in result.outcomes:
                result.outcomes[outcome.name] = outcome
            current = None
            deadline = now + timeout
            if outcome.status == "failed" and NEVER_STARTED in outcome.message and not killed_for:
                killed_for = "never_started"
                attempt.reason = outcome.message
                kill_group(process.pid)
            elif outcome.status == "failed" and STICKY_ERRORS.search(outcome.message) and not killed_for:
                killed_for = "sticky"
                kill_group(process.pid)

    while open_fds:
        now = time.monotonic()
        if progress:
            progress.tick(len(result.outcomes), current)
        if exited_at is None and process.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > KILL_GRACE_S:
            break  # a descendant holds a pipe open: stop listening
        if exited_at is None and not killed_for:
            if now > deadline:
                killed_for = "timeout"
                kill_group(process.pid)
            elif now > deadline_total:
                killed_for = "budget"
                kill_group(process.pid)
        wait = 0.1 if exited_at is not None else max(0.01, min(deadline, deadline_total) - now)
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
                handle_line(raw)
            if len(pending) > MAX_CHANNEL_LINE:
                result.forged_lines += 1
                pending = b""
    selector.close()
    kill_group(process.pid)  # whatever of its group is left
    returncode = process.wait()
    if wrap and 128 < returncode < 128 + 65:
        returncode = 128 - returncode  # bwrap exits 128+N when its command died of signal N
    REGISTRY.remove(process.pid)
    os.close(chan_read)
    process.stdout.close()
    attempt.duration_s = time.monotonic() - started
    attempt.output, attempt.dropped_bytes = output.text().replace(key, "[key]"), output.dropped
    tail = "\n".join(attempt.output.rstrip().splitlines()[-12:])

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
        if progress and fault == "timeout":
            progress.timed_out(result.outcomes[current])
    return attempt


def run_tests(command, tests, env, cwd, timeout, user=None, budget_s=None, seed=None, wrap=None,
              progress=None):
    """Every test of `tests` ends with an outcome: its verdict, or the fault that stopped it."""
    result = RunResult()
    remaining = list(tests)
    deadline_total = time.monotonic() + (budget_s if budget_s else float("inf"))
    while remaining and not STOP.is_set():
        if time.monotonic() >= deadline_total:
            for name in remaining:
                result.outcomes[name] = TestOutcome(
                    name, "failed", "not run: the submission's time budget was spent (on earlier "
                    "hangs?)", fault="budget")
            break
        before = len(result.outcomes)
        attempt = run_attempt(command, remaining, env, cwd, timeout, user, result, deadline_total,
                              seed=seed, wrap=wrap, progress=progress)
        result.attempts.append(attempt)
        remaining = [name for name in remaining if name not in result.outcomes]
        if remaining and NEVER_STARTED in attempt.reason:
            for name in remaining:
                result.outcomes[name] = TestOutcome(name, "failed", attempt.reason, fault="no-start")
            break
        if remaining and len(result.outcomes) == before:
            why = attempt.reason or f"the program ended (status {attempt.returncode})"
            for name in remaining:
                result.outcomes[name] = TestOutcome(
                    name, "failed", f"no result from the grader: {why} before this test reported",
                    fault="no-result")
            remaining = []
    if not STOP.is_set():
        retry_unfair_timings(result, lambda names: run_attempt(command, names, env, cwd, timeout, user,
                                                               result, deadline_total, seed=seed, wrap=wrap,
                                                               progress=progress))
    return result


def list_tests(command, env, cwd, timeout, user=None, wrap=None):
    """The test names of a trusted program (the reference build), in run order."""
    popen_user = dict(user=user.uid, group=user.gid, extra_groups=[]) if user is not None else {}
    command = command + ["--gtest_list_tests"]
    done = subprocess.run(wrap(command) if wrap else command, env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, **popen_user)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): "
                           f"{(done.stdout + done.stderr)[-2000:]}")
    names, suite = [], None
    for line in done.stdout.splitlines():
        if not line.strip() or line.startswith("[") or line.startswith("Running"):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        elif suite:
            names.append(suite + line.split("#")[0].strip())
    return names
