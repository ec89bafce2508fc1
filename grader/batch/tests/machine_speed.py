"""How much slower than the reference machine this one runs now: the factor the batch's tests
scale their time limits by (the `--timeout` of a graded run, the wait for a run to end), so a busy
or slow machine stretches them instead of failing a correct submission on time. The one place
that defines it.

Measured once per test process on a small calibrated workload (a fixed loop of integer arithmetic,
timed by the wall clock: it counts both a slower CPU and a CPU shared with other work), against
its time on the reference machine: a quiet 2-core AMD EPYC, Python 3.11, the machine type CI and
the issue's timings used. Never below 1 (a fast machine keeps the limits as written) nor above
MAX_SCALE. GRADER_TIME_SCALE=F gives the factor instead; the first measurement sets it for the
processes a test starts."""
import os
import time

ENV = "GRADER_TIME_SCALE"
REFERENCE_S = 0.0053  # the median WORK's time on the reference machine, quiet
WORK = 100_000        # loop turns of the workload
REPEATS = 7
MAX_SCALE = 3.0  # a hang costs the timeout: the fixture class waits out 7 of them


def workload(turns=WORK):
    total = 0
    for i in range(turns):
        total += i * i % 7
    return total


def measure(clock=time.perf_counter, repeats=REPEATS):
    """The median wall-clock seconds of the workload here, now."""
    times = []
    for _ in range(repeats):
        started = clock()
        workload()
        times.append(clock() - started)
    return sorted(times)[len(times) // 2]


def factor_of(seconds):
    """The time-limit factor for a workload that took `seconds` here."""
    return min(MAX_SCALE, max(1.0, seconds / REFERENCE_S))


def scale(env=None, measured=None):
    """The factor: GRADER_TIME_SCALE where set, else measured (once: the result is stored there)."""
    env = os.environ if env is None else env
    given = env.get(ENV)
    if given:
        try:
            value = float(given)
        except ValueError:
            raise ValueError(f"{ENV}={given!r} is not a number (a factor such as 1.5)") from None
        if value <= 0:
            raise ValueError(f"{ENV}={given!r}: the factor must be above 0")
        return value
    factor = factor_of(measure() if measured is None else measured)
    env[ENV] = f"{factor:.2f}"
    return float(env[ENV])


def seconds(limit):
    """`limit` (seconds on the reference machine) as a limit for this machine now, as text for a
    command line."""
    return f"{limit * scale():.0f}"
