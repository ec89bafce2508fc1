"""A made-up class of records (no build, no run: seconds), for the class report's tests: twelve
students of labs 01 and 04 whose faults are known, so every figure of class-insight.json can be
worked out by hand. Their counters go through explain/explanations.section, the real comparison.

  lab01: uncoalesced v2 (32 sectors a load request, the reference 4): u1..u5 (Q2.5, counters);
         its technique check failing with a hint naming question 2.5: h1..h3 (Q2.5, a failure);
         the last samples not counted (37 for tail1, 5 for tail2): one kind of failure;
         a race witness in the lab's "races" list (race1); compile error (broken); no file (absent)
  lab04: v2 banks with 8 bank conflicts a request (the reference 0): u1, u2, b1 (Q3.1)
  review: withheld (tamper) with a review note
"""
import copy
import json

from batch import grading
from explain import declarations, explanations, reference_table

SLICES = ["Lab01Slices.MatchesCpuOnUniformSamples", "Lab01Slices.MatchesCpuWhenSizeIsNotAMultipleOfBlockTimesSlice"]
GRID = ["Lab01GridStride.MatchesCpuOnUniformSamples", "Lab01GridStride.HandlesAnEmptyInput"]
CHECK = "Technique.v2_coalesced_loads"
LAB04 = ["Lab04Banks.MatchesCpuOnUniformSamples", "Lab04Inverse.MatchesCpuOnUniformSamples"]
PLAN = {"lab01": SLICES + GRID + [CHECK], "lab04": LAB04}
STUDENTS = ["absent", "b1", "broken", "h1", "h2", "h3", "ok", "race1", "tail1", "tail2", "u1", "u2",
            "u3", "u4", "u5", "withheld"]
TAIL = ("[uniform samples] histogram_v1_slices (16 blocks of 256 threads): 3 of 1024 bins wrong; "
        "total 65499, expected 65536\n  hint: exactly the last {k} samples not counted: the grid is "
        "rounded down")
HINT = ("v2 coalesced loads: what ran: all.load_sectors_per_128_bytes 32.00 <= 8 failed. Hint: let "
        "neighbouring threads read neighbouring samples (question 2.5)")
WITNESS = {"label": "histogram_v2_grid_stride", "kernel": "k", "memory": "global",
           "kind": "write after write", "pattern": "write and write",
           "first": {"location": "/s/lab01_global_atomics.cu:21"},
           "second": {"location": "/s/lab01_global_atomics.cu:21"}, "question": "Q2.1"}


def test_entry(name, status="passed", message="", kind="main", points=1.0):
    return {"name": name, "kind": kind, "status": status, "score": points if status == "passed" else 0.0,
            "max_score": points, "message": message, "metrics": {}}


def counted(lab, changes):
    """A "counters" section: the reference's counters, with `changes` {function: {counter: value}}."""
    table = reference_table.load()["labs"][lab]
    student = copy.deepcopy(table)
    for function, values in changes.items():
        student[function].update(values)
    return explanations.section(lab, student, declarations.load(lab), table)


def lab_record(name, tests, status="graded", counters=None, reasons=None, notes=None, races=None):
    record = {"lab": name, "file": f"{name}.cu", "status": status, "tests": tests,
              "score": sum(t["score"] for t in tests), "max_score": sum(t["max_score"] for t in tests),
              "reasons": reasons or [], "findings": [], "review_notes": notes or [], "build_output": "",
              "symbols_checked": True, "attempts": [], "forged_lines": 0, "forged_samples": [],
              "counters": counters or explanations.not_counted("no version passes its tests yet")}
    if races is not None:
        record["races"] = races
    return record


def lab01(student):
    failing, changes, races = {}, {}, None
    if student.startswith("u"):
        changes = {"histogram_v2_grid_stride": {"global_load_sectors_per_request": 32.0}}
        failing[CHECK] = HINT
    if student.startswith("h"):
        failing[CHECK] = HINT
    if student.startswith("tail"):
        failing[SLICES[1]] = TAIL.format(k=37 if student == "tail1" else 5)
    if student == "race1":
        races = [WITNESS]
    if student == "broken":
        return lab_record("lab01", [test_entry(n, "failed", "not graded: the file does not compile")
                                    for n in PLAN["lab01"]], "compile_error",
                          reasons=["does not compile: lab01.cu:7:3: error: 'd_bin' was not declared"])
    if student == "absent":
        return lab_record("lab01", [test_entry(n, "failed", "not graded: no file") for n in PLAN["lab01"]],
                          "missing", reasons=["the submission has no lab01_global_atomics.cu"])
    tests = [test_entry(n, "failed" if n in failing else "passed", failing.get(n, ""),
                        "check" if n == CHECK else "main") for n in PLAN["lab01"]]
    status = "withheld" if student == "withheld" else "graded"
    return lab_record("lab01", tests, status, counted("01", changes), races=races,
                      reasons=["score withheld: grader tampering: line 3 names GRADER_RESULTS_CHANNEL"]
                      if status == "withheld" else [],
                      notes=["calls exit() (line 9)"] if status == "withheld" else [])


def lab04(student):
    changes = {}
    if student in ("u1", "u2", "b1"):
        changes = {"histogram_v2_banks": {"shared_bank_conflicts_per_request": 8.0}}
    return lab_record("lab04", [test_entry(n) for n in LAB04], counters=counted("04", changes))


def records():
    found = []
    for student in STUDENTS:
        labs = {"lab01": lab01(student), "lab04": lab04(student)}
        record = grading.submission_record(student, student, student * 4, "key", labs, [], 10.0, "nobody")
        record["phases"] = {"build": 4.0, "tests": 20.0 + len(student), "counting": 2.0}
        found.append(record)
    return found


def summary():
    """A batch.json."""
    return {"backend": "cpu", "plan": PLAN, "devices": ["CUDA CPU backend"], "warnings": [],
            "setup_s": {"workers": 300.0, "reference": 20.0, "counting": 30.0},
            "machine": {"backend": "cpu", "cpu": "a made-up CPU", "cpus": 2, "memory_gib": 8.0,
                        "gpus": [], "driver": "", "system": "Linux", "date": "2026-01-01"}}


def write(report_dir, use_matplotlib=False):
    """The made-up class's report: each student's files, then the class's."""
    from batch import reports
    for record in records():
        reports.write_submission(report_dir, record, "visible")
    with open(f"{report_dir}/batch.json", "w") as f:
        json.dump(summary(), f)
    reports.write_class_files(report_dir, records(), summary(), use_matplotlib)
