#!/usr/bin/env python3
"""What run_autograder does on Gradescope, in the mode named by the file gradescope_mode at the
root of the autograder zip (grader/gradescope/make_autograder_zip.py writes it):

  precomputed  the class was graded on a GPU machine (grade_submissions.py); the zip holds each
               submission's results.json under precomputed/<name>/. This submission's is found
               from /autograder/submission_metadata.json (see candidate_names) and copied into
               place, or a 0-point result says that none exists.
  cpu          grade /autograder/submission here with grade_submissions.py on the CPU backend
               (correctness and technique: speed needs a GPU), in its bubblewrap sandbox.

    autograder.py run        grade this submission (run_autograder)
    autograder.py warm-up    cpu mode: build the workers and the reference once, at image build
                             (setup.sh), so that each submission only compiles its own files

Paths follow Gradescope's layout under AUTOGRADER_ROOT (default /autograder): submission/,
submission_metadata.json, results/results.json, and work/ for the cpu mode's builds
(AUTOGRADER_WORK overrides it). The project is the folder this file is in, two levels up.
Whatever happens, a results.json is written: Gradescope shows nothing useful without one.
"""
import json
import os
import sys
import traceback

from batch import reports, single, submissions  # grader/, on PYTHONPATH (run_autograder, setup.sh)
from batch.single import GRADER_PROBLEM, read_text

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def root():
    return os.environ.get("AUTOGRADER_ROOT", "/autograder")


def work_dir():
    return os.environ.get("AUTOGRADER_WORK") or os.path.join(root(), "work")


def load_metadata():
    try:
        with open(os.path.join(root(), "submission_metadata.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def write_results(results):
    folder = os.path.join(root(), "results")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


def zero_results(message):
    return {"score": 0, "output": message, "output_format": "text", "stdout_visibility": "hidden",
            "tests": []}


def report_to_instructor(results):
    """run_autograder's stdout is shown to instructors only (stdout_visibility hidden)."""
    extra = results.get("extra_data") or {}
    for lab, notes in sorted((extra.get("instructor_notes") or {}).items()):
        for note in notes:
            print(f"for review: {lab}: {note}")
    for note in extra.get("submission_notes") or []:
        print(f"note: {note}")
    print(f"score: {results.get('score')}")


# ---- precomputed ---------------------------------------------------------------------------------
def candidate_names(metadata):
    """Names a precomputed result may be filed under, best first: the Gradescope submission
    (`submission_<id>`, as Gradescope's "Export Submissions" names its folders, or the bare id),
    then each submitter's Gradescope user id (`user_<id>`). Only identifiers Gradescope assigns
    and no student can change: never a name or an email, which a student can change (a name to
    another student's, and be handed that student's grades)."""
    names = []
    if metadata.get("id") is not None:
        names += [f"submission_{metadata['id']}", str(metadata["id"])]
    for user in metadata.get("users") or []:
        if user.get("id") is not None:
            names.append(f"user_{user['id']}")
    found = []
    for name in names:
        safe = submissions.safe_name(name)
        if safe not in found:
            found.append(safe)
    return found


def find_precomputed(folder, names):
    """The folder name in `folder` that is the first of `names` (exactly)."""
    try:
        available = sorted(d for d in os.listdir(folder)
                           if os.path.isfile(os.path.join(folder, d, "results.json")))
    except OSError:
        return None
    return next((name for name in names if name in available), None)


def upload_differs(results):
    """Whether this upload's lab files differ from the ones that were graded (a resubmission, or
    results filed under the student's name for files collected elsewhere)."""
    extra = results.get("extra_data") or {}
    if not extra.get("fingerprint") or not extra.get("lab_files"):
        return False
    upload = submissions.Submission("upload", os.path.join(root(), "submission"), "folder")
    collected = submissions.collect(upload, extra["lab_files"])
    return collected.fingerprint() != extra["fingerprint"]


def run_precomputed():
    metadata = load_metadata()
    names = candidate_names(metadata)
    folder = os.path.join(SOURCE, "precomputed")
    match = find_precomputed(folder, names)
    if match is None:
        print(f"no precomputed result for any of: {', '.join(names) or '(no submission metadata)'}")
        return zero_results(
            "No result has been computed for this submission yet. The labs are graded on a GPU "
            "machine by your course staff, who then publish the results here; an upload made "
            f"after that has not been graded. (Looked for: {', '.join(names) or 'nothing'}.)")
    with open(os.path.join(folder, match, "results.json"), encoding="utf-8") as f:
        results = json.load(f)
    print(f"precomputed result: precomputed/{match}/results.json")
    if upload_differs(results):
        message = ("Note: these results were computed from lab files that differ from this "
                   "upload; they grade the files your course staff collected.")
        print(message)
        results["output"] = message + "\n" + results.get("output", "")
    return results


# ---- cpu -----------------------------------------------------------------------------------------
def grade_arguments():
    """grade_submissions.py options packed into the zip (one a line), and the hidden seed's file."""
    return single.read_arguments(os.path.join(SOURCE, "gradescope_grade_args"),
                                 os.path.join(SOURCE, ".gradescope", "seed"))  # make_autograder_zip.SEED_FILE


def grade_here(submission, name):
    """Grade one folder with grade_submissions.py on the CPU backend (batch/single.py, shared
    with the Classroom and PrairieLearn graders); (results or None, output)."""
    graded = single.grade_folder(submission, name, work_dir(), grade_arguments(), "cpu", SOURCE)
    return graded.results, graded.output


def run_cpu():
    metadata = load_metadata()
    name = submissions.safe_name(f"submission_{metadata['id']}" if metadata.get("id") else "submission")
    results, output = grade_here(os.path.join(root(), "submission"), name)
    if results is None:
        # grade_submissions.py says why on lines starting "error:" (no sandbox: bwrap missing or
        # unable to start here, a build set-up failure, ...); the student sees them too.
        return zero_results(GRADER_PROBLEM + "\n\n" + "\n".join(single.Graded(output=output).problems()))
    results["output"] = ("Graded on Gradescope's CPU backend: correctness, and the technique checks "
                         "judged on what ran (speed needs a GPU and is not part of this score).\n"
                         + results.get("output", ""))
    return results


def warm_up():
    """Grade the starter code once with the zip's settings: the image then holds the built
    workers and the reference's plan, and each submission compiles only its own files."""
    results, output = grade_here(os.path.join(SOURCE, "starter"), "warm-up")
    if results is None:
        print("warm-up failed: each submission will set up its own build (minutes more)")
        return 1
    max_score = sum(t.get("max_score", 0) for t in results.get("tests", []))
    print(f"warm-up done, the workers built: {reports.starter_note(results.get('score', 0), max_score)}")
    return 0


def main(argv):
    command = argv[0] if argv else "run"
    mode = read_text(os.path.join(SOURCE, "gradescope_mode")).strip()
    if command == "warm-up":
        return warm_up() if mode == "cpu" else 0
    if command != "run":
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if mode == "precomputed":
            results = run_precomputed()
        elif mode == "cpu":
            results = run_cpu()
        else:
            print(f"error: gradescope_mode is {mode!r}: expected precomputed or cpu "
                  "(remake the zip with make_autograder_zip.py)")
            results = zero_results(GRADER_PROBLEM)
    except Exception:  # noqa: BLE001  (whatever fails, the student gets a results.json)
        traceback.print_exc()
        results = zero_results(GRADER_PROBLEM)
    write_results(results)
    report_to_instructor(results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
