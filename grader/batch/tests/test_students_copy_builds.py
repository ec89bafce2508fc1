#!/usr/bin/env python3
"""The copy of the project the batch grader builds students in (project.sync_snapshot) holds no
answer: no solutions/, fixtures, answer keys (handouts/*-answers.md), instructor guide, benchmark
reference kernels or known-wrong kernels (placeholders), but the students' handouts (lab 03's
letter test reads them); and it configures and compiles on the cuda backend, as
grade_submissions.py does with its defaults. No GPU needed: nvcc compiles for one architecture
(sm_75).

It guards the batch's default path: a folder of the build that needs solutions/ (the benchmark
did) breaks every class on a GPU at configure time, and the CPU-backend end-to-end test cannot
see it. It runs in the build of either backend wherever nvcc is found (a GPU host builds only the
cuda one); exit 77 (SKIP) without nvcc, saying so."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from batch import project


def answers_in(copy):
    """What of the copy a student must not see; [] when it is clean."""
    found = [rel for rel in ("solutions", os.path.join("grader", "batch", "fixtures"),
                             os.path.join("grader", "bench"),
                             os.path.join("handouts", "instructor-guide.md"))
             if os.path.exists(os.path.join(copy, rel))]
    for directory, _, names in os.walk(copy):
        for name in names:
            path = os.path.join(directory, name)
            if name.endswith("-answers.md"):
                found.append(path)
            elif os.path.basename(directory) == "known_wrong":
                with open(path, "rb") as f:
                    if f.read() != project.PLACEHOLDER:
                        found.append(path)
    handouts = os.listdir(os.path.join(copy, "handouts"))
    if not any(name.endswith(".md") for name in handouts):
        found.append("no student handout left for lab 03's letter test")
    return found


def main():
    tmp = tempfile.mkdtemp(prefix="students-view-")
    try:
        project.sync_snapshot(tmp, project.ROOT, (), None)
        problems = answers_in(tmp)
        if problems:
            print("FAIL: the students' copy holds answers:\n  " + "\n  ".join(problems))
            return 1
        print("the students' copy holds no answer key, guide, reference or known-wrong kernel")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if shutil.which("nvcc") is None:
        print("skipped: nvcc (the CUDA toolkit) not found; nothing to compile the cuda backend with")
        return 77
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="students-copy-")
    try:
        copy, build = os.path.join(tmp, "project"), os.path.join(tmp, "build")
        labs = project.select_labs(project.discover_labs(), "01")
        project.sync_snapshot(copy, project.ROOT, (), labs)
        setup = ["meson", "setup", build, copy, "-Dkernel_backend=cuda", "-Dgpu_archs=75",
                 "-Dlabs=01", "-Dproject_tests=false", "-Dsubmission=" + os.path.join(copy, "starter")]
        for command in (setup, ["ninja", "-C", build, "labs/lab01_checker", "labs/lab01_runner_graded"]):
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"FAIL: {' '.join(command)}\n{(done.stdout + done.stderr)[-4000:]}")
                return 1
        print(f"the students' copy configured and compiled lab 01 on the cuda backend "
              f"in {time.monotonic() - started:.0f} s")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
