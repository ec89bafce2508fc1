#!/usr/bin/env python3
"""class-insight.json, the class page and the CSV from the made-up class (made_up_class.py: every
figure worked out by hand): "teach next" ranks the questions by the submissions they would help,
failures are grouped by kind, the counters beside the reference's, the phase timings; the
handout questions a text names; the counting step's reading of a counts file student code wrote."""
import csv
import io
import json
import os
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ET

from batch import class_insight, counting_step, failure_kinds, handout_questions, phase_timings, reports
from batch.project import discover_labs
from batch.tests import made_up_class as made_up
from explain import explanations

Q25_COUNTERS = ["u1", "u2", "u3", "u4", "u5"]
Q25_FAILURES = ["h1", "h2", "h3"]


class Insight(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="class-insight-")
        made_up.write(cls.tmp)
        with open(os.path.join(cls.tmp, "class-insight.json")) as f:
            cls.insight = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_one_writer_leaves_one_file(self):
        self.assertEqual(self.insight["schema"], class_insight.SCHEMA)
        self.assertEqual([n for n in os.listdir(self.tmp) if "partial" in n], [])
        self.assertEqual(self.insight["submissions"], len(made_up.STUDENTS))

    def test_teach_next_ranks_questions_by_submissions_helped(self):
        rows = self.insight["teach_next"]
        self.assertEqual([(r["lab"], r["question"]) for r in rows],
                         [("lab01", "Q2.5"), ("lab04", "Q3.1"), ("lab01", "Q2.1")])
        first = rows[0]
        # The counters' evidence and the failures' together, each submission once.
        self.assertEqual(first["students"], sorted(Q25_COUNTERS + Q25_FAILURES))
        self.assertEqual((first["submissions"], first["of"]), (8, 15))  # "absent" sent no lab01
        self.assertEqual(first["title"], "Grid-stride: the threads walk together")
        by_text = {e["text"].split(":")[0]: e for e in first["evidence"]}
        self.assertEqual(by_text["v2 grid-stride"]["students"], Q25_COUNTERS)
        self.assertIn("32-byte sectors per global load request 32.00", by_text["v2 grid-stride"]["text"])
        self.assertIn("the reference 4.00", by_text["v2 grid-stride"]["text"])
        failing = by_text[f"{made_up.CHECK} fails"]
        self.assertEqual(failing["students"], sorted(Q25_COUNTERS + Q25_FAILURES))
        self.assertIn("(question 2.5)", failing["text"])
        self.assertEqual((rows[1]["students"], rows[1]["of"]), (["b1", "u1", "u2"], 16))
        self.assertEqual(rows[2]["students"], ["race1"])  # the race witness names Q2.1

    def test_tests_with_the_share_failing(self):
        tests = {t["name"]: t for t in self.insight["labs"]["lab01"]["tests"]}
        tail = tests[made_up.SLICES[1]]
        self.assertEqual((tail["failing"], tail["of"], tail["students"]), (2, 14, ["tail1", "tail2"]))
        self.assertEqual(tests[made_up.SLICES[0]]["failing"], 0)
        self.assertEqual(self.insight["labs"]["lab01"]["compiled"], 14)  # not broken, not absent

    def test_failures_grouped_by_kind_without_numbers(self):
        kinds = self.insight["labs"]["lab01"]["failure_kinds"]
        tail = [g for g in kinds if "samples not counted" in g["hint"]]
        self.assertEqual(len(tail), 1)  # 37 and 5 samples: one kind
        self.assertEqual((tail[0]["submissions"], tail[0]["tests"]), (2, [made_up.SLICES[1]]))
        self.assertEqual(tail[0]["kind"], "histogram_v1_slices (# blocks of # threads): # of # bins "
                                          "wrong; total #, expected #")
        self.assertIn(tail[0]["example"]["student"], ("tail1", "tail2"))
        race = [g for g in kinds if g["race"]]
        self.assertEqual([(g["race"], g["students"]) for g in race],
                         [("race on global (lines 21, 21)", ["race1"])])
        self.assertTrue(any(g["kind"].startswith("does not compile: lab01.cu:#:#") for g in kinds))
        check = [g for g in kinds if g["questions"] == ["Q2.5"]][0]
        self.assertNotIn("Hint", check["kind"])  # the hint has its own column
        self.assertEqual(check["hint"], "let neighbouring threads read neighbouring samples (question 2.5)")

    def test_counters_beside_the_reference(self):
        rows = {(r["function"], r["counter"]): r for r in self.insight["labs"]["lab01"]["counters"]}
        row = rows[("histogram_v2_grid_stride", "global_load_sectors_per_request")]
        self.assertEqual(row["reference"], 4.0)
        self.assertEqual(len(row["values"]), 14)
        self.assertEqual(sorted(s for s, v in row["values"].items() if v == 32.0), Q25_COUNTERS)
        self.assertEqual(row["worse"], Q25_COUNTERS)
        counting = self.insight["labs"]["lab01"]["counting"]
        self.assertEqual(counting["counted"], 14)
        self.assertEqual(counting["not_counted"], {"no version passes its tests yet": ["absent", "broken"]})

    def test_techniques_and_review(self):
        [check] = self.insight["labs"]["lab01"]["techniques"]
        self.assertEqual((check["passed"], check["failed"]), (6, 8))
        notes = self.insight["labs"]["lab01"]["review"]
        self.assertEqual([n["student"] for n in notes], ["withheld", "withheld"])
        self.assertTrue(notes[0]["note"].startswith("score withheld"))

    def test_timings_per_phase(self):
        timings = self.insight["timings"]
        phases = {p["phase"]: p for p in timings["phases"]}
        self.assertEqual(set(phases), {"build", "tests", "counting"})
        self.assertEqual(phases["build"]["total_s"], 4.0 * len(made_up.STUDENTS))
        lengths = sorted(20.0 + len(s) for s in made_up.STUDENTS)
        self.assertEqual(phases["tests"]["median_s"], (lengths[7] + lengths[8]) / 2)
        self.assertEqual(timings["setup_total_s"], 350.0)
        self.assertIn("a made-up CPU", phase_timings.describe(timings["machine"]))

    def test_csv_has_the_counters(self):
        with open(os.path.join(self.tmp, "class.csv")) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        column = "lab01 v2 grid-stride global_load_sectors_per_request"
        self.assertEqual(rows["u1"][column], "32")
        self.assertEqual(rows["ok"][column], "4")
        self.assertEqual((rows["broken"][column], rows["broken"]["lab01 counting"]), ("", "not-counted"))
        self.assertEqual(rows["b1"]["lab04 v2 banks shared_bank_conflicts_per_request"], "8")

    def test_page(self):
        with open(os.path.join(self.tmp, "index.html")) as f:
            page = f.read()
        teach = page[page.index("id='teach-next'"):page.index("<h2>lab01</h2>")]
        for student in Q25_COUNTERS + Q25_FAILURES:
            self.assertIn(f"submissions/{student}/instructor-log.txt", teach)
        self.assertNotIn("submissions/tail1/", teach)
        self.assertIn("8 of 15", teach)
        for name in os.listdir(os.path.join(self.tmp, "plots")):
            self.assertIn(f"plots/{name}", page)
            ET.parse(os.path.join(self.tmp, "plots", name))  # well-formed SVG
        self.assertIn("lab01_histogram_v2_grid_stride_global_load_sectors_per_request.svg", page)
        self.assertIn("What the batch cost", page)

    def test_a_class_of_nobody(self):
        insight = class_insight.analyse([], {}, {})
        self.assertEqual((insight["teach_next"], insight["labs"]), ([], {}))
        reports.write_class_html(self.tmp + "/empty", [], {}, use_matplotlib=False)


class Parts(unittest.TestCase):
    def test_questions_a_text_names(self):
        self.assertEqual(handout_questions.named("see Q3.2 (questions 1.1, 3.1 and 4) or question 2.5"),
                         ["Q3.2", "Q1.1", "Q3.1", "Q4", "Q2.5"])
        self.assertEqual(handout_questions.named("lab01Q2 v2 Q"), [])

    def test_every_lab_handout_has_titles(self):
        for lab in discover_labs():
            self.assertIn("Q1", handout_questions.titles(lab.folder), lab.folder)

    def test_numbers_out_names_kept(self):
        self.assertEqual(failure_kinds.without_numbers("v2 lab01 s_bins2[17]: 3 of 1024, 0xA5, 1.5e6 Q2.5 "
                                                       "(questions 1.1 and 3.1) 7"),
                         "v2 lab01 s_bins2[#]: # of #, #, # Q2.5 (questions 1.1 and 3.1) #")


class CountsFile(unittest.TestCase):
    """counting_step.read_counts: a counts file student code wrote, read as advice."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="counts-")
        self.path = os.path.join(self.tmp, "counts.json")
        self.lab = [lab for lab in discover_labs() if lab.name == "lab01"][0]
        self.prepared = explanations.prepare("01")[0]
        self.source = os.path.join(self.tmp, "lab01_global_atomics.cu")
        with open(self.source, "w") as f:
            f.write("// line 1\n  d_bins[d_samples[i]] += 1;  // line 2\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def read(self, text, status=0):
        with open(self.path, "w") as f:
            f.write(text)
        return counting_step.read_counts(self.lab, self.path, status, self.prepared, self.source)

    def launch(self, **metrics):
        return {"label": "histogram_v2_grid_stride", "kernel": "k", "faulted": False, "barriers": 0,
                "metrics": dict({"global_load_requests": 2048, "global_load_sectors": 8192}, **metrics)}

    def test_good_counts_are_compared(self):
        section = self.read(json.dumps({"launches": [self.launch(global_load_sectors=65536)]}))
        self.assertEqual(section["status"], "counted")
        [version] = section["versions"]
        self.assertEqual(version["student"]["global_load_sectors_per_request"], 32.0)
        self.assertEqual([f["question"] for f in version["findings"]], ["Q2.5"])

    def test_what_cannot_be_read_is_unavailable(self):
        bad = ["not json", json.dumps({"launch": []}), json.dumps({"launches": [{"label": 3}]}),
               json.dumps({"launches": [self.launch(global_load_sectors="many")]}),
               json.dumps({"launches": [self.launch(global_load_sectors=float("inf"))]}),
               json.dumps({"launches": [dict(self.launch(), faulted=True)]})]
        for text in bad:
            self.assertEqual(self.read(text)["status"], "unavailable", text)
        self.assertEqual(self.read(json.dumps({"launches": [self.launch()]}), status=1)["status"], "unavailable")
        os.remove(self.path)
        self.assertIn("wrote no counts",
                      counting_step.read_counts(self.lab, self.path, 139, self.prepared, self.source)["reason"])

    def test_sites_may_name_the_submissions_file_only(self):
        # the explanation reads the lines a site names: a forged counts file must not make the
        # grading process read (and show) another file of this machine
        site = {"kind": "global_load", "bytes": 4, "requests": 64, "lanes": 2048, "sectors": 2048, "pc": "0x10"}
        launches = [dict(self.launch(), sites=[dict(site, location=f"{self.source}:2"),
                                               dict(site, location="/etc/passwd:1"),
                                               dict(site, location=f"{self.tmp}/../../etc/passwd:1")])]
        kept = counting_step.own_locations(launches, self.source, [])
        self.assertEqual([s["location"] for s in kept[0]["sites"]], [f"{self.source}:2", "?:1", "?:1"])

    def test_which_labs_are_counted(self):
        passed = {"status": "graded", "tests": [{"kind": "main", "status": "passed"}]}
        self.assertEqual(counting_step.why_not(passed), "")
        self.assertIn("not built", counting_step.why_not(dict(passed, status="compile_error")))
        self.assertIn("passes", counting_step.why_not({"status": "graded", "tests": [{"kind": "main", "status": "failed"}]}))
        hung = dict(passed, tests=passed["tests"] + [{"kind": "main", "status": "failed", "fault": "timeout"}])
        self.assertIn("out of time", counting_step.why_not(hung))


if __name__ == "__main__":
    unittest.main()
