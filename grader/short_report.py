"""The score table's short view, what grade.py prints unless --verbose: the table (the figure
columns no lab has left out, and those the terminal cannot hold); the speed tiers and Why lines
of the labs that pass a test; each lab's first failure, with the hints of its failures, each
hint once with the tests it covers; one technique line a lab that passes a test (--technique:
each check, whole); every line wrapped at words to the terminal's width (terminal.py). The
results files, the failures files and `report.py --verbose` keep every detail.
"""
import os

import report
import terminal
from explain import explanations
from runs.results import telling_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HINTS_SHOWN = 2  # a lab's hints, each once
MESSAGE_LINES = 3  # a first failure's line, wrapped, at most


def main_passed(lab):
    """Whether a lab passes at least one of its main (correctness) tests."""
    return any(t.get("kind") == "main" and t["status"] == "passed" for t in lab["tests"])


def shown(path):
    relative = os.path.relpath(path, ROOT) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


def hints(failed):
    """[(hint, [tests it is given for])] of a lab's failed tests, in the order they first come."""
    found = {}
    for test in failed:
        for hint in report.hint_lines(test["message"]):
            found.setdefault(hint, []).append(test["name"].split(".")[-1])
    return list(found.items())


def covers(tests, failed):
    if len(tests) == 1:
        return tests[0]
    if len(tests) == len(failed):
        return f"all {len(tests)} failed tests"
    return f"{len(tests)} tests: {', '.join(tests[:2])}{', …' if len(tests) > 2 else ''}"


def failure_lines(results, results_dir):
    """(text, indent, most) of each lab's first failure and its hints."""
    out = []
    for lab in (r for r in results if not r["lab"].endswith("-technique")):
        failed = [t for t in lab["tests"] if t["status"] == "failed"]
        if not failed:
            continue
        first = failed[0]
        out.append((f"{lab['lab']}, {len(failed)} failed: {first['name']}: {telling_line(first['message'])}",
                    "  ", MESSAGE_LINES))
        own = [h for h in hints(failed) if first["name"].split(".")[-1] in h[1]]
        for hint, tests in (own + [h for h in hints(failed) if h not in own])[:HINTS_SHOWN]:
            out.append((f"{hint.replace('hint: ', 'hint (' + covers(tests, failed) + '): ', 1)}", "    ", 2))
    if out:
        out.insert(0, (f"Failed tests, each lab's first (all: {results_dir}/labNN-failures.txt):", "", None))
    return out


def technique_lines(results, whole):
    """One line a lab whose checks ran and which passes a correctness test: checks passed (or,
    not graded, would pass) of all; `whole`: each check, its verdict and its message."""
    out = []
    for checks in (r for r in results if r["lab"].endswith("-technique")):
        lab = checks["lab"][:-len("-technique")]
        own = next((r for r in results if r["lab"] == lab), None)
        if whole:
            out.append((f"{lab} technique checks:", "", None))
            for check in checks["tests"]:
                out.append((f"{check['name'].split('.')[-1]}: {check['status']}", "  ", None))
                out += [(line.strip(), "    ", None) for line in check["message"].splitlines() if line.strip()]
            continue
        if not checks["tests"] or own is None or not main_passed(own):
            continue
        tests = checks["tests"]
        graded = [t for t in tests if t["status"] != "skipped"]
        shows = f" — grade.py --labs {lab[3:]} --technique shows each"
        if graded:
            passed = sum(t["status"] == "passed" for t in tests)
            out.append((f"{lab} technique: {passed} of {len(tests)} checks pass{shows}", "", None))
        else:
            would = sum("would pass" in t["message"] for t in tests)
            out.append((f"{lab} technique, advice only (not graded here): {would} of {len(tests)} would "
                        f"pass{shows}", "", None))
    return out


def show(build_dir, results, not_run, missing, technique=False):
    say = terminal.say
    first = (results or [{"backend": "?", "device": "?", "submission": "?"}])[0]
    print()
    say(f"Score table - backend {first['backend']}, device: {first['device']}, "
        f"submission: {shown(first['submission'])}")
    print(report.table(results, not_run, missing, columns=terminal.width()))
    total = sum(r["score"] for r in results), sum(r["max_score"] for r in results)
    print(f"Total: {total[0]:g} / {total[1]:g} points" + (" (labs run this time)" if not_run else ""))
    passing = [r for r in results if main_passed(r)]
    tiers = report.tier_lines(passing)
    if tiers:
        say("Speed tests (% of bw: of the read, or copy, bandwidth measured in this run):")
        for line in tiers:
            say(line.strip(), indent="  ")
    explained = [(lab["lab"], line) for lab in results for line in explanations.lines(lab)]
    if explained:
        say("Why: your kernels' counters beside the reference's (CPU model unless said; "
            "grade.py --explain labNN shows them all):")
        for lab, line in explained:
            say(f"{lab} {line}", indent="  ")
    results_dir = os.path.relpath(os.path.join(build_dir, "results"))
    raced = report.race_lines(results, results_dir)
    if raced:
        say(report.races_heading(results))
        for line in raced:
            say(line, indent="  ", most=3)
    for text, indent, most in failure_lines(results, results_dir) + technique_lines(results, technique):
        say(text, indent=indent, most=most)
    for lab in missing:
        say(f"{lab}: see {results_dir}/{lab}-output.txt", indent="  ")
    skipped = [t for lab in results for t in lab["tests"] if t["status"] == "skipped" and t.get("kind") != "check"]
    if skipped:
        reason = (skipped[0]["message"].strip().splitlines() or [""])[-1]
        say(f"{len(skipped)} test(s) skipped; e.g. {skipped[0]['name']}: {reason}", most=2)
    try:
        with open(os.path.join(build_dir, "backend-reason.txt")) as f:
            reason = f.read().strip()
    except OSError:
        reason = ""
    if reason:
        say(f"CPU backend, speed tests skipped: {reason}", most=2)
    passed, failed, skipped_count = (sum(c) for c in zip(*(report.counts(lab) for lab in results))) \
        if results else (0, 0, 0)
    print(f"{passed} passed, {failed} failed, {skipped_count} skipped", flush=True)
    return 1 if failed or missing else 0
