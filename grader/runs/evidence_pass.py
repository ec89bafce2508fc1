"""The technique checks' evidence pass: the correctness tests a lab's checks need, run once more by
the same harness, with the runner in evidence mode (grader/runner/evidence.hpp: it counts what each
call's kernels execute) and never timed; what each test's calls executed is written to
evidence/labNN.json in the results folder (not a results document: report.py reads the folder's
own files only), where the checks read it (technique/evidence.py).
grade.py and grade_lab.py (student_runs.py) and the batch (batch/session.py) run it alike, after
the lab's tests, on the tests of those that passed.

evidence/labNN.json: {"schema": SCHEMA, "lab": "lab03", "tests": {"Suite.Test": [call, ...]}}, a
call as the harness keeps it (runs/outcomes.py, TestOutcome.evidence).
"""
import json
import os

SCHEMA = "gpu-histogram-workbook/evidence/v1"


def path(results_dir, lab):
    return os.path.join(results_dir, "evidence", f"{lab}.json")


def needed_tests(check_tests):
    """The tests the checks of `check_tests` (meson test dicts of a lab's technique checks) need,
    where a check asks what ran (--ran), in run order of appearance."""
    needed = []
    for test in check_tests:
        command = test.get("cmd", [])
        if "--ran" not in command:
            continue
        for i, arg in enumerate(command[:-1]):
            if arg == "--needs":
                for name in command[i + 1].partition("=")[2].split(","):
                    if name and name not in needed:
                        needed.append(name)
    return needed


def passed(outcomes, names):
    """Of `names`, those that passed in the lab's run (the only ones worth evidence)."""
    return [n for n in names if n in outcomes and outcomes[n].status == "passed"]


def write(results_dir, lab, outcomes):
    """evidence/labNN.json from the evidence pass's outcomes {test: TestOutcome}."""
    document = {"schema": SCHEMA, "lab": lab,
                "tests": {name: outcome.evidence for name, outcome in outcomes.items()}}
    os.makedirs(os.path.dirname(path(results_dir, lab)), exist_ok=True)
    target = path(results_dir, lab)
    with open(target + ".partial", "w", encoding="utf-8") as f:
        json.dump(document, f)
    os.replace(target + ".partial", target)
    return target


def clear(results_dir, lab):
    """No evidence from an earlier run: a check that finds none fails closed, saying so."""
    try:
        os.remove(path(results_dir, lab))
    except FileNotFoundError:
        pass

