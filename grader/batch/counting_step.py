"""The batch's counting step: advice, never points. After a submission's tests, each lab whose main
tests passed has its kernels counted with the CPU backend's counting mode and compared with the
reference counts, as grade.py's explanation step does (grader/explain/README.md), on any backend.

Student code never runs here: the count program is built with the submission's file in the compile
sandbox (counting/build_count_program.py, run from the students' copy of the project, which sees
the counting build read-only and writes only the submission's own folder), and run in the run
sandbox (it sees its program, writes only its counts file). The grading process reads that file,
which student code could have written, as advice only: what cannot be read is "unavailable" with
its reason in the lab's record ("counters"), and the grade is the same either way.

The counting build (a CPU-backend configure of the students' copy: its libraries and each count
program's own object) is made once at set-up, outside the sandbox: it holds no student code."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

from counting import occupancy, programs
from explain import explanations, reference_table, sites

from batch import builder, memory_cgroup, sandbox as sandboxing

COMPILE_TIMEOUT_S = 300
MAX_COUNTS_BYTES = 64 << 20
COUNTS = "counts.json"


def lab_number(lab):
    return lab.name[len("lab"):]


def not_counted(reason):
    return explanations.not_counted(reason)


def why_not(lab_record):
    """Why a lab is not counted ("" when it is): counters of kernels that compute nothing right yet,
    or that hang, say nothing (grade.py's rule), and cost no time."""
    if lab_record.get("status") not in ("graded", "withheld"):
        return "the file was not built"
    tests = lab_record.get("tests", [])
    if not any(t.get("kind") == "main" and t.get("status") == "passed" for t in tests):
        return "no version passes its tests yet"
    if any(t.get("fault") == "timeout" for t in tests):
        return "a test ran out of time: fix it first"
    return ""


class Counting:
    """The counting build, and the counting of one submission's labs (count)."""

    def __init__(self, batch):
        self.batch = batch
        self.build_dir = batch.work.counting_build
        self.prepared = {}     # lab number -> explanations.prepare's first value
        self.problem = ""      # why nothing is counted in this batch ("" when it is)
        self.ninja_jobs = 1

    def environment(self):
        """A sandboxed Python runs the students' copy's grader (its import root on PYTHONPATH)."""
        return builder.clean_environment({"PYTHONPATH": os.path.join(self.batch.snapshot, "grader")})

    def setup(self, labs, ninja_jobs=1):
        """Configure and build the counting build (no student code; outside the sandbox). Sets
        self.problem instead of raising: counting is advice, the batch grades without it."""
        batch, self.ninja_jobs = self.batch, ninja_jobs
        if not batch.settings.counting:
            self.problem = "counting is off (--no-counting)"
            return
        if batch.sandbox is None or not batch.sandbox.binds:
            self.problem = "the counting step runs student code only in the bubblewrap sandbox"
            return
        for lab in labs:
            prepared, problem = explanations.prepare(lab_number(lab))
            if prepared:
                self.prepared[lab.name] = prepared
        if not self.prepared:
            return
        try:
            self._configure(labs)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
            self.problem = f"the counting build could not be set up: {str(error)[-300:]}"
            batch.warnings.append(f"counters not counted: {self.problem}")

    def _configure(self, labs):
        options = dict(self.batch.meson_options(), kernel_backend="cpu", explain="true")
        wanted = {"options": options, "snapshot": self.batch.snapshot}
        state = os.path.join(self.build_dir, "batch-counting.json")
        try:
            with open(state) as f:
                ready = json.load(f) == wanted
        except (OSError, ValueError):
            ready = False
        if not ready:
            shutil.rmtree(self.build_dir, ignore_errors=True)
            code, out = builder.run_quiet(["meson", "setup", self.build_dir, self.batch.snapshot]
                                          + [f"-D{k}={v}" for k, v in options.items()], COMPILE_TIMEOUT_S)
            if code != 0:
                raise RuntimeError(f"meson setup: {out[-2000:]}")
        code, out = builder.run_quiet(["ninja", "-C", self.build_dir, f"-j{self.ninja_jobs}"]
                                      + list(programs.LIBRARIES.values()), COMPILE_TIMEOUT_S * 2)
        if code != 0:
            raise RuntimeError(f"ninja: {out[-2000:]}")
        for lab in labs:  # each count program's own object, made by the copy's programs.py
            if lab.name in self.prepared:
                code, out = builder.run_quiet(self._builder(lab, "--prepare"), COMPILE_TIMEOUT_S * 2,
                                              env=self.environment())
                if code != 0:
                    raise RuntimeError(f"{lab.name}: {out[-2000:]}")
        if not ready:
            with open(state, "w") as f:
                json.dump(wanted, f)
        sandboxing.make_readable(self.build_dir)

    def _builder(self, lab, *options):
        return [sys.executable, "-m", "counting.build_count_program", "--lab", lab_number(lab),
                "--build-dir", self.build_dir, *options]

    def count(self, files, labs, lab_records):
        """Sets "counters" in each lab record of `lab_records` ({name: record}); `files`: the
        submission's (file name -> bytes). Returns the seconds it took."""
        started = time.monotonic()
        for lab in labs:
            record = lab_records.get(lab.name)
            if record is None:
                continue
            reason = self.problem or ("" if lab.name in self.prepared else "the lab declares no counters")
            reason = reason or why_not(record) or ("" if lab.submission_file in files else "no file")
            if reason:
                record["counters"] = not_counted(reason)
                continue
            lab_started = time.monotonic()
            try:
                section = self._count(lab, files[lab.submission_file])
            except Exception as error:  # noqa: BLE001  (advice: never the grade's failure)
                section = explanations.unavailable(f"the counting step failed: {str(error)[:200]}")
            section.pop("machine", None)
            section["seconds"] = round(time.monotonic() - lab_started, 1)
            record["counters"] = section
        return time.monotonic() - started

    def _count(self, lab, source):
        scratch = tempfile.mkdtemp(prefix="count-", dir=self.batch.work.root)
        try:
            src, out, counts = (os.path.join(scratch, name) for name in ("src", "out", "counts"))
            for folder in (src, out, counts):
                os.makedirs(folder, mode=0o755)
            with open(os.path.join(src, lab.submission_file), "wb") as f:
                f.write(source)
            sandboxing.make_readable(src)
            program, problem = self._build(lab, src, out)
            if problem:
                return problem
            return self._run(lab, program, out, counts, os.path.join(src, lab.submission_file))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _build(self, lab, src, out):
        """(the count program, None), or (None, the "unavailable" section)."""
        box = self.batch.sandbox
        sandboxing.give_to(out, *box.owner())
        argv = self._builder(lab, "--lab-file", os.path.join(src, lab.submission_file), "--out", out)
        command = box.command(argv, "compile", chdir=out, gpu=False,
                              read_only=[(self.batch.snapshot, self.batch.snapshot),
                                         (self.build_dir, self.build_dir), (src, src)],
                              writable=[(out, out)])
        try:
            code, said = builder.run_quiet(command, COMPILE_TIMEOUT_S, env=self.environment())
        except subprocess.TimeoutExpired:
            return None, explanations.unavailable(f"the count program took over {COMPILE_TIMEOUT_S} s to build")
        program = said.strip().splitlines()[-1] if said.strip() else ""
        if code != 0 or not program.startswith(out + os.sep) or not os.path.isfile(program):
            return None, explanations.build_failure(said.replace(src + os.sep, ""), self.build_dir)
        return program, None

    def _run(self, lab, program, out, counts, source):
        """Runs the program in the run sandbox; reads its counts file as advice (`source`: the lab
        file it was built with)."""
        box, batch = self.batch.sandbox, self.batch
        sandboxing.make_readable(out)
        given = reference_table.INPUT
        argv, settings = programs.command(
            program, given["n"], given["input"], given["seed"], counts_file=os.path.join(counts, COUNTS),
            sms=occupancy.GPUS["H100"]["sms"])  # as grade.py counts (count_kernels.count)
        uid = batch.run_uids.get() if box.mode == "root" else None
        try:
            if uid is not None:
                os.chown(counts, uid, box.user.pw_gid)
            env = dict(builder.clean_environment(sandboxing.RUN_ENVIRONMENT), **settings)
            timeout = min(explanations.TIMEOUT_S, max(30.0, 2 * batch.settings.timeout_s))
            group = batch.memory.run(False) if batch.memory else memory_cgroup.NO_RUN
            try:
                with group:  # as the tests' runs: the run's own cgroup, where there is one
                    command = [*group.prefix, *box.command(argv, "run", read_only=[(out, out)],
                                                           writable=[(counts, counts)], gpu=False, uid=uid)]
                    done = subprocess.run(command, capture_output=True, text=True, errors="replace",
                                          env=env, timeout=timeout, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return explanations.unavailable(f"the counting run passed {timeout:g} s: fix the "
                                                "tests that ran out of time first")
        finally:
            if uid is not None:
                batch.run_uids.put(uid)
        return read_counts(lab, os.path.join(counts, COUNTS), done.returncode,
                           self.prepared[lab.name], source, [self.batch.snapshot])


def own_locations(launches, source, readable):
    """The launches with every site's location kept only where it names the submission's file
    (`source`) or a file under `readable` (the project's copy): the explanation reads the lines a
    location names, and a counts file, student code's, could name any file of this machine."""
    source = os.path.realpath(source)
    roots = [os.path.realpath(r) + os.sep for r in readable]
    for launch in launches:
        for site in launch.get("sites") or []:
            found = sites.LOCATION.match(str(site.get("location", "")))
            path = os.path.realpath(found.group(1)) if found else ""
            if path != source and not any(path.startswith(r) for r in roots):
                site["location"] = f"?:{found.group(2) if found else 0}"
    return launches


def read_counts(lab, path, status, prepared, source, readable=()):
    """The "counters" section from a counts file a count program wrote (untrusted: student code
    ran in that process), or "unavailable" saying why it cannot be read. `source`: the lab file
    counted, the one file beside `readable` (folders) whose lines the sites may show."""
    number = lab.name[len("lab"):]
    if not os.path.isfile(path) or os.path.islink(path):
        return explanations.unavailable(f"the count program ended with status {status} and wrote no "
                                        "counts: fix the failing tests first")
    if os.path.getsize(path) > MAX_COUNTS_BYTES:
        return explanations.unavailable("the counts file is too large to read")
    try:
        with open(path, encoding="utf-8") as f:
            launches = own_locations(json.load(f)["launches"], source, readable)
        section = explanations.from_launches(number, launches, prepared, source)
        numbers = [v for version in section.get("versions", []) for v in version["student"].values()]
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers):
            raise ValueError("a counter is not a finite number")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        return explanations.unavailable(f"the counts could not be read ({str(error)[:120]})")
    if status != 0 and section.get("status") == "counted":
        return explanations.unavailable(f"the count program ended with status {status}")
    return section
