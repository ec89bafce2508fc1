#!/usr/bin/env python3
"""Technique checks: does the kernel the graded program runs really do what the lab asks? No GPU
needed.

Graded (--runner): reads the machine code of the very executable that was graded, the lab's runner
(`cuobjdump -sass` of it; cuobjdump and nvdisasm from the toolkit or the PyPI wheels
nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm), every GPU architecture it holds code for, never a
second compile: a second compile without the runner's defines (GRADER_RUNNER_SIDE, -gencode) may
see other code than what ran. Where that machine code cannot be read, every check fails, saying
why (exit status 2). Learning only (a .cu FILE): compiles the file with nvcc and reads its SASS
(where cuobjdump works) or its PTX; with --results it must be --not-graded REASON: each check is
then reported skipped, 0 points, the compile's verdict shown as advice (the CPU backend, which runs
no GPU machine code). It finds each named kernel, finds its loops (a branch back to an earlier
instruction) and counts instruction families in each loop body:

  family                      SASS                         PTX
  global_load   (32-bit words) LDG*  (.64 = 2, .128 = 4)    ld.global* (.v2/.v4, 64-bit = 2)
  global_atomic               RED, REDG, ATOMG, ATOM        red.global, atom.global, generic red/atom
  shared_atomic               ATOMS                         atom.shared, red.shared
  shared_load / shared_store  LDS / STS                     ld.shared / st.shared
  shuffle                     SHFL                          shfl.sync
  loads_before_global_atomic  global_load words issued from the top of the loop body to its first
                              global atomic: how many samples are in flight before the first
                              atomic has to wait for its sample

A check passes when some loop of the kernel meets all of its requirements. A check written
CONDITION => REQUIREMENTS passes when some loop meets CONDITION and every innermost loop (one that
holds no other loop) meeting CONDITION also meets REQUIREMENTS: e.g. 'shared_load>=1 =>
global_atomic==0,shared_atomic==0' says no loop that scans shared memory does atomics, counting
each copy the compiler made of the loop (unrolled body, remainder). A check written
'kernel: REQUIREMENTS' counts over the whole kernel, loops or not: e.g. 'kernel: shuffle>=1' says
the kernel shuffles somewhere, even where the compiler unrolled every loop away. Exit status: 0 every
check passed (or, with --expect-fail, every named check failed), 1 not, 2 usage or compile error
or machine code that cannot be read, 77 skipped (no nvcc, or --not-graded).

Usage:
  inspect_kernels.py --runner EXECUTABLE --check ... [--needs 'LABEL=Suite.Test,...' ...]
      [--expect-fail LABEL ... | --expect-fail-all] [--results FILE --lab NAME [--points N]]
  inspect_kernels.py FILE.cu --not-graded REASON --results FILE --lab NAME --check ...
  inspect_kernels.py FILE.cu [--nvcc PATH] [--arch 90] [-I DIR ...] [-D NAME=VALUE ...]
      --check LABEL --kernel KERNEL --requires 'global_load>=8,global_atomic>=8' [--hint HINT] ...
      --check LABEL --kernel KERNEL --requires 'shared_load>=1 => global_atomic==0' ...
      --check LABEL --kernel KERNEL --requires 'kernel: shuffle>=1' ...
      [--expect-fail LABEL ... | --expect-fail-all]
  inspect_kernels.py FILE.cu --show KERNEL        print the kernel's code with its loops marked
  inspect_kernels.py --listing FILE.sass|FILE.ptx --check ...   (a saved listing, no compiling)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Run as a file (python3 grader/technique/inspect_kernels.py), Python sees this folder only: run again
# with grader/, the import root, on PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

# Reading the listings into kernels, instruction families and loops: counting/listing.py;
# the machine code of a built executable: sass.py.
from counting.listing import (DERIVED, FAMILIES, READABLE, Loop, find_kernel,  # noqa: E402, F401
                                  find_kernels, find_loops, innermost, parse_ptx, parse_sass, show)
from counting.sass import Unreadable, disassemble, find_cuobjdump, read_program  # noqa: E402
from runs import results as lab_results  # noqa: E402  (the one schema and writer of results)
from technique import evidence as ran_evidence  # noqa: E402  (what the checked kernels executed)
# What a check requires and how it is read from the command line: technique_checks.py, beside this.
from technique.checks import (Check, CheckPart, UsageError, describe_requirements,  # noqa: E402, F401
                                    make_checks, meets, parse_requirements)

SKIP = 77


# ---- Compiling (learning and advice only: never a graded verdict) ------------------------------
def compile_listing(args, workdir):
    """(listing text, 'sass' or 'ptx', description of how it was made)."""
    common = [args.nvcc, "-std=c++17", "-O3"] + [f"-I{d}" for d in args.include] + \
        [f"-D{d}" for d in args.define]
    cuobjdump = None if args.mode == "ptx" else find_cuobjdump(args.nvcc)
    if cuobjdump:
        cubin = os.path.join(workdir, "kernels.cubin")
        run([*common, f"-arch=sm_{args.arch}", "-cubin", "-o", cubin, args.source], "nvcc -cubin")
        try:
            text = disassemble(cuobjdump, cubin, args.nvcc)
        except Unreadable as error:
            if args.mode == "sass":
                raise UsageError(str(error)) from error
            text = ""
        if "Function" in text:
            return text, "sass", f"SASS for sm_{args.arch} (cuobjdump -sass)"
    elif args.mode == "sass":
        raise UsageError("--mode sass: cuobjdump not found (install the CUDA toolkit or "
                         "`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`)")
    ptx = os.path.join(workdir, "kernels.ptx")
    run([*common, f"-arch=compute_{args.arch}", "-ptx", "-o", ptx, args.source], "nvcc -ptx")
    with open(ptx) as f:
        return f.read(), "ptx", f"PTX for compute_{args.arch} (nvcc -ptx; cuobjdump -sass unavailable)"


def run(command, what):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise UsageError(f"{what} failed:\n{' '.join(command)}\n{done.stderr.strip()[-3000:]}")


# ---- Reporting --------------------------------------------------------------------------------
def parse_needs(specs, checks):
    """{label: [test names]} from --needs 'LABEL=Suite.Test,Suite.Test'."""
    needs = {}
    labels = {c.label for c in checks}
    for spec in specs:
        label, equals, tests = spec.partition("=")
        names = [t.strip() for t in tests.split(",") if t.strip()]
        if not equals or label.strip() not in labels or not names:
            raise UsageError(f'bad --needs "{spec}": use LABEL=Suite.Test[,Suite.Test...] with the '
                             "LABEL of a --check")
        needs[label.strip()] = names
    return needs


def test_name(check):
    return f"Technique.{re.sub(r'[^A-Za-z0-9]+', '_', check.label).strip('_')}"


def write_results(path, args, described, outcomes, needs, status_of=None, status_by_label=None):
    """The results file: one test per check. `status_of` (every check) or `status_by_label`
    overrides the verdict (skipped: the check was not graded); a skipped or failed check scores 0."""
    tests = []
    for check, ok, message in outcomes:
        status = ((status_by_label or {}).get(check.label) or status_of
                  or ("skipped" if ok is None else "passed" if ok else "failed"))
        # What a later judge of what ran needs (the batch's, after its evidence pass): the
        # requirement, whether the machine code met `requires`, and a GPU's map of that code.
        # "read": the kernels whose counts are kernel.* (their names on the CPU backend).
        ran = ({"ran": check.ran, "machine_code_passed": check.static_ok, "code": check.code,
                "hint": check.hint, "read": check.read or [check.kernel]} if check.ran else None)
        tests.append(lab_results.test_entry(test_name(check), "check", status, args.points,
                                            needs=needs.get(check.label, []),
                                            message="" if status == "passed" else message,
                                            # Judged on what ran, the evidence names the kernels that
                                            # did the work: the launch gate (runs/scoring.py) has no part.
                                            kernels=[] if ran and args.evidence else check.read or [check.kernel],
                                            evidence=ran))
    # Gated when loaded beside the lab's own results, whose tests the checks need.
    results = lab_results.document(args.lab, args.source or args.runner, "compiled code", described,
                                   tests, gated=False)
    lab_results.write_document(path, results)


def check_runner(checks, args):
    """[(check, passed, message)] on every architecture the runner holds code for: a check passes
    only where it passes on each. Unreadable when the machine code cannot be read."""
    by_arch, twice = read_program(args.runner, args.nvcc)
    outcomes = []
    for check in checks:
        verdicts, read = [], set()
        for arch, kernels in sorted(by_arch.items()):
            doubled = {name for where, name in twice if where == arch}
            ok, message = check.run(kernels, "address", args.runner, doubled)
            verdicts.append((ok, f"{message} [{arch}]"))
            read.update(check.read)
            # Every kernel's instructions: `all` counts what any kernel of the runner executed.
            check.code[arch] = ran_evidence.code_map(kernels, kernels)
        check.read = sorted(read)
        check.static_ok = all(ok for ok, _ in verdicts)
        failed = [message for ok, message in verdicts if not ok]
        outcomes.append((check, not failed, failed[0] if failed else verdicts[0][1]))
    if args.evidence:
        outcomes = [judge_what_ran(check, ok, message, args, by_arch) for check, ok, message in outcomes]
    return outcomes, f"SASS of the graded runner for {', '.join(sorted(by_arch))} (cuobjdump -sass)"


def evidence_calls(check, args):
    """The calls of the tests the check needs, from the evidence pass's file."""
    tests = ran_evidence.load(args.evidence)
    return [call for name in args.needs_of.get(check.label, []) for call in tests.get(name, [])]


def judge_what_ran(check, ok, message, args, by_arch=None):
    """(check, passed, message): a check with a `ran` requirement passes only where the kernel it
    reads also did the work (technique/evidence.py); by_arch: the runner's SASS, whose offsets a
    GPU's evidence names (the architecture where most of them are instructions)."""
    if not check.ran:
        return check, ok, message
    calls = evidence_calls(check, args)
    code = ran_evidence.best_code(check.code, calls) if check.code else None
    ran_ok, said = ran_evidence.judge(check.ran, calls, check.read or [check.kernel], code)
    if ok and ran_ok is None:  # what ran could not be counted here: not graded (None), 0 points
        return check, None, f"{message}; {said}"
    hint = f" Hint: {check.hint}" if check.hint and not ran_ok else ""
    return check, ok and ran_ok, f"{message}; {said}{hint}" if ok else message


def read_source(args):
    """(kernels, unit, described, source) of a saved listing or a compile of the .cu file, or the
    exit status SKIP (no nvcc)."""
    if args.listing:
        with open(args.listing) as f:
            text = f.read()
        kind = "sass" if "Function :" in text else "ptx"
        described, source = f"{kind.upper()} listing {args.listing}", args.listing
    else:
        if not args.source:
            raise UsageError("give --runner EXECUTABLE, the .cu file to compile, or --listing")
        if not args.nvcc or not shutil.which(args.nvcc):
            return None
        with tempfile.TemporaryDirectory() as workdir:
            text, kind, described = compile_listing(args, workdir)
        source = args.source
    kernels = parse_sass(text) if kind == "sass" else parse_ptx(text)
    return kernels, "address" if kind == "sass" else "line", described, source


def not_graded(args, checks, needs):
    """--not-graded (the CPU backend, which runs no GPU machine code): a check with a `ran`
    requirement is graded on what the graded build executed (the evidence pass's file); every
    other check is skipped with the reason, 0 points, a second compile's verdict (where nvcc can
    make one) shown as advice, said to be so."""
    try:
        read = read_source(args)
    except (UsageError, OSError) as error:
        read, advice_error = None, f"no advice: {str(error).splitlines()[0]}"
    else:
        advice_error = "no advice: nvcc was not found"
    reason = f"not graded: {args.not_graded}"
    outcomes, graded = [], []
    print(f"[ technique ] {reason}" if not any(c.ran for c in checks) else
          "[ technique ] graded on what the graded build executed (the CPU backend's counting mode)")
    for check in checks:
        if check.ran and args.evidence:
            check.read = [check.kernel]
            _, ok, message = judge_what_ran(check, True, f"{check.label}: {check.kernel}", args)
            outcomes.append((check, ok, message))
            graded.append(check.label)
            print(f"[ {'PASS' if ok else 'FAIL'}      ] {message}")
            continue
        if read is None:
            advice = advice_error
        else:
            kernels, unit, described, source = read
            ok, message = check.run(kernels, unit, source)
            verdict = "would pass" if ok else f"would fail: {message.split(': ', 1)[-1]}"
            advice = f"advice from a compile of the file ({described}), not graded: {verdict}"
        outcomes.append((check, False, f"{reason}\n{advice}"))
        print(f"[ SKIP      ] {check.label}: {advice}")
    if args.results:
        status = {c.label: ("passed" if ok else "failed") if c.label in graded else "skipped"
                  for c, ok, _ in outcomes}
        write_results(args.results, args, "what ran (counting mode)" if graded else "not graded", outcomes,
                      needs, status_by_label=status)
    failed = [c.label for c, ok, _ in outcomes if c.label in graded and not ok]
    if args.expect_fail or args.expect_fail_all:
        return expected(checks, set(failed), args, judged=set(graded))
    if graded:
        return 1 if failed else 0
    return SKIP


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("source", nargs="?", help="the .cu file to compile (learning, advice)")
    parser.add_argument("--runner", help="the graded executable whose machine code is checked")
    parser.add_argument("--not-graded", metavar="REASON",
                        help="report every check skipped with this reason; the compile is advice")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "")
    parser.add_argument("--arch", default="90", help="compute capability, e.g. 86 or 90")
    parser.add_argument("-I", dest="include", action="append", default=[])
    parser.add_argument("-D", dest="define", action="append", default=[])
    parser.add_argument("--mode", choices=["auto", "sass", "ptx"], default="auto")
    parser.add_argument("--listing", help="read this saved SASS or PTX listing instead of compiling")
    parser.add_argument("--check", dest="label", action=CheckPart, metavar="LABEL",
                        help="starts a check; its --kernel, --requires and --hint follow it")
    parser.add_argument("--kernel", dest="kernel", action=CheckPart, help="the kernel it reads")
    parser.add_argument("--requires", dest="requires", action=CheckPart,
                        help="what a loop (or 'kernel:' the whole kernel) must hold")
    parser.add_argument("--hint", dest="hint", action=CheckPart, help="what to do when it fails")
    parser.add_argument("--ran", dest="ran", action=CheckPart,
                        help="what the kernel must have executed (technique/evidence.py)")
    parser.add_argument("--evidence", metavar="FILE",
                        help="the evidence pass's file (results/evidence/labNN.json): what the graded build executed")
    parser.add_argument("--needs", action="append", default=[], metavar="LABEL=TESTS",
                        help="the correctness tests a check's points need")
    parser.add_argument("--expect-fail", action="append", default=[], metavar="LABEL")
    parser.add_argument("--expect-fail-all", action="store_true")
    parser.add_argument("--show", metavar="KERNEL")
    parser.add_argument("--results")
    parser.add_argument("--lab", default="technique")
    parser.add_argument("--points", type=float, default=1)
    args = parser.parse_args(argv)
    try:
        checks = make_checks(getattr(args, "checks", None) or [])
        needs = parse_needs(args.needs, checks)
        args.needs_of = needs
        for check in checks:
            if check.ran:
                ran_evidence.parse(check.ran)  # a malformed requirement is the project's error, said now
        unknown = set(args.expect_fail) - {c.label for c in checks}
        if unknown:
            raise UsageError(f"--expect-fail names no --check: {', '.join(sorted(unknown))}")
        if args.results and not args.not_graded:
            if not args.runner:
                raise UsageError("--results grades: give --runner EXECUTABLE (the graded program), "
                                 "or --not-graded REASON; a second compile is never graded")
            ungated = [c.label for c in checks if c.label not in needs]
            if ungated:
                raise UsageError(f"--results: give --needs for {', '.join(ungated)} (the tests "
                                 "that must pass before a check earns its points)")
        if args.not_graded:
            return not_graded(args, checks, needs)
        if args.runner:
            if args.show:
                by_arch, _ = read_program(args.runner, args.nvcc)
                return show(by_arch[max(by_arch)], args.show, "address")
            outcomes, described = check_runner(checks, args)
            source = args.runner
        else:
            read = read_source(args)
            if read is None:
                print("nvcc was not found, so the compiled kernels cannot be inspected: technique "
                      "checks are skipped (install the CUDA toolkit to run them)")
                return SKIP
            kernels, unit, described, source = read
            if args.show:
                return show(kernels, args.show, unit)
            outcomes = [(check, *check.run(kernels, unit, source)) for check in checks]
    except Unreadable as error:
        print(f"[ technique ] cannot read the graded machine code: {error}")
        for check in checks:
            print(f"[ FAIL      ] {check.label}: not graded: {error}")
        if args.results:
            write_results(args.results, args, "unreadable", [(c, False, f"not graded: {error}")
                                                               for c in checks], needs)
        return 2
    except (UsageError, OSError, ran_evidence.EvidenceError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"[ technique ] {source}: {described}")
    for check, ok, message in outcomes:
        print(f"[ {'SKIP' if ok is None else 'PASS' if ok else 'FAIL'}      ] {message}")
    if args.results:
        write_results(args.results, args, described, outcomes, needs)
    failed = {c.label for c, ok, _ in outcomes if ok is False}
    if not failed and any(ok is None for _, ok, _ in outcomes) and not (args.expect_fail or args.expect_fail_all):
        return SKIP  # nothing failed, something could not be graded here
    if args.expect_fail or args.expect_fail_all:
        return expected(checks, failed, args)
    return 1 if failed else 0


def expected(checks, failed, args, judged=None):
    """--expect-fail / --expect-fail-all: 0 when every named check (of those judged) failed."""
    wanted = {c.label for c in checks} if args.expect_fail_all else set(args.expect_fail)
    if judged is not None:
        wanted &= judged
        if not wanted:
            print("SKIP: none of these checks is judged on this backend (no `ran` requirement)")
            return SKIP
    missed = sorted(wanted - failed)
    if missed:
        print(f"expected these checks to fail, but they passed: {', '.join(missed)}")
        return 1
    print(f"caught as expected: {', '.join(sorted(wanted)) or 'none judged here'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
