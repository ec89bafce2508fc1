"""What a student sees while a lab grades: a line whenever PROGRESS_EVERY_S seconds passed without
one ("  lab01: 12/20 tests, 41 s, running Lab01GridStride.MatchesCpuOnUniformSamples"), and a line
at once when a test runs out of time, with its reason. Never a line per test: a lab that grades in
seconds prints nothing here.

harness.run_tests calls tick() while it waits on a checker and timed_out() for each test it or the
checker stopped for time.
"""
import time

from runs.results import telling_line  # a message's first line without GoogleTest's framing

PROGRESS_EVERY_S = 10


class LabProgress:
    def __init__(self, lab, total, limit_s=None, write=None, every_s=PROGRESS_EVERY_S,
                 clock=time.monotonic):
        """`limit_s`: how long a test may run (said of a test running long)."""
        self.lab, self.total, self.limit_s, self.every_s, self.clock = lab, total, limit_s, every_s, clock
        self.write = write or (lambda line: print(line, flush=True))
        self.started = self.last_line = clock()
        self.current, self.current_since = None, None
        self.done_before = 0  # outcomes of earlier runs of the same lab (grade.py's two phases)

    def start_phase(self, done_before):
        """A later run of the same lab (grade.py: its speed tests after the others): its lines
        count on from `done_before` outcomes and its clock starts now, not while it waited."""
        self.done_before = done_before
        self.started = self.last_line = self.clock()

    def say(self, text):
        self.write(f"  {self.lab}: {text}")
        self.last_line = self.clock()

    def tick(self, done, current):
        """`done` tests have their outcome; `current` runs now (None between tests)."""
        now = self.clock()
        if current != self.current:
            self.current, self.current_since = current, now
        if now - self.last_line < self.every_s:
            return
        line = f"{self.done_before + done}/{self.total} tests, {now - self.started:.0f} s"
        if current:
            line += f", running {current}"
            if now - self.current_since >= self.every_s:
                allowed = f" of {self.limit_s:g} s allowed" if self.limit_s else ""
                line += f" (for {now - self.current_since:.0f} s{allowed})"
        self.say(line)

    def timed_out(self, outcome):
        first = telling_line(outcome.message) if outcome.message.strip() else "timed out"
        self.say(f"{outcome.name} failed: {first}")
