"""What a batch costs, phase by phase: the set-up's parts (batch.json "setup_s") and, per
submission, the seconds of each phase once a worker or GPU was free (its record's "phases"); the
class report and the batch's last lines give each phase's total and per-submission median, with
the machine it ran on."""
import contextlib
import os
import platform
import statistics
import subprocess
import time

from batch.cpus import available_cpus  # the CPUs this process was given

# (key, what the report calls it), in the order a submission goes through them.
PHASES = [("build", "build (compile in the sandbox)"), ("tests", "tests"),
          ("sanitizer", "sanitizer pass"), ("evidence", "technique evidence"),
          ("second_opinion", "second opinion (CPU backend)"), ("counting", "counting (advice)")]
SETUP = [("project_copy", "the project's copy"), ("workers", "worker builds"),
         ("reference", "the reference graded"), ("second_opinion", "second opinion's builds"),
         ("counting", "counting build")]


class Stopwatch:
    """`with Stopwatch(seconds)("tests"):` adds the block's seconds to seconds["tests"]."""

    def __init__(self, seconds):
        self.seconds = seconds

    @contextlib.contextmanager
    def __call__(self, phase):
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + time.monotonic() - started


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpus():
    """[(name, driver)] of nvidia-smi, or [] without it."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    return [tuple(part.strip() for part in line.split(",", 1)) for line in done.stdout.splitlines()
            if "," in line]


def machine(backend):
    """The machine a batch ran on, as the timings report names it."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    except (ValueError, OSError, AttributeError):
        memory = 0
    gpus = _gpus() if backend == "cuda" else []
    return {"backend": backend, "cpu": _cpu_model(), "cpus": available_cpus(),
            "memory_gib": round(memory, 1), "gpus": [name for name, _ in gpus],
            "driver": gpus[0][1] if gpus else "", "system": platform.platform(terse=True),
            "date": time.strftime("%Y-%m-%d")}


def describe(found):
    """One line naming the machine."""
    gpus = found.get("gpus") or []
    gpu = f"{len(gpus)} x {gpus[0]} (driver {found.get('driver') or '?'})" if gpus else "no GPU used"
    return (f"{found.get('backend', '?')} backend; {gpu}; {found.get('cpus', '?')} CPU(s) "
            f"{found.get('cpu', '?')}, {found.get('memory_gib', '?')} GiB; {found.get('system', '')}; "
            f"{found.get('date', '')}")


def table(records, setup, found):
    """The timings of `records` (graded in this batch) and the set-up `setup` ({part: s}) on the
    machine `found`: {"machine", "setup": [{part, label, seconds}], "setup_total_s",
    "phases": [{phase, label, total_s, median_s, max_s, submissions}], "submission_median_s",
    "submissions"}; a phase no submission went through is left out."""
    phases = []
    for key, label in PHASES:
        values = [float(r["phases"][key]) for r in records if key in (r.get("phases") or {})]
        if values:
            phases.append({"phase": key, "label": label, "total_s": round(sum(values), 1),
                           "median_s": round(statistics.median(values), 2),
                           "max_s": round(max(values), 2), "submissions": len(values)})
    totals = [sum((r.get("phases") or {}).values()) for r in records if r.get("phases")]
    parts = [{"part": key, "label": label, "seconds": round(setup[key], 1)} for key, label in SETUP
             if key in (setup or {})]
    return {"machine": found, "setup": parts, "setup_total_s": round(sum(p["seconds"] for p in parts), 1),
            "phases": phases, "submissions": len(totals),
            "submission_median_s": round(statistics.median(totals), 2) if totals else None}


def lines(found):
    """The batch log's lines of a table()."""
    out = [f"Phase timings on {describe(found['machine'])}:",
           f"  set-up {found['setup_total_s']:.0f} s: "
           + ", ".join(f"{p['label']} {p['seconds']:.0f} s" for p in found["setup"])]
    for p in found["phases"]:
        out.append(f"  {p['label']:<32} total {p['total_s']:8.1f} s   median {p['median_s']:7.2f} s "
                   f"per submission   (max {p['max_s']:.1f} s, {p['submissions']} submission(s))")
    if found["submission_median_s"] is not None:
        out.append(f"  a whole submission: median {found['submission_median_s']:.1f} s "
                   f"({found['submissions']} submission(s))")
    return out
