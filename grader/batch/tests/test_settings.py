#!/usr/bin/env python3
"""The batch's command line made into its settings (the two seeds apart, the seed file), every
path from one place, and a checker told its settings in its
environment: fast, nothing built."""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import types
import unittest

from batch import builder, cli, paths
from batch.session import BatchSession
from batch.settings import Seeds
from runs import checker
from gradescope import make_autograder_zip


def parse(*argv):
    """(args, what it printed on stderr); a usage error raises SystemExit."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        args = cli.parse_args(["class", "--out", "report", *argv])
    return args, err.getvalue()


def usage_error(*argv):
    """What the parser said, refusing `argv` (exit status 2)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            cli.parse_args(["class", "--out", "report", *argv])
        except SystemExit as refused:
            if refused.code == 2:
                return err.getvalue()
    raise AssertionError(f"accepted {argv}")


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="batch-settings-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def seed_file(self, text):
        path = os.path.join(self.tmp, "seeds.txt")
        with open(path, "w") as f:
            f.write(text)
        return path


class SeedsTest(Temp):
    def test_the_two_seeds_are_apart(self):
        settings = cli.settings_from(parse("--input-seed", "1", "--data-seed", "2")[0])
        self.assertEqual((settings.seeds.inputs, settings.seeds.data), (1, 2))
        self.assertTrue(settings.seeds.custom_data)
        only_inputs = cli.settings_from(parse("--input-seed", "1")[0]).seeds
        self.assertEqual((only_inputs.inputs, only_inputs.data), (1, None))
        self.assertFalse(only_inputs.custom_data)  # the project's data file, other inputs

    def test_a_seed_file_names_each_seed_or_holds_one_for_both(self):
        args, _ = parse("--seed-file", self.seed_file("# hidden\ninput-seed 11\ndata-seed=12\n"))
        self.assertEqual((args.input_seed, args.data_seed), (11, 12))
        args, _ = parse("--seed-file", self.seed_file("data-seed 5\n"))
        self.assertEqual((args.input_seed, args.data_seed), (None, 5))
        args, _ = parse("--seed-file", self.seed_file("77\n"))
        self.assertEqual((args.input_seed, args.data_seed), (77, 77))
        for bad in ("", "seed 3\n", "input-seed x\n", "input-seed 1\ninput-seed 2\n", "-4\n"):
            self.assertIn("--seed-file", usage_error("--seed-file", self.seed_file(bad)), bad)

    def test_a_seed_given_twice_or_negative_is_an_error(self):
        path = self.seed_file("input-seed 3\n")
        self.assertIn("--input-seed is given twice",
                      usage_error("--seed-file", path, "--input-seed", "4"))
        self.assertIn("non-negative", usage_error("--data-seed", "-1"))
        # --seed (both seeds) is gone; argparse would otherwise take it for --seed-file.
        self.assertIn("--seed was removed", usage_error("--seed", "5"))

    def test_make_autograder_zip_can_carry_the_seeds_in_a_file(self):
        # make_autograder_zip.py writes args.seed into the autograder's seed file (--seed-file).
        for given in (["--seed-file", self.seed_file("5\n")],
                      ["--seed-file", self.seed_file("input-seed 1\ndata-seed 2")]):
            args, _ = parse(*given)
            again, _ = parse("--seed-file", self.seed_file(args.seed + "\n"))
            self.assertEqual((again.input_seed, again.data_seed), (args.input_seed, args.data_seed))
        self.assertIsNone(parse()[0].seed)


class SettingsTest(Temp):
    def test_defaults_and_checks(self):
        settings = cli.settings_from(parse("--timeout", "3", "--shard", "2/5", "--labs", "01")[0])
        self.assertEqual(settings.work.root, os.path.join(os.path.abspath("report"), ".work"))
        self.assertEqual((settings.budget_s, settings.shard, settings.shard_text), (30, (2, 5), "2/5"))
        self.assertEqual([lab.name for lab in settings.labs], ["lab01"])
        with self.assertRaises(ValueError):
            cli.settings_from(parse("--labs", "99")[0])
        self.assertIn("positive", usage_error("--budget", "0"))

    def test_a_workers_slot_is_the_folder_its_build_compiles(self):
        work = paths.WorkPaths(self.tmp)
        worker = builder.Worker(3, work, "/snapshot", {"kernel_backend": "cpu"}, [], print)
        self.assertEqual(worker.options["submission"], work.slot(3))
        self.assertEqual(worker.slot, work.slot(3))
        self.assertEqual(worker.build_dir, work.build(3))
        self.assertTrue(worker.check_results.startswith(worker.build_dir + os.sep))

    def test_a_check_runs_as_meson_defines_it_and_its_results_are_read_back(self):
        worker = builder.Worker(0, paths.WorkPaths(self.tmp), "/snapshot", {}, [], print)
        os.makedirs(worker.check_results)
        with open(os.path.join(worker.check_results, "stale.json"), "w") as f:
            f.write('{"tests": [{"name": "Stale"}]}')  # a previous student's: removed first
        write = ("import json, os, sys; os.makedirs(sys.argv[1], exist_ok=True); json.dump("
                 "{'tests': [{'name': 'Technique.Loads', 'status': 'passed'}]}, "
                 "open(os.path.join(sys.argv[1], 'lab01_technique.json'), 'w'))")
        worker.checks["lab01"] = [{"name": "lab01 technique", "env": {}, "workdir": None,
                                   "cmd": [sys.executable, "-c", write, worker.check_results]}]
        [record] = worker.run_checks("lab01")
        self.assertEqual(record["returncode"], 0, record["output"])
        self.assertEqual(record["results"], {"tests": [{"name": "Technique.Loads", "status": "passed"}]})


class CheckerSettingsTest(Temp):
    TARGETS = [{"name": n, "filename": [f"/b/{n}"]} for n in
               ("lab01_checker", "lab01_runner_graded", checker.YARDSTICK_RUNNER_TARGET,
                checker.DATA_TARGET)]
    TESTS = [{"name": "lab01", "suite": ["p:lab01", "p:grade", "p:checker"]},
             {"name": "lab01 technique", "suite": ["p:technique", "p:lab01", "p:grade"]},
             {"name": "lab01 solutions graded as expected", "suite": ["p:selftest"]}]

    def test_programs_and_checks_come_from_the_build(self):
        programs = checker.build_programs(self.TARGETS, ["lab01"])
        self.assertEqual(programs.labs["lab01"], ("/b/lab01_checker", "/b/lab01_runner_graded"))
        self.assertEqual(programs.data, "/b/standard-data")
        self.assertEqual(checker.graded_labs(self.TESTS), ["lab01"])
        self.assertEqual([t["name"] for t in checker.lab_checks(self.TESTS, "lab01")],
                         ["lab01 technique"])
        with self.assertRaises(RuntimeError):
            checker.build_programs(self.TARGETS, ["lab02"])

    def batch(self, sandboxed):
        settings = cli.settings_from(parse("--backend", "cpu", "--input-seed", "918273645",
                                           "--labs", "01")[0])
        batch = BatchSession(settings)
        batch.data_file, batch.snapshot = os.path.join(self.tmp, "data.bin"), "/project"
        if sandboxed:
            class Box:
                binds = True  # bubblewrap's: paths.SANDBOXED

                def command(self, argv, kind, read_only, uid):
                    self.bound = dict(read_only)
                    return ["bwrap"] + argv
            batch.sandbox = Box()
        folder = paths.RunFolder(os.path.join(self.tmp, "run"), input_seed=5, data=batch.data_file)
        os.makedirs(folder.root)
        return batch, folder

    def test_the_checker_is_told_its_settings_in_its_environment(self):
        batch, folder = self.batch(sandboxed=False)
        command, env, _, wrap = batch.launch("lab01", folder, None, tool=None)
        self.assertEqual(command, [folder.checker("lab01")])  # no argument to rewrite
        self.assertEqual(wrap, None)
        self.assertEqual({k: v for k, v in env.items() if k.startswith("GRADER_")},
                         {"GRADER_LAB": "lab01", "GRADER_RUNNER": folder.runner("lab01"),
                          "GRADER_YARDSTICK_RUNNER": folder.yardstick_runner,
                          "GRADER_DATA": batch.data_file, "GRADER_SUBMISSION": folder.src,
                          "GRADER_TEST_TIMEOUT": "0", "GRADER_TIMEOUT_OPTION": "",  # no advice
                          # half the test's timeout for the runner to reach main()
                          "GRADER_RUNNER_START_TIMEOUT": f"{batch.timeout_of(None) / 2:g}"})
        self.assertNotIn("918273645", str(env))  # the input seed goes in the key pipe only

    def test_in_the_sandbox_it_sees_fixed_paths(self):
        batch, folder = self.batch(sandboxed=True)
        batch.sanitizer_path = "/cuda/compute-sanitizer"
        command, env, cwd, wrap = batch.launch("lab01", folder, "0", tool="racecheck")
        self.assertEqual(command, [paths.SANDBOXED.checker])
        self.assertEqual((env["GRADER_DATA"], env["GRADER_RUNNER"], env["CUDA_VISIBLE_DEVICES"]),
                         (paths.SANDBOXED.data, paths.SANDBOXED.runner, "0"))
        self.assertEqual(env["GRADER_SMALL_INPUTS"], "1")
        self.assertTrue(env["GRADER_RUNNER_WRAPPER"].startswith("/cuda/compute-sanitizer\n--tool"))
        self.assertEqual(wrap(command), ["bwrap", paths.SANDBOXED.checker])
        self.assertEqual(batch.sandbox.bound[folder.src], paths.SANDBOXED.submission)
        self.assertEqual(batch.sandbox.bound[batch.data_file], paths.SANDBOXED.data)


class PerSubmissionSeedsTest(unittest.TestCase):
    """Each hidden seed is a secret each submission's own seeds are derived from (a keyed hash of
    the student and the digest of their files): two students, or a resubmission, share nothing."""

    def test_derived_per_student_and_per_files_and_secret(self):
        seeds = Seeds(inputs=918273645, data=2 ** 200 + 7, data_count=None)
        alice = seeds.for_submission("alice", "f1")
        self.assertEqual(alice, seeds.for_submission("alice", "f1"))  # a re-run, a merged shard
        others = [seeds.for_submission("bob", "f1"), seeds.for_submission("alice", "f2"),
                  Seeds(inputs=918273646, data=2 ** 200 + 8).for_submission("alice", "f1")]
        for other in others:
            self.assertNotEqual(alice.inputs, other.inputs)
            self.assertNotEqual(alice.data, other.data)
        self.assertNotEqual(alice.inputs, alice.data)  # the two kinds apart, even from one secret
        one = Seeds(inputs=77, data=77).for_submission("alice", "f1")
        self.assertNotEqual(one.inputs, one.data)
        for seed in (alice.inputs, alice.data):
            self.assertTrue(0 <= seed < 2 ** 63)
            self.assertNotIn(seed, (918273645, 2 ** 200 + 7))

    def test_defaults_stay_defaults(self):
        self.assertEqual(Seeds().for_submission("alice", "f1"), Seeds())
        counted = Seeds(data_count=1000).for_submission("alice", "f1")
        self.assertEqual((counted.inputs, counted.data, counted.data_count), (None, None, 1000))

    def test_a_secret_is_below_2_to_the_256(self):
        args, _ = parse("--input-seed", str(2 ** 128 + 1))
        self.assertEqual(args.input_seed, 2 ** 128 + 1)
        self.assertIn("below 2^256", usage_error("--data-seed", str(2 ** 256)))


class SeedsStayOffCommandLinesTest(unittest.TestCase):
    def test_every_seed_flag_moves_into_the_seed_file(self):
        args = types.SimpleNamespace(visibility=None, grade_args=[
            "--labs", "01", "--input-seed", "123", "--data-seed=456", "--timeout", "20"])
        kept, seed = make_autograder_zip.cpu_settings(args)
        self.assertEqual(kept, ["--labs", "01", "--timeout", "20"])
        self.assertEqual(seed, "input-seed 123\ndata-seed 456")


if __name__ == "__main__":
    unittest.main()
