#!/usr/bin/env python3
"""PrairieLearn's external grader for the workbook: grades the lab files a student submitted
(/grade/student) with grade_submissions.py on the CPU backend, in the sandbox its settings choose
(the template's: --sandbox=uid, as PrairieLearn's containers give no namespaces; batch/single.py,
as Gradescope's cpu mode does), and writes /grade/results/results.json in PrairieLearn's format
(results_format.py).

    grade_pl.py run --labs 01        grade a submission (run.sh, the question's entrypoint)
    grade_pl.py warm-up --labs 01    grade the starter once, when the grader's image is built:
                                     the image then holds the built workers, and a job compiles
                                     only the student's file
    grade_pl.py export DIR           write the project as students see it (no solutions/, answer
                                     keys, fixtures: batch/project.py) into DIR, for the image

The result: `score` is the points earned over the maximum (0 to 1), one test per graded test
with its points; a lab file that does not compile (or is missing) makes the submission not
gradable (`gradable: false`, the compiler's messages in `format_errors`: no attempt is used);
so does a grader that cannot grade, e.g. with no sandbox for student code (its reason in the
message): it fails closed and never runs student code unconfined unless the course's settings say
--unsafe-no-sandbox. Environment (defaults in brackets):
  PL_GRADE_ROOT  the job's folder [/grade]
  PL_SETTINGS    the course's settings folder: grade_args (grade_submissions.py options, one a
                 line) and seed (a hidden seed file) [$PL_GRADE_ROOT/serverFilesCourse/gpu_workbook]
  PL_WORK_DIR    the batch's worker builds and reference, kept in the image [PROJECT/.prairielearn-work]
  PL_BACKEND     cpu, or cuda on a grader host whose containers see a GPU [cpu]
"""
import argparse
import json
import os
import sys
import tempfile

from batch import project, single  # grader/, on PYTHONPATH (run.sh)
from prairielearn import results_format

SOURCE = project.ROOT
CPU_NOTE = ("Graded on the CPU backend: correctness, and the technique checks judged on what ran "
            "(speed needs a GPU and is not part of this score).")
MAX_OUTPUT = 200_000  # characters of the student's log in `output` (the file's limit is 1 MB)
MAX_BUILD_OUTPUT = 20_000


def grade_root():
    return os.environ.get("PL_GRADE_ROOT", "/grade")


def settings_dir():
    return os.environ.get("PL_SETTINGS") or os.path.join(grade_root(), "serverFilesCourse",
                                                         "gpu_workbook")


def work_dir():
    return os.environ.get("PL_WORK_DIR") or os.path.join(SOURCE, ".prairielearn-work")


def backend():
    value = os.environ.get("PL_BACKEND", "cpu")
    if value not in ("cpu", "cuda"):
        raise ValueError(f"PL_BACKEND is {value!r}: cpu or cuda")
    return value


def not_gradable(message, format_errors=None):
    results = {"gradable": False, "message": message}
    if format_errors:
        results["format_errors"] = format_errors
    return results


def grader_problem(lines):
    return not_gradable(single.GRADER_PROBLEM + "\n\n" + "\n".join(lines))


def pl_test(test):
    """A PrairieLearn test from a Gradescope one (gradescope/results_format.py: its output already capped
    as students may see it, batch/student_view.py)."""
    output = test.get("output") or ""
    first = next((line.strip() for line in output.splitlines() if line.strip()), "")
    message = "passed" if test["status"] == "passed" else (first[:300] or "failed")
    if test["status"] == "passed" and test["score"] < test["max_score"]:
        message = "passed; its points wait for the main tests of its version"
    return {"name": test["name"], "description": (test.get("extra_data") or {}).get("kind", ""),
            "points": test["score"], "max_points": test["max_score"], "message": message,
            "output": output}


def results_of(graded, lab_names):
    """PrairieLearn's results.json of what single.grade_folder returned."""
    if graded.record is None:
        return grader_problem(graded.problems())
    labs = graded.record["labs"]
    unbuilt = [labs[name] for name in lab_names if labs[name]["status"] in ("compile_error", "missing")]
    if unbuilt:
        messages = [f"{lab['file']} does not compile" if lab["status"] == "compile_error"
                    else f"no {lab['file']} in the submission" for lab in unbuilt]
        errors = [lab["build_output"][-MAX_BUILD_OUTPUT:] or "; ".join(lab["reasons"]) for lab in unbuilt]
        return not_gradable("; ".join(messages) + ": not graded, and no attempt used. Fix it and "
                            "submit again.", errors)
    score, most = graded.record["score"], graded.record["max_score"]
    message = graded.results.get("output", "")
    if backend() == "cpu":
        message = CPU_NOTE + "\n" + message
    return {"gradable": True, "score": round(score / most, 6) if most else 0.0,
            "message": message, "output": graded.student_log[-MAX_OUTPUT:],
            "tests": [pl_test(t) for t in graded.results.get("tests", [])]}


def protect_grade_root():
    """Before any student code runs: the job's folders but student/ and results/ (the course's
    server files, the hidden seed, PrairieLearn's tests) become the grader's alone, and results/
    is writable by the grader alone. Under --sandbox uid, student code sees the files others may
    read; the batch then checks that the seed file is not one of them."""
    root = grade_root()
    for name in os.listdir(root) if os.path.isdir(root) else []:
        path = os.path.join(root, name)
        if name not in ("student", "results") and not os.path.islink(path):
            os.chmod(path, os.stat(path).st_mode & 0o700)
    folder = os.path.join(root, "results")
    os.makedirs(folder, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(folder, 0, 0)
    os.chmod(folder, 0o755)


def write_results(results):
    folder = os.path.join(grade_root(), "results")
    os.makedirs(folder, exist_ok=True)
    problems = results_format.problems(results)
    if problems:  # never hand PrairieLearn a result its documentation does not describe
        print("error: the result broke PrairieLearn's format: " + "; ".join(problems))
        results = grader_problem(["the grader made a result PrairieLearn does not accept"])
    # A new file of a name no one could know, renamed over results.json (a link there included).
    handle, temporary = tempfile.mkstemp(prefix=".results-", dir=folder)
    with os.fdopen(handle, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    os.chmod(temporary, 0o644)
    os.replace(temporary, os.path.join(folder, "results.json"))


def grade(submission, labs):
    """(results, graded) of the lab files in folder `submission`."""
    try:
        options = single.read_arguments(os.path.join(settings_dir(), "grade_args"),
                                        os.path.join(settings_dir(), "seed"))
        chosen = project.select_labs(project.discover_labs(SOURCE), labs)
        kind = backend()
    except ValueError as error:
        return grader_problem([f"error: {error}"]), None
    if any(arg == "--labs" or arg.startswith("--labs=") for arg in options):
        return grader_problem([f"error: {settings_dir()}/grade_args names --labs: the question's "
                               "entrypoint does (run.sh --labs NN)"]), None
    options += ["--labs", ",".join(lab.number for lab in chosen)]
    graded = single.grade_folder(submission, "submission", work_dir(), options, kind, SOURCE)
    return results_of(graded, [lab.name for lab in chosen]), graded


def main(argv=None):
    parser = argparse.ArgumentParser(prog="grade_pl.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("command", choices=["run", "warm-up", "export"])
    parser.add_argument("folder", nargs="?", help="export: the folder to write (new or empty)")
    parser.add_argument("--labs", help="the lab(s) the question grades, e.g. 01")
    args = parser.parse_args(argv)
    if args.command == "export":
        if not args.folder or (os.path.exists(args.folder) and os.listdir(args.folder)):
            parser.error("export needs a new or empty folder")
        project.sync_snapshot(os.path.abspath(args.folder), SOURCE, skip_paths=[args.folder])
        print(f"{args.folder}: the project as students see it")
        return 0
    if not args.labs:
        parser.error(f"{args.command} needs --labs (the lab the question grades, e.g. --labs 01)")
    if args.command == "warm-up":
        protect_grade_root()
        results, graded = grade(os.path.join(SOURCE, "starter"), args.labs)
        ok = graded is not None and graded.record is not None
        print("warm-up done: the workers are built" if ok else
              "warm-up failed: each job will build from scratch\n" + results.get("message", ""))
        return 0 if ok else 1
    try:
        protect_grade_root()
        results, _ = grade(os.path.join(grade_root(), "student"), args.labs)
    except Exception as error:  # noqa: BLE001  (whatever fails, PrairieLearn gets a result)
        import traceback
        traceback.print_exc()
        results = grader_problem([f"error: {error}"])
    write_results(results)
    print(f"results.json: gradable {results.get('gradable', True)}, score {results.get('score')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
