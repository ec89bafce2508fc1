"""grade.py's set-up of a build folder: meson setup (when an option changed) and the compile of
what grading needs, behind one progress line ("Build: 57/134 steps, lab03 (41 s)"); meson's and
ninja's own output goes to the build's meson-logs/ (meson-setup.txt, compile-log.txt), and is
shown when a step fails, the compiler's message first. verbose=True prints both as they come,
as grade.py always did (`grade.py --verbose`).
"""
import json
import os
import re
import subprocess
import sys

import terminal
from runs.processes import REGISTRY, kill_group, run_grouped

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEP = re.compile(r"^\[(\d+)/(\d+)\] (.*)")
LAB = re.compile(r"\blab(\d\d)")
PROGRESS = "Build:"  # every progress line starts so (the first-run test finds the last one)


def run(command, **kwargs):
    print("$ " + " ".join(command), flush=True)
    return run_grouped(command, cwd=ROOT, **kwargs).returncode


def read_build_info(build_dir, what):
    """A configured build's meson-info/intro-WHAT.json, or None before the first configure."""
    try:
        with open(os.path.join(build_dir, "meson-info", f"intro-{what}.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def configured_options(build_dir):
    """The user options of an existing build as -D strings ({} when there is none)."""
    options = read_build_info(build_dir, "buildoptions") or []
    return {o["name"]: (str(o["value"]).lower() if isinstance(o["value"], bool) else str(o["value"]))
            for o in options if o.get("section") == "user"}


def configure(build_dir, options, progress=None):
    """meson setup; meson setup --reconfigure when the build exists and an option changed (not
    `meson configure`, which leaves the build's record of targets stale until ninja runs: the
    labs grading_targets then reads would be the old ones); else nothing. With `progress` (a
    terminal.Progress), meson's output is kept, not printed, and printed, its errors first, when
    it fails."""
    flags = [f"-D{key}={value}" for key, value in options.items()]
    if os.path.exists(os.path.join(build_dir, "meson-private", "coredata.dat")):
        configured = configured_options(build_dir)
        if all(configured.get(key) == str(value) for key, value in options.items()):
            return 0
        command = ["meson", "setup", "--reconfigure", build_dir] + flags
    else:
        command = ["meson", "setup", build_dir] + flags
    if progress is None:
        return run(command)
    progress.update(f"{PROGRESS} configuring ({os.path.relpath(build_dir, ROOT)}, meson setup)")
    done = run_grouped(command, cwd=ROOT, capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        progress.done(f"{PROGRESS} meson setup failed")
        output = (done.stdout + done.stderr).splitlines()
        first = [line for line in output if "ERROR" in line or "error:" in line]
        print("\n".join(first + [line for line in output if line not in first]), flush=True)
    return done.returncode


def grading_targets(build_dir, labs):
    """The targets that grading `labs` needs: what their graded tests depend on (labs/meson.build
    lists the runner, the checker, the data). A lab not asked for is not compiled, so its
    unfinished file cannot stop the others' grading. None (compile all) without the build's record."""
    tests, targets = read_build_info(build_dir, "tests"), read_build_info(build_dir, "targets")
    if tests is None or targets is None:
        return None
    names = {target["id"]: target["name"] for target in targets}
    wanted = set()
    for test in tests:
        suites = {suite.split(":")[-1] for suite in test["suite"]}
        if "grade" in suites and suites & set(labs):
            wanted |= {names[target] for target in test["depends"] if target in names}
    return sorted(wanted)


def what_is_built(step):
    """'lab03', 'the CPU backend' or 'the grader' for a ninja step's line."""
    found = LAB.search(step)
    if found:
        return f"lab{found.group(1)}"
    return "the CPU backend" if "cpu_backend" in step else "the grader"


def compiler_messages(log_lines):
    """(what the compiler printed for each failed step, the rest of the log): the rest holds each
    "FAILED:" line and its command, and ninja's and meson's own lines, without the step lines
    ("[n/N] Compiling ...", which say nothing here)."""
    messages, rest, after = [], [], None
    for line in log_lines:
        if line.startswith("FAILED:"):
            after = "command"
            rest.append(line)
        elif STEP.match(line) or line.startswith("ninja: build stopped"):
            after = None
            if not STEP.match(line):
                rest.append(line)
        elif after == "command":
            rest.append(line)
            after = "message"
        elif after == "message":
            messages.append(line)
        else:
            rest.append(line)
    return messages, rest


def compile_build(build_dir, targets=None, progress=None):
    """meson compile of `targets` (None: all); its output kept in meson-logs/compile-log.txt (a
    project test reads it for warnings from the grader's own files). With `progress`, one line
    says the steps done and the lab being built; the compiler's messages are printed when the
    compile fails. Without (grade.py --verbose), on a terminal ninja's "[n/N] ..." lines overwrite
    each other, as ninja does itself, and compiler messages are shown whole."""
    command = ["meson", "compile", "-C", build_dir] + (targets or [])
    if progress is None:
        print("$ " + " ".join(command), flush=True)
    terminal_out, pending, steps = sys.stdout.isatty(), False, None
    log_path = os.path.join(build_dir, "meson-logs", "compile-log.txt")
    with open(log_path, "w") as log:
        # In a process group of its own, registered, as run_grouped does: Ctrl-C stops it all.
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, start_new_session=True,
                                   stderr=subprocess.STDOUT, text=True, errors="replace")
        REGISTRY.add(process.pid)
        for line in process.stdout:
            log.write(line)
            step = STEP.match(line)
            if progress is not None:
                if step:
                    steps = (step.group(1), step.group(2))
                    progress.update(f"{PROGRESS} {steps[0]}/{steps[1]} steps, {what_is_built(step.group(3))}")
                continue
            if terminal_out and step:
                sys.stdout.write("\r" + line.rstrip("\n")[:terminal.width() - 1] + "\x1b[K")
                pending = True
            else:
                sys.stdout.write(("\n" if pending else "") + line)
                pending = False
            sys.stdout.flush()
        code = process.wait()
        kill_group(process.pid)
        REGISTRY.remove(process.pid)
    if pending:
        print()
    if progress is not None:
        seconds = progress.clock() - progress.started
        if code == 0:
            progress.done(f"{PROGRESS} {steps[1] if steps else 'no'} steps done in {seconds:.0f} s"
                          if steps else f"{PROGRESS} up to date ({seconds:.0f} s)")
        else:
            progress.done(f"{PROGRESS} failed (step {steps[0]}/{steps[1]})" if steps else f"{PROGRESS} failed")
            with open(log_path, errors="replace") as f:
                messages, rest = compiler_messages(f.read().splitlines())
            print("\n".join(messages + ([""] if messages else []) + rest), flush=True)
            print(f"(the whole log: {os.path.relpath(log_path, ROOT)}; grade.py --verbose prints it as it "
                  "builds)", flush=True)
    return code
