"""One submission graded alone by grade_submissions.py, as the venues that grade an upload at a
time need it: Gradescope's cpu mode (grader/gradescope/autograder.py), the GitHub Classroom
workflow (grader/classroom/) and PrairieLearn's external grader (grader/prairielearn/).

The grade is made by grade_submissions.py in a process of its own, exactly as for a class: the
submission's lab files are copied into a scratch class folder, every compile and run of them
happens in the batch's sandbox (batch/sandbox.py), and what comes back is read from the report
it writes, never from anything student code could write. With no sandbox the batch refuses to
grade (unless told --unsafe-no-sandbox), and grade_folder says why.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from batch.project import ROOT

GRADER_PROBLEM = ("The autograder could not grade this submission; this is a problem of the "
                  "grading set-up, not of your code. Your course staff has been told what went wrong.")
# Options the venue sets itself: given in its settings file, they are refused, saying so.
SET_BY_THE_VENUE = ("--backend", "--out", "--work-dir", "--shard", "--force")


@dataclass
class Graded:
    """What grade_submissions.py left of one submission: its record (grading.json: every lab, as
    runs/results.py documents, with the batch's review fields), its Gradescope results.json, the
    student's log.txt (capped: batch/student_view.py), and what the batch printed. `record` is
    None when the batch could not grade (no sandbox, a set-up failure): `problems()` says why."""
    record: dict = None
    results: dict = None
    student_log: str = ""
    output: str = ""
    command: list = field(default_factory=list)

    def problems(self, count=10):
        """The batch's lines that say why it could not grade (it starts them "error" or
        "warning"), or else its last lines."""
        lines = self.output.splitlines()
        errors = [line for line in lines if line.startswith(("error", "warning"))]
        return (errors or lines)[-count:]


def read_text(path, default=""):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return default


def read_arguments(args_file, seed_file=None):
    """grade_submissions.py options kept in a file, one a line (blank lines and lines starting
    with # skipped), and --seed-file SEED_FILE where that file exists: a hidden seed travels in a
    file, never on a command line of the venue's settings. ValueError names an option the venue
    sets itself."""
    args = [line.strip() for line in read_text(args_file).splitlines()
            if line.strip() and not line.strip().startswith("#")]
    for arg in args:
        if arg.split("=")[0] in SET_BY_THE_VENUE:
            raise ValueError(f"{args_file}: {arg}: the grader sets "
                             f"{', '.join(SET_BY_THE_VENUE)} itself; remove that line")
    if seed_file and os.path.isfile(seed_file):
        args += ["--seed-file", seed_file]
    return args


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def grade_folder(submission, name, work_dir, options=(), backend="cpu", project_root=ROOT,
                 python=None, env=None, echo=True):
    """Grade the lab files in folder `submission` as the class's one student `name`, with
    grade_submissions.py of `project_root` on `backend` (its worker builds and reference kept in
    `work_dir` for the next upload), plus `options`. Returns a Graded."""
    scratch = tempfile.mkdtemp(prefix="grade-one-")
    try:
        class_dir = os.path.join(scratch, "class")
        os.makedirs(class_dir)
        shutil.copytree(submission, os.path.join(class_dir, name), symlinks=True)
        report = os.path.join(scratch, "report")
        command = [python or sys.executable,
                   os.path.join(project_root, "grader", "grade_submissions.py"), class_dir,
                   "--out", report, "--backend", backend, "--work-dir", work_dir,
                   "--no-matplotlib", "--no-counting"] + list(options)  # no class report: no counting
        if echo:
            print("$ " + " ".join(command), flush=True)
        lines = []
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", cwd=scratch, env=env) as process:
            for line in process.stdout:  # shown as it comes: a first build takes minutes
                lines.append(line)
                if echo:
                    print(line, end="", flush=True)
        output = "".join(lines)
        folder = os.path.join(report, "submissions", name)
        record = _read_json(os.path.join(folder, "grading.json"))
        results = _read_json(os.path.join(folder, "results.json"))
        if record is None or results is None:
            record = results = None
        return Graded(record, results, read_text(os.path.join(folder, "log.txt")), output,
                      command)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
