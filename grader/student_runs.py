"""grade.py's test runs: each lab's graded program through the grader's harness
(grader/runs/harness.py), the one the batch grader uses. A crash, a CUDA fault or a hang then costs
the test it happened in, reported with its cause in words (the signal, the CUDA error, the
watchdog), and the lab's other tests still run in a fresh process. Then the lab's results file,
made from this run alone, and a text file with every failure's full message.

Verdicts still come from the grader's own listener (its private channel), never from the
program's exit status or output; the points of every test come from the program's own table
(--grader-list-points), so a test that crashed still counts in the maximum. The checker is told
what to run on (its runner, the data file, the submission) in its environment (runs/checker.py),
from the build's own record of its programs (meson introspect), not from its test's command line.
"""
import concurrent.futures
import json
import os
import time
from dataclasses import dataclass, replace

import terminal
from batch.cpus import available_cpus  # the CPUs this process was given (a Slurm task's too)
from counting import race_verdicts
from runs import checker, evidence_pass, harness, progress, results, scoring
from runs.processes import run_grouped

DEFAULT_TEST_TIMEOUT_S = 30  # well under a minute: every test of every lab takes seconds
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class BuildTests:
    """What a configured build holds for grading: its tests, its programs, the graded folder."""
    build_dir: str
    tests: list
    targets: list
    submission: str


def introspect(build_dir, what):
    done = run_grouped(["meson", "introspect", build_dir, what], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"meson introspect failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def introspect_tests(build_dir):
    options = {o["name"]: o["value"] for o in introspect(build_dir, "--buildoptions")}
    return BuildTests(build_dir, introspect(build_dir, "--tests"), introspect(build_dir, "--targets"),
                      os.path.join(ROOT, options["submission"]))  # meson.build's submission_dir


def graded_programs(build):
    """{lab: checker.CheckerSettings} of each lab whose checker the build grades with."""
    labs = checker.graded_labs(build.tests)
    programs = checker.build_programs(build.targets, labs)
    return {lab: checker.CheckerSettings(lab=lab, checker=programs.labs[lab][0],
                                         runner=programs.labs[lab][1],
                                         yardstick_runner=programs.yardstick_runner,
                                         data=programs.data, submission=build.submission)
            for lab in labs}


def technique_checks(build, labs):
    """Names of the technique-check tests of `labs` ('labNN technique')."""
    return [t["name"] for lab in labs for t in checker.lab_checks(build.tests, lab)]


def run_evidence(build, results_dir, runs, races=False):
    """Each lab's evidence pass (LabRun.evidence), for its technique checks to read, and on the CPU
    backend (races) its race pass (counting/race_verdicts.py): a race found fails its function's
    correctness tests, and the lab's results are written again. The labs' passes run side by side,
    one per CPU (each runner then runs its blocks on one host thread); a line names the labs with
    passed tests to run again, then one every 8 s while they run."""
    todo = []
    for lab, run in runs.items():
        check_tests = checker.lab_checks(build.tests, lab)
        needed = evidence_pass.needed_tests(check_tests)
        if needed or races:
            todo.append((lab, run, check_tests, bool(run.evidence_tests(needed, races))))
    for lab, run, check_tests, again in todo:
        if not again:
            run.evidence(results_dir, check_tests, races)  # nothing passed to run again: no line to say so
    loud = [(lab, run, check_tests) for lab, run, check_tests, again in todo if again]
    if loud:
        jobs = max(1, min(len(loud), available_cpus()))
        what = " and the race detector" if races else ""
        side = f", {jobs} labs at a time" if jobs > 1 else ""
        terminal.say(f"Evidence for {', '.join(lab for lab, _, _ in loud)}: technique checks{what} "
                     f"(what the kernels executed{side}) ...")

        def work():
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                for done in [pool.submit(run.evidence, results_dir, check_tests, races) for _, run, check_tests in loud]:
                    done.result()
        terminal.ticking("evidence", work)
    for lab, run, _, _ in todo if races else []:
        if run.races.get("unavailable"):
            terminal.say(f"  {lab}: no race detection ({run.races['unavailable']}); graded as before")
        results.write(results_dir, *run.document())
        write_races(results_dir, lab, run.races_text)


RACE_HINT = "likely a race"  # the checker's hint where a test gave other bins when run again


def race_suspects(build_dir, results_dir, runs, submission):
    """On a GPU: for each lab with a failed test whose hint says RACE_HINT, the CPU backend's race
    detector on the lab's count program (the host build of the same file: counting/races.py
    find), its witnesses under the failures (the results' `races` key with "advice": true, and
    labNN-races.txt). Advice beside the GPU's verdicts: no grade changes. Where the file does not
    build for the host, one line says so."""
    from counting import races
    for lab, run in runs.items():
        if not any(o.status == "failed" and RACE_HINT in o.message for o in run.outcomes.values()):
            continue
        terminal.say(f"{lab}: a failure looks like a race: the CPU backend's race detector on its file ...")
        try:
            witnesses = terminal.ticking(f"{lab} race detector",
                                         lambda: races.find(lab[3:], submission, build_dir=build_dir))
        except races.programs.BuildError as error:
            terminal.say(f"  {lab}: no race witness: the file does not build for the host "
                         f"({str(error).strip().splitlines()[0][:160] if str(error).strip() else 'compile error'})")
            continue
        except races.RunError as error:
            witnesses = error.witnesses
        by_function = {}
        for witness in witnesses:
            by_function.setdefault(witness.get("label") or lab, []).append(witness)
        run.races = dict(race_verdicts.summary(by_function), advice=True, failed=[])
        run.races_text = race_verdicts.full_text(by_function) if witnesses else ""
        results.write(results_dir, *run.document())
        write_races(results_dir, lab, run.races_text)


def write_races(results_dir, lab, text):
    """build/results/labNN-races.txt: every witness of the lab's race pass in full."""
    target = os.path.join(results_dir, f"{lab}-races.txt")
    if text:
        results.write_text(target, text)
    elif os.path.exists(target):
        os.remove(target)


def gate_checks(results_dir, labs):
    """Each lab's technique file (labNN_technique.json) rewritten with the scoring rule applied
    across it and the lab's results: a check earns its points only once the correctness tests it
    needs passed in this run."""
    for lab in labs:
        paths = [os.path.join(results_dir, f"{lab}.json"), os.path.join(results_dir, f"{lab}_technique.json")]
        if not os.path.exists(paths[1]):
            continue
        documents = []
        for path in paths:
            try:
                with open(path, encoding="utf-8") as f:
                    documents.append(json.load(f))
            except (OSError, ValueError):
                pass  # no results for the lab: the checks' needs are not met
        checks = [d for d in scoring.gate_documents(documents) if d.get("lab") == f"{lab}-technique"]
        for document in checks:
            results.write_document(paths[1], document)


def points_table(command, env, cwd):
    """([(test, pass points, stretch points, kind, [tests its points need])] in run order,
    the headline {"test", "kernel"} or None)."""
    done = run_grouped(command + ["--grader-list-points"], capture_output=True, text=True,
                       env=env, cwd=cwd, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} --grader-list-points failed ({done.returncode}): "
                           f"{(done.stdout + done.stderr)[-1000:]}")
    table, headline = [], None
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "#headline":
            headline = {"test": parts[1], "kernel": " ".join(parts[2:])}
        elif len(parts) == 5:
            needs = [] if parts[4] == "-" else parts[4].split(",")
            table.append((parts[0], float(parts[1]), float(parts[2]), parts[3], needs))
    return table, headline


class LabRun:
    """One lab's checker (a checker.CheckerSettings) run test by test, in one go or in
    phases (grade.py: the tests that time nothing, then the speed tests alone on the GPU). The
    results file is this harness's to write (write_results), not the checker's."""

    def __init__(self, settings, timeout_s=DEFAULT_TEST_TIMEOUT_S, timeout_option="grade.py --timeout",
                 checker_wrapper=()):
        # The checker stops a call into the student's code after timeout_s, naming the function,
        # and its message says how to allow more (grade.py's option; "" names GRADER_TEST_TIMEOUT).
        self.settings = replace(settings, test_timeout_s=timeout_s, timeout_option=timeout_option)
        self.timeout_s = timeout_s
        # checker_wrapper: what the checker itself is started through (a cross build's emulator,
        # as meson's exe_wrapper would start it).
        self.command, self.cwd = list(checker_wrapper) + self.settings.command(), os.getcwd()
        self.env = dict(os.environ, **self.settings.environment())
        self.table, self.headline = points_table(self.command, self.env, self.cwd)
        # Its lines fitted to the terminal, as every line grade.py prints (terminal.py).
        self.progress = progress.LabProgress(settings.lab, len(self.table), timeout_s, write=terminal.say)
        self.outcomes, self.attempts, self.hello = {}, [], None
        self.races, self.races_text = {}, ""  # the race pass's (evidence(races=True))

    def run(self, speed=None, only=None):
        """Runs the tests not run yet: all (speed None), the speed tests (True) or the others;
        of those, only the names in `only` where it is given."""
        names = [name for name, _, _, kind, _ in self.table if name not in self.outcomes
                 and (speed is None or (kind == "speed") == speed) and (only is None or name in only)]
        if not names:
            return
        self.progress.start_phase(len(self.outcomes))
        # The runner's kill comes a little after the checker's own (and its watchdog's), which
        # give the clearer message.
        result = harness.run_tests(self.command, names, self.env, self.cwd, self.timeout_s + 10,
                                  progress=self.progress)
        self.outcomes.update(result.outcomes)
        self.attempts += result.attempts
        self.hello = self.hello or result.hello

    def evidence_tests(self, needed, races=False):
        """The tests to run again: those of `needed` that passed; with races, also every passed
        main and edge test (race_verdicts.race_tests, at small sizes)."""
        full = evidence_pass.passed(self.outcomes, needed)
        return full + [n for n in race_verdicts.race_tests(self.outcomes, self.table) if n not in full] if races else full

    def evidence(self, results_dir, check_tests, races=False):
        """The evidence pass (runs/evidence_pass.py): the tests the lab's checks need that passed,
        run again with the runner counting what ran; results/evidence/labNN.json written. With
        races, then the race pass (every passed main and edge test at small sizes, the detector
        watching): a race, or a run not watched in full, fails its suite's passed main and edge
        tests (counting/race_verdicts.py) and self.races holds the results' `races` key."""
        evidence_pass.clear(results_dir, self.settings.lab)
        full = evidence_pass.passed(self.outcomes, evidence_pass.needed_tests(check_tests))
        env = dict(os.environ, **replace(self.settings, evidence=True).environment())
        if full:
            result = harness.run_tests(self.command, full, env, self.cwd, self.timeout_s + 10)
            evidence_pass.write(results_dir, self.settings.lab, result.outcomes)
        small = race_verdicts.race_tests(self.outcomes, self.table) if races else []
        if small:
            started = time.monotonic()
            result = harness.run_tests(self.command, small, dict(env, **race_verdicts.RACE_PASS), self.cwd,
                                       self.timeout_s + 10)
            self.races, self.races_text = race_verdicts.judge(self.settings.lab, [result.outcomes], self.outcomes)
            self.races.update(tests=small, seconds=round(time.monotonic() - started, 2))

    def document(self):
        """(results document, run output) of the tests run so far."""
        document = results.lab_document(self.settings.lab, self.settings.submission, self.hello,
                                        self.table, self.outcomes, self.headline)
        if self.races:
            document["races"] = self.races
        output = "\n".join(f"-- run {i}: {a.filter_count} test(s), status {a.returncode}"
                           + (f": {a.reason}" if a.reason else "") + "\n" + a.output
                           for i, a in enumerate(self.attempts, 1))
        return document, output
