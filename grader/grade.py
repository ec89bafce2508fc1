#!/usr/bin/env python3
"""Set up, build and grade the workbook in one command.

    python3 grader/grade.py                      grade starter/ (your work), print the score table
    python3 grader/grade.py --labs 01            grade one lab
    python3 grader/grade.py --submission solutions
    python3 grader/grade.py --input-seed 12345   other generated inputs (the data file stays)
    python3 grader/grade.py --explain lab04:v2   why a kernel is slow: its counters beside the
                                                 reference's, and one warp's accesses drawn
    python3 grader/grade.py --labs 03 --technique  each technique check, whole
    python3 grader/grade.py --verbose            the full view: meson's and ninja's output, three
                                                 failures a lab, every technique check
    python3 grader/grade.py --project-tests      the project's own tests (unit, data, CPU backend,
                                                 self-tests: solutions pass, starter caught)

It installs meson, ninja and numpy into .venv when they are missing (from requirements.txt),
configures a build directory (build/ for grading, build-project/ for the project tests), compiles
(one progress line; the logs are in BUILD/meson-logs/), grades, and prints the score table
(grader/report.py), each line fitted to the terminal's width. The kernel backend is chosen at
configure time: cuda when an NVIDIA GPU and nvcc are found, else the CPU backend.

Exit status: 0 all tests passed, 1 some failed, 2 setup or build error.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import sys
import venv

import terminal  # noqa: E402  (grader/terminal.py: lines to the terminal's width, the progress line)
import toolchain  # noqa: E402  (grader/toolchain.py: meson's version, python3-venv, the CUDA toolkit)
import build_steps  # noqa: E402  (grader/build_steps.py: meson setup and compile, one progress line)
from build_steps import compile_build, configure, configured_options, grading_targets, run  # noqa: E402
from runs import results  # noqa: E402  (grader/runs/results.py: the one writer of a lab's results)
from runs.processes import STOP, interrupt_stops_everything, run_grouped  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
REQUIREMENTS = os.path.join(ROOT, "requirements.txt")


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def tools_present():
    """numpy, ninja and a meson new enough (an older one on PATH, e.g. Ubuntu 22.04's 0.61, is
    passed over for the one in .venv)."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    ok, version, why = toolchain.meson_version_ok()
    if version and not ok:
        print(f"{why}; using the meson in .venv", flush=True)
    return bool(ok and shutil.which("ninja"))


def ensure_tools(script=None):
    """Re-run `script` (this one by default; grade_submissions.py too) inside .venv when meson,
    ninja or numpy are missing."""
    if tools_present():
        return
    venv_python = os.path.join(VENV, "bin", "python3")
    if os.path.abspath(sys.executable) == os.path.abspath(venv_python):
        fail("meson, ninja or numpy still missing inside .venv; delete .venv and try again")
    if not os.path.exists(venv_python):
        ok, why = toolchain.venv_available()
        if not ok:
            fail(why)
        print(f"Installing meson, ninja and numpy into {VENV} (once) ...", flush=True)
        venv.create(VENV, with_pip=True)
    done = run_grouped([venv_python, "-m", "pip", "install", "-q", "-r", REQUIREMENTS])
    if done.returncode != 0:
        fail("pip could not install requirements.txt; install meson, ninja and numpy yourself")
    env = dict(os.environ, PATH=os.path.join(VENV, "bin") + os.pathsep + os.environ.get("PATH", ""))
    os.execve(venv_python, [venv_python, os.path.abspath(script or __file__)] + sys.argv[1:], env)


def labs_option(asked, configured, submission):
    """-Dlabs: the labs asked for, plus those the build already has whose file the submission
    holds. A build's labs only grow, so regrading one lab reconfigures nothing and `meson test
    --suite labNN` keeps every lab built before; grade.py still compiles and grades only the labs
    asked for (grading_targets)."""
    from runs import labs as lab_list
    labs = lab_list.discover_labs(ROOT)
    before = configured.get("labs")
    had = set() if before is None else {lab.name for lab in labs if "all" in before.split(",")
                                        or lab.number in before.split(",")}
    kept = [lab for lab in labs if lab.name in asked or (lab.name in had and os.path.isfile(
        os.path.join(submission, lab.submission_file)))]
    return "all" if len(kept) == len(labs) else ",".join(lab.number for lab in kept)


def check_labs(spec):
    """The labs --labs names, checked before anything is built; exits with the list otherwise."""
    from runs import labs as lab_list
    labs = lab_list.discover_labs(ROOT)
    try:
        chosen = lab_list.select_labs(labs, spec)
    except ValueError as error:
        fail(f"{error}; give their two-digit numbers, e.g. --labs 01 or --labs 01,03")
    return [lab.name for lab in labs], [lab.name for lab in chosen]


def check_data_file(build_dir):
    """The standard data file, validated whole (size, range): a damaged one is a set-up error, not
    the student's failed tests."""
    import data_modules
    fmt = data_modules.load("samples_format")  # data/samples_format.py
    path = os.path.join(build_dir, "data", "data.bin")
    redo = (f"delete it and run this command again, which rebuilds it: rm {os.path.relpath(path)}")
    try:
        size = os.path.getsize(path)
    except OSError:
        fail(f"the data file {os.path.relpath(path)} is missing; run this command again to build it")
    if size != fmt.DEFAULT_COUNT * 4:
        fail(f"the data file {os.path.relpath(path)} is damaged: {size} bytes, expected "
             f"{fmt.DEFAULT_COUNT * 4} ({fmt.DEFAULT_COUNT} samples of 4 bytes); {redo}")
    try:
        fmt.read_samples(path, fmt.DEFAULT_BITS)
    except (ValueError, OSError) as error:
        fail(f"the data file {os.path.relpath(path)} is damaged: {error}; {redo}")


def ensure_cuobjdump(nvcc):
    """On a cuda build the technique checks read the graded runner's machine code with cuobjdump
    and nvdisasm. A toolkit without them (pip's or conda's nvcc) gets NVIDIA's wheels in .venv,
    once; where that fails the checks fail, saying why."""
    from counting.sass import find_cuobjdump
    if find_cuobjdump(nvcc):
        return
    # The toolkit's own major version where NVIDIA publishes it (13 and up; no 12.x wheels exist),
    # else the newest, which reads the cubins of older toolkits.
    major = int((toolchain.nvcc_version(nvcc) or "0").split(".")[0]) if nvcc else 0
    pin = f"=={major}.*" if major >= 13 else ""
    wheels = [f"nvidia-cuda-cuobjdump{pin}", f"nvidia-cuda-nvdisasm{pin}"]
    if not os.path.abspath(sys.executable).startswith(VENV + os.sep):
        print(f"warning: cuobjdump or nvdisasm not found: the technique checks cannot read your "
              f"kernels' machine code and earn nothing; pip install {' '.join(wheels)}", flush=True)
        return
    print(f"Installing cuobjdump and nvdisasm ({', '.join(wheels)}) into {VENV} (once) ...", flush=True)
    if run([sys.executable, "-m", "pip", "install", "-q"] + wheels) != 0:
        print("warning: pip could not install them: the technique checks will say so and earn "
              "nothing", flush=True)


def side_by_side(build_dir, count):
    """How many labs grade at once: on the cuda backend with 8 GiB free on the GPU, one per 2 cores
    and per 2 GiB free; else 1. The CPU backend's kernels use every core already."""
    if toolchain.backend_of(build_dir) != "cuda":
        return 1
    free = toolchain.free_memory_mib(os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0])
    if free is None or free < 8 * 1024:
        return 1
    return max(1, min((os.cpu_count() or 1) // 2, free // (2 * 1024), count))


def grade_labs(build_dir, labs, timeout_s, submission=None):
    """Every selected lab's tests, one by one (student_runs.py), then its technique checks, which
    read the runner's machine code and what its kernels executed in an evidence pass; the results
    folder then holds this run's files only. A check earns its points only once the tests it needs
    passed."""
    import student_runs
    results_dir = os.path.join(build_dir, "results")
    shutil.rmtree(results_dir, ignore_errors=True)
    tests = student_runs.introspect_tests(build_dir)
    programs = student_runs.graded_programs(tests)
    checks = student_runs.technique_checks(tests, labs)
    if any("--runner" in t.get("cmd", []) for t in tests.tests if t["name"] in checks):
        ensure_cuobjdump(toolchain.find_cuda_toolkit())  # a cuda build: its checks read the runner

    def run_checks():
        # Side by side (they time nothing); the score table shows each one's verdict and hint.
        done = run_grouped(["meson", "test", "-C", build_dir, "--no-rebuild", "--quiet"] + checks,
                           cwd=ROOT, capture_output=True, text=True, errors="replace")
        if done.returncode not in (0, 1) and not STOP.is_set():  # 1: a check failed (the table says)
            print(done.stdout[-3000:] + done.stderr[-3000:], flush=True)
    workers = side_by_side(build_dir, len(labs))
    runs = {}
    if workers > 1:
        # On a GPU: the tests that time nothing, `workers` labs at once, then each lab's speed tests
        # with the GPU to themselves (a lab's run is its own processes either way).
        terminal.say(f"Grading {', '.join(labs)}: {workers} labs at a time, then the speed tests one "
                     f"lab at a time ...")

        def first_phase(lab):
            runs[lab] = student_runs.LabRun(programs[lab], timeout_s)
            runs[lab].run(speed=False)
            if not STOP.is_set():  # after Ctrl-C, its one line alone
                terminal.say(f"  {lab}: {len(runs[lab].outcomes)}/{len(runs[lab].table)} tests run")
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for done in [pool.submit(first_phase, lab) for lab in labs]:
                done.result()
        for lab in labs:
            if any(kind == "speed" for _, _, _, kind, _ in runs[lab].table):
                terminal.say(f"Timing {lab} ...")
            runs[lab].run()
    for lab in labs:
        if workers == 1:
            terminal.say(f"Grading {lab} ...")
            runs[lab] = student_runs.LabRun(programs[lab], timeout_s)
            runs[lab].run()
        results.write(results_dir, *runs[lab].document())
    races = toolchain.backend_of(build_dir) == "cpu"  # the race pass: CPU backend only (counting/race_verdicts.py)
    if (checks or races) and not STOP.is_set():
        # After every timed round: what the checked kernels executed and, on the CPU backend, their
        # data races (a race fails its function's correctness tests: the results are written again).
        student_runs.run_evidence(tests, results_dir, runs, races)
    if checks and not STOP.is_set():
        # The checks read the runner's machine code and that evidence; the score table shows each
        # verdict and hint.
        terminal.say(f"Technique checks of {', '.join(sorted({c.split()[0] for c in checks}))} ...")
        terminal.ticking("technique checks", run_checks)  # a line every 8 s while they run
    student_runs.gate_checks(results_dir, labs)
    if submission and not STOP.is_set():
        # After every timed round: the kernels' counters beside the references' (grader/explain/).
        from explain import in_grading
        in_grading.explain_labs(build_dir, results_dir, labs, submission, gpu=toolchain.backend_of(build_dir) == "cuda")
    if submission and not races and not STOP.is_set():
        # On a GPU, a failure whose hint says "likely a race": the detector's witness under it.
        student_runs.race_suspects(build_dir, results_dir, runs, submission)
    os.makedirs(results_dir, exist_ok=True)
    return results_dir


def main():
    interrupt_stops_everything("grade.py")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--submission", default="starter",
                        help="folder holding your lab .cu files (default: starter)")
    parser.add_argument("--labs", default="all", help="labs to grade, e.g. 01,03 (default: all)")
    parser.add_argument("--backend", choices=["auto", "cuda", "cpu"], default="auto",
                        help="where kernels run (default: auto = cuda if a GPU is found)")
    parser.add_argument("--gpu-archs", default="auto", help="compute capabilities, e.g. 86 or 80,90")
    parser.add_argument("--build-dir", help="build directory (default: build, or build-project)")
    parser.add_argument("--input-seed", type=int, metavar="N",
                        help="seed of the inputs the tests generate (the data file stays the "
                             "standard one)")
    parser.add_argument("--timeout", type=float, default=30,
                        help="seconds one test may run before it is stopped (default 30)")
    parser.add_argument("--explain", metavar="labNN[:vN]",
                        help="why a kernel is slow: every counter of the lab's kernels beside the "
                             "references', and a picture of one warp's accesses (build/results/)")
    parser.add_argument("--races", metavar="labNN[:vN]",
                        help="every data race of the lab's kernels, found by the CPU backend's race "
                             "detector (build/results/labNN-races.txt)")
    parser.add_argument("--no-counters", action="store_true",
                        help="grade without counting the kernels (no explanation lines)")
    parser.add_argument("--project-tests", action="store_true",
                        help="run the project's own tests instead of grading a submission")
    parser.add_argument("--technique", action="store_true",
                        help="show each technique check, its verdict and its advice, whole")
    parser.add_argument("--verbose", action="store_true",
                        help="the full view: meson's and ninja's output as they build, the first "
                             "three failures of each lab with their hints, every technique check")
    args = parser.parse_args()

    submission = args.submission
    if not os.path.isabs(submission):
        submission = os.path.abspath(submission)
    if not args.project_tests and not os.path.isdir(submission):
        fail(f"submission folder {args.submission} not found; give --submission PATH")
    if args.races and args.labs == "all":
        args.labs = args.races.partition(":")[0].lower().replace("lab", "")
    if args.explain and args.labs == "all":  # the build needs the explained lab's file alone
        from explain import cli
        try:
            args.labs = cli.lab_of(args.explain, check_labs("all")[0])
        except ValueError as error:
            fail(str(error))
    all_labs, labs = check_labs(args.labs)
    ensure_tools()

    nvcc = toolchain.find_cuda_toolkit()  # also where NVIDIA installs it, off PATH
    if nvcc:
        os.environ.update(toolchain.environment_with_nvcc(nvcc))
    build_dir = args.build_dir or ("build-project" if args.project_tests else "build")
    build_dir = os.path.join(ROOT, build_dir)
    options = {"kernel_backend": args.backend, "gpu_archs": args.gpu_archs,
               "labs": labs_option(labs, configured_options(build_dir), submission),
               "submission": "solutions" if args.project_tests else submission,
               "project_tests": "true" if args.project_tests else "false"}
    # One progress line for the set-up and the build (their logs go to meson-logs/), or, with
    # --verbose, meson's and ninja's own output (build_steps.py).
    progress = None if args.verbose else terminal.Progress().start(f"{build_steps.PROGRESS} setting up")
    if configure(build_dir, options, progress) != 0:
        fail("meson could not configure the build (see above)")
    if args.races and not args.project_tests:  # the count programs, the detector on; no test runs
        if progress:
            progress.done(f"{build_steps.PROGRESS} configured")
        from counting import race_verdicts
        return race_verdicts.print_lab(args.races, submission, build_dir)
    if args.explain and not args.project_tests:
        if progress:
            progress.done(f"{build_steps.PROGRESS} configured")
        from explain import cli  # grader/explain/: counts, compares, draws; runs no test
        return cli.run(args.explain, submission, build_dir, gpu=toolchain.backend_of(build_dir) == "cuda")
    if compile_build(build_dir, None if args.project_tests else grading_targets(build_dir, labs),
                     progress) != 0:
        fail("the build failed: the compiler's message above names the file and line")
    if args.input_seed is not None:
        os.environ["GRADER_SEED"] = str(args.input_seed)

    if args.project_tests:
        import student_runs
        if any("--runner" in t.get("cmd", []) for t in student_runs.introspect_tests(build_dir).tests):
            ensure_cuobjdump(toolchain.find_cuda_toolkit())  # a cuda build's checks read the runners
        # Side by side where tests time nothing (meson runs the timing ones alone). Left out: the
        # labs' checker runs (their selftests run them) and the venues' end-to-end runs (CI's).
        run(["meson", "test", "-C", build_dir]
            + [f"--no-suite={suite}" for suite in ("checker", "not-built", "venues", "reads-evidence")])
        import testlog_summary  # the skipped and failed tests and why, then the counts
        entries = testlog_summary.read(build_dir)
        print(f"Full log: {os.path.relpath(os.path.join(build_dir, 'meson-logs', 'testlog.txt'), ROOT)}")
        print("\n".join(testlog_summary.summary_lines(entries)))
        return 1 if testlog_summary.counts(entries)[1] else 0

    check_data_file(build_dir)
    results_dir = grade_labs(build_dir, labs, args.timeout, None if args.no_counters else submission)
    with open(os.path.join(results_dir, "run.json"), "w") as f:
        json.dump({"labs_run": labs, "all_labs": all_labs, "submission": submission}, f)
    report = [sys.executable, os.path.join(ROOT, "grader", "report.py"), build_dir]
    code = run_grouped(report + ["--verbose"] * args.verbose + ["--technique"] * args.technique,
                       cwd=ROOT).returncode
    # Then the .venv advice, the optional tools missing, and last what to do next (next_step.py).
    import next_step
    in_venv = os.path.abspath(sys.executable).startswith(VENV + os.sep)
    closing = next_step.closing_lines(ROOT, build_dir, submission, in_venv, nvcc, short=not args.verbose)
    for line in closing:
        if args.verbose:
            print(line, flush=True)
        else:
            terminal.say(line)
    return code


if __name__ == "__main__":
    sys.exit(main())
