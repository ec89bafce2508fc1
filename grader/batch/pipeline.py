"""The batch itself: set up the workers, grade the reference, then every submission, builds in
parallel on the workers and runs one submission at a time per GPU; write each submission's files
as soon as it is graded, and the class report as it grows."""
import json
import os
import shutil
import signal
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed

from runs import harness

from batch import (builder, counting_step, cpus, grading, phase_timings, reports, second_opinion,
                   submissions, technique_evidence)
from batch.project import ROOT
from batch.one_submission import SubmissionGrader
from batch.session import BatchSession


def grade_class(settings):
    """Grade the class settings.submissions names (the settings of cli.py); the exit status."""
    try:
        entries, warnings = submissions.discover(settings.submissions)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    own = settings.own_folders()
    entries = [e for e in entries if os.path.abspath(e.path) not in own]  # --out inside SUBMISSIONS
    if settings.shard:
        entries = submissions.shard(entries, *settings.shard)
    for warning in warnings:
        print(f"warning: {warning}")
    try:
        return run_batch(BatchSession(settings), entries)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def make_workers(batch):
    """The workers, set up: the first with every CPU, then the others side by side, which reuse
    its objects where meson compiles through ccache (builder.pristine_environment)."""
    count = max(1, batch.settings.jobs)
    ninja_jobs = max(1, cpus.available_cpus() // count)
    workers = []
    for index in range(count):
        worker = builder.Worker(index, batch.work, batch.snapshot, batch.meson_options(), batch.labs,
                                batch.log, batch.sandbox)
        worker.ninja_jobs = ninja_jobs
        workers.append(worker)
    started = time.monotonic()
    batch.log(f"Setting up {count} worker build(s) ({batch.settings.backend} backend, labs "
              f"{', '.join(lab.name for lab in batch.labs)}); the first set-up takes minutes ...")
    workers[0].ninja_jobs = max(1, cpus.available_cpus())
    try:
        workers[0].setup()
    finally:
        workers[0].ninja_jobs = ninja_jobs
    with ThreadPoolExecutor(count) as pool:
        for future in [pool.submit(w.setup) for w in workers[1:]]:
            future.result()
    batch.log(f"Workers ready in {time.monotonic() - started:.0f} s")
    return workers


def reference_files(batch):
    files, sources = {}, {}
    for lab in batch.labs:
        for folder in ("solutions", "starter"):
            path = os.path.join(ROOT, folder, lab.submission_file)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    files[lab.submission_file] = f.read()
                sources[lab.name] = folder
                break
    return files, sources


def compute_reference(batch, worker, gpu):
    """Build and run the labs' reference solutions: the list of tests, their points, what this
    machine cannot grade (tests the reference skips), and what the reference's code may use."""
    cache = batch.work.reference(batch.config_key)
    if os.path.exists(cache) and not batch.settings.force:
        with open(cache) as f:
            cached = json.load(f)
        if cached.get("run_user") == batch.user_note:
            return cached
    files, sources = reference_files(batch)
    builds = worker.build(files)
    reference = {"labs": {}, "run_user": batch.user_note}
    broken = [f"{name}: {b.output[:3000]}" for name, b in builds.items() if b.status != "built"]
    if broken:
        raise RuntimeError("the reference solution does not build, so its lab cannot be graded "
                           "(choose labs with --labs):\n" + "\n".join(broken))
    reference_seeds = batch.settings.seeds.for_submission("(reference)", "")
    folder = batch.stage(builds, files, list(builds), reference_seeds)
    try:
        for lab in batch.labs:
            tests = batch.list_lab_tests(lab.name, folder, gpu, worker.run_inputs)
            run = batch.run_lab(lab.name, folder, tests, gpu, worker.run_inputs)
            if (batch.settings.backend == "cuda" and run.outcomes
                    and all(o.status == "skipped" for o in run.outcomes.values())):
                # Fail closed: never fall back to running student code as a more privileged user.
                why = next(iter(run.outcomes.values())).message.strip().splitlines()[:2]
                raise RuntimeError(
                    f"the reference solution of {lab.name} could not use the GPU as "
                    f"{batch.user_note}: every test skipped ({' '.join(why)[:300]}). Check that "
                    "the GPU's device files (/dev/nvidia*) are open to that user (--run-as), or "
                    "grade with --backend cpu for correctness and technique, without speed")
            # Hazards the tools report in the reference itself are the tools' (or the test's), not
            # a student's: those tests are not checked with that tool.
            exempt = {}
            passed = [n for n, o in run.outcomes.items() if o.status == "passed"]
            for tool in batch.sanitizers:
                hazards = batch.sanitizer_hazards(lab.name, folder, passed, gpu, worker.run_inputs,
                                                  tool)
                exempt[tool] = sorted(hazards)
                if hazards:
                    batch.warnings.append(f"{lab.name}: {tool} reports hazards in the reference "
                                          f"solution's tests {', '.join(sorted(hazards))[:300]}; "
                                          "they are not checked with it")
            technique_evidence.run(batch, lab.name, folder, run, builds[lab.name].checks, gpu, worker.run_inputs,
                                   races="find")
            # The race detector reports nothing in the solutions (a project test); where it does in
            # this reference, that lab is graded without races (fail safe for the students).
            races_off = bool(run.races.get("functions"))
            if races_off:
                batch.warnings.append(f"{lab.name}: the race detector reports races in the reference solution "
                                      f"({'; '.join(l for ls in run.races['functions'].values() for l in ls)[:300]}); "
                                      "the lab is graded without the race pass")
            elif run.races.get("unwatched"):  # fail closed: a race pass no student could pass
                raise RuntimeError(f"{lab.name}: the race detector could not watch the reference solution's run "
                                   f"({'; '.join(run.races['unwatched'].values())[:300]}); give a longer --timeout "
                                   "or grade this lab on a GPU")
            elif run.races.get("unavailable"):
                batch.warnings.append(f"{lab.name}: no race detection ({run.races['unavailable'][:200]}); "
                                      "graded as before")
            if technique_evidence.refused(run):  # fail closed: no technique point anyone could earn
                raise RuntimeError(f"{lab.name}: {technique_evidence.refused(run)}")
            checks = grading.check_outcomes(builds[lab.name].checks)
            ref_tests = []
            for name in tests:
                o = run.outcomes[name]
                ref_tests.append({"name": name, "kind": o.kind, "points": o.points,
                                  "stretch_points": o.stretch_points, "needs": o.needs, "status": o.status,
                                  "message": o.message[:2000]})
            lab_ref = {"lab": lab.name, "source": sources.get(lab.name, "?"), "tests": ref_tests,
                       "checks": [{"name": n, "max_score": c[2], "status": c[0], "needs": c[4]}
                                  for n, c in checks.items()],
                       "findings": builds[lab.name].findings,
                       "device": (run.hello or {}).get("device", ""),
                       "sanitizer_exempt": exempt, "races_off": races_off}
            record = grading.assemble_lab(lab, builds[lab.name], run, lab_ref, "report")
            uncounted = technique_evidence.uncounted_checks(record)
            if uncounted:  # not graded for anyone: left out of the plan, said in the report
                for check in lab_ref["checks"]:
                    if check["name"] in uncounted:
                        check["status"] = "skipped"
                batch.warnings.append(f"{lab.name}: what the reference solution's kernels executed "
                                      "could not be counted on this machine, so the technique checks "
                                      f"{', '.join(uncounted)} are not graded (0 points for everyone, "
                                      "left out of the maximum); grade with --backend cpu to grade them")
                record = grading.assemble_lab(lab, builds[lab.name], run, lab_ref, "report")
            lab_ref["score"], lab_ref["max_score"] = record["score"], record["max_score"]
            lab_ref["failing"] = [f"{t['name']}: {grading.first_line(t['message'])}"
                                  for t in record["tests"] if t["status"] == "failed"]
            reference["labs"][lab.name] = lab_ref
    finally:
        batch.unstage(folder)
    reference["run_user"] = batch.user_note
    reports.atomic_write(cache, json.dumps(reference, indent=1))
    return reference


def batch_summary(batch, reference, setup=None):
    """batch.json's content; `setup`: the seconds of the set-up's parts (phase_timings.SETUP)."""
    plan = {name: [t["name"] for t in lab["tests"] if t["status"] != "skipped"]
                  + [c["name"] for c in lab["checks"] if c["status"] != "skipped"]
            for name, lab in (reference or {}).get("labs", {}).items()}
    return {"schema": "gpu-histogram-workbook/batch-summary/v1", "config": batch.config,
            "config_key": batch.config_key, "backend": batch.settings.backend,
            # The instructor's copy of the hidden seeds (never in what students see).
            "input_seed": batch.settings.seeds.inputs, "data_seed": batch.settings.seeds.data,
            "labs": [lab.name for lab in batch.labs], "plan": plan,
            "shard": batch.settings.shard_text,
            "reference": {n: {k: lab.get(k) for k in ("score", "max_score", "device", "source", "failing")}
                          for n, lab in (reference or {}).get("labs", {}).items()},
            "devices": sorted(batch.devices), "warnings": batch.warnings, "run_user": batch.user_note,
            "setup_s": {k: round(v, 1) for k, v in (setup or {}).items()},
            "machine": phase_timings.machine(batch.settings.backend),
            "written": time.strftime("%Y-%m-%dT%H:%M:%S")}


def run_batch(batch, entries):
    """Grades `entries` in phases: what is left to grade, the set-up (workers, the reference, the
    second opinion), every submission side by side, the class report. The exit status."""
    started, setup = time.monotonic(), {}  # the set-up's parts: seconds (phase_timings.py)
    with phase_timings.Stopwatch(setup)("project_copy"):
        batch.prepare()
    os.makedirs(batch.report.root, exist_ok=True)
    records = {r["student"]: r for r in reports.load_records(batch.report.root)}
    todo = left_to_grade(batch, entries, records)
    if not todo:
        summary_path = batch.report.summary
        previous = json.load(open(summary_path)) if os.path.exists(summary_path) else {}
        finish(batch, records, previous or batch_summary(batch, None))
        return 0
    workers, slots, reference, opinion, counting = set_up(batch, len(entries), setup)
    summary = batch_summary(batch, reference, setup)
    reports.atomic_write(batch.report.summary, json.dumps(summary, indent=1))
    batch.total = len(todo)
    grader = SubmissionGrader(batch, workers, slots, reference, opinion, records, summary["plan"],
                              counting)
    status = grade_side_by_side(batch, grader, todo, len(workers) + len(slots))
    finish(batch, records, batch_summary(batch, reference, setup))
    if status != 130:
        graded = [records[entry.student] for entry, _ in todo if entry.student in records]
        for line in phase_timings.lines(phase_timings.table(graded, setup,
                                                            phase_timings.machine(batch.settings.backend))):
            batch.log(line)
        batch.log(f"Done in {time.monotonic() - started:.0f} s: {batch.report.index_html}, class.csv, "
                  "class-insight.json")
    return status


def left_to_grade(batch, entries, records):
    """[(entry, its collected files)] of the submissions not graded yet with these settings."""
    lab_files = [lab.submission_file for lab in batch.labs]
    todo, skipped = [], 0
    for entry in entries:
        collected = submissions.collect(entry, lab_files)
        old = records.get(entry.student)
        if (old and not batch.settings.force and old.get("config_key") == batch.config_key
                and old.get("fingerprint") == collected.fingerprint()):
            skipped += 1
            continue
        if old and old.get("fingerprint") != collected.fingerprint():
            collected.notes.append("regraded: the submission changed since it was last graded")
        elif old and old.get("config_key") != batch.config_key:
            collected.notes.append("regraded: the settings (labs, backend, seeds) or the grader or "
                                   "labs changed since it was last graded")
        todo.append((entry, collected))
    batch.log(f"{len(entries)} submission(s): {skipped} already graded (use --force to regrade), "
              f"{len(todo)} to grade")
    return todo


def set_up(batch, count, setup):
    """The sanitizers, the isolation, the workers and GPU slots, the reference graded, the second
    opinion and the counting build set up: (workers, slots, reference, opinion or None,
    counting_step.Counting); each part's seconds added to `setup`."""
    timer = phase_timings.Stopwatch(setup)
    batch.choose_sanitizers()
    batch.choose_isolation(count)
    batch.log(f"Student code runs in: {batch.user_note}")
    slots = batch.gpu_slots()
    with timer("workers"):
        workers = make_workers(batch)
    batch.prepare_run_files(workers[0].data_file)
    batch.log("Grading the reference solution (its tests and points are the plan for everyone) ...")
    with timer("reference"):
        reference = compute_reference(batch, workers[0], slots[0])
    for name, lab in reference["labs"].items():
        batch.devices.add(lab["device"]) if lab.get("device") else None
        batch.log(reports.reference_line(name, lab))
        if lab["failing"] and lab["source"] == "solutions":
            batch.warnings.append(f"{name}: the reference solution fails on this machine: "
                                  + "; ".join(lab["failing"][:3]))
    opinion = None
    if second_opinion.wanted(batch.settings):
        batch.log("Setting up the second opinion on the CPU backend (a build for it per worker) ...")
        opinion = second_opinion.CpuOpinion(batch)
        with timer("second_opinion"):
            opinion.setup(reference_files(batch)[0], reference, len(workers), workers[0].ninja_jobs)
    counting = counting_step.Counting(batch)
    with timer("counting"):
        counting.setup(batch.labs, max(1, cpus.available_cpus()))
    batch.log("Counting each submission's kernels after its tests (advice, no points): "
              + (counting.problem or f"labs {', '.join(sorted(counting.prepared)) or 'none'}"))
    for warning in batch.warnings:
        batch.log(f"warning: {warning}")
    return workers, slots, reference, opinion, counting


def grade_side_by_side(batch, grader, todo, threads):
    """Every submission of `todo` through grader.grade, `threads` at a time; 130 when interrupted
    (what was graded is kept), 1 when one could not be graded, else 0."""
    def interrupted(signum, frame):
        raise KeyboardInterrupt  # a scheduler's SIGTERM (time limit, preemption) ends it the same way
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupted)
    failures = []
    pool = ThreadPoolExecutor(threads)
    try:
        futures = {pool.submit(grader.grade, e, c): e for e, c in todo}
        for future in as_completed(futures):
            try:
                future.result()
            except Exception:  # noqa: BLE001  (one submission's harness error must not stop the rest)
                entry = futures[future]
                failures.append(entry.student)
                batch.log(f"error grading {entry.student} (not recorded; a re-run retries it):\n"
                          + traceback.format_exc())
    except KeyboardInterrupt:
        harness.STOP.set()
        harness.REGISTRY.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        batch.log("interrupted: every submission graded so far is kept; run again to go on")
        return 130
    finally:
        pool.shutdown(wait=True)
        if batch.run_root:
            shutil.rmtree(batch.run_root, ignore_errors=True)
        if batch.sandbox is not None:  # the uid sandbox: what the compiles left (a compiler cache)
            batch.sandbox.sweep(batch.sandbox.owner()[0])
    return 1 if failures else 0


def finish(batch, records, summary):
    summary = dict(summary, devices=sorted(set(summary.get("devices", [])) | batch.devices))
    reports.atomic_write(batch.report.summary, json.dumps(summary, indent=1))
    reports.write_class_files(batch.report.root, list(records.values()), summary,
                              use_matplotlib=batch.settings.matplotlib)
