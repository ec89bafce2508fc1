#!/usr/bin/env python3
"""The batch grader's parts on their own, fast and without building anything: submissions and
archives, sharding, lab discovery, integrity rules, grading, reports, plots and merging."""
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zipfile

from batch import grading, integrity, merge, project, reports, submissions
from gradescope import results_format
from runs import harness
from batch.builder import LabBuild, clean_compiler_output

HERE = os.path.dirname(os.path.abspath(__file__))

FAKE = [sys.executable, os.path.join(HERE, "fake_lab_program.py")]
LAB = project.Lab("lab01", "01", "01-global-atomics", "lab01_global_atomics.cu")


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="batch-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path


class SubmissionsTest(Temp):
    def test_discovers_folders_and_archives_and_skips_the_rest(self):
        self.write("class/alice/lab01_global_atomics.cu", "a")
        with zipfile.ZipFile(os.path.join(self.tmp, "class", "bob.zip"), "w") as z:
            z.writestr("deep/er/lab01_global_atomics.cu", "b-deep")
            z.writestr("deep/lab01_global_atomics.cu", "b")
            z.writestr("../../evil/lab01_global_atomics.cu.txt", "not a lab file")
        with tarfile.open(os.path.join(self.tmp, "class", "carol.tar.gz"), "w:gz") as t:
            data = b"c"
            info = tarfile.TarInfo("carol/lab01_global_atomics.cu")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            link = tarfile.TarInfo("lab01_global_atomics.cu")
            link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
            t.addfile(link)
        self.write("class/notes.txt", "x")
        self.write("class/alice.zip", "")  # same student as the folder alice/
        found, warnings = submissions.discover(os.path.join(self.tmp, "class"))
        self.assertEqual([s.student for s in found], ["alice", "bob", "carol"])
        self.assertTrue(any("notes.txt" in w for w in warnings))
        self.assertTrue(any("alice.zip" in w for w in warnings))
        files = {s.student: submissions.collect(s, ["lab01_global_atomics.cu", "lab02_x.cu"])
                 for s in found}
        self.assertEqual(files["alice"].files, {"lab01_global_atomics.cu": b"a"})
        self.assertEqual(files["bob"].files, {"lab01_global_atomics.cu": b"b"})
        self.assertTrue(any("several files" in n for n in files["bob"].notes))
        self.assertEqual(files["carol"].files, {"lab01_global_atomics.cu": b"c"})  # not the link
        self.assertEqual(files["alice"].fingerprint(),
                         submissions.CollectedFiles({"lab01_global_atomics.cu": b"a"}).fingerprint())

    def test_an_unreadable_archive_is_an_error_of_that_student_only(self):
        self.write("class/dave.zip", "this is not a zip file")
        found, _ = submissions.discover(os.path.join(self.tmp, "class"))
        collected = submissions.collect(found[0], ["lab01_global_atomics.cu"])
        self.assertIn("cannot read dave.zip", collected.error)
        self.assertEqual(collected.files, {})

    def test_a_huge_file_is_not_taken(self):
        path = self.write("class/erin/lab01_global_atomics.cu", "")
        with open(path, "wb") as f:
            f.truncate(submissions.MAX_LAB_FILE_BYTES + 1)
        found, _ = submissions.discover(os.path.join(self.tmp, "class"))
        collected = submissions.collect(found[0], ["lab01_global_atomics.cu"])
        self.assertEqual(collected.files, {})
        self.assertTrue(any("limit" in n for n in collected.notes))

    def test_shards_split_the_class_exactly(self):
        students = [submissions.Submission(f"s{i:03}", "", "folder") for i in range(23)]
        parts = [submissions.shard(students, k, 4) for k in range(1, 5)]
        names = [s.student for part in parts for s in part]
        self.assertEqual(sorted(names), sorted(s.student for s in students))
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(submissions.parse_shard("2/4"), (2, 4))
        for bad in ("0/4", "5/4", "x", "1-2"):
            with self.assertRaises(ValueError):
                submissions.parse_shard(bad)


class ProjectTest(Temp):
    def test_labs_come_from_their_meson_dicts(self):
        labs = project.discover_labs()
        self.assertIn(LAB, labs)
        self.assertEqual(project.select_labs(labs, "01"), [LAB])
        with self.assertRaises(ValueError):
            project.select_labs(labs, "99")

    def test_the_students_copy_holds_no_answers(self):
        files = project.project_files()
        self.assertIn(os.path.join("starter", "lab01_global_atomics.cu"), files)
        self.assertIn(os.path.join("labs", "01-global-atomics", "lab01_global_atomics.cuh"), files)
        for rel in files:
            self.assertFalse(rel.startswith(("solutions" + os.sep, "build", ".git" + os.sep)), rel)
            self.assertNotIn(os.path.join("batch", "fixtures"), rel)
            self.assertFalse(rel.endswith("-answers.md") or rel.startswith(os.path.join("grader", "bench")), rel)
        # a report or submissions folder inside the project is left out, and nothing more
        nested = os.path.join(project.ROOT, "grader", "batch", "tests")
        kept = project.project_files(skip_paths=[nested])
        self.assertIn(os.path.join("grader", "core", "results.cpp"), kept)
        self.assertFalse(any(rel.startswith(os.path.join("grader", "batch", "tests")) for rel in kept))


def scanner():
    path = os.environ.get("BATCH_SOURCE_SCAN")
    return path if path and os.path.exists(path) else None


@unittest.skipUnless(scanner(), "BATCH_SOURCE_SCAN (the built batch_source_scan) is not set")
class IntegrityTest(Temp):
    HEADERS = {"lab01_global_atomics.cuh"}

    def findings(self, source):
        path = self.write("lab01_global_atomics.cu", source)
        scanned = integrity.scan_sources(scanner(), [path])[path]
        return integrity.source_findings(source, scanned, self.HEADERS)

    def test_comments_and_strings_are_not_code(self):
        found = self.findings('#include "lab01_global_atomics.cuh"\n'
                              "// cub::DeviceHistogram would be easier; exit(0)\n"
                              '/* thrust::sort */ const char* s = "grader::x cublasSgemm(";\n')
        self.assertEqual(found, [])

    def test_library_shortcuts(self):
        found = self.findings("#include <cub/cub.cuh>\n#include <cublas_v2.h>\n"
                              "void f() { cub::DeviceHistogram::HistogramEven(); cublasSgemm_v2(h); }\n"
                              "using namespace thrust;\n")
        details = " ".join(f["detail"] for f in found if f["category"] == "shortcut")
        for expected in ("cub/cub.cuh", "cublas_v2.h", "cub::DeviceHistogram", "cublasSgemm_v2",
                         "namespace thrust"):
            self.assertIn(expected, details)
        self.assertTrue(integrity.withholds_score(found))

    def test_tampering_and_suspicious_calls(self):
        found = self.findings('#include "../../solutions/lab01_global_atomics.cu"\n'
                              "void f() { grader::record_metric(\"x\", 1); GTEST_SKIP(); }\n"
                              '__attribute__((constructor)) void g() { getenv("GRADER_SEED"); }\n'
                              "void h() { std::exit(0); write(5, p, 3); obj.write(1); }\n")
        by_category = {}
        for f in found:
            by_category.setdefault(f["category"], []).append(f["detail"])
        self.assertTrue(any("solutions" in d for d in by_category["tamper"]))
        self.assertTrue(any("grader::" in d for d in by_category["tamper"]))
        self.assertTrue(any("GTEST_SKIP" in d for d in by_category["tamper"]))
        self.assertTrue(any("constructor" in d for d in by_category["tamper"]))
        self.assertTrue(any("GRADER_SEED" in d for d in by_category["tamper"]))
        calls = " ".join(by_category["suspicious"])
        self.assertIn("exit()", calls)
        self.assertIn("write()", calls)
        self.assertEqual(calls.count("write()"), 1)  # obj.write(1) is a method, not the call

    def test_what_the_reference_does_is_allowed(self):
        found = self.findings("#include <cub/cub.cuh>\nvoid f() { cub::WarpScan<int> s; exit(1); }\n")
        reference = self.findings("#include <cub/cub.cuh>\n\n\nvoid g() { cub::WarpScan<int> s; }\n")
        kept = integrity.calibrate(found, reference)
        self.assertEqual([f["detail"] for f in kept], ["line 2: calls exit()"])

    def test_symbols(self):
        symbols = [("T", "lab01::histogram_v1_slices(int const*, int, int*, lab01::SliceLaunch)"),
                   ("W", "cub::CUB_300000_SM_900::DeviceHistogramSweepKernel<int>(int)"),
                   ("U", "cublasCreate_v2"), ("T", "grader::cpu_histogram(std::vector<int> const&, int)"),
                   ("U", "grader::record_metric(std::string const&, double)"), ("U", "cudaMalloc")]
        found = integrity.symbol_findings(symbols)
        kinds = sorted((f["category"], f["rule"]) for f in found)
        self.assertEqual(kinds, [("shortcut", "library"), ("tamper", "defines-grader-symbol"),
                                 ("tamper", "grader-api")])
        self.assertIn("2 library symbol(s)", [f for f in found if f["rule"] == "library"][0]["detail"])


def reference_lab(tests=(("S.A", 2, 0, "passed"), ("S.B", 1, 1, "passed"), ("S.Speed", 2, 0, "skipped"))):
    return {"lab": "lab01", "tests": [{"name": n, "points": p, "stretch_points": s, "status": st,
                                       "message": ""} for n, p, s, st in tests],
            "checks": [], "findings": []}


def run_of(**statuses):
    result = harness.RunResult()
    for name, (status, tiers) in statuses.items():
        result.outcomes["S." + name] = harness.TestOutcome("S." + name, status, "msg", tiers=tiers)
    return result


class GradingTest(Temp):
    def test_points_come_from_the_reference(self):
        run = run_of(A=("passed", []), B=("passed", [{"name": "stretch", "met": True}]),
                     Speed=("passed", []))
        lab = grading.assemble_lab(LAB, LabBuild("lab01", "built"), run, reference_lab(), "zero")
        self.assertEqual((lab["score"], lab["max_score"]), (4, 4))  # S.Speed is not gradable here
        self.assertEqual([t["name"] for t in lab["tests"]], ["S.A", "S.B"])

    def test_a_skip_the_reference_did_not_make_is_a_failure(self):
        lab = grading.assemble_lab(LAB, LabBuild("lab01", "built"),
                                   run_of(A=("skipped", []), B=("passed", [])), reference_lab(), "zero")
        self.assertEqual(lab["score"], 1)
        self.assertEqual(lab["tests"][0]["status"], "failed")

    def test_an_edge_test_earns_points_only_with_its_main_tests(self):
        reference = reference_lab()
        reference["tests"].append({"name": "S.Empty", "points": 1, "stretch_points": 0,
                                   "needs": ["S.A"], "status": "passed", "message": ""})
        run = run_of(A=("failed", []), B=("passed", []), Empty=("passed", []))
        lab = grading.assemble_lab(LAB, LabBuild("lab01", "built"), run, reference, "zero")
        empty = lab["tests"][-1]
        self.assertEqual((empty["status"], empty["score"], lab["score"]), ("passed", 0, 1))
        self.assertIn("not passed yet: S.A", empty["message"])
        run = run_of(A=("passed", []), B=("passed", []), Empty=("passed", []))
        lab = grading.assemble_lab(LAB, LabBuild("lab01", "built"), run, reference, "zero")
        self.assertEqual((lab["tests"][-1]["score"], lab["score"]), (1, 4))

    def test_compile_errors_and_withheld_scores(self):
        broken = LabBuild("lab01", "compile_error", output="x.cu:3:1: error: expected ';'")
        lab = grading.assemble_lab(LAB, broken, None, reference_lab(), "zero")
        self.assertEqual((lab["status"], lab["score"], lab["max_score"]), ("compile_error", 0, 4))
        self.assertIn("expected ';'", lab["reasons"][0])
        shortcut = LabBuild("lab01", "built", findings=[integrity.finding(
            "shortcut", "library", "line 3: cub::DeviceScan", "source")])
        run = run_of(A=("passed", []), B=("passed", []))
        lab = grading.assemble_lab(LAB, shortcut, run, reference_lab(), "zero")
        self.assertEqual((lab["status"], lab["score"]), ("withheld", 0))
        self.assertIn("cub::DeviceScan", lab["reasons"][0])
        lab = grading.assemble_lab(LAB, shortcut, run, reference_lab(), "report")
        self.assertEqual((lab["status"], lab["score"]), ("graded", 3))

    def test_flagged_and_retried_speed_tests_are_noted_for_review(self):
        run = run_of(A=("failed", []), B=("passed", []))
        run.outcomes["S.A"].metrics = {"implausible_speed": 1}
        run.outcomes["S.B"].metrics = {"implausible_speed": 0, "retried_for_unfair_timing": 1}
        lab = grading.assemble_lab(LAB, LabBuild("lab01", "built"), run, reference_lab(), "zero")
        self.assertEqual(len(lab["review_notes"]), 2)
        self.assertIn("S.A: speed flagged", lab["review_notes"][0])
        self.assertIn("S.B: timed again", lab["review_notes"][1])

    def test_gradescope_results(self):
        run = run_of(A=("passed", []), B=("failed", []))
        run.outcomes["S.A"].metrics = {"time_ms": 0.5, "speedup_vs_baseline": 1.2}
        labs = {"lab01": grading.assemble_lab(LAB, LabBuild("lab01", "built"), run, reference_lab(), "zero")}
        record = grading.submission_record("alice", "alice.zip", "f" * 64, "k", labs, [], 3.0, "nobody")
        results = results_format.results_json(record)
        # Gradescope's spec has no top-level max_score: the maximum is the tests' sum
        self.assertEqual((results["score"], sum(t["max_score"] for t in results["tests"])), (2, 4))
        for test in results["tests"]:
            self.assertTrue({"name", "score", "max_score", "output", "visibility"} <= set(test))
            self.assertIn(test.get("status", "passed"), ("passed", "failed"))
        board = {e["name"]: e for e in results["leaderboard"]}
        self.assertEqual(board["lab01 A (x baseline)"]["order"], "desc")
        self.assertEqual(board["lab01 A (ms)"]["value"], 0.5)


def record_for(student, score):
    run = run_of(A=("passed" if score >= 2 else "failed", []), B=("passed" if score % 2 else "failed", []))
    labs = {"lab01": grading.assemble_lab(LAB, LabBuild("lab01", "built"), run, reference_lab(), "zero")}
    return grading.submission_record(student, student, student * 3, "key", labs, [], 1.0, "nobody")


class ReportsTest(Temp):
    def test_csv_html_and_svg(self):
        records = [record_for("alice", 3), record_for("bob", 1), record_for("carol", 0)]
        text = reports.class_csv(records, {"lab01": ["S.A", "S.B"]})
        rows = [line.split(",") for line in text.strip().splitlines()]
        self.assertEqual(rows[0][:7], ["student", "status", "score", "max_score", "lab01",
                                       "lab01 S.A", "lab01 S.B"])
        self.assertEqual([r[0] for r in rows[1:]], ["alice", "bob", "carol"])
        self.assertEqual([r[2] for r in rows[1:]], ["3", "1", "0"])
        batch = {"backend": "cpu", "plan": {"lab01": ["S.A", "S.B"]}, "warnings": ["w"]}
        reports.write_class_html(self.tmp, records, batch, use_matplotlib=False)
        with open(os.path.join(self.tmp, "index.html")) as f:
            page = f.read()
        self.assertIn("<details>", page)
        self.assertIn("submissions/bob/log.txt", page)
        ET.parse(os.path.join(self.tmp, "plots", "lab01_scores.svg"))  # well-formed SVG

    def test_strip_plot_svg(self):
        from batch import plots
        path = plots.strip_plot({"GridStrideRuns": [1.0, 1.2, 0.9], "SlicesRun": [0.5]}, "t", "x",
                                os.path.join(self.tmp, "speed"), use_matplotlib=False)
        root = ET.parse(path).getroot()
        self.assertEqual(len(root.findall("{http://www.w3.org/2000/svg}circle")), 4)

    def test_merge_joins_shards(self):
        for shard, students in (("r1", ["alice", "carol"]), ("r2", ["bob"])):
            folder = os.path.join(self.tmp, shard)
            for student in students:
                reports.write_submission(folder, record_for(student, 2), "visible")
            with open(os.path.join(folder, "batch.json"), "w") as f:
                json.dump({"config_key": "key", "plan": {"lab01": ["S.A", "S.B"]}, "backend": "cpu",
                           "devices": [f"gpu-{shard}"], "warnings": []}, f)
        out = os.path.join(self.tmp, "merged")
        code = merge.merge_main(["--out", out, "--no-matplotlib", os.path.join(self.tmp, "r1"),
                                 os.path.join(self.tmp, "r2")])
        self.assertEqual(code, 0)
        with open(os.path.join(out, "class.csv")) as f:
            self.assertEqual([line.split(",")[0] for line in f.read().splitlines()[1:]],
                             ["alice", "bob", "carol"])
        with open(os.path.join(out, "batch.json")) as f:
            self.assertEqual(json.load(f)["devices"], ["gpu-r1", "gpu-r2"])

    def test_compiler_output_names_the_students_file(self):
        text = ("[1/2] Compiling\nFAILED: labs/x.o\n" + "c++ " + "-I. " * 100 + " -o x.o -c y\n"
                "/w/slots/3/lab01_global_atomics.cu:7:3: error: 'd_bin' was not declared\n"
                "ninja: build stopped: subcommand failed.\n")
        self.assertEqual(clean_compiler_output(text, "/w/slots/3"),
                         "lab01_global_atomics.cu:7:3: error: 'd_bin' was not declared")

    def test_ninjas_own_error_is_kept(self):
        text = "ninja: error: loading 'build.ninja': No such file or directory\n"
        self.assertEqual(clean_compiler_output(text, "/w/slots/3"), text.strip())
        self.assertEqual(clean_compiler_output("FAILED: x.o\n", "/w/slots/3"), "FAILED: x.o")


if __name__ == "__main__":
    unittest.main()
