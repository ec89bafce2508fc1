"""Worker builds: one configured build of the pristine project per worker, reused for every
submission it builds, with only the submission's lab files swapped into the worker's slot folder.

Nothing carries over from one student to the next: before any compile of a submission, the slot
is emptied and refilled and the outputs of every target that compiles a lab file, of every lab
(objects, generated sources, programs: the reference's and the last student's among them), are
deleted, so the compile can see (and #include or embed) no other submission's files; after the
build the slot is the starter's again. Set-up restores the slot and removes those outputs too, so
a submission a run left in the slot (one that does not compile) cannot stop a later run. The
build options are fixed here (backend, architectures, labs, no self-tests); the instructor's own
build directories are never used.

The pristine project is configured and built outside the sandbox (it holds no student code); every
compile of a submission, and every technique check (which reads its runner), runs in the sandbox
(sandbox.py), which sees the project's copy and the slot read-only, the worker's build folder
writable, and nothing else of the batch: not the report, not other submissions, not the seed.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field

from runs.checker import build_programs, lab_checks

from batch import integrity, sandbox as sandboxing
from batch.project import interface_headers

BUILD_TIMEOUT_S = 600
HEADER_SUFFIXES = (".cuh", ".h", ".hpp")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MAX_COMPILER_OUTPUT = 12000


@dataclass
class LabBuild:
    lab: str
    status: str                 # built, compile_error, missing, build_timeout
    output: str = ""            # the compiler's messages, when it failed
    program: str = ""           # the built runner: the submission's code (in the worker's build folder)
    checker: str = ""           # the lab's checker (the grader's tests, never the student's code)
    yardstick_runner: str = ""  # the grader's yardsticks, timed like the student's code
    objects: list = field(default_factory=list)
    findings: list = field(default_factory=list)   # integrity findings, before calibration
    checks: list = field(default_factory=list)     # results of the lab's other grade tests
    symbols_checked: bool = False


def run_quiet(command, timeout, cwd=None, env=None):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace",
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    return done.returncode, ANSI.sub("", done.stdout + done.stderr)


def clean_environment(extra=None):
    """What a sandboxed compile or check is given: the tools' search paths, nothing else of the
    grader's environment (which may hold an instructor's variables)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "TMPDIR": "/tmp",
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    for name in ("LD_LIBRARY_PATH", "CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.update(extra or {})
    return env


def pristine_environment(snapshot, build_dir):
    """The environment of a worker's pristine build (outside the sandbox: no student code): where
    meson compiles through ccache, paths under the work folder count as relative, so that every
    worker, and every later batch on this machine whatever its work folder, reuses the first
    one's objects (the CPU backend's compiles name a header by its absolute path)."""
    return dict(os.environ, CCACHE_BASEDIR=os.path.commonpath([snapshot, build_dir]))


def missing_include(finding, output):
    """Whether the compiler said the file an include finding names does not exist."""
    named = re.search(r'#include [<"]([^>"]*)[>"]', finding["detail"])
    return bool(named) and re.search(re.escape(named.group(1)) + r"[:\"]* No such file",
                                     output) is not None


def clean_compiler_output(text, slot):
    """The compiler's messages, without ninja's framing and the long compile commands, with the
    slot folder's path removed so the messages name the student's file."""
    lines = []
    raw = [line.replace(slot.rstrip("/") + "/", "") for line in ANSI.sub("", text).splitlines()]
    for line in raw:
        # ninja's own errors ("ninja: error: ...", a sandbox it cannot work in) stay.
        if line.startswith(("ninja: build stopped", "ninja: Entering", "ninja: no work", "[", "FAILED: ")) or (
                len(line) > 300 and " -o " in line):
            continue
        lines.append(line)
    cleaned = "\n".join(lines).strip() or "\n".join(raw[-20:]).strip()  # nothing but framing: show it
    if len(cleaned) > MAX_COMPILER_OUTPUT:
        cleaned = cleaned[:MAX_COMPILER_OUTPUT] + "\n[... compiler output cut ...]"
    return cleaned


def student_outputs(targets, lab_files, slot):
    """The outputs (and their .p folders) of the meson targets (`meson introspect --targets`) that
    compile a lab file: the slot's, or a copy of it (the CPU backend's transform keeps its stem).
    Not the lab's header of the same stem, which the call tables are made from: pristine, they are
    built once at set-up, not again for every submission (7 compiles of a whole submission)."""
    stems = {os.path.splitext(name)[0] for name in lab_files}
    slot = slot.rstrip("/") + "/"

    def compiles_a_lab_file(path):
        stem, suffix = os.path.splitext(os.path.basename(path))
        return path.startswith(slot) or (stem in stems and suffix not in HEADER_SUFFIXES)
    found = []
    for t in targets:
        sources = [path for group in t.get("target_sources") or []
                   for path in (group.get("sources") or []) + (group.get("generated_sources") or [])]
        if any(compiles_a_lab_file(path) for path in sources):
            found += [path for f in t["filename"] for path in (f, f + ".p")]
    return found


class Worker:
    def __init__(self, index, work, snapshot, options, labs, log, sandbox=None):
        """work: paths.WorkPaths, where the worker's slot and build folder are."""
        self.index = index
        self.slot = work.slot(index)
        self.build_dir = work.build(index)
        self.state_file = work.build_state(index)
        self.check_results = work.check_results(index)
        self.snapshot = snapshot
        # meson -D options (dict), fixed for the whole batch; the submission is this slot.
        self.options = dict(options, submission=self.slot)
        self.labs = labs
        self.log = log
        self.ninja_jobs = 1
        self.targets = {}               # lab name -> {"program": path, "ninja": relative target, ...}
        self.checks = {}                # lab name -> [meson test dicts of its other grade tests]
        self.scanner = ""
        self.data_file = ""
        self.sandbox = sandbox          # None only with --unsafe-no-sandbox
        self.run_inputs = []            # generated files the lab programs read (e.g. lab 06's image)
        self.lab_file_targets = []      # the custom targets that make them, relative to build_dir
        self.counters_library = None    # lab 00's counting library (cuda backend), bound into runs
        self.student_outputs = []       # outputs of the targets that compile a lab file

    # ---- set-up ---------------------------------------------------------------------------------
    def fill_slot(self, files):
        """files: submission file name -> bytes. Missing lab files get the starter's, so the build
        configures; those labs are not built."""
        if os.path.isdir(self.slot):
            shutil.rmtree(self.slot)
        os.makedirs(self.slot)
        for lab in self.labs:
            data = files.get(lab.submission_file)
            if data is None:
                with open(os.path.join(self.snapshot, "starter", lab.submission_file), "rb") as f:
                    data = f.read()
            path = os.path.join(self.slot, lab.submission_file)
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, 0o644)
        os.chmod(self.slot, 0o755)

    def setup(self):
        wanted = {"options": self.options, "snapshot": self.snapshot}
        try:
            with open(self.state_file) as f:
                ready = json.load(f) == wanted
        except (OSError, ValueError):
            ready = False
        if not ready:
            if os.path.isdir(self.build_dir):
                shutil.rmtree(self.build_dir)
            self.fill_slot({})
            flags = [f"-D{k}={v}" for k, v in self.options.items()]
            code, out = run_quiet(["meson", "setup", self.build_dir, self.snapshot] + flags,
                                  BUILD_TIMEOUT_S)
            if code != 0:
                raise RuntimeError(f"meson setup failed for worker {self.index}:\n{out[-4000:]}")
        self.fill_slot({})  # the starter's files, whatever an earlier run left in the slot
        self._introspect()
        self._clean_student_outputs()
        fixed = [t["ninja"] for t in self.targets.values()] + [t["checker_ninja"] for t in self.targets.values()]
        fixed += [self.scanner_target, self.data_target, os.path.relpath(self.yardstick_runner, self.build_dir)]
        fixed += self.lab_file_targets
        fixed += [os.path.relpath(self.counters_library, self.build_dir)] if self.counters_library else []
        code, out = run_quiet(["ninja", "-C", self.build_dir, f"-j{self.ninja_jobs}"] + fixed,
                              BUILD_TIMEOUT_S * 2, env=pristine_environment(self.snapshot, self.build_dir))
        if code != 0:
            raise RuntimeError(f"the pristine project does not build in worker {self.index} "
                               f"(is a lab unfinished? choose labs with --labs):\n{out[-4000:]}")
        if not ready:
            with open(self.state_file, "w") as f:
                json.dump(wanted, f)
        # Files the pristine build generated for the tests to read at run time (custom targets'
        # outputs in the labs' build folders; not programs, not objects): bound into each run.
        self.run_inputs = sorted(
            path for path in glob.glob(os.path.join(self.build_dir, "labs", "*", "*"))
            if os.path.isfile(path) and not os.access(path, os.X_OK)
            and not os.path.dirname(path).endswith(".p")
            and not path.endswith((".o", ".a", ".d", ".json")))
        if self.counters_library:  # the run must see it where the checker looks
            self.run_inputs.append(self.counters_library)
        if self.sandbox is not None:
            sandboxing.give_to(self.build_dir, *self.sandbox.owner())

    def sandboxed(self, command, cwd=None):
        """`command` as it runs in the compile sandbox (or as it is, with --unsafe-no-sandbox)."""
        if self.sandbox is None:
            return command
        return self.sandbox.command(
            command, "compile", read_only=[(self.snapshot, self.snapshot), (self.slot, self.slot)],
            writable=[(self.build_dir, self.build_dir)], chdir=cwd or self.build_dir, gpu=False)

    def _introspect(self):
        def introspect(what):
            code, out = run_quiet(["meson", "introspect", self.build_dir, what], 120)
            if code != 0:
                raise RuntimeError(f"meson introspect {what} failed: {out[-2000:]}")
            return json.loads(out[out.index("["):])
        targets = introspect("--targets")
        tests = introspect("--tests")
        rel = lambda path: os.path.relpath(path, self.build_dir)
        programs = build_programs(targets, [lab.name for lab in self.labs])
        for lab in self.labs:
            # The checker (the lab's tests, built once) and the runner (the submission's code,
            # rebuilt for each submission): grader/core/student_code.hpp.
            checker, program = programs.labs[lab.name]
            self.targets[lab.name] = {"program": program, "ninja": rel(program),
                                      "checker": checker, "checker_ninja": rel(checker),
                                      "objects_dir": program + ".p"}
            self.checks[lab.name] = lab_checks(tests, lab.name)
        by_name = {t["name"]: t for t in targets}
        self.yardstick_runner = programs.yardstick_runner
        self.scanner = by_name["batch_source_scan"]["filename"][0]
        self.scanner_target = rel(self.scanner)
        self.data_file = programs.data
        self.data_target = rel(self.data_file)
        # Lab 00's program runs with the grader's counting library preloaded (cuda backend), by
        # the path the checker was built with (grader/runner/program_run.cpp); no program links it.
        counters = by_name.get("grader_program_counters")
        self.counters_library = counters["filename"][0] if counters else None
        # Files a lab's custom targets make for its tests to read at run time (lab 06's
        # photograph): no program depends on them, so the set-up builds them by name.
        labs_dir = os.path.join(self.build_dir, "labs") + os.sep
        self.lab_file_targets = sorted(rel(f) for t in targets if t["type"] == "custom"
                                       and t.get("build_by_default") for f in t["filename"]
                                       if f.startswith(labs_dir))
        self.student_outputs = student_outputs(targets, [lab.submission_file for lab in self.labs], self.slot)

    # ---- one submission -------------------------------------------------------------------------
    def _clean_student_outputs(self):
        """Delete what any compile of a lab file wrote (every lab's), and the checks' results."""
        for path in self.student_outputs + glob.glob(os.path.join(self.check_results, "*")):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.lexists(path):
                os.remove(path)

    def build(self, files, timeout=BUILD_TIMEOUT_S):
        """Build each lab whose file the submission holds; returns {lab name: LabBuild}. The
        programs stay in the build folder until the next build: stage them before."""
        self._clean_student_outputs()
        self.fill_slot(files)
        try:
            return self._build(files, timeout)
        finally:
            self.fill_slot({})

    def _build(self, files, timeout):
        results = {}
        present = [lab for lab in self.labs if lab.submission_file in files]
        scans = {}
        if present:
            try:
                scans = integrity.scan_sources(
                    self.scanner, [os.path.join(self.slot, lab.submission_file) for lab in present])
            except (RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
                self.log(f"warning: source scan failed: {error}")
        for lab in self.labs:
            if lab not in present:
                results[lab.name] = LabBuild(lab.name, "missing",
                                             f"the submission has no {lab.submission_file}")
                continue
            build = LabBuild(lab.name, "built")
            path = os.path.join(self.slot, lab.submission_file)
            with open(path, encoding="utf-8", errors="replace") as f:
                raw = f.read()
            scanned = scans.get(path)
            if scanned is not None:
                build.findings += integrity.source_findings(
                    raw, scanned, interface_headers(lab, self.snapshot))
            target = self.targets[lab.name]
            try:
                code, out = run_quiet(self.sandboxed(["ninja", "-C", self.build_dir,
                                                      f"-j{self.ninja_jobs}", target["ninja"]]),
                                      timeout, env=clean_environment())
            except subprocess.TimeoutExpired:
                build.status, build.output = "build_timeout", f"the build took over {timeout} s"
                results[lab.name] = build
                continue
            if code != 0 or not os.path.isfile(target["program"]):
                build.status = "compile_error"
                build.output = sandboxing.compile_limit_verdict(clean_compiler_output(out, self.slot))
                # An #include of a file that is not there reaches nothing: a compile error (the
                # compiler's message says which), not an attempt on the grader.
                build.findings = [f for f in build.findings
                                  if not (f["rule"] == "include" and missing_include(f, build.output))]
            else:
                build.program = target["program"]
                build.checker = target["checker"]
                build.yardstick_runner = self.yardstick_runner
                # The submission's own object: the runner's others are the grader's call table.
                stem = os.path.splitext(lab.submission_file)[0]
                build.objects = sorted(o for o in glob.glob(os.path.join(target["objects_dir"], "*.o"))
                                       if stem in os.path.basename(o))
            # Symbols: where it compiled; the source rules above cover the rest.
            symbols = integrity.nm_symbols(build.objects) if build.objects else None
            if symbols is not None:
                build.symbols_checked = True
                build.findings += integrity.symbol_findings(symbols)
            build.findings += integrity.object_findings(build.objects)
            build.checks = self.run_checks(lab.name) if build.status == "built" else []
            results[lab.name] = build
        return results

    def run_checks(self, lab_name):
        """The lab's other grade-suite tests (technique checks: on the cuda backend they read the
        machine code of the runner just built, before any of it runs; on the CPU backend they are
        not graded), each run as meson defines it; each writes its results file in the build's
        results/ folder (labs/meson.build), which we read back."""
        outcomes = []
        for test in self.checks.get(lab_name, []):
            for stale in glob.glob(os.path.join(self.check_results, "*")):
                os.remove(stale)
            env = clean_environment(test.get("env") or {})
            cwd = test.get("workdir") or self.build_dir
            started = time.monotonic()
            try:
                done = subprocess.run(self.sandboxed(test["cmd"], cwd), cwd=cwd, env=env,
                                      capture_output=True, text=True, errors="replace",
                                      stdin=subprocess.DEVNULL, timeout=test.get("timeout") or 300)
                code, out = done.returncode, done.stdout + done.stderr
            except subprocess.TimeoutExpired:
                code, out = "timeout", "the check timed out"
            record = {"check": test["name"], "returncode": code, "output": out[-4000:],
                      "duration_s": time.monotonic() - started, "results": None}
            written = []
            for path in sorted(glob.glob(os.path.join(self.check_results, "*.json"))):
                try:
                    with open(path) as f:
                        written += json.load(f).get("tests") or []
                except (OSError, ValueError, AttributeError):
                    pass
            if written:
                record["results"] = {"tests": written}
            outcomes.append(record)
        return outcomes
