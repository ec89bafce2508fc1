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
      --check 'LABEL|KERNEL|global_load>=8,global_atomic>=8[|HINT]' ...
      --check 'LABEL|KERNEL|shared_load>=1 => global_atomic==0[|HINT]' ...
      --check 'LABEL|KERNEL|kernel: shuffle>=1[|HINT]' ... [--expect-fail LABEL ... | --expect-fail-all]
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

# Run as a file (python3 grader/tools/inspect_kernels.py), Python sees this folder only: run again
# with grader/, the import root, on PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

# Reading the listings into kernels, instruction families and loops: kernel_listing.py, beside this;
# the machine code of a built executable: runner_code.py.
from tools.kernel_listing import (DERIVED, FAMILIES, READABLE, Loop, find_kernel,  # noqa: E402, F401
                                  find_kernels, find_loops, innermost, parse_ptx, parse_sass, show)
from tools.runner_code import Unreadable, disassemble, find_cuobjdump, read_program  # noqa: E402
from runs import results as lab_results  # noqa: E402  (the one schema and writer of results)

SKIP = 77


class UsageError(Exception):
    pass


REQUIREMENT = re.compile(r"^\s*(\w+)\s*(>=|<=|==)\s*(\d+)\s*$")


def parse_requirements(text):
    requirements = []
    for part in text.split(","):
        match = REQUIREMENT.match(part)
        if not match or match.group(1) not in FAMILIES + DERIVED:
            raise UsageError(f'bad requirement "{part}": use FAMILY>=N, FAMILY<=N or FAMILY==N with '
                             f"FAMILY one of {', '.join(FAMILIES + DERIVED)}")
        requirements.append((match.group(1), match.group(2), int(match.group(3))))
    return requirements


def meets(value, operator, bound):
    return value >= bound if operator == ">=" else value <= bound if operator == "<=" else value == bound


def describe_requirements(requirements):
    words = {">=": "at least", "<=": "at most", "==": "exactly"}
    return ", ".join(f"{words[op]} {bound} {READABLE[family]}" for family, op, bound in requirements)


class Check:
    def __init__(self, spec):
        parts = spec.split("|")
        if len(parts) not in (3, 4):
            raise UsageError(f'bad --check "{spec}": use LABEL|KERNEL|REQUIREMENTS[|HINT]')
        self.label, self.kernel = parts[0].strip(), parts[1].strip()
        scope, colon, rest = parts[2].partition(":")
        self.whole_kernel = bool(colon) and scope.strip() == "kernel"
        condition, arrow, requirements = (rest if self.whole_kernel else parts[2]).rpartition("=>")
        if self.whole_kernel and arrow:
            raise UsageError(f'bad --check "{spec}": a kernel: check takes requirements only')
        self.condition = parse_requirements(condition) if arrow else []
        self.requirements = parse_requirements(requirements)
        self.hint = parts[3].strip() if len(parts) == 4 else ""

    def run(self, kernels, unit, source, twice=()):
        """(passed, message). Every kernel declaring the name must pass (overloads, template
        instances, or a decoy never launched beside the one that runs); a kernel found twice in
        the listing (`twice`) fails: which copy runs cannot be told."""
        matches = find_kernels(kernels, self.kernel)
        if not matches:
            names = ", ".join(sorted(kernels)) or "none"
            return False, (f"{self.label}: no kernel named {self.kernel} in {source} (kernels found: "
                           f"{names}). Keep the kernel names of the starter file.")
        doubled = [name for name in matches if name in twice]
        if doubled:
            return False, (f"{self.label}: {source} holds two machine codes for {doubled[0]}, so "
                           "which one runs cannot be told; define each kernel once, in your file")
        outcomes = [self.run_one(kernels[name], unit) for name in matches]
        failed = [message for ok, message in outcomes if not ok]
        return (False, failed[0]) if failed else outcomes[0]

    def run_one(self, instructions, unit):
        if self.whole_kernel:
            return self.run_whole_kernel(instructions, unit)
        loops = find_loops(instructions)
        if self.condition:
            return self.run_implication(loops, unit)
        wanted = describe_requirements(self.requirements)
        for loop in loops:
            if all(meets(loop.counts[f], op, bound) for f, op, bound in self.requirements):
                return True, f"{self.label}: {self.kernel} has a loop with {wanted} ({loop.describe(unit)})"
        found = "; ".join(loop.describe(unit) for loop in loops) or "the kernel has no loop at all"
        message = f"{self.label}: no loop of {self.kernel} holds {wanted}. Found: {found}."
        return False, message + (f" Hint: {self.hint}" if self.hint else "")

    def run_whole_kernel(self, instructions, unit):
        """'kernel: REQUIREMENTS': counted over every instruction of the kernel."""
        wanted = describe_requirements(self.requirements)
        counts = Loop(instructions).counts if instructions else {f: 0 for f in FAMILIES + DERIVED}
        found = ", ".join(f"{counts[f]} {READABLE[f]}" for f in FAMILIES if counts[f]) or "none of them"
        if all(meets(counts[f], op, bound) for f, op, bound in self.requirements):
            return True, f"{self.label}: {self.kernel} holds {wanted} ({found})"
        hint = f" Hint: {self.hint}" if self.hint else ""
        return False, f"{self.label}: {self.kernel} must hold {wanted}; it holds {found}.{hint}"

    def run_implication(self, loops, unit):
        """CONDITION => REQUIREMENTS: every innermost loop meeting the condition meets them."""
        def all_met(loop, requirements):
            return all(meets(loop.counts[f], op, bound) for f, op, bound in requirements)
        condition = describe_requirements(self.condition)
        wanted = describe_requirements(self.requirements)
        hint = f" Hint: {self.hint}" if self.hint else ""
        matching = [loop for loop in innermost(loops) if all_met(loop, self.condition)]
        if not matching:
            found = "; ".join(loop.describe(unit) for loop in loops) or "the kernel has no loop at all"
            return False, (f"{self.label}: no loop of {self.kernel} holds {condition}, so there is "
                           f"nothing to check. Found: {found}.{hint}")
        breaking = [loop for loop in matching if not all_met(loop, self.requirements)]
        if breaking:
            found = "; ".join(loop.describe(unit) for loop in breaking)
            return False, (f"{self.label}: in {self.kernel}, a loop with {condition} must hold "
                           f"{wanted}, but: {found}.{hint}")
        return True, (f"{self.label}: every loop of {self.kernel} with {condition} holds {wanted} "
                      f"({'; '.join(loop.describe(unit) for loop in matching)})")


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


def write_results(path, args, described, outcomes, needs, status_of=None):
    """The results file: one test per check. `status_of` overrides the verdict (skipped: the
    check was not graded); a skipped or failed check scores 0."""
    tests = []
    for check, ok, message in outcomes:
        status = status_of or ("passed" if ok else "failed")
        tests.append({"name": test_name(check), "kind": "check", "status": status,
                      "score": args.points if status == "passed" else 0, "max_score": args.points,
                      "message": "" if status == "passed" else message,
                      "needs": needs.get(check.label, []), "kernels": [check.kernel],
                      "metrics": {}, "tiers": []})
    results = {"schema": lab_results.SCHEMA, "lab": args.lab, "submission": args.source or args.runner,
               "backend": "compiled code", "device": described, "seed": 0,
               "score": sum(t["score"] for t in tests), "max_score": args.points * len(tests),
               "tests": tests}
    lab_results.write_document(path, results)


def check_runner(checks, args):
    """[(check, passed, message)] on every architecture the runner holds code for: a check passes
    only where it passes on each. Unreadable when the machine code cannot be read."""
    by_arch, twice = read_program(args.runner, args.nvcc)
    outcomes = []
    for check in checks:
        verdicts = []
        for arch, kernels in sorted(by_arch.items()):
            doubled = {name for where, name in twice if where == arch}
            ok, message = check.run(kernels, "address", args.runner, doubled)
            verdicts.append((ok, f"{message} [{arch}]"))
        failed = [message for ok, message in verdicts if not ok]
        outcomes.append((check, not failed, failed[0] if failed else verdicts[0][1]))
    return outcomes, f"SASS of the graded runner for {', '.join(sorted(by_arch))} (cuobjdump -sass)"


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
    """--not-graded: each check skipped with the reason, 0 points; a second compile's verdict, where
    nvcc can make one, is advice, said to be so."""
    try:
        read = read_source(args)
    except (UsageError, OSError) as error:
        read, advice_error = None, f"no advice: {str(error).splitlines()[0]}"
    else:
        advice_error = "no advice: nvcc was not found"
    reason = f"not graded: {args.not_graded}"
    outcomes = []
    print(f"[ technique ] {reason}")
    for check in checks:
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
        write_results(args.results, args, "not graded", outcomes, needs, status_of="skipped")
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
    parser.add_argument("--check", action="append", default=[])
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
        checks = [Check(spec) for spec in args.check]
        needs = parse_needs(args.needs, checks)
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
    except (UsageError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"[ technique ] {source}: {described}")
    for check, ok, message in outcomes:
        print(f"[ {'PASS' if ok else 'FAIL'}      ] {message}")
    if args.results:
        write_results(args.results, args, described, outcomes, needs)
    failed = {c.label for c, ok, _ in outcomes if not ok}
    if args.expect_fail or args.expect_fail_all:
        wanted = {c.label for c in checks} if args.expect_fail_all else set(args.expect_fail)
        missed = sorted(wanted - failed)
        if missed:
            print(f"expected these checks to fail, but they passed: {', '.join(missed)}")
            return 1
        print(f"caught as expected: {', '.join(sorted(wanted))}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
