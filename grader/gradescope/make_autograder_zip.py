#!/usr/bin/env python3
"""Pack a Gradescope autograder zip: the project as students see it (batch/project.py: no
solutions/, answer keys, version control, build folders, environments or grader fixtures), with setup.sh and run_autograder of
this folder at the zip's root, and the mode.

  make_autograder_zip.py --mode precomputed --report REPORT_DIR [--out autograder.zip]
      the results of a class graded with grade_submissions.py: each REPORT_DIR/submissions/<name>/
      results.json goes in as precomputed/<name>/results.json (autograder.py says which <name>
      a Gradescope submission gets). With --visibility/--test-visibility, each one is made again
      from its grading.json with those settings (a report's files keep the grading run's).
  make_autograder_zip.py --mode cpu [--out autograder.zip] [-- GRADE_SUBMISSIONS_OPTIONS]
      grade on Gradescope's CPU: correctness and technique, no speed. Options after -- are grade_submissions.py's
      (--labs 01,03 --seed-file FILE --timeout 30 ...); a seed goes in .gradescope/seed, out of
      the students' reach and off every command line.
"""
import argparse
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Run as a file (python3 grader/gradescope/make_autograder_zip.py), Python sees this folder only:
# run again with grader/, the import root, on PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from batch import cli, project  # noqa: E402
from gradescope import results_format  # noqa: E402

TEMPLATE = ("setup.sh", "run_autograder")
SET_BY_THE_AUTOGRADER = ("--backend", "--out", "--work-dir", "--shard", "--force")
# In a hidden top-level folder: grade_submissions.py leaves those out of the project's copy that
# student code can read (batch/project.py), so the seed stays with the grader.
SEED_FILE = ".gradescope/seed"


def parse_args(argv):
    ours, grade_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv \
        else (argv, [])
    parser = argparse.ArgumentParser(
        prog="make_autograder_zip.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0], epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--mode", choices=["precomputed", "cpu"], required=True)
    parser.add_argument("--report", action="append", default=[], metavar="REPORT_DIR",
                        help="precomputed: a grade_submissions.py report (repeat for shards)")
    parser.add_argument("--out", default="autograder.zip", help="the zip (default autograder.zip)")
    results_format.add_visibility_arguments(parser)
    parser.set_defaults(visibility=None)  # None: keep the visibility the report was written with
    args = parser.parse_args(ours)
    if args.mode == "precomputed":
        if not args.report:
            parser.error("--mode precomputed needs --report REPORT_DIR")
        if grade_args:
            parser.error("options after -- are for --mode cpu")
    elif args.report:
        parser.error("--report is for --mode precomputed")
    for arg in grade_args:
        if arg.split("=")[0] in SET_BY_THE_AUTOGRADER:
            parser.error(f"{arg}: the autograder sets {', '.join(SET_BY_THE_AUTOGRADER)} itself")
    args.grade_args = grade_args
    return args


def cpu_settings(args):
    """(grade_submissions.py options, one a line; the seed's text or None), checked now by
    grade_submissions.py's own parser rather than on Gradescope, one submission at a time."""
    options = list(args.grade_args)
    if args.visibility is not None:
        options += args.visibility.as_arguments()
    parsed = cli.parse_args(["SUBMISSIONS", "--out", "REPORT"] + options)  # exits on an error
    try:
        project.select_labs(project.discover_labs(), parsed.labs)
    except ValueError as error:
        raise SystemExit(f"error: {error}")
    # Both seeds, however they were given, travel in SEED_FILE, never on a command line.
    seeds = {key: getattr(parsed, key) for key in cli.SEED_NAMES.values()}
    seed = cli.seed_file_text(seeds) or None
    seed_flags = ("--seed-file",) + tuple(cli.SEED_FLAGS.values())
    kept, skip_next = [], False
    for arg in options:
        if skip_next:
            skip_next = False
        elif arg in seed_flags:
            skip_next = True
        elif not arg.startswith(tuple(flag + "=" for flag in seed_flags)):
            kept.append(arg)
    if any("\n" in arg for arg in kept):
        raise SystemExit("error: an option holds a line break")
    return kept, seed


def precomputed_results(reports, visibility):
    """{submission name: results.json text} from the reports, and warnings."""
    found, warnings = {}, []
    for report in reports:
        folder = os.path.join(report, "submissions")
        if not os.path.isdir(folder):
            raise SystemExit(f"error: {report} has no submissions/: not a grade_submissions.py report")
        for name in sorted(os.listdir(folder)):
            results_path = os.path.join(folder, name, "results.json")
            record_path = os.path.join(folder, name, "grading.json")
            if name in found:
                raise SystemExit(f"error: {name} is in two reports; merge them first "
                                 "(grade_submissions.py merge)")
            if visibility is not None and os.path.isfile(record_path):
                with open(record_path, encoding="utf-8") as f:
                    results = results_format.results_json(json.load(f), visibility)
            elif os.path.isfile(results_path):
                with open(results_path, encoding="utf-8") as f:
                    results = json.load(f)
            else:
                warnings.append(f"{name}: no results.json (not graded yet?), left out")
                continue
            if results_format.hidden_tests(results):
                warnings.append(f"{name}: has hidden tests, which hide the student's total on "
                                "Gradescope; pass --visibility/--test-visibility to remake it")
            found[name] = json.dumps(results, indent=1)
    return found, warnings


def add_file(archive, path, name, mode=None, data=None):
    """`data`: what the zip holds instead of the file's bytes (project.students_bytes)."""
    info = zipfile.ZipInfo.from_file(path, name)
    if mode is not None:
        info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    archive.writestr(info, data)


def add_text(archive, name, text, mode=0o644):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, text)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = os.path.abspath(args.out)
    files = project.project_files(project.ROOT, skip_paths=[out] + args.report)
    files = [f for f in files if f not in TEMPLATE]  # the template's copies go at the root
    warnings, results = [], {}
    if args.mode == "precomputed":
        results, warnings = precomputed_results(args.report, args.visibility)
        if not results:
            raise SystemExit("error: no results.json in the report(s): nothing to publish")
    else:
        grade_options, seed = cpu_settings(args)
    temporary = out + ".partial"
    with zipfile.ZipFile(temporary, "w") as archive:
        for name in TEMPLATE:
            add_file(archive, os.path.join(HERE, name), name, 0o755)
        for rel in files:
            add_file(archive, os.path.join(project.ROOT, rel), rel.replace(os.sep, "/"),
                     data=project.students_bytes(rel))
        add_text(archive, "gradescope_mode", args.mode + "\n")
        for name, text in results.items():
            add_text(archive, f"precomputed/{name}/results.json", text)
        if args.mode == "cpu":
            add_text(archive, "gradescope_grade_args", "".join(a + "\n" for a in grade_options))
            if seed is not None:
                add_text(archive, SEED_FILE, seed + "\n", 0o600)
    os.replace(temporary, out)
    for warning in warnings:
        print(f"warning: {warning}")
    what = (f"{len(results)} precomputed result(s)" if args.mode == "precomputed"
            else "grading on the CPU backend: " + (" ".join(grade_options) or "default options")
            + (" and a hidden seed" if seed is not None else ""))
    print(f"{out}: {len(files)} project files, {what}. Upload it on the assignment's "
          "Configure Autograder page (base image Ubuntu 22.04).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
