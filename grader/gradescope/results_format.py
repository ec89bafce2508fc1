"""A submission's record (grading.submission_record) as Gradescope's autograder results.json.

The format is Gradescope's "Autograder Specifications",
https://gradescope-autograders.readthedocs.io/en/latest/specs/ (its source: docs/specs.md in
github.com/gradescope/autograder_samples). Every field written here is one it documents: at the
top, score, execution_time, output, output_format, test_output_format, visibility,
stdout_visibility, extra_data, tests, leaderboard; in a test, name, score, max_score, status,
output, visibility, extra_data. The spec has no top-level max_score: the total's maximum is the
sum of the tests' max_score.

Visibility, in the spec's words: "If test cases are hidden, students will not be able to see
their total score." (An older version of the page added that tests set to `hidden` did not
count, being meant for tests worth no points; that sentence was removed in June 2020.) So a
zero-point test marked `hidden` hides the student's total, and a total that disappears for
flagged students only tells them they were flagged. Notes for the instructor therefore never
become a test: they go into the top-level `extra_data` ("Optional extra data to be stored": the
spec displays it nowhere), into run_autograder's stdout (instructors only: stdout_visibility
is hidden), and into the class report and log.txt.
"""
import argparse
import re
from dataclasses import dataclass

from batch import student_view
from batch.grading import first_line

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
KINDS = {
    "compile": "the lab file compiles; integrity findings (library shortcuts, tampering)",
    "correctness": "the lab's graded tests that check results",
    "speed": "timed tests (named ...Speed/...Timing, or carrying timing figures)",
    "check": "technique checks (which instructions the kernels compile to)",
}
SPEED_NAME = re.compile(r"(?<![a-z])(?:Speed|Timing)(?![a-z])")
TIMING_METRIC = re.compile(r"^time|_ms$|gbps|_bw$|_bw_|speedup")


@dataclass(frozen=True)
class VisibilityPolicy:
    """The visibility of every test: one default, and overrides by kind of test."""
    default: str = "visible"
    overrides: tuple = ()  # ((kind, visibility), ...), the last one given for a kind wins

    def of(self, kind):
        return dict(self.overrides).get(kind, self.default)

    def with_default(self, visibility):
        return VisibilityPolicy(check_visibility(visibility), self.overrides)

    def with_kind(self, kind, visibility):
        kept = tuple((k, v) for k, v in self.overrides if k != kind)
        return VisibilityPolicy(self.default, kept + ((kind, check_visibility(visibility)),))

    def as_arguments(self):
        """The grade_submissions.py options that give this policy."""
        args = ["--visibility", self.default]
        for kind, visibility in self.overrides:
            args += ["--test-visibility", f"{kind}={visibility}"]
        return args


def check_visibility(value):
    if value not in VISIBILITIES:
        raise ValueError(f"{value!r} is not a Gradescope visibility; use one of "
                         + ", ".join(VISIBILITIES))
    return value


def policy_of(visibility):
    """A VisibilityPolicy from a policy, one visibility for every test, or None (all visible)."""
    if isinstance(visibility, VisibilityPolicy):
        return visibility
    return VisibilityPolicy().with_default(visibility or "visible")


class _DefaultVisibility(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        try:
            setattr(namespace, self.dest, policy_of(getattr(namespace, self.dest)).with_default(value))
        except ValueError as error:
            raise argparse.ArgumentError(self, str(error))


class _KindVisibility(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        kind, equals, visibility = value.partition("=")
        if not equals:
            raise argparse.ArgumentError(self, f"{value!r}: expected KIND=VALUE, e.g. "
                                               "speed=after_due_date")
        if kind not in KINDS:
            raise argparse.ArgumentError(self, f"{kind!r} is not a kind of test; use one of "
                                               + ", ".join(KINDS))
        try:
            policy = policy_of(getattr(namespace, self.dest)).with_kind(kind, visibility)
        except ValueError as error:
            raise argparse.ArgumentError(self, str(error))
        setattr(namespace, self.dest, policy)


def add_visibility_arguments(parser):
    """--visibility VALUE and --test-visibility KIND=VALUE, both into args.visibility (a policy)."""
    values = ", ".join(VISIBILITIES)
    parser.add_argument(
        "--visibility", dest="visibility", default=VisibilityPolicy(), action=_DefaultVisibility,
        metavar="VALUE", help=f"Gradescope visibility of every test, unless --test-visibility says "
        f"otherwise: {values} (default visible). Gradescope hides a student's total score while "
        "any test is not shown to them")
    parser.add_argument(
        "--test-visibility", dest="visibility", default=argparse.SUPPRESS, action=_KindVisibility,
        metavar="KIND=VALUE", help="visibility of one kind of test, repeatable, e.g. "
        "--test-visibility speed=after_due_date. Kinds: "
        + "; ".join(f"{k}: {d}" for k, d in KINDS.items())
        + ". Notes for the instructor are never a test (results.json extra_data, the report)")


def kind_of(test):
    """compile, correctness, speed or check: the kind of one test of a lab record."""
    if test.get("kind") == "check":
        return "check"
    timed = any(TIMING_METRIC.search(name) for name in (test.get("metrics") or {}))
    if test.get("kind") == "speed" or timed or test.get("tiers") or SPEED_NAME.search(test["name"]):
        return "speed"
    return "correctness"


def instructor_notes(lab):
    """What the instructor should look at in a lab, with no effect on the score."""
    notes = list(lab.get("review_notes") or [])
    if lab.get("forged_lines"):
        notes.append(f"{lab['forged_lines']} line(s) written to the grader's private channel "
                     "without its key were ignored")
    return notes


def _test(name, score, max_score, status, output, kind, policy):
    return {"name": name, "score": score, "max_score": max_score, "status": status,
            "output": output, "visibility": policy.of(kind), "extra_data": {"kind": kind}}


def lab_tests(lab, policy):
    """The Gradescope tests of one lab record, in the order a student reads them."""
    tests = []
    if lab["status"] == "compile_error":
        tests.append(_test(f"{lab['lab']}: {lab['file']} compiles", 0, 0, "failed",
                           lab["build_output"], "compile", policy))
    blocking = [f for f in lab["findings"] if f["category"] != "suspicious"]
    if blocking:
        tests.append(_test(f"{lab['lab']}: integrity", 0, 0, "failed",
                           "\n".join(f"{f['category']}: {f['detail']}" for f in blocking),
                           "compile", policy))
    for t in lab["tests"]:
        tests.append(_test(f"{lab['lab']} {t['name']}", round(t["score"], 4), t["max_score"],
                           t["status"], student_view.message(t["message"]), kind_of(t), policy))
    return tests


def _lab_summary(lab, tests):
    """The lab's line of the top-level output, counting only the tests shown to students now, so
    that it never tells what a test hidden until later (or for good) says."""
    shown = [t for t in tests if t["visibility"] == "visible"]
    if len(shown) == len(tests):
        line = f"{lab['lab']}: {lab['score']:g}/{lab['max_score']:g}"
    else:
        line = (f"{lab['lab']}: {sum(t['score'] for t in shown):g}/"
                f"{sum(t['max_score'] for t in shown):g} in the tests shown now "
                f"({len(tests) - len(shown)} more not shown yet)")
    failed = [t for t in lab["tests"] if t["status"] == "failed"]
    count_reason = f"{len(failed)} test(s) failed, e.g. "
    reasons = [r for r in lab["reasons"] if not (failed and r.startswith(count_reason))]
    if any(t["extra_data"]["kind"] == "compile" and t["visibility"] != "visible" for t in tests):
        reasons = []  # the build and integrity verdicts are not shown yet
    shown_failed = [t for t in shown if t["status"] == "failed" and t["max_score"]]
    if shown_failed and lab["status"] in ("graded", "withheld"):
        name = shown_failed[0]["name"][len(lab["lab"]) + 1:]
        reasons.append(f"{len(shown_failed)} test(s) failed, e.g. {name}: "
                       f"{first_line(shown_failed[0]['output'])}")
    return line + (f" - {'; '.join(reasons)}" if reasons else "")


def leaderboard(record):
    entries = []
    for lab in record["labs"].values():
        for t in lab["tests"]:
            if t["status"] != "passed" or lab["status"] == "withheld":
                continue
            short = t["name"].split(".")[-1]
            if "speedup_vs_baseline" in t["metrics"]:
                entries.append({"name": f"{lab['lab']} {short} (x baseline)", "order": "desc",
                                "value": round(t["metrics"]["speedup_vs_baseline"], 3)})
            if "time_ms" in t["metrics"]:
                entries.append({"name": f"{lab['lab']} {short} (ms)", "order": "asc",
                                "value": round(t["metrics"]["time_ms"], 4)})
    return entries


def results_json(record, visibility=None):
    """The results.json of one submission. `visibility`: a VisibilityPolicy, or one visibility
    for every test (the old single --visibility), or None for all visible."""
    policy = policy_of(visibility)
    tests, summary = [], []
    for lab in record["labs"].values():
        mine = lab_tests(lab, policy)
        tests += mine
        summary.append(_lab_summary(lab, mine))
    results = {"score": round(record["score"], 4),
               "execution_time": int(record.get("duration_s", 0)),
               "output": "\n".join(summary),
               # text, not the top-level default simple_format: compiler messages quote the
               # student's code, which must not be rendered as HTML
               "output_format": "text", "test_output_format": "text",
               "visibility": policy.default, "stdout_visibility": "hidden",
               "tests": tests,
               "extra_data": {
                   "student": record["student"], "fingerprint": record["fingerprint"],
                   "lab_files": sorted(lab["file"] for lab in record["labs"].values()),
                   "instructor_notes": {lab["lab"]: instructor_notes(lab)
                                        for lab in record["labs"].values() if instructor_notes(lab)},
                   "submission_notes": list(record.get("notes") or [])}}
    # A leaderboard has no visibility of its own: it carries speed figures only while the speed
    # tests themselves are shown.
    if policy.of("speed") == "visible":
        results["leaderboard"] = leaderboard(record)
    return results


def hidden_tests(results):
    """Names of tests a student never sees; non-empty means Gradescope hides their total."""
    return [t.get("name", "?") for t in results.get("tests", [])
            if t.get("visibility", results.get("visibility")) == "hidden"]
