"""grade_submissions.py: grade a folder of submissions, or merge the reports of several shards."""
import argparse
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from . import builder, project, runner, submissions

USAGE_EPILOG = """\
examples:
  grade_submissions.py class/ --out report/                     every lab, CUDA on every GPU
  grade_submissions.py class/ --out report/ --labs 01 --seed 90210
  grade_submissions.py class/ --out r1/ --shard 1/2             (and --shard 2/2 on a 2nd machine)
  grade_submissions.py merge --out report/ r1/ r2/
Exit status: 0 every submission graded (whatever its score), 1 some could not be graded,
2 usage or set-up error.
"""


@dataclass
class RunUser:
    uid: int
    gid: int
    name: str


class Batch:
    """One invocation: configuration, workers, GPU slots, reference, and the output folder."""

    def __init__(self, args, labs):
        self.args = args
        self.labs = labs
        self.out = os.path.abspath(args.out)
        self.work = os.path.abspath(args.work_dir or os.path.join(self.out, ".work"))
        self.lock = threading.Lock()
        self.warnings = []
        self.user = None
        self.user_note = ""
        self.run_root = None
        self.data_file = None
        self.reference = None
        self.devices = set()
        self.done = 0
        self.total = 0

    def log(self, message):
        with self.lock:
            print(message, flush=True)

    # ---- configuration --------------------------------------------------------------------------
    def prepare(self):
        os.makedirs(self.work, exist_ok=True)
        self.snapshot = os.path.join(self.work, "project")
        skip = [self.out, self.work, os.path.abspath(self.args.submissions)]
        self.project_fingerprint, manifest = project.sync_snapshot(self.snapshot, project.ROOT, skip,
                                                                   self.labs)
        manifest_path = os.path.join(self.work, "project-manifest.json")
        try:
            with open(manifest_path) as f:
                previous = json.load(f)
        except (OSError, ValueError):
            previous = None
        if previous is not None and previous != manifest:
            changed = sorted(set(previous) ^ set(manifest)
                             | {k for k in manifest if previous.get(k) not in (None, manifest[k])})
            self.log(f"note: the project changed since the last run ({', '.join(changed[:8])}"
                     f"{' ...' if len(changed) > 8 else ''}): submissions are regraded")
        with open(manifest_path, "w") as f:
            json.dump(manifest, f)
        a = self.args
        self.config = {"labs": [lab.name for lab in self.labs], "backend": a.backend,
                       "seed": a.seed, "data_count": a.data_count, "gpu_archs": a.gpu_archs,
                       "project": self.project_fingerprint}
        self.config_key = hashlib.sha256(json.dumps(self.config, sort_keys=True).encode()).hexdigest()[:16]

    def meson_options(self):
        return {"submission": os.path.join(self.work, "slots", "X"),  # replaced per worker
                "kernel_backend": self.args.backend, "gpu_archs": self.args.gpu_archs,
                "labs": ",".join(lab.number for lab in self.labs), "project_tests": "false",
                "b_colorout": "never", "buildtype": "release"}

    def gpu_slots(self):
        if self.args.backend == "cpu":
            return [None] * max(1, self.args.jobs)
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        if visible is not None and visible.strip():
            return [d.strip() for d in visible.split(",") if d.strip()]
        try:
            done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
            count = sum(line.startswith("GPU ") for line in done.stdout.splitlines())
        except (OSError, subprocess.TimeoutExpired):
            count = 0
        if count == 0:
            raise SystemExit("error: no GPU visible (nvidia-smi -L lists none); grade with "
                             "--backend cpu for correctness only")
        return [str(i) for i in range(count)]

    def choose_user(self):
        if self.args.no_drop:
            self.user_note = f"{pwd.getpwuid(os.geteuid()).pw_name} (--no-drop given)"
        elif os.geteuid() != 0:
            self.user_note = (f"{pwd.getpwuid(os.geteuid()).pw_name}: not root, so student code runs "
                              "as you (run as root, or in a container, to run it as nobody)")
        else:
            try:
                entry = pwd.getpwnam(self.args.run_as)
                self.user = RunUser(entry.pw_uid, entry.pw_gid, entry.pw_name)
                self.user_note = entry.pw_name
            except KeyError:
                self.user_note = f"root: no user {self.args.run_as!r} on this machine"
        if self.user is None:
            self.warnings.append(f"student code runs as {self.user_note}")

    def prepare_run_files(self, default_data):
        """A folder the run user can read, holding each run's program and files; the data file."""
        self.run_root = tempfile.mkdtemp(prefix="grade-submissions-")
        os.chmod(self.run_root, 0o711)
        data = default_data
        if self.args.seed is not None or self.args.data_count is not None:
            data = os.path.join(self.work, "data", f"data-{self.config_key}.bin")
            if not os.path.exists(data):
                os.makedirs(os.path.dirname(data), exist_ok=True)
                command = [sys.executable, os.path.join(self.snapshot, "data", "generate.py"),
                           "--output", data + ".partial"]
                if self.args.seed is not None:
                    command += ["--seed", str(self.args.seed)]
                if self.args.data_count is not None:
                    command += ["--count", str(self.args.data_count)]
                code, out = builder.run_quiet(command, 600)
                if code != 0:
                    raise RuntimeError(f"could not generate the hidden data file:\n{out[-2000:]}")
                os.replace(data + ".partial", data)
        if self.user is not None and not readable_by_others(data):
            copy = os.path.join(self.run_root, "data.bin")
            shutil.copyfile(data, copy)
            os.chmod(copy, 0o644)
            data = copy
        self.data_file = data

    # ---- one run --------------------------------------------------------------------------------
    def stage(self, student, builds, files, labs_to_run):
        """Copies of the programs and the student's lab files, readable by the run user."""
        folder = tempfile.mkdtemp(prefix=submissions.safe_name(student)[:40] + "-", dir=self.run_root)
        os.chmod(folder, 0o755)
        os.makedirs(os.path.join(folder, "src"), mode=0o755)
        for lab in self.labs:
            data = files.get(lab.submission_file)
            if data is not None:
                path = os.path.join(folder, "src", lab.submission_file)
                with open(path, "wb") as f:
                    f.write(data)
                os.chmod(path, 0o644)
        programs = {}
        for name in labs_to_run:
            programs[name] = os.path.join(folder, name)
            shutil.copyfile(builds[name].program, programs[name])
            os.chmod(programs[name], 0o755)
        return folder, programs

    def run_lab(self, program, folder, lab_name, tests, gpu, worker_args, worker_env, budget):
        home = tempfile.mkdtemp(prefix="home-", dir=folder)
        if self.user is not None:
            os.chown(home, self.user.uid, self.user.gid)
        os.chmod(home, 0o700)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        if os.environ.get("LD_LIBRARY_PATH"):
            env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
        env.update(worker_env)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        if self.args.seed is not None:
            env["GRADER_SEED"] = str(self.args.seed)
        args = []
        for arg in worker_args:
            if arg.startswith("--results="):
                continue
            if arg.startswith("--data="):
                arg = "--data=" + self.data_file
            elif arg.startswith("--submission="):
                arg = "--submission=" + os.path.join(folder, "src")
            args.append(arg)
        return runner.run_tests([program] + args, tests, env, home, self.args.timeout,
                                user=self.user, budget_s=budget)


def readable_by_others(path):
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


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="grade_submissions.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade every submission in SUBMISSIONS (one folder or .zip/.tar.gz per "
                    "student) and write per-student Gradescope results and a class report.",
        epilog=USAGE_EPILOG)
    parser.add_argument("submissions", metavar="SUBMISSIONS")
    parser.add_argument("--out", required=True, metavar="REPORT_DIR")
    parser.add_argument("--labs", default="all", help="labs to grade, e.g. 01,03 (default: all)")
    parser.add_argument("--backend", choices=["cuda", "cpu"], default="cuda",
                        help="cuda (default: timings need a GPU) or cpu (correctness only)")
    parser.add_argument("--jobs", type=int, default=max(1, min(4, (os.cpu_count() or 2) // 2)),
                        help="parallel builds (worker build folders); on the cpu backend also "
                             "parallel runs (default: half the cores, at most 4)")
    parser.add_argument("--shard", help="K/N: grade the K-th of N slices of the class")
    parser.add_argument("--seed", type=int, help="hidden seed: generated inputs and the data file")
    parser.add_argument("--data-count", type=int, help="hidden size of the data file (samples)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one test may run before it is killed (default 60)")
    parser.add_argument("--budget", type=float,
                        help="seconds all of one submission's runs may take (default 10 x --timeout)")
    parser.add_argument("--force", action="store_true", help="regrade submissions already graded")
    parser.add_argument("--gpu-archs", default="auto", help="compute capabilities to build for")
    parser.add_argument("--integrity", choices=["zero", "report"], default="zero",
                        help="library shortcuts and grader tampering: withhold the lab's score "
                             "(zero, default) or only report them")
    parser.add_argument("--visibility", default="visible",
                        choices=["visible", "hidden", "after_due_date", "after_published"],
                        help="Gradescope visibility of the results (default visible)")
    parser.add_argument("--run-as", default="nobody", help="user student code runs as when root")
    parser.add_argument("--no-drop", action="store_true",
                        help="run student code as yourself even when root")
    parser.add_argument("--work-dir", help="worker builds and caches (default REPORT_DIR/.work)")
    parser.add_argument("--no-matplotlib", action="store_true", help="SVG plots even if matplotlib "
                        "is installed")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.timeout <= 0:
        parser.error("--jobs and --timeout must be positive")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["merge"]:
        from .merge import merge_main
        return merge_main(argv[1:])
    args = parse_args(argv)
    try:
        labs = project.select_labs(project.discover_labs(), args.labs)
        if args.shard:
            shard = submissions.parse_shard(args.shard)
        entries, warnings = submissions.discover(args.submissions)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not labs:
        print("error: no labs found (labs/*/meson.build)", file=sys.stderr)
        return 2
    own = {os.path.abspath(args.out), os.path.abspath(args.work_dir or os.path.join(args.out, ".work"))}
    entries = [e for e in entries if os.path.abspath(e.path) not in own]  # --out inside SUBMISSIONS
    if args.shard:
        entries = submissions.shard(entries, *shard)
    for warning in warnings:
        print(f"warning: {warning}")
    batch = Batch(args, labs)
    from .pipeline import run_batch
    try:
        return run_batch(batch, entries)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
