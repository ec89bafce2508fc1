"""What a harness run of a checker yields (harness.py, attempt.py): each test's outcome, each
process's attempt, and the run's result; the constants both read."""
import re
from dataclasses import dataclass, field

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
    # The evidence pass (technique/evidence.py): per call, what its kernels executed, as the
    # checker reported it: {"function", "collected", "unavailable", "entries": [[kernel, pc, kind,
    # bytes, warps, threads, sectors], ...]} and, on the CPU backend, "races": {"races": [witness,
    # ...], "unchecked": [...]} (the race detector's, runs/attempt.py races_from_text).
    evidence: list = field(default_factory=list)


@dataclass
class Attempt:
    command: list
    filter_count: int
    returncode: object = None    # int, or "killed (timeout)" etc.
    reason: str = ""
    started: float = 0.0         # time.monotonic() at its start
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
    evidence: dict = field(default_factory=dict)   # the evidence pass's calls per test (batch)
