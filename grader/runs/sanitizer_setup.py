#!/usr/bin/env python3
"""The wrapper of the sanitizer test setups (`meson test --setup memcheck|racecheck|synccheck|initcheck`).

    sanitizer_setup.py SANITIZER_OR_EMPTY TOOL -- TEST_COMMAND...

A compiled test program runs under `compute-sanitizer --tool TOOL`; a lab's checker starts its
runner (the student's code) under it instead (GRADER_RUNNER_WRAPPER). A Python test (the technique
checks read compiled code, the data and image helpers run no kernel) runs as it is: there is nothing
on the GPU for the sanitizer to watch, and compute-sanitizer cannot run an interpreter's tools.
Where compute-sanitizer was not found at configure time, every test is reported as skipped, with
the reason. On the CPU backend (SANITIZER `cpu-backend`) racecheck and synccheck run each test
under several schedule seeds instead: a race or a missing barrier shows there as a wrong result in
some order of a block's threads (grader/cpu_backend/README.md); memcheck and initcheck skip.
"""
import os
import re
import sys

SKIP = 77
CPU_BACKEND = "cpu-backend"
SCHEDULE_SEEDS = (2, 3, 5, 7)  # seed 1 is the plain run's; 0 is index order, no random yields


def under_schedule_seeds(tool, command):
    """The CPU backend's stand-in for racecheck and synccheck: the test under each seed."""
    if tool not in ("racecheck", "synccheck"):
        print(f"{tool} needs compute-sanitizer and a GPU: the CPU backend has no {tool} setup "
              "(its racecheck and synccheck setups run the tests under several schedule seeds).",
              file=sys.stderr)
        return SKIP
    import subprocess
    for seed in SCHEDULE_SEEDS:
        env = dict(os.environ, CUDA_CPU_BACKEND_SEED=str(seed))
        code = subprocess.run(command, env=env).returncode
        if code not in (0, SKIP):
            print(f"{tool} on the CPU backend: the test failed under schedule seed {seed} "
                  f"(replay it with CUDA_CPU_BACKEND_SEED={seed}): a race or a missing barrier")
            return code
        if code == SKIP:
            return SKIP
    print(f"{tool} on the CPU backend: passed under schedule seeds "
          f"{', '.join(map(str, SCHEDULE_SEEDS))} (a stand-in for compute-sanitizer, which needs a GPU)")
    return 0


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        print("usage: sanitizer_setup.py SANITIZER_OR_EMPTY TOOL -- TEST_COMMAND...", file=sys.stderr)
        return 2
    sanitizer, tool = argv[1], argv[2]
    command = argv[argv.index("--") + 1:]
    if not command:
        print("sanitizer_setup.py: no test command after --", file=sys.stderr)
        return 2
    if not sanitizer:
        print("compute-sanitizer was not found at configure time, so this setup cannot run.\n"
              "It ships with the CUDA toolkit (cuda/bin or cuda/compute-sanitizer); put it on PATH and run\n"
              "`meson setup --reconfigure BUILD_DIR`. The CPU backend has no sanitizer setups.", file=sys.stderr)
        return SKIP
    program = os.path.basename(command[0])
    # A lab's graded test (`meson test --suite labNN`) is grader/grade_lab.py, which runs the lab's
    # checker test by test with this environment: it is wrapped as the checker is.
    lab_harness = any(os.path.basename(arg) == "grade_lab.py" for arg in command[1:3])
    if (re.fullmatch(r"python[\d.]*(\.exe)?", program) or program.endswith(".py")) and not lab_harness:
        os.execvp(command[0], command)
    if sanitizer == CPU_BACKEND:
        return under_schedule_seeds(tool, command)
    # A lab's checker runs no student code itself: it starts the runner (the student's code)
    # through the sanitizer, and fails when the runner's sanitizer reported an error
    # (grader/core/student_code.hpp). Other compiled tests run under it directly.
    wrapper = [sanitizer, "--tool", tool, "--error-exitcode", "66", "--print-limit", "20"]
    if lab_harness or os.environ.get("GRADER_RUNNER"):  # a checker: its runner is named
        os.environ["GRADER_RUNNER_WRAPPER"] = "\n".join(wrapper)
        os.execv(command[0], command)
    os.execv(sanitizer, wrapper + command)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv))
