"""One submission through the batch, once the reference is graded: built on a free worker, staged,
each built lab run on a free GPU slot (with the sanitizer pass and the technique evidence), the
CPU second opinion, its record assembled, its kernels counted (advice), and the record written,
with the seconds of each phase (phase_timings.py). pipeline.py runs one of these per submission,
side by side."""
import contextlib
import os
import queue
import time

from runs import harness

from batch import grading, phase_timings, reports, technique_evidence


class SubmissionGrader:
    """What every submission's grading shares: the workers and GPU slots (queues of free ones),
    the reference, the second opinion, the counting step, the class's records so far and the
    summary's plan."""

    def __init__(self, batch, workers, slots, reference, opinion, records, plan, counting=None):
        self.batch, self.reference, self.opinion, self.records, self.plan = batch, reference, opinion, records, plan
        self.counting = counting
        self.labs = {lab.name: lab for lab in batch.labs}
        self.free_workers, self.free_slots = queue.Queue(), queue.Queue()
        for worker in workers:
            self.free_workers.put(worker)
        for slot in slots:
            self.free_slots.put(slot)

    def grade(self, entry, collected):
        """Grades one submission (entry, submissions.collect's files) and records it."""
        if harness.STOP.is_set():
            return
        notes = list(collected.notes) + ([collected.error] if collected.error else [])
        notes += [f"{name} taken from {path}" for name, path in collected.origins.items() if "/" in path]
        # Each phase's seconds: the time spent building and running, not waiting for a worker or GPU.
        phases = {}
        timer = phase_timings.Stopwatch(phases)
        builds, ready, folder, seeds, worker, phases["build"] = self.build(entry, collected)
        runs = self.run_labs(ready, folder, worker, builds, timer)
        if runs is None:
            return
        if self.opinion is not None and runs and not harness.STOP.is_set():
            with timer("second_opinion"):
                self.opinion.judge(collected.files, builds, runs, seeds)
        if not harness.STOP.is_set():
            self.record(entry, collected, builds, runs, notes, phases)

    def build(self, entry, collected):
        """Builds and stages the submission on a free worker: (builds, the labs built, the staged
        folder, its seeds, the worker, the seconds it took once the worker was free)."""
        worker = self.free_workers.get()
        started = time.monotonic()
        try:
            builds = worker.build(collected.files)
            ready = [name for name, b in builds.items() if b.status == "built"]
            seeds = self.batch.settings.seeds.for_submission(entry.student, collected.fingerprint())
            folder = self.batch.stage(builds, collected.files, ready, seeds)
        finally:
            self.free_workers.put(worker)
        seconds = time.monotonic() - started
        if collected.error:
            for b in builds.values():
                b.output = collected.error
        return builds, ready, folder, seeds, worker, seconds

    def run_labs(self, ready, folder, worker, builds, timer):
        """Runs each built lab on a free GPU slot, then its sanitizer pass and its technique
        evidence, each timed by `timer`: {lab: run}, or None when the batch was stopped."""
        runs, batch = {}, self.batch
        gpu = self.free_slots.get()
        try:
            for name in ready:
                if harness.STOP.is_set():
                    return None
                tests = [n for n, *_ in grading.reference_plan(self.reference["labs"][name])[0]]
                budget = batch.settings.budget_s
                with timer("tests"):
                    runs[name] = batch.run_lab(name, folder, tests, gpu, worker.run_inputs, budget)
                with timer("sanitizer") if batch.sanitizers else contextlib.nullcontext():
                    batch.sanitize_run(name, folder, runs[name], gpu, worker.run_inputs,
                                       self.reference["labs"][name].get("sanitizer_exempt", {}), budget)
                with timer("evidence"):
                    technique_evidence.run(batch, name, folder, runs[name], builds[name].checks, gpu,
                                           worker.run_inputs, budget,
                                           races="off" if self.reference["labs"][name].get("races_off") else "apply")
        finally:
            self.free_slots.put(gpu)
            batch.unstage(folder)
        return runs

    def record(self, entry, collected, builds, runs, notes, phases):
        """The submission's record, its kernels counted, written with its files; the class CSV and
        one line of progress."""
        batch = self.batch
        lab_records = {name: grading.assemble_lab(self.labs[name], builds[name], runs.get(name),
                                                  self.reference["labs"][name], batch.settings.integrity)
                       for name in self.labs}
        if self.counting is not None:  # advice: after the grade is made, never changing it
            phases["counting"] = self.counting.count(collected.files, batch.labs, lab_records)
        busy = sum(phases.values())
        record = grading.submission_record(entry.student, os.path.basename(entry.path),
                                           collected.fingerprint(), batch.config_key, lab_records,
                                           notes, busy, batch.user_note)
        record["phases"] = {name: round(seconds, 2) for name, seconds in phases.items()}
        reports.write_submission(batch.report.root, record, batch.settings.visibility)
        with batch.lock:
            self.records[entry.student] = record
            batch.done += 1
            for lab in lab_records.values():
                if lab.get("device"):
                    batch.devices.add(lab["device"])
            reports.write_class_csv(batch.report.root, list(self.records.values()), self.plan)
            status = grading.status_of(record)
            why = next((r for lab in lab_records.values() for r in lab["reasons"]), "")
            print(f"[{batch.done}/{batch.total}] {entry.student}: {record['score']:g}/"
                  f"{record['max_score']:g} {status} ({busy:.1f} s)"
                  + (f" - {why[:120]}" if why else ""), flush=True)
