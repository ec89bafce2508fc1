"""Every path the batch uses, computed here and nowhere else: the report folder (what the
instructor reads), the work folder (builds, caches, the data file), one staged run's folder, and
what a sandboxed run sees in their place."""
import os
from dataclasses import dataclass
from typing import Optional


def _under_root(*parts):
    """A property: the path `parts` below the object's root."""
    return property(lambda self: os.path.join(self.root, *parts))


@dataclass(frozen=True)
class ReportPaths:
    """REPORT_DIR (--out): the class report and one folder per student."""
    root: str
    summary = _under_root("batch.json")
    class_csv = _under_root("class.csv")
    class_insight = _under_root("class-insight.json")  # batch/class_insight.py, its one writer
    index_html = _under_root("index.html")
    plots = _under_root("plots")
    submissions = _under_root("submissions")

    def student(self, name):
        return os.path.join(self.submissions, name)

    def student_file(self, name, file):
        """file: log.txt, results.json (Gradescope's) or grading.json (the record)."""
        return os.path.join(self.student(name), file)


@dataclass(frozen=True)
class WorkPaths:
    """--work-dir (REPORT_DIR/.work by default): what one run keeps for the next."""
    root: str
    snapshot = _under_root("project")  # the students' copy of the project
    manifest = _under_root("project-manifest.json")
    seed_salt = _under_root("seed-salt")
    data_dir = _under_root("data")
    counting_build = _under_root("counting-build")  # the counting step's (batch/counting_step.py)

    def data_file(self, data_key):
        """The data file of a data seed and --data-count (data_key: their fingerprint)."""
        return os.path.join(self.data_dir, f"data-{data_key}.bin")

    def reference(self, config_key):
        return os.path.join(self.root, f"reference-{config_key}.json")

    def slot(self, worker):
        """The folder a worker's build compiles the submission from (meson -Dsubmission)."""
        return os.path.join(self.root, "slots", str(worker))

    def build(self, worker):
        return os.path.join(self.root, "builds", str(worker))

    def build_state(self, worker):
        return os.path.join(self.build(worker), "batch-worker.json")

    def check_results(self, worker):
        """Where a worker's technique checks write their results (labs/meson.build: the build's
        results/ folder); emptied before each check."""
        return os.path.join(self.build(worker), "results")


def default_work_dir(out):
    return os.path.join(out, ".work")


CHECKER_SUFFIX = "-checker"
YARDSTICK_RUNNER = "yardstick-runner"


@dataclass(frozen=True)
class RunFolder:
    """One staged run: copies of a submission's programs (each lab's runner, its checker beside
    it, the yardstick runner once) and its lab files under src/, readable by the run user; the
    seeds it is graded with: `input_seed` (None: the default) and the `data` file it reads."""
    root: str
    input_seed: Optional[int] = None
    data: Optional[str] = None
    src = _under_root("src")
    yardstick_runner = _under_root(YARDSTICK_RUNNER)

    def source(self, file):
        return os.path.join(self.src, file)

    def runner(self, lab):
        return os.path.join(self.root, lab)

    def checker(self, lab):
        return self.runner(lab) + CHECKER_SUFFIX


def data_copy(run_root, data_key):
    """A data file copied where the run user can read it (no sandbox, run as another user)."""
    return os.path.join(run_root, f"data-{data_key}.bin")


@dataclass(frozen=True)
class RunPaths:
    """What one lab's checker is given: where it finds its programs and files."""
    checker: str
    runner: str
    yardstick_runner: str
    submission: str
    data: str


# In the sandbox: fixed paths that say nothing of the batch (report, work folder, seed).
SANDBOXED = RunPaths(checker="/sandbox/checker", runner="/sandbox/runner",
                     yardstick_runner="/sandbox/yardstick-runner",
                     submission="/sandbox/submission", data="/sandbox/data.bin")


def unsandboxed(folder, lab, data):
    """The staged copies themselves (--unsafe-no-sandbox)."""
    return RunPaths(checker=folder.checker(lab), runner=folder.runner(lab),
                    yardstick_runner=folder.yardstick_runner, submission=folder.src, data=data)


def readable_by_others(path):
    """Whether any user can read `path`: others may read it and search every folder above it."""
    path = os.path.abspath(path)
    if not os.stat(path).st_mode & 0o004:
        return False
    parent = os.path.dirname(path)
    while True:
        if not os.stat(parent).st_mode & 0o001:
            return False
        if parent == os.path.dirname(parent):
            return True
        parent = os.path.dirname(parent)
