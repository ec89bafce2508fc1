#!/usr/bin/env python3
"""The made-up class of grader/batch/fixtures/ graded end to end by grade_submissions.py on the
CPU backend, in its sandbox, with a hidden seed: each fault, trick and attack ends with the grade
and the reason it must, and the attacks on the machine are contained (no process outlives the
batch, nothing of the batch is visible, no secret in what students see). Then: a re-run skips
what is graded, the hidden seed is what catches the hard-coded answers, and two shards merged
give the same grades as one run.

Exit status 77 (skipped) in a build whose backend is not cpu: that build grades on a GPU, where
the same class is graded with --backend cuda by hand (handouts/instructor-guide.md)."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import data_modules
from batch.settings import Seeds
from batch.tests.fixture_class_attacks import Issue51Records
from batch.tests.fixture_class_report import ReportChecks  # counting, teach next, timings
from batch.tests.fixture_class_run import (COMMON, DATA_SEED, EMPTY, FILE, FIXTURES, GRID, HIDDEN_SEED,
                                           CHECK, MAX, SLICES, TOOL, grade, load,
                                           make_class, tests_of)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
keyed = data_modules.load("keyed")  # data/keyed.py: the hidden data file's generator

class FixtureClass(Issue51Records, ReportChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="batch-fixtures-")
        cls.work = os.path.join(cls.tmp, "work")
        cls.names = sorted(os.listdir(FIXTURES))
        cls.names = [n for n in cls.names if os.path.isdir(os.path.join(FIXTURES, n))
                     and not n.startswith("lab00_")]  # lab 00 programs: a class of their own
        make_class(os.path.join(cls.tmp, "class"), cls.names)
        cls.seeds = ["--seed-file", os.path.join(cls.tmp, "seeds.txt")]
        with open(cls.seeds[1], "w") as f:
            f.write(f"input-seed {HIDDEN_SEED}\ndata-seed {DATA_SEED}  # apart\n")
        cls.report = os.path.join(cls.tmp, "report")
        cls.done = grade(os.path.join(cls.tmp, "class"), "--out", cls.report, "--work-dir", cls.work,
                         *cls.seeds, *COMMON)
        cls.records = load(cls.report) if cls.done.returncode == 0 else {}

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("BATCH_KEEP_TMP"):
            print(f"kept {cls.tmp} (BATCH_KEEP_TMP)")
        else:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_no_secret_in_what_students_see(self):
        for student in self.names:
            for name, text in self.student_files(student).items():
                self.assertNotIn(HIDDEN_SEED, text, f"{student}/{name}")
                self.assertNotIn(DATA_SEED, text, f"{student}/{name}")
                if student != "key_thief":  # its own source names the variable; the report quotes it
                    self.assertNotIn("GRADER_RESULTS_CHANNEL", text, f"{student}/{name}")
        with open(os.path.join(self.report, "batch.json")) as f:
            summary = json.load(f)  # the instructor's copy
        self.assertEqual((summary["input_seed"], summary["data_seed"]),
                         (int(HIDDEN_SEED), int(DATA_SEED)))

    def test_no_process_outlives_the_batch(self):
        # This run's processes only (another user's grader runs the same programs): those whose
        # command line, environment, folder or sandbox mounts name this run's own temporary folder.
        from batch.tests.own_processes import started_by_run
        left = started_by_run(os.path.basename(self.tmp))
        self.assertEqual(left, [], "processes this batch started are still running")

    def test_detached_process_is_ended_with_its_run(self):
        self.expect("detached_process", set(SLICES + GRID))

    def test_snooping_finds_nothing_and_its_crash_shows_no_seed(self):
        self.expect("snooping", set(SLICES + GRID) - {"Lab01GridStride.HandlesASingleSample"},
                    "crashed: SIGABRT")
        self.assertIn("snoop: grader_processes=0 other_lab_files=0 report_files=0 seed_in_env=0 "
                      "seed_in_args=0", self.instructor_log("snooping"))
        self.assertIn("seed hidden", self.student_files("snooping")["log.txt"])

    def test_macro_include_of_the_report_finds_nothing(self):
        record = self.expect("macro_include", set(SLICES + GRID))
        self.assertEqual(record["labs"]["lab01"]["build_output"], "")

    def test_process_flood_is_capped(self):
        # Its own runs may then fail to start threads (its processes count against its limit);
        # no other submission's run does: each run has a uid of its own.
        started = re.search(r"flood: (\d+) processes started", self.instructor_log("process_flood"))
        self.assertIsNotNone(started)
        self.assertLess(int(started.group(1)), 2048)

    def test_missing_zeroing_barrier(self):
        # The CPU backend's shuffled schedule exposes it; on a GPU, the sanitizer pass does.
        self.expect("missing_zeroing_barrier",
                    set(SLICES) | {"Lab01GridStride.HandlesAnEmptyInput"}, "bins wrong")

    def test_sanitizer_aware_is_withheld_and_caught_by_the_schedule(self):
        # It adds its barriers only where it finds compute-sanitizer: naming the tool withholds
        # the score; the CPU backend has no tool to find, and its shuffled schedule fails v2.
        record = self.records["sanitizer_aware"]
        lab = record["labs"]["lab01"]
        tests = tests_of(record)
        passing = set(SLICES) | {"Lab01GridStride.HandlesAnEmptyInput"}
        self.assertEqual({n for n, t in tests.items() if t["status"] == "passed"}, passing)
        for name in set(GRID) - passing:
            self.assertIn("bins wrong", tests[name]["message"], name)
        self.assertEqual((record["score"], lab["status"]), (0, "withheld"))
        earning = [n for n in passing if all(m in passing for m in tests[n].get("needs") or [])]
        self.assertEqual(sum(t.get("earned", 0) for t in tests.values()),
                         sum(tests[n]["max_score"] for n in earning))
        self.assertTrue(lab["reasons"][0].startswith("score withheld: grader tampering: line "))
        self.assertIn("compute-sanitizer", lab["reasons"][0])
        notes = " ".join(lab["review_notes"])
        self.assertIn("reads the environment (getenv)", notes)  # the pasted get##env
        self.assertIn("names /proc", notes)
        self.assertIn("sanitizer_aware: tool found=0", self.student_files("sanitizer_aware")["log.txt"])

    def test_huge_file_is_stopped_by_the_file_size_limit(self):
        self.expect("huge_file", set(GRID), "crashed: SIGXFSZ (file size limit exceeded")

    def test_the_run_succeeded(self):
        self.assertEqual(self.done.returncode, 0)
        self.assertEqual(sorted(self.records), self.names)
        self.assertIn("README.txt: neither a folder", self.done.stdout)

    def test_correct(self):
        record = self.expect("correct", set(SLICES + GRID))
        self.assertEqual(record["score"], MAX)
        self.assertEqual(record["labs"]["lab01"]["findings"], [])
        self.assertIn("bubblewrap sandbox", record["run_user"])

    def test_wrong_tail_and_the_files_sent_along_are_ignored(self):
        # the student's header (#error), test file and meson.build were not used: it compiled
        # (the handout's shapes divide the standard data exactly: no tail there)
        self.expect("wrong_tail", set(GRID) | {"Lab01Slices.HandlesAnEmptyInput",
                                               "Lab01Slices.HandlesASingleSample",
                                               "Lab01Slices.MatchesCpuForTheLaunchShapesOfTheHandoutTable"},
                    "bins wrong")

    def test_missing_barrier(self):
        self.expect("missing_barrier", set(SLICES) | {"Lab01GridStride.HandlesAnEmptyInput"},
                    "bins wrong")

    def test_out_of_bounds_write(self):
        self.expect("out_of_bounds_write", set(GRID), "wrote outside the bins")

    def test_infinite_loop_is_killed_per_test(self):
        record = self.expect("infinite_loop", set(SLICES) | {"Lab01GridStride.HandlesAnEmptyInput"},
                             "timed out")
        hung = [t for t in tests_of(record).values() if t["status"] == "failed" and t["name"] != CHECK]
        self.assertEqual({t["fault"] for t in hung}, {"timeout"})

    def test_illegal_address_crashes_one_test_at_a_time(self):
        # The runner crashes, the checker reports it and starts another for the next call.
        self.expect("illegal_address", set(GRID) | {"Lab01Slices.HandlesAnEmptyInput"},
                    "the process running your code crashed: SIGSEGV")

    def test_does_not_compile(self):
        record = self.expect("does_not_compile", set(), "does not compile", status="compile_error")
        self.assertIn("d_bin", record["labs"]["lab01"]["build_output"])
        self.assertIn("d_bin", record["labs"]["lab01"]["reasons"][0])

    def test_fake_pass_earns_nothing(self):
        # Its forged verdicts reach only its own line to the checker, which takes them for a
        # malformed reply; the results channel is the checker's, out of its reach.
        record = self.expect("fake_pass", set(), "the process running your code sent the grader a malformed reply")
        lab = record["labs"]["lab01"]
        self.assertEqual(lab["forged_lines"], 0)
        self.assertTrue(any("exit()" in note for note in lab["review_notes"]))

    def test_calls_cub(self):
        # No CUB on the CPU backend, so it does not compile there either; the reason names CUB.
        record = self.expect("calls_cub", set(), status="compile_error")
        lab = record["labs"]["lab01"]
        self.assertIn("cub::DeviceHistogram", lab["reasons"][0])
        self.assertTrue(lab["reasons"][0].startswith("score withheld: library shortcut"))

    def test_hard_coded_answers_fail_with_a_hidden_seed(self):
        self.expect("hard_coded", EMPTY, "bins wrong")

    # ---- attacks on the verdicts and the timing: the checker never runs student code ----------
    def test_write_interposer_forges_nothing(self):
        self.expect("write_interposer", EMPTY, "launched no kernel")

    def test_key_thief_finds_no_key_and_its_writes_are_no_replies(self):
        record = self.expect("key_thief", set(), "sent the grader a malformed reply", status="withheld")
        self.assertIn("thief: channel=none", self.instructor_log("key_thief"))
        self.assertTrue(record["labs"]["lab01"]["reasons"][0].startswith("score withheld"))

    def test_verdict_before_main_ends_only_its_runner(self):
        self.expect("verdict_before_main", set(), "the process running your code exited with status 0")

    def test_grader_symbols_replace_nothing(self):
        # Its empty-input tests pass (nothing to count), the others fail on their bins; the symbol
        # check withholds the score for the definitions themselves.
        record = self.records["grader_symbols"]
        tests = tests_of(record)
        self.assertEqual({n for n, t in tests.items() if t["status"] == "passed"}, EMPTY)
        self.assertEqual((record["score"], record["labs"]["lab01"]["status"]), (0, "withheld"))
        self.assertIn("grader tampering: defines grader::", record["labs"]["lab01"]["reasons"][0])

    def test_memory_reader_is_refused(self):
        self.expect("memory_reader", set(SLICES + GRID))
        self.assertIn("reader: parent_mem=denied parent_environ=denied parent_maps=denied ptrace=denied",
                      self.instructor_log("memory_reader"))

    def test_cached_results_nonblocking_stream_and_overwrites_input_are_correct_here(self):
        # Their tricks touch only the speed tests, which the GPU grades (the instructor guide).
        self.expect("cached_results", set(SLICES + GRID))
        self.expect("nonblocking_stream", set(SLICES + GRID))
        self.expect("overwrites_input", set(SLICES + GRID))

    def test_leaked_inputs_reach_the_student_a_few_samples_at_most_and_no_seed(self):
        record = self.expect("leaks_inputs", set(GRID) | {"Lab01Slices.HandlesAnEmptyInput"},
                             "threw an exception: leak input:")
        full = self.instructor_log("leaks_inputs")
        leaked = {kind: [line.split()[5:] for line in full.splitlines()
                         if line.startswith(f"[ runner   ] leak {kind}:")] for kind in ("input", "data")}
        # The instructor's log has every line (but where a run's output was capped, mid-line):
        # up to 256 samples of each input, 256 of the data file.
        self.assertGreater(len(leaked["input"]), 10)
        self.assertEqual(max(len(s) for s in leaked["input"]), 256)
        leaked["data"] = [s for s in leaked["data"] if len(s) == 256]
        self.assertGreater(len(leaked["data"]), 10)
        # The data file is the submission's own, drawn from its keyed data seed.
        seeds = Seeds(int(HIDDEN_SEED), int(DATA_SEED)).for_submission("leaks_inputs",
                                                                      record["fingerprint"])
        own = keyed.uniform(seeds.data, 256, 1024).tolist()
        self.assertTrue(all([int(v) for v in s] == own for s in leaked["data"]))
        for name, text in self.student_files("leaks_inputs").items():
            for seed in (seeds.inputs, seeds.data):
                self.assertNotIn(str(seed), text, name)
            flat = " ".join(text.split())
            # (the all-equal inputs, one value repeated, tell nothing: 115 "7"s fit in 240 characters)
            for samples in [s for s in leaked["input"] + leaked["data"] if len(set(s)) >= 16]:
                shown = 0  # how long a run of the leaked samples, in order, the student sees
                while shown < len(samples) and " ".join(samples[:shown + 1]) in flat:
                    shown += 1
                self.assertLessEqual(shown, 64, f"{name}: {shown} samples in a row")
        self.assertNotIn(str(seeds.inputs), full)  # nor in the instructor's log: it was never sent
        self.assertNotIn(str(seeds.data), full)

    def test_host_copy_fails_every_test_with_samples(self):
        self.expect("host_copy", EMPTY, "the work must happen on the GPU")

    # ---- isolation and limits (issue 34) -------------------------------------------------------
    def test_answer_reader_finds_no_answer_key(self):
        self.expect("answer_reader", set(SLICES + GRID))
        self.assertIn("answers: compile=0 run=0", self.student_files("answer_reader")["log.txt"])

    def test_missing_header_is_a_compile_error(self):
        record = self.expect("missing_header", set(), "does not compile", status="compile_error")
        lab = record["labs"]["lab01"]
        self.assertIn("lab01_my_helpers.cuh", lab["reasons"][0])
        self.assertEqual([f for f in lab["findings"] if f["category"] == "tamper"], [])

    def test_never_starts_fails_its_lab_at_once(self):
        record = self.expect("never_starts", set(), "never started")
        # One run: one wait for its runner's hello (half of --timeout), not a timeout per test.
        attempts = record["labs"]["lab01"]["attempts"]
        self.assertEqual(len(attempts), 1)
        self.assertLess(attempts[0]["duration_s"], float(COMMON[COMMON.index("--timeout") + 1]))

    def test_memory_hog_is_stopped_by_the_memory_limit(self):
        self.expect("memory_hog", set(GRID), "the run ran out of memory")

    def test_mapped_host_fails_every_test(self):
        self.expect("mapped_host", set(), "a graded launcher allocated host memory the GPU can read "
                    "(cudaHostAlloc): the work must stay on the GPU")

    def test_gradescope_results_and_class_files(self):
        with open(os.path.join(self.report, "submissions", "out_of_bounds_write", "results.json")) as f:
            results = json.load(f)
        self.assertEqual((results["score"], sum(t["max_score"] for t in results["tests"])), (11, MAX))
        self.assertTrue(all({"name", "score", "max_score", "status", "output", "visibility"} <= set(t)
                            for t in results["tests"] if t["max_score"]))
        with open(os.path.join(self.report, "class.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["student"] for r in rows], self.names)
        by_student = {r["student"]: r for r in rows}
        self.assertEqual(by_student["correct"]["lab01"], str(MAX))
        self.assertEqual(by_student["infinite_loop"]["lab01 Lab01GridStride.MatchesCpuOnUniformSamples"], "0")
        with open(os.path.join(self.report, "index.html")) as f:
            page = f.read()
        self.assertIn("submissions/fake_pass/log.txt", page)
        self.assertIn("timed out", page)
        with open(os.path.join(self.report, "submissions", "does_not_compile", "log.txt")) as f:
            self.assertIn("d_bin", f.read())

    def test_zz_rerun_skip_default_seed_and_shards(self):
        # A re-run grades nothing new and keeps every file.
        marker = os.path.join(self.report, "submissions", "correct", "grading.json")
        before = os.stat(marker).st_mtime_ns
        again = grade(os.path.join(self.tmp, "class"), "--out", self.report, "--work-dir", self.work,
                      "--input-seed", HIDDEN_SEED, "--data-seed", DATA_SEED, *COMMON)
        self.assertEqual(again.returncode, 0)
        self.assertIn(f"{len(self.names)} already graded", again.stdout)
        self.assertEqual(os.stat(marker).st_mtime_ns, before)

        # A run that ends with a submission that does not compile leaves the worker's slot as
        # the starter; and a slot left broken (a run killed mid-build) is restored at set-up: the
        # next run with the same work folder grades (below).
        broken = os.path.join(self.tmp, "broken")
        make_class(broken, ["does_not_compile"])
        done = grade(broken, "--out", os.path.join(self.tmp, "broken-report"), "--work-dir",
                     self.work, *COMMON, "--jobs", "1")
        self.assertEqual(done.returncode, 0)
        slot = os.path.join(self.work, "slots", "0", FILE)
        with open(slot) as f, open(os.path.join(ROOT, "starter", FILE)) as starter:
            self.assertEqual(f.read(), starter.read())
        shutil.copyfile(os.path.join(FIXTURES, "does_not_compile", FILE), slot)

        # Without the hidden seed, the saved answers of hard_coded pass the tests whose input it
        # recognises; the CPU race pass runs every passed test again at small sizes, where the
        # standard data file is another input and its answer is wrong: the functions fail, the run
        # not watched in full (fail closed). The hidden seed is still what a GPU batch relies on.
        small = os.path.join(self.tmp, "small")
        make_class(small, ["correct", "hard_coded", "wrong_tail"])
        default = grade(small, "--out", os.path.join(self.tmp, "default-seed"), "--work-dir",
                        self.work, *COMMON)
        self.assertEqual(default.returncode, 0)
        hard = tests_of(load(os.path.join(self.tmp, "default-seed"))["hard_coded"])
        for name in ("Lab01Slices.MatchesCpuOn1023Samples", "Lab01Slices.MatchesCpuOnTheStandardDataFile",
                     "Lab01GridStride.MatchesCpuOnTheStandardDataFile"):
            self.assertEqual(hard[name]["status"], "failed", name)
            self.assertIn("race detector could not watch", hard[name]["message"], name)

        # Two shards (sharing the worker builds), merged: the grades of the single run.
        shards = [os.path.join(self.tmp, f"shard{k}") for k in (1, 2)]
        for k, shard in enumerate(shards, 1):
            done = grade(small, "--out", shard, "--work-dir", self.work, *self.seeds,
                         "--shard", f"{k}/2", *COMMON)
            self.assertEqual(done.returncode, 0)
        self.assertEqual(sorted(os.listdir(os.path.join(shards[0], "submissions"))),
                         ["correct", "wrong_tail"])
        merged = os.path.join(self.tmp, "merged")
        done = subprocess.run(TOOL + ["merge", "--out", merged, "--no-matplotlib"] + shards,
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        joined = load(merged)
        self.assertEqual(sorted(joined), ["correct", "hard_coded", "wrong_tail"])
        for student, record in joined.items():
            self.assertEqual(record["score"], self.records[student]["score"], student)


if __name__ == "__main__":
    if os.environ.get("BATCH_OUTER_BACKEND", "cpu") != "cpu":
        print("skipped: this build's backend is not cpu; the fixture class is graded on the CPU "
              "backend in CI (a GPU machine grades it with --backend cuda, see the instructor guide)")
        sys.exit(77)
    unittest.main()
