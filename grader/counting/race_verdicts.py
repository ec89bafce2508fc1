"""The race rule of grading on the CPU backend, in one place for grade.py (student_runs.py) and the
batch (batch/technique_evidence.py): a graded function whose race pass shows a data race fails its
correctness tests, with the witness as the message.

The race pass is the evidence pass (runs/evidence_pass.py) on the CPU backend: the graded runner is
the counting build, and in evidence mode with GRADER_RACES=1 it also turns the race detector on
(grader/runner/evidence_cpu.cpp), so each call's evidence carries the witnesses of its launches
(runs/attempt.py keeps them, TestOutcome.evidence's "races"). Which tests it runs (race_tests):
every passed main and edge test, at the sanitizer pass's small sizes (RACE_PASS: at most 64 Ki
elements): every graded function on every input shape its tests choose (tails, all-equal data,
blocks smaller than the bins, one element), since the detector on every graded test at the graded
sizes took lab 01 from 9 s to minutes (grader/cpu_backend/README.md, "Race detector").

A race fails the passed main and edge tests of the suite whose test showed it (the suite is one
graded function's), each with the first witness in a line (counting/races.py one_line: the line,
the array and index, both threads, the handout question). The grade is decided here, in the
grader's process, from what the checker reported; a witness the grader cannot read still fails
the suite, and so does a run the detector did not watch in full (unwatched(): a crash, a timeout,
no witnesses, unchecked global memory), saying so (fail closed).
"""
import os
from dataclasses import replace

from counting import races
from runs import labs as lab_list

SCHEMA_KEY = "races"  # in a lab's results document: results contract, grader/runs/README.md
# The race pass's settings, added to the evidence pass's: the detector on (GRADER_RACES, grader/core/
# run_options.hpp) and the sanitizer pass's small sizes (runs/checker.py).
RACE_PASS = {"GRADER_SMALL_INPUTS": "1", "GRADER_RACES": "1"}
HEAD = "data race (the CPU backend's race detector watched this function's run): "
UNWATCHED = ("not graded on the CPU backend: its race detector could not watch this function's run, "
             "and a run it did not watch earns no points here (run the test alone to see why): ")


def suite_of(test):
    return test.split(".", 1)[0]


def lab_file(lab):
    """The file students fill in for `lab` ("lab03"): lab03_shared_privatization.cu, or None."""
    return next((entry.submission_file for entry in lab_list.discover_labs() if entry.name == lab), None)


def race_tests(outcomes, table=None):
    """The race pass's tests: every main and edge test that passed, in the order of the points
    table [(name, pass, stretch, kind, needs)] (without one, the outcomes' own: the run's)."""
    order = [(row[0], row[3]) for row in table] if table is not None else [(n, o.kind) for n, o in outcomes.items()]
    return [name for name, kind in order if kind in ("main", "edge")
            and outcomes.get(name) is not None and outcomes[name].status == "passed"]


def _source_file(witness, lab_file):
    """The witness's own path to the graded file (its lines are then said as "line N")."""
    for access in (witness.get("first"), witness.get("second")):
        path = str((access or {}).get("location", "")).rpartition(":")[0]
        if lab_file and os.path.basename(path) == lab_file:
            return path
    return None


def _key(witness):
    """One witness per function, kernel, memory and pair of lines, over the test's calls."""
    lines = sorted(str((witness.get(side) or {}).get("location", "")) for side in ("first", "second"))
    return (witness.get("label"), witness.get("kernel"), witness.get("memory"), witness.get("kind") == "uninitialised read",
            tuple(lines))


def _line(witness):
    try:
        return races.one_line(witness)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return f"lab{witness.get('lab', '')} {witness.get('label', '')}: a race the grader could not read in full"


def found(lab, evidence, lab_file=None):
    """({suite: [annotated witness, ...]}, [sentence, ...] of launches left unchecked, why the
    detector watched nothing or "") from the race pass's {test: calls}. lab: "lab03"."""
    number = lab[3:] if lab.startswith("lab") else lab
    try:
        declared = races.declaration(number)
    except (ValueError, OSError):
        declared = None
    by_suite, unchecked, watched, why = {}, [], False, ""
    for test, calls in (evidence or {}).items():
        for call in calls or []:
            report = call.get("races")
            if report is None:
                why = why or call.get("unavailable") or "the runner sent no race witnesses"
                continue
            watched = True
            unchecked += [u for u in report.get("unchecked", []) if u not in unchecked]
            for witness in report.get("races", []):
                # The checker's name of the call (lab03::histogram_v1_shared_slices), not the runner's
                witness["label"] = str(call.get("function", "")).rpartition("::")[2]
                try:
                    races.annotate(witness, number, _source_file(witness, lab_file), declared)
                except (KeyError, TypeError, ValueError, AttributeError):
                    witness.setdefault("lab", number)
                kept = by_suite.setdefault(suite_of(test), [])
                if _key(witness) not in map(_key, kept):  # each call reports its own
                    kept.append(witness)
    if watched or not evidence:
        why = ""
    return by_suite, unchecked, why


def unwatched(pass_outcomes):
    """{suite: why} of the suites whose race-pass tests the detector did not watch in full, from
    the pass's {test: TestOutcome} (fail closed: apply() fails them): a test that did not pass when
    watched (a crash, a timeout, other bins: a kernel that crashes instead of racing must not
    switch the detector off), a call with evidence but no witnesses, a launch whose global memory
    went unchecked (more accesses than the detector keeps). A runner built without the detector
    (another host compiler, macOS) collects no evidence for any call: that is not here; found()
    says why and the lab is graded as before."""
    calls = [c for o in pass_outcomes.values() for c in (o.evidence or [])]
    built_without = bool(calls) and not any(c.get("collected") or c.get("races") is not None for c in calls)
    out = {}
    for name, outcome in pass_outcomes.items():
        why = ""
        if outcome.status != "passed":
            why = f"{name} {outcome.status} when watched" + (f": {outcome.message[:200]}" if outcome.message else "")
        elif not built_without:
            for call in outcome.evidence or []:
                report = call.get("races")
                if report is None:
                    why = f"{name}: the runner sent no race witnesses for {call.get('function') or 'a call'}"
                elif report.get("unchecked") and not report.get("races"):
                    why = f"{name}: {report['unchecked'][0]}"
                if why:
                    break
        if why:
            out.setdefault(suite_of(name), why)
    return out


def apply(outcomes, by_suite, unwatched_suites=None):
    """Fails the passed main and edge tests of each suite with a race, the first witness as the
    message (and how many more), and of each suite the detector did not watch (unwatched()), saying
    why; returns the names of the tests failed."""
    failed = []
    for name, outcome in list(outcomes.items()):
        if outcome.status != "passed" or outcome.kind not in ("main", "edge"):
            continue
        witnesses = by_suite.get(suite_of(name))
        if witnesses:
            more = len(witnesses) - 1
            message = HEAD + _line(witnesses[0]) + (
                f" (and {more} more: grade.py --races {outcome_lab(witnesses[0])})" if more else "")
        elif (unwatched_suites or {}).get(suite_of(name)):
            message = UNWATCHED + unwatched_suites[suite_of(name)]
        else:
            continue
        outcomes[name] = replace(outcome, status="failed", message=message)
        failed.append(name)
    return failed


def judge(lab, passes, graded=None):
    """The verdict of a lab's passes with the detector on, each {test: TestOutcome} (the race
    pass): fails the racy and the unwatched suites' tests of
    `graded` (apply(); None: find only, as for a reference solution). Returns (the results'
    `races` key without `tests` and `seconds`, every witness in full or "")."""
    evidence, unwatched_suites = {}, {}
    for run in passes:
        for name, outcome in run.items():
            evidence.setdefault(name, []).extend(outcome.evidence or [])
        for suite, why in unwatched(run).items():
            unwatched_suites.setdefault(suite, why)
    by_suite, unchecked, why = found(lab, evidence, lab_file(lab))
    failed = apply(graded, by_suite, unwatched_suites) if graded is not None else []
    document = dict(summary(by_suite, unchecked), failed=failed, unwatched=unwatched_suites, unavailable=why)
    return document, full_text(by_suite, unchecked) if by_suite else ""


def outcome_lab(witness):
    return f"lab{witness.get('lab', '')}"


def summary(by_suite, unchecked=()):
    """The results document's `races` key: {"functions": {function: [one line, ...]}, "witnesses":
    [witness, ...], "unchecked": [...]}: one entry per racy graded function."""
    functions, witnesses = {}, []
    for suite in sorted(by_suite):
        for w in by_suite[suite]:
            functions.setdefault(w.get("label") or suite, []).append(_line(w))
            witnesses.append(w)
    return {"functions": functions, "witnesses": witnesses, "unchecked": list(unchecked)}


def print_lab(spec, submission, build_dir):
    """grade.py --races labNN[:vN]: every witness of the lab's graded functions (or version N's
    alone) in full, from their count programs with the detector on (races.find); also written to
    BUILD/results/labNN-races.txt. Exit status as races.py's: 0 none, 1 races or a failed run, 2
    a build error."""
    lab, _, version = spec.partition(":")
    number = lab.lower().replace("lab", "").zfill(2)
    only = None
    if version:
        for entry in (races._lab_json(number, "counters.json") or {}).get("versions", []):
            if entry["version"].split()[0] == version.lower():
                only = entry["function"]
        if only is None:
            print(f"races: lab {number} has no version {version}")
            return 2
    status = 0
    try:
        witnesses = races.find(number, submission, only=only, build_dir=build_dir)
    except races.programs.BuildError as error:
        print(f"races: {error}")
        return 2
    except races.RunError as error:
        print(f"races: {error}")
        witnesses, status = error.witnesses, 1
    text = "\n\n".join(races.in_full(w) for w in witnesses) or f"lab{number}: no data race"
    print(text)
    target = os.path.join(build_dir, "results", f"lab{number}-races.txt")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return 1 if witnesses else status


def full_text(by_suite, unchecked=()):
    """Every witness in full (counting/races.py in_full), for build/results/labNN-races.txt."""
    parts = []
    for suite in sorted(by_suite):
        for w in by_suite[suite]:
            try:
                parts.append(races.in_full(w))
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                parts.append(_line(w))
    return "\n\n".join(parts + list(unchecked)) + "\n"
