"""One batch: isolation (the sandbox, or the user of --unsafe-no-sandbox), GPU slots, the data
file, and how each lab program of a submission is started and run. It is given a Settings
(settings.py; cli.py makes it from the command line); pipeline.py drives the batch."""
import functools
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
from dataclasses import dataclass, replace

from runs import harness
from runs.checker import CheckerSettings

from batch import builder, memory_cgroup, paths, project, sandbox, sanitize, uid_sandbox


# The most samples a CPU-backend checker reads of the data file (grader/core/run_options.cpp
# kCpuBackendMaxSize): a data file generated for that backend holds no more.
CPU_BACKEND_SAMPLES = 1 << 20


@dataclass
class RunUser:
    uid: int
    gid: int
    name: str


class BatchSession:
    """What one batch (one run of grade_submissions.py over a class, driven by pipeline.run_batch)
    holds and does: its settings, GPU slots, run user, data, and each lab's launch."""

    def __init__(self, settings):
        self.settings = settings
        self.labs = list(settings.labs)
        self.report = settings.report   # paths.ReportPaths
        self.work = settings.work       # paths.WorkPaths
        self.lock = threading.Lock()
        self.warnings = []
        self.user = None          # the run user without a sandbox (--unsafe-no-sandbox, as root)
        self.sandbox = None       # sandbox.Sandbox: every compile and run of student code
        self.memory = None        # memory_cgroup: what holds each run's memory as a whole
        self.run_uids = queue.Queue()  # one per run that may overlap (see sandbox.RUN_UID_BASE)
        self.sanitizer_path = None
        self.sanitizers = []      # compute-sanitizer tools each passing test runs under again
        self.user_note = ""
        self.run_root = None
        self.data_file = None
        self.devices = set()
        self.done = 0
        self.total = 0

    def log(self, message):
        with self.lock:
            print(message, flush=True)

    # ---- configuration --------------------------------------------------------------------------
    def prepare(self):
        os.makedirs(self.work.root, exist_ok=True)
        self.snapshot = self.work.snapshot
        skip = [self.report.root, self.work.root, self.settings.submissions]
        self.project_fingerprint, manifest = project.sync_snapshot(self.snapshot, project.ROOT, skip,
                                                                   self.labs)
        sandbox.make_readable(self.snapshot)  # the sandboxed run user reads it, whoever owns it
        try:
            with open(self.work.manifest) as f:
                previous = json.load(f)
        except (OSError, ValueError):
            previous = None
        if previous is not None and previous != manifest:
            changed = sorted(set(previous) ^ set(manifest)
                             | {k for k in manifest if previous.get(k) not in (None, manifest[k])})
            self.log(f"note: the project changed since the last run ({', '.join(changed[:8])}"
                     f"{' ...' if len(changed) > 8 else ''}): submissions are regraded")
        with open(self.work.manifest, "w") as f:
            json.dump(manifest, f)
        s, seeds = self.settings, self.settings.seeds
        data = {"data_seed": self.seed_digest("data", seeds.data), "data_count": seeds.data_count,
                "project": self.project_fingerprint}
        self.config = {"labs": [lab.name for lab in self.labs], "backend": s.backend,
                       "input_seed": self.seed_digest("input", seeds.inputs), **data,
                       "sanitizers": s.sanitizers, "gpu_archs": s.gpu_archs}
        self.config_key = fingerprint(self.config)

    def seed_digest(self, name, seed):
        """A hidden seed as the settings' fingerprint holds it: hashed with a secret kept in the
        work folder, so a config_key cannot be searched for the seed."""
        if seed is None:
            return None
        if not os.path.exists(self.work.seed_salt):
            with open(os.open(self.work.seed_salt, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
                f.write(secrets.token_hex(32))
        with open(self.work.seed_salt) as f:
            salt = f.read().strip()
        return hashlib.sha256(f"{salt}:{name}:{seed}".encode()).hexdigest()

    def meson_options(self):
        """The worker builds' options, but for each one's slot (builder.Worker adds it)."""
        return {"kernel_backend": self.settings.backend, "gpu_archs": self.settings.gpu_archs,
                "labs": ",".join(lab.number for lab in self.labs), "project_tests": "false",
                "b_colorout": "never", "buildtype": "release"}

    def gpu_slots(self):
        if self.settings.backend == "cpu":
            return [None] * max(1, self.settings.jobs)
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
                             "--backend cpu for correctness and technique, without speed")
        return [str(i) for i in range(count)]

    def choose_sanitizers(self):
        """--sanitizers: on the cuda backend, by default every tool when compute-sanitizer is
        present (the report says when it is not)."""
        if self.settings.backend != "cuda":
            return
        self.sanitizer_path = sanitize.find_tool()
        try:
            self.sanitizers = sanitize.parse_tools(self.settings.sanitizers,
                                                   self.sanitizer_path is not None)
        except ValueError as error:
            raise RuntimeError(str(error)) from None
        if not self.sanitizers and self.settings.sanitizers == "auto":
            self.warnings.append("compute-sanitizer not found: races a GPU run hides (a missing "
                                 "__syncthreads()) were looked for only on the CPU backend's "
                                 "shuffled schedule (second_opinion.py)")

    def choose_isolation(self, submissions=1):
        """The sandbox (--sandbox), or (only with --unsafe-no-sandbox) the user student code runs
        as. Fails closed: no sandbox and no override is an error naming the override; so is a uid
        sandbox that cannot hide what it must (`submissions`: how many the class folder holds)."""
        run_as = self.settings.run_as
        if not self.settings.unsafe_no_sandbox:
            gpu = self.settings.backend == "cuda"
            try:
                if self.settings.sandbox == "uid":
                    if submissions > 1:
                        raise sandbox.SandboxUnavailable(
                            f"the uid sandbox grades one submission per batch ({submissions} here): "
                            "student code would see the others; grade a class with bubblewrap")
                    self.sandbox = uid_sandbox.detect(run_as, gpu)
                else:
                    self.sandbox = sandbox.detect(run_as, gpu=gpu, extra_programs=[self.sanitizer_path])
            except sandbox.SandboxUnavailable as error:
                raise RuntimeError(f"no sandbox for student code: {error}") from None
            self.user_note = self.sandbox.describe()
            self.warnings += self.sandbox.notes
            self.choose_memory_cgroup()
            for index in range(max(1, self.settings.jobs) + 8):  # more than GPU slots + the reference
                self.run_uids.put(self.sandbox.uid_base + index)
            if not self.sandbox.binds:
                self.sandbox.sweep(self.sandbox.owner()[0])  # what compiles left before
                uid_sandbox.hide_secrets(self.sandbox, self.settings)
            return
        me = pwd.getpwuid(os.geteuid()).pw_name
        if os.geteuid() != 0:
            self.user_note = f"{me}, without a sandbox (--unsafe-no-sandbox)"
        else:
            try:
                entry = pwd.getpwnam(run_as)
            except KeyError:
                raise RuntimeError(f"--unsafe-no-sandbox as root needs an unprivileged user to run "
                                   f"student code as: no user {run_as!r} here (--run-as)") from None
            self.user = RunUser(entry.pw_uid, entry.pw_gid, entry.pw_name)
            self.user_note = f"{entry.pw_name}, without a sandbox (--unsafe-no-sandbox)"
        self.warnings.append("UNSAFE: graded without a sandbox (--unsafe-no-sandbox): student code "
                             f"ran as {self.user_note.split(',')[0]} and could see this machine, "
                             "other submissions and this report")

    def choose_memory_cgroup(self):
        """--cgroup (memory_cgroup.py): a folder that cannot hold runs is an error."""
        try:
            self.memory = memory_cgroup.detect(self.settings.cgroup)
        except memory_cgroup.CgroupUnavailable as error:
            raise RuntimeError(f"--cgroup {self.settings.cgroup}: {error}") from None
        self.user_note += f"; each run's memory: {self.memory.describe()}"
        self.warnings += [n for n in [self.memory.note(self.sandbox.gpu)] if n]

    def prepare_run_files(self, default_data):
        """A folder the run user can read, holding each run's program and files; the class's data
        file (the build's, or one of --data-count); a hidden data seed's are per submission."""
        if self.sandbox is not None and self.sandbox.binds:
            # Only the grader and the sandbox (which binds what each run needs) go in here.
            self.run_root = tempfile.mkdtemp(prefix="runs-", dir=self.work.root)
            os.chmod(self.run_root, 0o700)
        else:
            self.run_root = tempfile.mkdtemp(prefix="grade-submissions-")
            os.chmod(self.run_root, 0o711)
        self.data_file = default_data
        class_seeds = replace(self.settings.seeds, data=None)  # --data-count alone: one file
        if class_seeds.custom_data:
            self.data_file = self.data_path(class_seeds)

    def data_path(self, seeds):
        """The data file the run user reads for `seeds`: the build's, or one generated from their
        data seed and count, kept in the work folder under their fingerprint."""
        if not seeds.custom_data:
            return self.data_file
        if seeds.data_count is None and self.settings.backend == "cpu":
            seeds = replace(seeds, data_count=CPU_BACKEND_SAMPLES)  # what its checkers read
        key = fingerprint({"data_seed": self.seed_digest("data", seeds.data),
                           "data_count": seeds.data_count, "project": self.project_fingerprint})
        data = self.work.data_file(key)
        if not os.path.exists(data):
            self.generate_data(data, seeds)
        if self.sandbox is not None and self.sandbox.binds:
            os.chmod(data, 0o644)  # bound read-only into each run as paths.SANDBOXED.data
        elif (self.user is not None or self.sandbox is not None) and not paths.readable_by_others(data):
            copy = paths.data_copy(self.run_root, key)
            shutil.copyfile(data, copy)
            os.chmod(copy, 0o644)
            data = copy
        return data

    def generate_data(self, data, seeds):
        os.makedirs(self.work.data_dir, mode=0o700, exist_ok=True)
        partial = f"{data}.partial-{threading.get_ident()}"
        # The data seed goes in an arguments file, not on a command line others can read; a
        # hidden one draws from the keyed generator, whose samples do not give the seed back.
        options = ["--output", partial]
        if seeds.data is not None:
            options += ["--seed", str(seeds.data), "--keyed"]
        if seeds.data_count is not None:
            options += ["--count", str(seeds.data_count)]
        arguments = f"{partial}.arguments"
        with open(os.open(arguments, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("\n".join(options) + "\n")
        command = [sys.executable, os.path.join(self.snapshot, "data", "generate.py"), "@" + arguments]
        code, out = builder.run_quiet(command, 600)
        os.remove(arguments)
        if code != 0:
            raise RuntimeError(f"could not generate the hidden data file:\n{out[-2000:]}")
        os.replace(partial, data)

    def unstage(self, folder):
        """Removes a staged run, and its data file when it was the submission's own."""
        shutil.rmtree(folder.root, ignore_errors=True)
        if folder.data not in (None, self.data_file):
            # and the work folder's, of which folder.data may be a copy (paths.data_copy)
            for path in {folder.data, os.path.join(self.work.data_dir, os.path.basename(folder.data))}:
                try:
                    os.remove(path)
                except OSError:
                    pass

    # ---- one run --------------------------------------------------------------------------------
    def stage(self, builds, files, labs_to_run, seeds):
        """A paths.RunFolder: copies of the programs and the student's lab files, readable by the
        run user, graded with `seeds` (settings.Seeds.for_submission)."""
        folder = paths.RunFolder(tempfile.mkdtemp(prefix="run-", dir=self.run_root),
                                 input_seed=seeds.inputs, data=self.data_path(seeds))
        os.chmod(folder.root, 0o755)
        os.makedirs(folder.src, mode=0o755)
        for lab in self.labs:
            data = files.get(lab.submission_file)
            if data is not None:
                with open(folder.source(lab.submission_file), "wb") as f:
                    f.write(data)
                os.chmod(folder.source(lab.submission_file), 0o644)
        for name in labs_to_run:
            # The submission's runner, the lab's checker and the grader's yardstick runner.
            for source, copy in [(builds[name].program, folder.runner(name)),
                                 (builds[name].checker, folder.checker(name)),
                                 (builds[name].yardstick_runner, folder.yardstick_runner)]:
                if not os.path.exists(copy):
                    shutil.copyfile(source, copy)
                    os.chmod(copy, 0o755)
        return folder

    def launch(self, lab, folder, gpu, run_inputs=(), tool=None, evidence=False, environment=None):
        """How to start one staged lab checker: (command, env, cwd, wrap). Its settings are in its
        environment (runs/checker.py). In the sandbox it sees its programs, the submission's files,
        the data file, the project's copy and the build's `run_inputs` (generated files the tests
        read), at paths.SANDBOXED: fixed paths that reveal nothing of the batch."""
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               **(environment or {})}
        if os.environ.get("LD_LIBRARY_PATH"):
            env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        if self.sandbox is not None and self.sandbox.binds:
            env.update(HOME="/tmp", TMPDIR="/tmp", **sandbox.RUN_ENVIRONMENT)
            where, cwd = paths.SANDBOXED, "/"
            bound = [(folder.runner(lab), where.runner), (folder.checker(lab), where.checker),
                     (folder.yardstick_runner, where.yardstick_runner),
                     (folder.src, where.submission), (folder.data, where.data),
                     (self.snapshot, self.snapshot)]
            bound += [(path, path) for path in run_inputs]

            def wrap(argv):
                return self.sandbox.command(argv, "run", read_only=bound, uid=self.run_uid)
        else:
            where, wrap = paths.unsandboxed(folder, lab, folder.data), None
            cwd = tempfile.mkdtemp(prefix="home-", dir=folder.root)
            if self.user is not None:
                os.chown(cwd, self.user.uid, self.user.gid)
            elif self.sandbox is not None:  # the uid sandbox: this run's uid owns its home
                uid, gid = self.run_uid, self.sandbox.user.pw_gid
                os.chown(cwd, self.sandbox.user.pw_uid if uid is None else uid, gid)
                env.update(sandbox.RUN_ENVIRONMENT)
                wrap = functools.partial(self.sandbox.command, kind="run", uid=self.run_uid)
            os.chmod(cwd, 0o700)
            env.update(HOME=cwd, TMPDIR=cwd)
        # The harness's own --timeout watches every test (no watchdog in the program); a sanitizer
        # run: small inputs, and the checker starts its runner (the student's code) under the tool.
        checker = CheckerSettings(
            lab=lab, checker=where.checker, runner=where.runner,
            yardstick_runner=where.yardstick_runner, data=where.data, submission=where.submission,
            small_inputs=tool is not None, runner_start_timeout_s=self.timeout_of(tool) / 2,
            runner_wrapper=tuple(sanitize.command_prefix(self.sanitizer_path, tool)) if tool else (),
            evidence=evidence)
        env.update(checker.environment())
        return checker.command(), env, cwd, wrap

    @property
    def run_uid(self):
        return getattr(self._uid_of_thread, "uid", None)

    _uid_of_thread = threading.local()

    def list_lab_tests(self, lab, folder, gpu, run_inputs=()):
        command, env, cwd, wrap = self.launch(lab, folder, gpu, run_inputs)
        return harness.list_tests(command, env, cwd, 120, user=self.user, wrap=wrap)

    def run_lab(self, lab, folder, tests, gpu, run_inputs, budget=None, tool=None, evidence=False,
                environment=None):
        """Run `tests` of `lab`; with `tool`, under that compute-sanitizer tool on small inputs;
        with `evidence`, the runner counting what ran (batch/technique_evidence.py); `environment`:
        variables added to the checker's (the second opinion's schedule)."""
        if self.sandbox is None or self.sandbox.mode == "userns":
            return self._run_lab(lab, folder, tests, gpu, run_inputs, budget, tool, evidence, environment)
        uid = self._uid_of_thread.uid = self.run_uids.get()
        try:
            self.sandbox.sweep(uid)  # the uid sandbox: nothing of an earlier run is left
            return self._run_lab(lab, folder, tests, gpu, run_inputs, budget, tool, evidence, environment)
        finally:
            self._uid_of_thread.uid = None
            self.sandbox.sweep(uid)  # raises, and the uid is not used again, if it cannot
            self.run_uids.put(uid)

    def sanitizer_hazards(self, lab, folder, tests, gpu, run_inputs, tool):
        """{test: evidence} of `tests` under `tool` (the reference's, to exempt)."""
        return sanitize.evidence(self.run_lab(lab, folder, tests, gpu, run_inputs, None, tool))

    def sanitize_run(self, lab, folder, run, gpu, run_inputs, exempt, budget):
        """Run the passing tests of `run` again under each sanitizer; a hazard fails its test."""
        for tool in self.sanitizers:
            tests = [name for name, o in run.outcomes.items()
                     if o.status == "passed" and name not in exempt.get(tool, [])]
            if tests:
                checked = self.run_lab(lab, folder, tests, gpu, run_inputs, budget, tool)
                sanitize.apply(run.outcomes, tool, checked)
                for attempt in checked.attempts:  # in the log, after the normal run's
                    attempt.reason = (f"under compute-sanitizer {tool}, small inputs"
                                      + (f"; {attempt.reason}" if attempt.reason else ""))
                    run.attempts.append(attempt)

    def timeout_of(self, tool):
        return self.settings.timeout_s * (5 if tool else 1)  # the tool slows kernels down many times

    def _run_lab(self, lab, folder, tests, gpu, run_inputs, budget, tool=None, evidence=False,
                 environment=None):
        command, env, cwd, wrap = self.launch(lab, folder, gpu, run_inputs, tool, evidence, environment)
        group = self.memory.run(self.sandbox.gpu) if self.memory and wrap else memory_cgroup.NO_RUN
        with group:  # the run's own cgroup (or none), entered before the sandbox starts
            result = harness.run_tests(command, tests, env, cwd, self.timeout_of(tool), user=self.user,
                                      budget_s=budget, seed=folder.input_seed,
                                      wrap=wrap and (lambda argv: [*group.prefix, *wrap(argv)]))
        if self.sandbox is not None:
            sandbox.explain_run_limits(result.outcomes, self.sandbox.gpu)
            memory_cgroup.explain(result.outcomes, group.events,
                                  memory_cgroup.run_memory_bytes(self.sandbox.gpu))
        return result


def fingerprint(settings):
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

