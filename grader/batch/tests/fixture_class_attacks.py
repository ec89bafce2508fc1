"""The fixture class's records judged for the attacks of issue 51 (a mixin of
test_fixture_class.py's FixtureClass, which grades the class): technique points for loads that
never were coalesced, crashes as evidence of a race, every path from the device to the host, every
writable place sized."""
import os
import re
import shutil

from batch import sanitize, second_opinion
from batch.tests.fixture_class_run import (CHECK, COMMON, EMPTY, FIXTURES, GRID, MAX, SLICES, UNCOALESCED,
                                           FixtureRecords, grade, load, tests_of)
from runs import harness
from runs.outcomes import TestOutcome


class Issue51Records(FixtureRecords):
    # ---- issue 51, attack 1: a technique point for loads that never were coalesced --------------
    def test_strided_loads_earn_no_technique_point_however_they_hide(self):
        # Right bins (22 points) from strided loads: transposed, behind a coalesced loop that never
        # runs, beside a coalesced decoy of the reference's name, or while the coalesced kernel
        # idles on no samples. The check counts what every kernel of the graded run loaded.
        for student in sorted(UNCOALESCED):
            record = self.expect(student, set(SLICES + GRID))
            self.assertEqual(record["score"], MAX - 1, student)
            self.assertIn("load_sectors_per_128_bytes", tests_of(record)[CHECK]["message"], student)

    # ---- issue 51: crashes, every path to the host, every writable place ------------------------
    def test_a_trap_on_its_own_race_is_evidence(self):
        # The CPU backend's shuffle exposes the race in the graded run: the kernel traps, v2 fails.
        # On a GPU the normal run passes; the sanitizer pass and the second opinion hold these.
        record = self.expect("traps_on_its_own_race", set(SLICES) | {"Lab01GridStride.HandlesAnEmptyInput"},
                             "executed __trap()")
        run = harness.RunResult()
        run.outcomes = {n: TestOutcome(n, "failed", t["message"])
                        for n, t in tests_of(record).items() if t["status"] == "failed" and n != CHECK}
        self.assertEqual(len(run.outcomes), 7)
        self.assertTrue(all(second_opinion.judge(o)[0] for o in run.outcomes.values()))
        self.assertEqual(sorted(sanitize.evidence(run)), sorted(run.outcomes))

    def test_what_kernels_print_is_counted_and_capped(self):
        # Samples printed, stdout moved into a file with ::dup2, counted on the host: 22/22 before.
        record = self.expect("prints_samples", EMPTY | {"Lab01Slices.HandlesASingleSample",
                                                         "Lab01GridStride.HandlesASingleSample"},
                             "threw an exception: its kernels printed ")
        self.assertEqual(record["score"], 0)  # the single-sample tests need the main tests
        self.assertIn("moves, copies or makes a descriptor or standard stream (dup2)",
                      " ".join(record["labs"]["lab01"]["review_notes"]))

    def test_filling_scratch_space_stops_at_each_tmpfs_size(self):
        record = self.expect("fills_scratch", set(GRID) | {"Lab01Slices.HandlesAnEmptyInput"},
                             "threw an exception: fill: /var/tmp stopped at ")
        message = tests_of(record)["Lab01Slices.MatchesCpuOnUniformSamples"]["message"]
        stops = dict(re.findall(r"(/var/tmp|/tmp|/dev/shm) stopped at (\d+) bytes \(No space left", message))
        self.assertEqual(set(stops), {"/var/tmp", "/tmp", "/dev/shm"}, message)
        self.assertTrue(all((255 << 20) <= int(size) <= (256 << 20) for size in stops.values()), stops)
        self.assertIn("each run's memory: ", record["run_user"])

    def test_lab00_prints_only_bins_it_copied_back(self):
        # Its kernel counts wrongly, it prints bins counted on the host (11/11 before): graded
        # with --labs 00 in a class of its own, beside the reference.
        folder, report = os.path.join(self.tmp, "lab00-class"), os.path.join(self.tmp, "lab00-report")
        shutil.copytree(os.path.join(FIXTURES, "lab00_prints_host_bins"),
                        os.path.join(folder, "lab00_prints_host_bins"))
        done = grade(folder, "--out", report, "--work-dir", os.path.join(self.tmp, "work-lab00"),
                     *self.seeds, *[a if a != "01" else "00" for a in COMMON])
        self.assertEqual(done.returncode, 0, done.stdout[-2000:])
        self.assertIn("lab00: reference (solutions) scores 11/11", done.stdout)
        record = load(report)["lab00_prints_host_bins"]  # 0/11: the others need these two
        failed = {t["name"]: t["message"] for t in record["labs"]["lab00"]["tests"] if t["status"] == "failed"}
        self.assertEqual((record["score"], record["max_score"], sorted(failed)), (0, 11, [
            "Lab00Program.MatchesOnFilesOfOtherSizes", "Lab00Program.PrintsTheFirstTenBinsOfTheStandardFile"]))
        self.assertTrue(all("not bins it copied back from the GPU" in m for m in failed.values()))
