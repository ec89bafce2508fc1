"""The last lines of `grade.py --project-tests`: each skipped and failed test, then the counts; a test
with the first line of its output that says why, read from meson's JSON test log
(BUILD/meson-logs/testlog.json: one object a line, with name, result, returncode, duration, stdout
and stderr). A test's "why" is, by the kind of program: a Python unittest's failing test and its
exception line; a GoogleTest's failed test and its message in the grader's own words
(runs/results.own_words); a script's own "FAIL..."/"error:" line; else its last line of output."""
import json
import os
import re

from runs.results import shorten, telling_line  # grader/runs/results.py

FAILED = ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS")
PASSED = ("OK", "EXPECTEDFAIL")
SHOWN = 15        # failed tests named; then how many more
SKIPS_SHOWN = 10  # skipped tests named, with their reason
LINE_CHARS = 220
NAME = re.compile(r"^(?P<suite>.+?) - (?P<project>[^:]+):(?P<name>.+)$")
UNITTEST_HEAD = re.compile(r"^(FAIL|ERROR): (\S+)")
GTEST_FAILED = re.compile(r"^\[  FAILED  \] (\S+) \(\d+ ms\)")
SCRIPT_FAIL = re.compile(r"^(FAIL\b|FAILED\b|error\b|ERROR\b|Error\b)", re.I)
NOISE = re.compile(r"ResourceWarning|^\s*$|^-+$|^=+$|^Ran \d+ tests? in|^FAILED \(|^OK\b")


def log_path(build_dir):
    return os.path.join(build_dir, "meson-logs", "testlog.json")


def read(build_dir):
    """The test log's entries (a line that is not JSON, e.g. cut short, is left out)."""
    entries = []
    with open(log_path(build_dir), encoding="utf-8", errors="replace") as log:
        for line in log:
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue
    return entries


def counts(entries):
    """(passed, failed, skipped), as meson counts results: its exit status is not a count."""
    results = [e.get("result", "ERROR") for e in entries]
    return (sum(r in PASSED for r in results), sum(r in FAILED for r in results),
            results.count("SKIP"))


def display_name(entry):
    """"suite/test name" from meson's "suite - project:test name"."""
    match = NAME.match(entry.get("name", "?"))
    return f"{match['suite']}/{match['name']}" if match else entry.get("name", "?")


def _output(entry):
    return ((entry.get("stdout") or "") + "\n" + (entry.get("stderr") or "")).splitlines()


def _unittest_reason(lines):
    """"test_x: AssertionError: ..." of the first failing unittest test, or None."""
    for i, line in enumerate(lines):
        head = UNITTEST_HEAD.match(line)
        if not head:
            continue
        following = lines[i + 1:]
        for j, later in enumerate(following):
            if later.startswith("Traceback (most recent call last):"):
                error = next((x for x in following[j + 1:] if x and not x[0].isspace()), "")
                more = sum(bool(UNITTEST_HEAD.match(x)) for x in lines[i + 1:])
                return (f"{head.group(2)}: {error.strip() or head.group(1)}"
                        + (f" (and {more} more)" if more else ""))
            if UNITTEST_HEAD.match(later):
                break
    return None


def _gtest_reason(lines):
    """"Suite.Test: message" of the first failed GoogleTest test, or None."""
    failed = [(i, m.group(1)) for i, m in ((i, GTEST_FAILED.match(x)) for i, x in enumerate(lines)) if m]
    if not failed:
        return None
    end, name = failed[0]
    start = max((i for i, x in enumerate(lines[:end]) if x.startswith("[ RUN      ] ")), default=0)
    why = telling_line("\n".join(x for x in lines[start + 1:end] if not x.startswith("[")))
    more = len({n for _, n in failed}) - 1
    return f"{name}: {why}" + (f" (and {more} more failed tests)" if more > 0 else "")


def reason(entry):
    """The first line of a failed test's output that says what went wrong."""
    lines = _output(entry)
    why = _unittest_reason(lines) or _gtest_reason(lines)
    if why is None:
        why = next((x.strip() for x in lines if SCRIPT_FAIL.match(x.strip()) and not NOISE.search(x)),
                   None)
    if why is None:
        meaningful = [x.strip() for x in lines if not NOISE.search(x)]
        why = meaningful[-1] if meaningful else f"exit status {entry.get('returncode')}, no output"
    if entry.get("result") == "TIMEOUT":
        why = f"timed out after {entry.get('duration', 0):.0f} s; last: {why}"
    elif (entry.get("returncode") or 0) < 0:
        why = f"killed by signal {-entry['returncode']}; {why}"
    return shorten(why, LINE_CHARS)


def skip_reason(entry):
    """Why a test skipped: a GoogleTest skip's message (the line after "file:line: Skipped"), else
    its last line that says "skip" (not a "[ SKIP ] name" marker), else its first line."""
    lines = [x.strip() for x in _output(entry) if not NOISE.search(x)]
    for line, after in zip(lines, lines[1:]):
        if line.endswith(": Skipped"):
            return shorten(after, LINE_CHARS)
    said = [x for x in lines if "skip" in x.lower() and not x.startswith("[")]
    return shorten(said[-1] if said else (lines or ["(no reason given)"])[0], LINE_CHARS)


def summary_lines(entries):
    """SKIPPED lines (each test and why), then FAILED lines, then the counts: the run's last
    lines, the failures nearest the end."""
    failed = [e for e in entries if e.get("result") in FAILED]
    skipped = [e for e in entries if e.get("result") == "SKIP"]
    lines = [f"SKIPPED {display_name(e)}: {skip_reason(e)}" for e in skipped[:SKIPS_SHOWN]]
    if len(skipped) > SKIPS_SHOWN:
        lines.append(f"... and {len(skipped) - SKIPS_SHOWN} more skipped tests")
    lines += [f"FAILED {display_name(e)}: {reason(e)}" for e in failed[:SHOWN]]
    if len(failed) > SHOWN:
        lines.append(f"... and {len(failed) - SHOWN} more failed tests (the full log names them)")
    passed, failed_count, skipped_count = counts(entries)
    lines.append(f"{passed} passed, {failed_count} failed, {skipped_count} skipped")
    return lines
