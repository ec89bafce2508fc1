"""The race rule of CPU grading (counting/race_verdicts.py) and the reading of a call's witnesses
(runs/attempt.py races_from_text), on made-up evidence: which tests the race pass runs, which tests
a race fails and with what message, what the results' `races` key holds, and that malformed or
missing witnesses fail closed or say why. Standard library only; no build needed."""
import json
import unittest
from unittest import mock

from counting import race_verdicts
from runs.attempt import races_from_text
from runs.outcomes import TestOutcome


def access(line, thread):
    return {"location": f"/tmp/x/lab03_shared_privatization.cu:{line}", "source": "s_bins[d_samples[i]]++;",
            "operation": "write", "read_modify_write": True, "thread": [thread, 0, 0], "block": [0, 0, 0],
            "block_linear": 0, "warp": thread // 32, "lane": thread % 32, "barrier_before": "/tmp/x/lab03_shared_privatization.cu:40",
            "barrier_after": "/tmp/x/lab03_shared_privatization.cu:45", "barriers_before": 1}


def witness(index=17):
    return {"kind": "write after write", "kinds": ["write after write"], "label": "", "kernel": "k", "launched_at": "",
            "memory": "shared", "array": "s_bins", "index": index, "offset": 4 * index, "allocation_bytes": 0,
            "first": access(46, 5), "second": access(46, 37)}


def call(witnesses, function="lab03::histogram_v1_shared_slices"):
    return {"function": function, "collected": True, "unavailable": "", "entries": [],
            "races": {"races": witnesses, "unchecked": []}}


TABLE = [("Lab03SharedSlices.MatchesCpuOnUniformSamples", 2, 0, "main", []),
         ("Lab03SharedSlices.MatchesCpuOnAllEqualSamples", 1, 0, "main", []),
         ("Lab03SharedSlices.RefusesAnEmptyInput", 1, 0, "edge", []),
         ("Lab03Bytes.MatchesCpuOnRandomBytes", 2, 0, "main", []),
         ("Lab03Bytes.CountsEveryByteValue", 1, 0, "main", []),
         ("Lab03Speed.V1", 1, 0, "speed", [])]


def outcomes(failed=()):
    return {name: TestOutcome(name=name, status="failed" if name in failed else "passed", kind=kind)
            for name, _, _, kind, _ in TABLE}


class RaceVerdicts(unittest.TestCase):
    def test_race_tests_every_passed_main_and_edge_test(self):
        chosen = race_verdicts.race_tests(outcomes(["Lab03SharedSlices.MatchesCpuOnUniformSamples"]), TABLE)
        self.assertEqual(chosen, ["Lab03SharedSlices.MatchesCpuOnAllEqualSamples", "Lab03SharedSlices.RefusesAnEmptyInput",
                                  "Lab03Bytes.MatchesCpuOnRandomBytes", "Lab03Bytes.CountsEveryByteValue"])
        self.assertEqual(race_verdicts.race_tests(outcomes()), race_verdicts.race_tests(outcomes(), TABLE))

    def test_judge_joins_the_passes_a_test_of_either_decides(self):
        main, bytes_ = "Lab03SharedSlices.MatchesCpuOnUniformSamples", "Lab03Bytes.MatchesCpuOnRandomBytes"
        full = {main: TestOutcome(name=main, status="passed", kind="main", evidence=[call([])])}
        small = {main: TestOutcome(name=main, status="passed", kind="main", evidence=[call([witness(3)])]),
                 bytes_: TestOutcome(name=bytes_, status="timed out", kind="main")}
        results = outcomes()
        document, text = race_verdicts.judge("lab03", [full, small], results)
        self.assertEqual(document["failed"], [n for n, *_ in TABLE[:5]])
        self.assertIn("race on s_bins[3]", results[main].message)
        self.assertIn("could not watch", results[bytes_].message)
        self.assertEqual(list(document["unwatched"]), ["Lab03Bytes"])
        self.assertIn("s_bins[3]", text)
        found_only = outcomes()
        self.assertEqual(race_verdicts.judge("lab03", [full, small])[0]["failed"], [])
        self.assertEqual(found_only, outcomes())

    def test_a_race_fails_its_suites_passed_correctness_tests_naming_line_and_question(self):
        results = outcomes()
        evidence = {"Lab03SharedSlices.MatchesCpuOnUniformSamples": [call([witness(17)]), call([witness(18)])]}
        by_suite, unchecked, why = race_verdicts.found("lab03", evidence, "lab03_shared_privatization.cu")
        self.assertEqual((list(by_suite), len(by_suite["Lab03SharedSlices"]), why), (["Lab03SharedSlices"], 1, ""))
        failed = race_verdicts.apply(results, by_suite)
        self.assertEqual(failed, [n for n, *_ in TABLE[:3]])
        message = results[TABLE[0][0]].message
        self.assertIn("race on s_bins[17]", message)
        self.assertIn("line 46", message)
        self.assertIn("use atomicAdd (Q2.2)", message)
        self.assertEqual(results["Lab03Bytes.MatchesCpuOnRandomBytes"].status, "passed")
        self.assertEqual(results["Lab03Speed.V1"].status, "passed")
        summary = race_verdicts.summary(by_suite)
        self.assertEqual(list(summary["functions"]), ["histogram_v1_shared_slices"])
        self.assertIn("Q2.2", race_verdicts.full_text(by_suite))

    def test_no_witness_no_change_and_an_unwatched_run_says_why(self):
        results = outcomes()
        by_suite, _, why = race_verdicts.found("lab03", {"Lab03Bytes.MatchesCpuOnRandomBytes": [call([])]})
        self.assertEqual((by_suite, race_verdicts.apply(results, by_suite), why), ({}, [], ""))
        unwatched = {"Lab03Bytes.MatchesCpuOnRandomBytes": [{"function": "f", "collected": False, "entries": [],
                                                             "unavailable": "built without the counting mode"}]}
        self.assertEqual(race_verdicts.found("lab03", unwatched)[2], "built without the counting mode")

    def test_an_unreadable_witness_still_fails_the_suite(self):
        results = outcomes()
        by_suite, _, _ = race_verdicts.found("lab03", {"Lab03Bytes.CountsEveryByteValue": [call([{"first": {}}])]})
        race_verdicts.apply(results, by_suite)
        self.assertEqual(results["Lab03Bytes.MatchesCpuOnRandomBytes"].status, "failed")
        self.assertIn("could not read", results["Lab03Bytes.MatchesCpuOnRandomBytes"].message)

    def test_a_run_the_detector_did_not_watch_fails_its_suite_saying_why(self):
        main, bytes_ = "Lab03SharedSlices.MatchesCpuOnUniformSamples", "Lab03Bytes.MatchesCpuOnRandomBytes"
        crashed = {main: TestOutcome(name=main, status="crashed", kind="main", message="SIGSEGV"),
                   bytes_: TestOutcome(name=bytes_, status="passed", kind="main", evidence=[call([])])}
        unwatched = race_verdicts.unwatched(crashed)
        self.assertEqual(list(unwatched), ["Lab03SharedSlices"])
        self.assertIn("crashed when watched: SIGSEGV", unwatched["Lab03SharedSlices"])
        results = outcomes()
        self.assertEqual(race_verdicts.apply(results, {}, unwatched), [n for n, *_ in TABLE[:3]])
        self.assertIn("could not watch", results[main].message)
        self.assertEqual(results[bytes_].status, "passed")
        silent = dict(call([]), races=None)
        del silent["races"]
        over = call([])
        over["races"]["unchecked"] = ["kernel k launched at x: more global accesses than the detector keeps"]
        for evidence, said in (([call([]), silent], "sent no race witnesses"), ([over], "more global accesses")):
            passed = {bytes_: TestOutcome(name=bytes_, status="passed", kind="main", evidence=evidence)}
            self.assertIn(said, race_verdicts.unwatched(passed).get("Lab03Bytes", ""))

    def test_a_runner_built_without_the_detector_is_graded_as_before(self):
        without = {"function": "f", "collected": False, "entries": [], "unavailable": "built without the counting mode"}
        passed = {n: TestOutcome(name=n, status="passed", kind="main", evidence=[without]) for n, *_ in TABLE[:2]}
        self.assertEqual(race_verdicts.unwatched(passed), {})


class RaceSuspects(unittest.TestCase):
    """student_runs.race_suspects: on a GPU, the detector's witnesses under a "likely a race"."""
    class Run:
        def __init__(self, message):
            self.outcomes = {"Lab03SharedSlices.MatchesCpuOnUniformSamples": TestOutcome(
                name="x", status="failed", kind="main", message=message)}
            self.races, self.races_text = {}, ""

        def document(self):
            return {"lab": "lab03", "races": self.races}, ""

    def suspects(self, runs, find):
        import student_runs
        from counting import races
        written = []
        with mock.patch.object(races, "find", find), \
                mock.patch.object(student_runs.results, "write", lambda d, doc, out: written.append(doc)), \
                mock.patch.object(student_runs, "write_races", lambda d, lab, text: written.append(text)), \
                mock.patch.object(student_runs.terminal, "say", lambda line: written.append(line)):
            student_runs.race_suspects("build", "results", runs, "submission")
        return written

    def test_a_likely_race_gets_the_witness_as_advice(self):
        asked = []
        def find(lab, submission, build_dir):
            asked.append((lab, submission, build_dir))
            return [dict(witness(), label="histogram_v1_shared_slices", lab="03")]
        runs = {"lab03": self.Run("bins wrong\n  hint: ... again: likely a race"), "lab01": self.Run("bins wrong")}
        written = self.suspects(runs, find)
        self.assertEqual(asked, [("03", "submission", "build")])
        self.assertTrue(runs["lab03"].races["advice"])
        self.assertEqual(list(runs["lab03"].races["functions"]), ["histogram_v1_shared_slices"])
        self.assertEqual(runs["lab03"].outcomes["Lab03SharedSlices.MatchesCpuOnUniformSamples"].status, "failed")
        self.assertEqual(runs["lab01"].races, {})
        self.assertTrue(any("s_bins[17]" in str(w) for w in written))

    def test_a_file_that_does_not_build_for_the_host_says_so(self):
        from counting import races
        def find(lab, submission, build_dir):
            raise races.programs.BuildError("error: inline PTX")
        written = self.suspects({"lab03": self.Run("likely a race")}, find)
        self.assertTrue(any("does not build for the host" in str(w) for w in written), written)


class RacesFromText(unittest.TestCase):
    def test_kept_where_well_formed(self):
        text = json.dumps({"schema": "cpu-backend-races/v1", "races": [witness(), 3, {"no": 1}], "unchecked": ["u"]})
        self.assertEqual(races_from_text(text), {"races": [witness()], "unchecked": ["u"]})
        for bad in (None, "", "{", "[]", json.dumps({"schema": "other", "races": []}),
                    json.dumps({"schema": "cpu-backend-races/v1", "races": {}})):
            self.assertIsNone(races_from_text(bad), bad)


if __name__ == "__main__":
    unittest.main()
