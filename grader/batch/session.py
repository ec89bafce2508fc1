"""One batch: its settings, isolation (the sandbox, or the user of --unsafe-no-sandbox), GPU
slots, the data file, and how each lab program of a submission is started and run. cli.py parses
the options and hands them here; pipeline.py drives the batch."""
import hashlib
import json
import os
import pwd
import queue
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from runs import runner

from . import builder, project, sandbox, sanitize


# Beside each staged runner: its lab's checker; once per run folder: the yardstick runner.
CHECKER_SUFFIX = "-checker"
YARDSTICK_RUNNER = "yardstick-runner"


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
        self.user = None          # the run user without a sandbox (--unsafe-no-sandbox, as root)
        self.sandbox = None       # sandbox.Sandbox: every compile and run of student code
        self.run_uids = queue.Queue()  # one per run that may overlap (see sandbox.RUN_UID_BASE)
        self.sanitizer_path = None
        self.sanitizers = []      # compute-sanitizer tools each passing test runs under again
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
        sandbox.make_readable(self.snapshot)  # the sandboxed run user reads it, whoever owns it
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
                       "seed": self.seed_digest(), "sanitizers": a.sanitizers, "data_count": a.data_count, "gpu_archs": a.gpu_archs,
                       "project": self.project_fingerprint}
        self.config_key = hashlib.sha256(json.dumps(self.config, sort_keys=True).encode()).hexdigest()[:16]

    def seed_digest(self):
        """The hidden seed as the settings' fingerprint holds it: hashed with a secret kept in the
        work folder, so a config_key cannot be searched for the seed."""
        if self.args.seed is None:
            return None
        salt_path = os.path.join(self.work, "seed-salt")
        if not os.path.exists(salt_path):
            with open(os.open(salt_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
                f.write(secrets.token_hex(32))
        with open(salt_path) as f:
            salt = f.read().strip()
        return hashlib.sha256(f"{salt}:{self.args.seed}".encode()).hexdigest()

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

    def choose_sanitizers(self):
        """--sanitizers: on the cuda backend, by default every tool when compute-sanitizer is
        present (the report says when it is not)."""
        if self.args.backend != "cuda":
            return
        self.sanitizer_path = sanitize.find_tool()
        try:
            self.sanitizers = sanitize.parse_tools(self.args.sanitizers,
                                                   self.sanitizer_path is not None)
        except ValueError as error:
            raise RuntimeError(str(error)) from None
        if not self.sanitizers and self.args.sanitizers == "auto":
            self.warnings.append("compute-sanitizer not found: races a GPU run hides (a missing "
                                 "__syncthreads()) were not looked for")

    def choose_isolation(self):
        """The sandbox, or (only with --unsafe-no-sandbox) the user student code runs as. Fails
        closed: no sandbox and no override is an error naming the override."""
        if not self.args.unsafe_no_sandbox:
            try:
                self.sandbox = sandbox.detect(self.args.run_as, gpu=self.args.backend == "cuda",
                                              extra_programs=[self.sanitizer_path])
            except sandbox.SandboxUnavailable as error:
                raise RuntimeError(f"no sandbox for student code: {error}") from None
            self.user_note = self.sandbox.describe()
            self.warnings += self.sandbox.notes
            for index in range(max(1, self.args.jobs) + 8):  # more than GPU slots + the reference
                self.run_uids.put(sandbox.RUN_UID_BASE + index)
            return
        me = pwd.getpwuid(os.geteuid()).pw_name
        if os.geteuid() != 0:
            self.user_note = f"{me}, without a sandbox (--unsafe-no-sandbox)"
        else:
            try:
                entry = pwd.getpwnam(self.args.run_as)
            except KeyError:
                raise RuntimeError(f"--unsafe-no-sandbox as root needs an unprivileged user to run "
                                   f"student code as: no user {self.args.run_as!r} here (--run-as)") from None
            self.user = RunUser(entry.pw_uid, entry.pw_gid, entry.pw_name)
            self.user_note = f"{entry.pw_name}, without a sandbox (--unsafe-no-sandbox)"
        self.warnings.append("UNSAFE: graded without a sandbox (--unsafe-no-sandbox): student code "
                             f"ran as {self.user_note.split(',')[0]} and could see this machine, "
                             "other submissions and this report")

    def prepare_run_files(self, default_data):
        """A folder the run user can read, holding each run's program and files; the data file."""
        if self.sandbox is not None:
            # Only the grader and the sandbox (which binds what each run needs) go in here.
            self.run_root = tempfile.mkdtemp(prefix="runs-", dir=self.work)
            os.chmod(self.run_root, 0o700)
        else:
            self.run_root = tempfile.mkdtemp(prefix="grade-submissions-")
            os.chmod(self.run_root, 0o711)
        data = default_data
        if self.args.seed is not None or self.args.data_count is not None:
            data = os.path.join(self.work, "data", f"data-{self.config_key}.bin")
            if not os.path.exists(data):
                os.makedirs(os.path.dirname(data), mode=0o700, exist_ok=True)
                # The seed goes in an arguments file, not on a command line others can read.
                options = ["--output", data + ".partial"]
                if self.args.seed is not None:
                    options += ["--seed", str(self.args.seed)]
                if self.args.data_count is not None:
                    options += ["--count", str(self.args.data_count)]
                arguments = os.path.join(os.path.dirname(data), "generate-arguments")
                with open(os.open(arguments, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                    f.write("\n".join(options) + "\n")
                command = [sys.executable, os.path.join(self.snapshot, "data", "generate.py"),
                           "@" + arguments]
                code, out = builder.run_quiet(command, 600)
                os.remove(arguments)
                if code != 0:
                    raise RuntimeError(f"could not generate the hidden data file:\n{out[-2000:]}")
                os.replace(data + ".partial", data)
        if self.sandbox is not None:
            os.chmod(data, 0o644)  # bound read-only into each run as /sandbox/data.bin
        elif self.user is not None and not readable_by_others(data):
            copy = os.path.join(self.run_root, "data.bin")
            shutil.copyfile(data, copy)
            os.chmod(copy, 0o644)
            data = copy
        self.data_file = data

    # ---- one run --------------------------------------------------------------------------------
    def stage(self, student, builds, files, labs_to_run):
        """Copies of the programs and the student's lab files, readable by the run user."""
        folder = tempfile.mkdtemp(prefix="run-", dir=self.run_root)
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
            # The submission's runner, the lab's checker and the grader's yardstick runner, side by
            # side (launch() finds the two others next to the runner).
            programs[name] = os.path.join(folder, name)
            for source, copy in [(builds[name].program, programs[name]),
                                 (builds[name].checker, programs[name] + CHECKER_SUFFIX),
                                 (builds[name].yardstick_runner, os.path.join(folder, YARDSTICK_RUNNER))]:
                if not os.path.exists(copy):
                    shutil.copyfile(source, copy)
                    os.chmod(copy, 0o755)
        return folder, programs

    def launch(self, program, folder, gpu, worker_env, run_inputs=()):
        """How to start one staged lab program: (paths it is given, env, cwd, wrap). In the
        sandbox it sees the program, the submission's files, the data file, the project's copy and
        the build's `run_inputs` (generated files the tests read), at fixed paths that reveal
        nothing of the batch (report, work folder, seed)."""
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        if os.environ.get("LD_LIBRARY_PATH"):
            env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
        env.update({k: v for k, v in worker_env.items() if k != "GRADER_SEED"})
        env["GRADER_TEST_TIMEOUT"] = "0"  # the runner's own --timeout watches every test
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        companions = {"checker": program + CHECKER_SUFFIX,
                      "yardstick_runner": os.path.join(os.path.dirname(program), YARDSTICK_RUNNER)}
        if self.sandbox is not None:
            env.update(HOME="/tmp", TMPDIR="/tmp")
            paths = {"program": "/sandbox/runner", "checker": "/sandbox/checker",
                     "yardstick_runner": "/sandbox/yardstick-runner",
                     "submission": "/sandbox/submission", "data": "/sandbox/data.bin"}
            bound = [(program, paths["program"]), (companions["checker"], paths["checker"]),
                     (companions["yardstick_runner"], paths["yardstick_runner"]),
                     (os.path.join(folder, "src"), paths["submission"]),
                     (self.data_file, paths["data"]), (self.snapshot, self.snapshot)]
            bound += [(path, path) for path in run_inputs]

            def wrap(argv):
                return self.sandbox.command(argv, "run", read_only=bound, uid=self.run_uid)
            return paths, env, "/", wrap
        home = tempfile.mkdtemp(prefix="home-", dir=folder)
        if self.user is not None:
            os.chown(home, self.user.uid, self.user.gid)
        os.chmod(home, 0o700)
        env.update(HOME=home, TMPDIR=home)
        paths = {"program": program, "submission": os.path.join(folder, "src"), "data": self.data_file,
                 **companions}
        return paths, env, home, None

    @property
    def run_uid(self):
        return getattr(self._uid_of_thread, "uid", None)

    _uid_of_thread = threading.local()

    def list_lab_tests(self, program, folder, gpu, worker_env, run_inputs=()):
        paths, env, cwd, wrap = self.launch(program, folder, gpu, worker_env, run_inputs)
        return runner.list_tests([paths["checker"]], env, cwd, 120, user=self.user, wrap=wrap)

    def run_lab(self, program, folder, tests, gpu, worker_args, worker_env, budget, run_inputs=(),
                tool=None):
        """Run `tests`; with `tool`, under that compute-sanitizer tool on small inputs."""
        if self.sandbox is None or self.sandbox.mode != "root":
            return self._run_lab(program, folder, tests, gpu, worker_args, worker_env, budget,
                                 run_inputs, tool)
        self._uid_of_thread.uid = self.run_uids.get()
        try:
            return self._run_lab(program, folder, tests, gpu, worker_args, worker_env, budget,
                                 run_inputs, tool)
        finally:
            self.run_uids.put(self._uid_of_thread.uid)
            self._uid_of_thread.uid = None

    def sanitizer_hazards(self, program, folder, tests, gpu, target, run_inputs, tool):
        """{test: evidence} of `tests` under `tool` (the reference's, to exempt)."""
        run = self.run_lab(program, folder, tests, gpu, target["args"], target["env"], None,
                           run_inputs, tool)
        return sanitize.evidence(run)

    def sanitize_run(self, program, folder, run, gpu, target, run_inputs, exempt, budget):
        """Run the passing tests of `run` again under each sanitizer; a hazard fails its test."""
        for tool in self.sanitizers:
            tests = [name for name, o in run.outcomes.items()
                     if o.status == "passed" and name not in exempt.get(tool, [])]
            if tests:
                checked = self.run_lab(program, folder, tests, gpu, target["args"], target["env"],
                                       budget, run_inputs, tool)
                sanitize.apply(run.outcomes, tool, checked)
                for attempt in checked.attempts:  # in the log, after the normal run's
                    attempt.reason = (f"under compute-sanitizer {tool}, small inputs"
                                      + (f"; {attempt.reason}" if attempt.reason else ""))
                    run.attempts.append(attempt)

    def _run_lab(self, program, folder, tests, gpu, worker_args, worker_env, budget, run_inputs,
                 tool=None):
        paths, env, cwd, wrap = self.launch(program, folder, gpu, worker_env, run_inputs)
        timeout = self.args.timeout
        if tool:
            env.update(sanitize.ENVIRONMENT)
            # The sanitizer runs the student's code: the checker starts its runner through it.
            env["GRADER_RUNNER_WRAPPER"] = "\n".join(sanitize.command_prefix(self.sanitizer_path, tool))
            timeout *= 5  # the tool slows kernels down many times, even on small inputs
        args = []
        for arg in worker_args:
            if arg.startswith("--results="):
                continue
            if arg.startswith("--data="):
                arg = "--data=" + paths["data"]
            elif arg.startswith("--submission="):
                arg = "--submission=" + paths["submission"]
            elif arg.startswith("--runner="):
                arg = "--runner=" + paths["program"]
            elif arg.startswith("--yardstick-runner="):
                arg = "--yardstick-runner=" + paths["yardstick_runner"]
            args.append(arg)
        return runner.run_tests([paths["checker"]] + args, tests, env, cwd, timeout,
                                user=self.user, budget_s=budget, seed=self.args.seed, wrap=wrap)


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
