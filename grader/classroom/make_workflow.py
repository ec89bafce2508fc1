#!/usr/bin/env python3
"""Write the GitHub Classroom workflows from the grader's own points table.

    make_workflow.py [--build-dir build]            write .github/workflows/classroom.yml and
                                                    classroom-gpu.yml
    make_workflow.py [--build-dir build] --check    exit 1, showing the difference, where the
                                                    checked-in files are not what it would write

The points of classroom.yml are each lab's checker's own table (`labNN_checker
--grader-list-points`, in BUILD/labs/: build every lab first, e.g. python3 grader/grade.py),
never typed by hand: on GitHub's hosted runner (no GPU) the CPU backend grades correctness, so a
step is a version of a lab (a GoogleTest suite: its main and edge tests) worth the points those
tests carry; speed tests need a GPU and are left out. The technique checks judged on what ran
(those with a `ran` requirement, which the CPU backend judges) are one more step per lab, worth
their points, as the batch counts them (the others read machine code: a GPU's). classroom-gpu.yml,
the optional job on a self-hosted runner labelled `gpu`, grades speed too; its points come from
the grader at run time. The instructor guide, section "GitHub Classroom", says how to use them.
"""
import argparse
import difflib
import json
import os
import sys

# Run as a file (python3 grader/classroom/make_workflow.py), Python sees this folder only: run
# again with grader/, the import root, on PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

import toolchain  # noqa: E402  (the build's backend)
import student_runs  # noqa: E402  (the points table's reader, as grade.py reads it)
from runs import checker  # noqa: E402  (a lab's technique checks among the build's tests)
from batch import project  # noqa: E402

ROOT = project.ROOT
WORKFLOWS = os.path.join(ROOT, ".github", "workflows")
CPU_WORKFLOW, GPU_WORKFLOW = "classroom.yml", "classroom-gpu.yml"
COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
CHECKOUT = "actions/checkout@v4"
# What the steps run (grader/classroom/): the commands are the workflow's, run as written.
SETUP = "bash grader/classroom/setup_github_machine.sh"
GRADE = "python3 grader/classroom/grade_repo.py"
VERSION = "python3 grader/classroom/version_points.py"
GRADED_KINDS = ("main", "edge")  # what the CPU backend grades (speed tests skip: no GPU)
# The variable a course sets to "true" (repository or organization) to run the GPU job.
GPU_SWITCH = "WORKBOOK_GPU_GRADING"


def points_table(build_dir, lab):
    checker = os.path.join(build_dir, "labs", f"{lab.name}_checker")
    if not os.access(checker, os.X_OK):
        raise SystemExit(f"error: {checker} is not built: build every lab first (python3 "
                         "grader/grade.py, or meson compile -C BUILD with -Dlabs=all), or name the "
                         "build with --build-dir")
    return student_runs.points_table([checker], dict(os.environ), ROOT)[0]


def versions_of(lab, table):
    """[(suite, points, tests)] of a lab's correctness tests on the CPU backend, in run order;
    a version worth no points is left out (it cannot move a grade)."""
    versions = {}
    for name, points, stretch, kind, _ in table:
        if kind in GRADED_KINDS:
            suite = name.split(".")[0]
            total, count = versions.get(suite, (0.0, 0))
            versions[suite] = (total + points + stretch, count + 1)
    found = []
    for suite, (points, count) in versions.items():
        if points != int(points):
            raise SystemExit(f"error: {lab.name} {suite} is worth {points:g} points: the command "
                             "grader gives whole points only (it reads max-score with parseInt)")
        if points:
            found.append((suite, int(points), count))
    return found


TECHNIQUE = "Technique"  # the suite of a lab's technique checks in the grader's record


def technique_points(build, lab):
    """The points of `lab`'s technique checks the CPU backend judges (those with a `ran`
    requirement), from their meson tests' command lines (labs/meson.build; `--points`, default 1)."""
    points = 0.0
    for test in checker.lab_checks(build.tests, lab.name):
        cmd = test["cmd"]
        each = float(cmd[cmd.index("--points") + 1]) if "--points" in cmd else 1.0
        points += each * sum(1 for i, arg in enumerate(cmd) if arg == "--ran" and i + 1 < len(cmd) and cmd[i + 1].strip())
    if points != int(points):
        raise SystemExit(f"error: {lab.name}'s technique checks are worth {points:g} points: the command "
                         "grader gives whole points only")
    return int(points)


def step_id(suite):
    """The step's id: letters and digits only, since the reporter reads each runner's results
    from the environment variable <ID in capitals>_RESULTS."""
    return "".join(c for c in suite.lower() if c.isalnum())


def q(text):
    """A YAML double-quoted scalar (a JSON string is one)."""
    return json.dumps(str(text))


def command_step(lines, name, step, test_name, command, timeout, points, setup=None):
    lines += [f"    - name: {q(name)}", f"      id: {step}", f"      uses: {COMMAND_GRADER}",
              "      with:", f"        test-name: {q(test_name)}"]
    if setup:
        lines.append(f"        setup-command: {q(setup)}")
    lines += [f"        command: {q(command)}", f"        timeout: {timeout}",
              f"        max-score: {points}"]


def cpu_workflow(labs_versions):
    steps, lines = ["grade"], [
        "# GitHub Classroom autograding: GitHub's hosted runner has no GPU, so every lab is graded",
        "# on the CPU backend: correctness and the technique checks judged on what ran (speed",
        "# tests need a GPU and are not part of these points). One step per version of a lab,",
        "# worth the points of its tests in the grader's own table, earned when the whole version",
        "# earns them, and one per lab for its technique checks.",
        "# Generated by grader/classroom/make_workflow.py from each lab's checker",
        "# (--grader-list-points): do not edit by hand. The reporter's rules: this name, one job",
        "# named run-autograding-tests. Points here are advisory (the student controls this",
        "# repository): handouts/instructor-guide.md, section GitHub Classroom.",
        "name: Autograding Tests",
        "on: [push, repository_dispatch, workflow_dispatch]",
        "permissions:", "  actions: read", "  contents: read",  # the reporter's newest README
        "jobs:", "  run-autograding-tests:", "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'", "    timeout-minutes: 120",
        "    steps:", "    - name: Checkout code", f"      uses: {CHECKOUT}"]
    command_step(lines, "Grade every lab on the CPU backend", "grade",
                 "Grade every lab on the CPU backend (no speed tests: this runner has no GPU)",
                 GRADE, 90, 0, setup=SETUP)
    total = 0
    for lab, versions in labs_versions:
        for suite, points, count in versions:
            step = step_id(f"{lab.name}{suite}" if suite == TECHNIQUE else suite)
            if step in steps:
                raise SystemExit(f"error: two versions make the step id {step!r}")
            steps.append(step)
            total += points
            what = (f"technique checks judged on what ran, {points} point{'s' if points != 1 else ''}" if suite == TECHNIQUE
                    else f"{count} tests, {points} points")
            command_step(lines, f"{lab.name} {suite}", step, f"{lab.name} {suite}: {what} (CPU backend)",
                         f"{VERSION} {lab.name} {suite} {points}", 5, points)
    lines += ["    - name: Autograding Reporter", f"      uses: {REPORTER}", "      env:"]
    lines += [f"        {s.upper()}_RESULTS: \"${{{{steps.{s}.outputs.result}}}}\"" for s in steps]
    lines += ["      with:", f"        runners: {','.join(steps)}"]
    lines.insert(4, f"# Total: {total} points over {len(steps) - 1} versions of "
                    f"{len(labs_versions)} labs.")
    return "\n".join(lines) + "\n"


def gpu_workflow():
    lines = [
        "# Optional: every lab graded on a GPU, speed tests and technique checks included, on a",
        "# self-hosted runner labelled gpu. Off unless the repository or organization variable",
        f"# {GPU_SWITCH} is \"true\" (Settings > Secrets and variables > Actions > Variables).",
        "# It runs after \"Autograding Tests\" has finished (the reporter's rule: that workflow",
        "# must finish first); its score table goes to the run's summary, not to Classroom.",
        "# The runner runs whatever this repository's student pushes: give it nothing to lose",
        "# (handouts/instructor-guide.md, section GitHub Classroom).",
        "# Generated by grader/classroom/make_workflow.py: do not edit by hand.",
        "name: Grading on a GPU",
        "on:", "  workflow_run:", "    workflows: [\"Autograding Tests\"]", "    types: [completed]",
        "  workflow_dispatch:",
        "permissions:", "  contents: read",
        "jobs:", "  grade-on-gpu:",
        f"    if: vars.{GPU_SWITCH} == 'true' && github.actor != 'github-classroom[bot]'",
        "    runs-on: [self-hosted, gpu]", "    timeout-minutes: 180", "    steps:",
        "    - name: Checkout code", f"      uses: {CHECKOUT}", "      with:",
        "        ref: \"${{ github.event.workflow_run.head_sha || github.sha }}\"",
        "    - name: Grade every lab on this runner's GPU (speed included)",
        f"      run: {GRADE} --backend cuda --summary \"$GITHUB_STEP_SUMMARY\""]
    return "\n".join(lines) + "\n"


def workflows(build_dir):
    backend = toolchain.backend_of(build_dir)
    if backend != "cpu":
        # A cuda build also registers the technique checks that read a GPU's machine code with a
        # `ran` requirement; Classroom's hosted runner grades on the CPU backend, which does not.
        raise SystemExit(f"error: {build_dir} is a {backend or 'unconfigured'} build: the Classroom "
                         "workflow grades on the CPU backend, so its points come from a cpu build "
                         "(meson setup build-cpu -Dkernel_backend=cpu && meson compile -C build-cpu, "
                         "then --build-dir build-cpu)")
    build = student_runs.introspect_tests(build_dir)
    labs_versions = []
    for lab in project.discover_labs():
        versions = versions_of(lab, points_table(build_dir, lab))
        checks = technique_points(build, lab)
        labs_versions.append((lab, versions + ([(TECHNIQUE, checks, None)] if checks else [])))
    return {CPU_WORKFLOW: cpu_workflow(labs_versions), GPU_WORKFLOW: gpu_workflow()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="a build of every lab (default build/)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the checked-in workflows instead of writing them")
    parser.add_argument("--out", default=WORKFLOWS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    made, stale = workflows(os.path.abspath(args.build_dir)), []
    for name, text in made.items():
        path = os.path.join(args.out, name)
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = ""
        if old == text:
            continue
        if args.check:
            stale.append(name)
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), path, "what make_workflow.py writes"))
        else:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {path}")
    if stale:
        print(f"\nerror: {', '.join(stale)} differ from the grader's points table: run "
              "python3 grader/classroom/make_workflow.py and commit the result")
        return 1
    if args.check:
        print(f"{', '.join(made)}: as the grader's points table makes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
