"""What test_fixture_class.py checks of the fixture class's report beyond each grade: the counting
step (counted in the sandbox where the main tests passed, never where a test hung or the file did
not compile, and never changing a grade), "teach next" and class-insight.json, the CSV's counters
and the phase timings. A mixin of its FixtureClass, which grades the class once (self.report,
self.records)."""
import csv
import json
import os

from batch.tests.fixture_class_run import CHECK, GRID, SLICES, tests_of

COALESCING = "global_load_sectors_per_request"


class ReportChecks:
    def counters(self, student):
        return self.records[student]["labs"]["lab01"]["counters"]

    def insight(self):
        with open(os.path.join(self.report, "class-insight.json")) as f:
            return json.load(f)

    def test_transposed_index_is_right_and_counted_slow(self):
        tests = tests_of(self.records["transposed_index"])
        self.assertEqual({n for n in SLICES + GRID if tests[n]["status"] == "passed"}, set(SLICES + GRID))
        # the batch's judge of what ran says the check's hint, which names the question
        self.assertIn("(question 2.5)", tests[CHECK]["message"])
        section = self.counters("transposed_index")
        self.assertEqual(section["status"], "counted", section.get("reason"))
        v2 = [v for v in section["versions"] if v["function"] == "histogram_v2_grid_stride"][0]
        self.assertEqual(v2["student"][COALESCING], 32.0)
        self.assertEqual([(f["counter"], f["question"]) for f in v2["findings"]], [(COALESCING, "Q2.5")])

    def test_counting_says_why_not(self):
        correct = self.counters("correct")
        self.assertEqual(correct["status"], "counted", correct.get("reason"))
        self.assertEqual([f for v in correct["versions"] for f in v["findings"]], [])
        self.assertEqual(self.counters("infinite_loop"),
                         {"schema": correct["schema"], "status": "not-counted",
                          "reason": "a test ran out of time: fix it first"})
        self.assertEqual(self.counters("does_not_compile")["reason"], "the file was not built")
        self.assertEqual(self.counters("fake_pass")["reason"], "no version passes its tests yet")
        for student, record in self.records.items():  # counted or not, always said
            self.assertIn(self.counters(student)["status"], ("counted", "not-counted", "unavailable"), student)
            self.assertIn("counting", record["phases"], student)

    def test_teach_next_names_the_uncoalesced_read(self):
        insight = self.insight()
        rows = {(r["lab"], r["question"]): r for r in insight["teach_next"]}
        row = rows[("lab01", "Q2.5")]
        self.assertIn("transposed_index", row["students"])
        self.assertNotIn("correct", row["students"])
        self.assertEqual(row["title"], "Grid-stride: the threads walk together")
        def behind(prefix):
            return {s for e in row["evidence"] if e["text"].startswith(prefix) for s in e["students"]}
        self.assertIn("transposed_index", behind("v2 grid-stride: "))  # its counters
        self.assertIn("transposed_index", behind(f"{CHECK} fails: "))  # the check's hint
        lab = insight["labs"]["lab01"]
        sectors = [c for c in lab["counters"] if c["counter"] == COALESCING][0]
        self.assertEqual((sectors["reference"], sectors["values"]["transposed_index"]), (4.0, 32.0))
        timed_out = [g for g in lab["failure_kinds"] if g["kind"].startswith("timed out")]
        self.assertEqual(timed_out[0]["students"], ["infinite_loop"])
        with open(os.path.join(self.report, "index.html")) as f:
            page = f.read()
        self.assertIn("id='teach-next'", page)
        self.assertIn("submissions/transposed_index/instructor-log.txt", page)
        self.assertTrue(os.path.isfile(os.path.join(
            self.report, "plots", f"lab01_histogram_v2_grid_stride_{COALESCING}.svg")))

    def test_csv_counters_and_phase_timings(self):
        with open(os.path.join(self.report, "class.csv")) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        column = f"lab01 v2 grid-stride {COALESCING}"
        self.assertEqual((rows["transposed_index"][column], rows["correct"][column]), ("32", "4"))
        self.assertEqual(rows["infinite_loop"][column], "")
        with open(os.path.join(self.report, "batch.json")) as f:
            summary = json.load(f)
        self.assertIn("counting", summary["setup_s"])
        self.assertEqual(summary["machine"]["backend"], "cpu")
        phases = {p["phase"] for p in self.insight()["timings"]["phases"]}
        self.assertTrue({"build", "tests", "counting"} <= phases, phases)
        self.assertNotIn("sanitizer", phases)  # no sanitizer pass on the cpu backend
        self.assertIn("Phase timings on cpu backend", self.done.stdout)
