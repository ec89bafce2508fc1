"""From builds, runs and the reference to grades: one record per lab (a results document of
runs/results.py, with the batch's review fields), one per submission (the Gradescope results.json
made from it is gradescope/results_format.py's).

Points and the list of tests come from the reference run (the lab's solution, built and run by
the same harness on the same machine), never from the submission's own process: a submission
cannot add tests, change their points, or make a test it fails drop out of the maximum. Tests the
reference run skipped (speed tests on the CPU backend) are not gradable here and are left out.
"""
from runs import results
from runs.results import shorten, telling_line

from batch import integrity, student_view
from technique import evidence as ran_evidence

RECORD_SCHEMA = "gpu-histogram-workbook/batch/v1"
MAX_MESSAGE = 4000


def first_line(message):
    """The line that tells most of a message, in the grader's words (never a line the runner
    printed: reasons reach the student's log)."""
    own = [line for line in (message or "").splitlines()
           if not line.startswith(student_view.RUNNER_PREFIX)]
    return shorten(telling_line("\n".join(own)), 200)


def reference_plan(reference_lab):
    """(gradable program tests [(name, points, stretch, needs, kind)], checks [(name, max, needs)])
    of a lab. A check the reference skipped (technique checks on the CPU backend: no GPU machine
    code ran) is not gradable and is left out; a check's needs are the reference's, not the
    student's."""
    tests = [(t["name"], t["points"], t["stretch_points"], t.get("needs") or [], t.get("kind", "main"))
             for t in reference_lab["tests"] if t["status"] != "skipped"]
    checks = [(c["name"], c["max_score"], c.get("needs") or []) for c in reference_lab.get("checks", [])
              if c["status"] != "skipped"]
    return tests, checks


def check_outcomes(build_checks):
    """{test name: (status, score, max, message, needs, kernels, evidence)} from the lab's other
    grade tests (kernels: those a technique check read, which its needed tests must have launched;
    evidence: what a judge of what ran needs, for a check with a `ran` requirement, else None)."""
    found = {}
    for record in build_checks or []:
        results = record.get("results")
        if results and isinstance(results.get("tests"), list):
            for t in results["tests"]:
                evidence = t.get("evidence") if isinstance(t.get("evidence"), dict) else None
                found[t.get("name", "?")] = (t.get("status", "failed"), float(t.get("score") or 0),
                                             float(t.get("max_score") or 0), t.get("message", ""),
                                             [str(n) for n in t.get("needs") or []],
                                             [str(k) for k in t.get("kernels") or []], evidence)
        elif record.get("returncode") == 77:
            found[record["check"]] = ("skipped", 0.0, 0.0, record.get("output", ""), [], [], None)
        else:
            found[record["check"]] = ("failed", 0.0, 0.0,
                                      f"the check could not run ({record.get('returncode')}):\n"
                                      + record.get("output", "")[-2000:], [], [], None)
    return found


def assemble_lab(lab, build, run, reference_lab, policy):
    """The lab's record for one submission. `build` is a LabBuild, `run` a RunResult or None."""
    plan_tests, plan_checks = reference_plan(reference_lab)
    findings = integrity.calibrate(build.findings, reference_lab.get("findings", []))
    withheld = policy == "zero" and integrity.withholds_score(findings)
    if build.status == "missing":
        not_graded = f"not graded: {build.output}"
    elif build.status != "built":
        not_graded = "not graded: the file does not compile (see the build output)"
    else:
        not_graded = ""
    tests = []
    for name, points, stretch, needs, kind in plan_tests:
        outcome = run.outcomes.get(name) if run and not not_graded else None
        if outcome is None:
            tests.append(results.test_entry(name, kind, "failed", points, stretch, needs,
                                            not_graded or "no result"))
        elif outcome.status == "skipped":
            tests.append(results.test_entry(name, kind, "failed", points, stretch, needs,
                                            "skipped in this run, though the reference ran it: "
                                            + outcome.message))
        else:
            tests.append(results.test_entry(name, kind, outcome.status, points, stretch, needs,
                                            outcome.message, outcome.tiers, outcome.metrics,
                                            outcome.fault))
    checks = check_outcomes(build.checks) if not not_graded else {}
    for name, max_score, needs in plan_checks:
        status, _, _, message, _, kernels, evidence = checks.get(
            name, ("failed", 0.0, 0.0, not_graded or "no result", [], [], None))
        if evidence is not None:  # judged on what ran, now that the evidence pass has run
            ok, said = ran_evidence.judge_check(evidence, needs, getattr(run, "evidence", None) or {}, kernels)
            # None: what ran could not be counted. The check is in the plan only where the
            # reference's run could be counted (pipeline.compute_reference), so here it fails.
            status, message = ("passed" if ok else "failed"), said
        elif status == "skipped":
            status, message = "failed", "skipped in this run, though the reference ran it"
        # A check judged on what ran needs no launch gate: its evidence names who did the work.
        tests.append(results.test_entry(name, "check", status, max_score, needs=needs,
                                        message=message, kernels=kernels if evidence is None else []))
    hello = (run.hello or {}) if run else {}
    record = results.document(lab.name, lab.submission_file, hello.get("backend", ""),
                              hello.get("device", ""), tests)  # gated: edge tests and checks
    for entry in tests:
        entry["message"] = entry["message"][:MAX_MESSAGE]
    if withheld:
        results.withhold(record, integrity.summary(findings))

    status = "graded"
    if build.status == "missing":
        status = "missing"
    elif build.status != "built":
        status = "compile_error"
    elif withheld:
        status = "withheld"
    reasons = []
    if withheld:
        reasons.append("score withheld: " + integrity.summary(findings))
    if status == "missing":
        reasons.append(build.output)
    elif status == "compile_error":
        error = next((line for line in build.output.splitlines() if "error" in line.lower()),
                     build.output.splitlines()[0] if build.output else "build failed")
        reasons.append("does not compile: " + error.strip()[:200])
    failed = [t for t in tests if t["status"] == "failed"]
    if failed and status in ("graded", "withheld"):
        reasons.append(f"{len(failed)} test(s) failed, e.g. {failed[0]['name']}: "
                       f"{first_line(failed[0]['message'])}")
    notes = [integrity.summary([f]) for f in findings if f["category"] == "suspicious"]
    notes += timing_notes(tests)
    record.update({"file": lab.submission_file, "status": status, "reasons": reasons,
                   "findings": findings, "review_notes": notes,
                   "build_output": build.output if build.status != "built" else "",
                   "symbols_checked": build.symbols_checked,
                   "attempts": [vars(a) for a in (run.attempts if run else [])],
                   "forged_lines": run.forged_lines if run else 0,
                   "forged_samples": run.forged_samples if run else []})
    return record


def timing_notes(tests):
    """For the instructor's review: speed tests whose time could not be trusted, and those timed
    again because the GPU was throttled or shared (grader/core/speed_report.cuh, device.cuh)."""
    notes = []
    for t in tests:
        metrics = t.get("metrics") or {}
        if metrics.get("implausible_speed") == 1:
            notes.append(f"{t['name']}: speed flagged, faster than this GPU's measured bandwidth "
                         "allows (did the timed calls skip their work?)")
        if metrics.get("retried_for_unfair_timing") == 1:
            notes.append(f"{t['name']}: timed again, the first run was on a throttled or shared GPU")
    return notes


def submission_record(student, source, fingerprint, config_key, labs, notes, duration, run_user):
    return {"schema": RECORD_SCHEMA, "student": student, "source": source,
            "fingerprint": fingerprint, "config_key": config_key, "duration_s": round(duration, 2),
            "score": sum(lab["score"] for lab in labs.values()),
            "max_score": sum(lab["max_score"] for lab in labs.values()),
            "labs": labs, "notes": notes, "run_user": run_user}


def status_of(record):
    """One word for the class table: ok, failing, withheld, compile_error, missing, error."""
    if record.get("error"):
        return "error"
    statuses = [lab["status"] for lab in record["labs"].values()]
    for word in ("withheld", "compile_error", "missing"):
        if word in statuses:
            return word
    if any(t["status"] == "failed" for lab in record["labs"].values() for t in lab["tests"]):
        return "failing"
    return "ok"
