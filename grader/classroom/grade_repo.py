#!/usr/bin/env python3
"""Grade this repository's lab files (starter/labNN_*.cu: a student's work in a GitHub Classroom
repository) the way grade_submissions.py grades a class: in its sandbox, through
batch/single.py, as Gradescope's cpu mode and PrairieLearn's grader do.

    grade_repo.py                     every lab on the CPU backend: no speed tests
    grade_repo.py --backend cuda --summary FILE
                                      on this machine's GPU, speed included (the optional GPU job);
                                      the score table also goes to FILE in Markdown (the run's
                                      summary, $GITHUB_STEP_SUMMARY)

It writes build-classroom/grading.json (the batch's record: every lab's results document), which
the workflow's steps read (version_points.py), and prints the score of each version of each lab.
Exit status: 0 graded (whatever the score), 1 not graded (the reason is printed), 2 bad usage.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

# Run as a file (the workflow's command), Python sees this folder only: run again with grader/,
# the import root, on PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from batch import project, single  # noqa: E402

ROOT = project.ROOT
OUT = os.path.join(ROOT, "build-classroom")  # a build folder: ignored by git and by the batch
RECORD = "grading.json"
CPU_NOTE = ("Graded on the CPU backend: correctness, and the technique checks judged on what ran. "
            "Speed tests need a GPU and are not part of this score.")


def versions(lab):
    """{suite: [tests]} of a lab record, in run order."""
    found = {}
    for test in lab["tests"]:
        found.setdefault(test["name"].split(".")[0], []).append(test)
    return found


def score_lines(record):
    """The score table: a line per lab, then its versions' earned/maximum points."""
    lines = []
    for name, lab in record["labs"].items():
        why = f" - {lab['reasons'][0]}" if lab.get("reasons") else ""
        lines.append(f"{name}  {lab['score']:g}/{lab['max_score']:g}  ({lab['status']}){why}")
        for suite, tests in versions(lab).items():
            earned, most = sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)
            failed = sum(t["status"] == "failed" for t in tests)
            lines.append(f"    {suite:<28} {earned:g}/{most:g}"
                         + (f"  ({failed} of {len(tests)} tests failed)" if failed else ""))
    lines.append(f"total  {record['score']:g}/{record['max_score']:g}")
    return lines


def summary_markdown(record, backend):
    rows = ["| lab | points | status |", "|---|---|---|"]
    rows += [f"| {name} | {lab['score']:g}/{lab['max_score']:g} | {lab['status']} |"
             for name, lab in record["labs"].items()]
    rows.append(f"| total | {record['score']:g}/{record['max_score']:g} | |")
    head = (f"### Grading on this runner ({backend} backend)\n\n"
            + ("" if backend == "cuda" else CPU_NOTE + "\n\n"))
    return head + "\n".join(rows) + "\n"


def lab_files(root=ROOT):
    """A folder holding a copy of the repository's lab files (starter/labNN_*.cu)."""
    folder = tempfile.mkdtemp(prefix="classroom-submission-")
    for lab in project.discover_labs(root):
        path = os.path.join(root, "starter", lab.submission_file)
        if os.path.isfile(path):
            shutil.copy2(path, os.path.join(folder, lab.submission_file))
    return folder


def grade(out, backend, summary=None):
    os.makedirs(out, exist_ok=True)
    record_path = os.path.join(out, RECORD)
    if os.path.exists(record_path):
        os.remove(record_path)  # a step must never read an earlier run's grades
    submission = lab_files()
    try:
        graded = single.grade_folder(submission, "repository", os.path.join(out, "work"),
                                     backend=backend)
    finally:
        shutil.rmtree(submission, ignore_errors=True)
    if graded.record is None:
        print("The grader could not grade this repository; this is a problem of the grading "
              "set-up, not of your code. What went wrong:")
        print("\n".join(graded.problems()))
        return 1
    print(graded.student_log)
    if backend == "cpu":
        print(CPU_NOTE)
    print("\n".join(score_lines(graded.record)))
    temporary = record_path + ".partial"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(graded.record, f, indent=1)
    os.replace(temporary, record_path)
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(summary_markdown(graded.record, backend))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu",
                        help="cpu (default: GitHub's runners have no GPU) or cuda")
    parser.add_argument("--summary", metavar="FILE", help="also append the score table to FILE")
    parser.add_argument("--out", default=OUT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    return grade(os.path.abspath(args.out), args.backend, args.summary)


if __name__ == "__main__":
    sys.exit(main())
