#!/usr/bin/env python3
"""Technique checks: does the compiled kernel really do what the lab asks? No GPU needed.

Compiles one .cu file with nvcc and reads its machine code: SASS (`cuobjdump -sass`) where
cuobjdump and nvdisasm are installed (the toolkit, or the PyPI wheel nvidia-cuda-cuobjdump), else
the PTX of `nvcc -ptx`, which every nvcc can produce. It finds each named kernel, finds its loops
(a branch back to an earlier instruction) and counts instruction families in each loop body:

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
check passed (or, with --expect-fail, every named check failed), 1 not, 2 usage or compile error,
77 skipped (no nvcc).

Usage:
  inspect_kernels.py FILE.cu [--nvcc PATH] [--arch 90] [-I DIR ...] [-D NAME=VALUE ...]
      --check 'LABEL|KERNEL|global_load>=8,global_atomic>=8[|HINT]' ...
      --check 'LABEL|KERNEL|shared_load>=1 => global_atomic==0[|HINT]' ...
      --check 'LABEL|KERNEL|kernel: shuffle>=1[|HINT]' ...
      [--expect-fail LABEL ... | --expect-fail-all] [--results FILE --lab NAME [--points N]]
  inspect_kernels.py FILE.cu --show KERNEL        print the kernel's code with its loops marked
  inspect_kernels.py --listing FILE.sass|FILE.ptx --check ...   (a saved listing, no compiling)
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

# Reading the listings into kernels, instruction families and loops: kernel_listing.py, beside this.
from kernel_listing import (DERIVED, FAMILIES, READABLE, Loop, find_kernel, find_loops, innermost,  # noqa: F401
                            parse_ptx, parse_sass)

SKIP = 77
RESULTS_SCHEMA = "gpu-histogram-workbook/results/v1"


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

    def run(self, kernels, unit, source):
        """(passed, message)."""
        mangled = find_kernel(kernels, self.kernel)
        if mangled is None:
            names = ", ".join(sorted(kernels)) or "none"
            return False, (f"{self.label}: no kernel named {self.kernel} in {source} (kernels found: "
                           f"{names}). Keep the kernel names of the starter file.")
        if self.whole_kernel:
            return self.run_whole_kernel(kernels[mangled], unit)
        loops = find_loops(kernels[mangled])
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


# ---- Compiling --------------------------------------------------------------------------------
def find_cuobjdump(nvcc):
    """cuobjdump next to nvcc or on PATH, else from the nvidia-cuda-cuobjdump wheel; needs nvdisasm."""
    candidates = []
    if nvcc:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), "cuobjdump"))
    candidates.append(shutil.which("cuobjdump"))
    for root in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]} | set(sys.path):
        if root and os.path.isdir(root):
            candidates += glob.glob(os.path.join(root, "nvidia", "*", "bin", "cuobjdump"))
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def compile_listing(args, workdir):
    """(listing text, 'sass' or 'ptx', description of how it was made)."""
    common = [args.nvcc, "-std=c++17", "-O3"] + [f"-I{d}" for d in args.include] + \
        [f"-D{d}" for d in args.define]
    cuobjdump = None if args.mode == "ptx" else find_cuobjdump(args.nvcc)
    if cuobjdump:
        cubin = os.path.join(workdir, "kernels.cubin")
        run([*common, f"-arch=sm_{args.arch}", "-cubin", "-o", cubin, args.source], "nvcc -cubin")
        # cuobjdump runs nvdisasm, which the wheels install beside it, not on PATH.
        env = dict(os.environ, PATH=os.path.dirname(cuobjdump) + os.pathsep + os.environ.get("PATH", ""))
        done = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, env=env)
        if done.returncode == 0 and "Function" in done.stdout:
            return done.stdout, "sass", f"SASS for sm_{args.arch} (cuobjdump -sass)"
        if args.mode == "sass":
            raise UsageError(f"cuobjdump -sass failed: {done.stderr.strip()[:400]}")
    elif args.mode == "sass":
        raise UsageError("--mode sass: cuobjdump not found (install the CUDA toolkit or "
                         "`pip install nvidia-cuda-cuobjdump`)")
    ptx = os.path.join(workdir, "kernels.ptx")
    run([*common, f"-arch=compute_{args.arch}", "-ptx", "-o", ptx, args.source], "nvcc -ptx")
    with open(ptx) as f:
        return f.read(), "ptx", f"PTX for compute_{args.arch} (nvcc -ptx; cuobjdump -sass unavailable)"


def run(command, what):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"{what} failed:\n{' '.join(command)}\n{done.stderr.strip()[-3000:]}")


# ---- Reporting --------------------------------------------------------------------------------
def write_results(path, args, kind, outcomes):
    tests = [{"name": f"Technique.{re.sub(r'[^A-Za-z0-9]+', '_', c.label).strip('_')}",
              "status": "passed" if ok else "failed", "score": args.points if ok else 0,
              "max_score": args.points, "message": "" if ok else message, "metrics": {}, "tiers": []}
             for c, ok, message in outcomes]
    results = {"schema": RESULTS_SCHEMA, "lab": args.lab, "submission": args.source,
               "backend": "compiled code", "device": kind, "seed": 0,
               "score": sum(t["score"] for t in tests), "max_score": args.points * len(tests),
               "tests": tests}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=1)


def show(kernels, name, unit):
    mangled = find_kernel(kernels, name)
    if mangled is None:
        print(f"no kernel named {name}; kernels: {', '.join(sorted(kernels))}")
        return 1
    instructions = kernels[mangled]
    loops = find_loops(instructions)
    print(f"{name} ({mangled}): {len(instructions)} instructions, {len(loops)} loop(s)")
    for ins in instructions:
        inside = sum(loop.start <= ins.position <= loop.end for loop in loops)
        marker = "|" * inside
        family = f"   <- {ins.family}" if ins.family else ""
        where = f"{ins.position:#06x}" if unit == "address" else f"{ins.position:5d}"
        print(f"{marker:>3} {where}  {ins.text}{family}")
    for loop in loops:
        print("  " + loop.describe(unit))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("source", nargs="?", help="the .cu file to compile")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "")
    parser.add_argument("--arch", default="90", help="compute capability, e.g. 86 or 90")
    parser.add_argument("-I", dest="include", action="append", default=[])
    parser.add_argument("-D", dest="define", action="append", default=[])
    parser.add_argument("--mode", choices=["auto", "sass", "ptx"], default="auto")
    parser.add_argument("--listing", help="read this saved SASS or PTX listing instead of compiling")
    parser.add_argument("--check", action="append", default=[])
    parser.add_argument("--expect-fail", action="append", default=[], metavar="LABEL")
    parser.add_argument("--expect-fail-all", action="store_true")
    parser.add_argument("--show", metavar="KERNEL")
    parser.add_argument("--results")
    parser.add_argument("--lab", default="technique")
    parser.add_argument("--points", type=float, default=1)
    args = parser.parse_args(argv)
    try:
        checks = [Check(spec) for spec in args.check]
        unknown = set(args.expect_fail) - {c.label for c in checks}
        if unknown:
            raise UsageError(f"--expect-fail names no --check: {', '.join(sorted(unknown))}")
        if args.listing:
            with open(args.listing) as f:
                text = f.read()
            kind = "sass" if "Function :" in text else "ptx"
            described, source = f"{kind.upper()} listing {args.listing}", args.listing
        else:
            if not args.source:
                raise UsageError("give the .cu file to compile, or --listing")
            if not args.nvcc or not shutil.which(args.nvcc):
                print("nvcc was not found, so the compiled kernels cannot be inspected: technique "
                      "checks are skipped (install the CUDA toolkit to run them)")
                return SKIP
            with tempfile.TemporaryDirectory() as workdir:
                text, kind, described = compile_listing(args, workdir)
            source = args.source
    except (UsageError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    kernels = parse_sass(text) if kind == "sass" else parse_ptx(text)
    unit = "address" if kind == "sass" else "line"
    if args.show:
        return show(kernels, args.show, unit)
    print(f"[ technique ] {source}: {described}")
    outcomes = []
    for check in checks:
        ok, message = check.run(kernels, unit, source)
        outcomes.append((check, ok, message))
        print(f"[ {'PASS' if ok else 'FAIL'}      ] {message}")
    if args.results:
        write_results(args.results, args, described, outcomes)
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
