"""What a student is shown of their grading (results.json, log.txt): the grader's own words, and
little of what their code printed or threw. Student code sees its hidden inputs and the data file
while it runs; whatever it prints or puts in an exception would otherwise reach the student's
results, so each test's message is capped, and of the lines the runner printed (the checker passes
them on behind RUNNER_PREFIX, grader/runner/process.hpp) only the first few, cut short,
are shown. A message is shown in the grader's own words (runs/results.own_words: no GoogleTest framing).
The instructor's files (grading.json, instructor-log.txt) keep everything."""
from runs.results import own_words  # grader/runs/results.py

RUNNER_PREFIX = "[ runner   ] "
MESSAGE_CHARS = 600        # one test's message, all of it
LINE_CHARS = 300           # any line the grader wrote (a failure may quote an exception's text)
RUNNER_LINES = 8           # lines the runner printed, per lab (the first: a crash's first words)
RUNNER_LINE_CHARS = 100    # of each such line


def _cut(line, limit):
    return line if len(line) <= limit else line[:limit] + f" [... {len(line) - limit} characters cut]"


class RunnerLines:
    """The runner's lines a student may still be shown for one lab (RUNNER_LINES in all)."""

    def __init__(self, budget=RUNNER_LINES):
        self.budget = budget
        self.held_back = 0

    def take(self, line):
        """The line as a student sees it, or None once the budget is spent."""
        if self.budget <= 0:
            self.held_back += 1
            return None
        self.budget -= 1
        return RUNNER_PREFIX + _cut(line[len(RUNNER_PREFIX):], RUNNER_LINE_CHARS)


def _view(text, runner_lines):
    out = []
    for line in text.splitlines():
        if line.startswith(RUNNER_PREFIX):
            shown = runner_lines.take(line)
            if shown is not None:
                out.append(shown)
        else:
            out.append(_cut(line, LINE_CHARS))
    return out


def held_back_note(runner_lines):
    return (f"[... {runner_lines.held_back} more line(s) your code printed: kept for the instructor]"
            if runner_lines.held_back else "")


def message(text):
    """One test's message as a student sees it: the grader's own words first, at most two lines
    of the runner's, and MESSAGE_CHARS in all."""
    lines = RunnerLines(2)
    shown = _cut("\n".join(_view(own_words(text), lines)).strip(), MESSAGE_CHARS)
    return "\n".join(part for part in (shown, held_back_note(lines)) if part)


def run_output(text, runner_lines):
    """A run's captured output as a student sees it; `runner_lines` (a RunnerLines) is shared by
    the runs of one lab."""
    return "\n".join(_view(text or "", runner_lines))
