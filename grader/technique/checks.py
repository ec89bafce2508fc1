"""A technique check: what a loop of a kernel (or the whole kernel) must hold, checked on the
kernels read from a listing (counting/listing.py), and how a check is given on inspect_kernels.py's
command line (--check LABEL --kernel KERNEL --requires REQUIREMENTS [--hint HINT])."""
import argparse
import re

from counting.listing import DERIVED, FAMILIES, READABLE, Loop, find_kernels, find_loops, innermost


class UsageError(Exception):
    pass


REQUIREMENT = re.compile(r"^\s*(\w+)\s*(>=|<=|==)\s*(\d+)\s*$")


def parse_requirements(text):
    requirements = []
    for part in filter(str.strip, text.split(",")):
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
    def __init__(self, label, kernel, requires, hint="", ran=""):
        self.label, self.kernel, self.hint = label.strip(), kernel.strip(), hint.strip()
        # What the kernel must have executed (technique/evidence.py); "" where only its code is read.
        self.ran = ran.strip()
        self.read = []  # the kernels (as the listing names them) the last run read
        self.code = {}  # per architecture, what a GPU's evidence needs of them (evidence.code_map)
        self.static_ok = True  # what their machine code holds meets `requires` (a GPU; not read on a CPU)
        scope, colon, rest = requires.partition(":")
        self.whole_kernel = bool(colon) and scope.strip() == "kernel"
        condition, arrow, requirements = (rest if self.whole_kernel else requires).rpartition("=>")
        if self.whole_kernel and arrow:
            raise UsageError(f'bad --requires "{requires}" of --check {label}: a kernel: check '
                             "takes requirements only")
        self.condition = parse_requirements(condition) if arrow else []
        self.requirements = parse_requirements(requirements)

    def run(self, kernels, unit, source, twice=()):
        """(passed, message). Every kernel declaring the name must pass (overloads, template
        instances, or a decoy never launched beside the one that runs); a kernel found twice in
        the listing (`twice`) fails: which copy runs cannot be told."""
        matches = find_kernels(kernels, self.kernel)
        self.read = matches
        if not self.requirements and not self.condition:  # a check of what ran alone
            return True, f"{self.label}: its machine code is not read: what the kernels executed decides"
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


class CheckPart(argparse.Action):
    """--check LABEL starts a check; the --kernel, --requires, --hint and --ran after it are its own."""

    def __call__(self, parser, namespace, value, option=None):
        checks = list(getattr(namespace, "checks", None) or [])
        if self.dest == "label":
            checks.append({"label": value})
        elif not checks:
            parser.error(f"{option} belongs to a check: give --check LABEL before it")
        elif self.dest in checks[-1]:
            parser.error(f"{option} is given twice for --check {checks[-1]['label']}")
        else:
            checks[-1][self.dest] = value
        namespace.checks = checks


def make_checks(parts):
    """Check objects from --check/--kernel/--requires/--hint groups."""
    missing = [f"--check {p['label']} has no {flag}" for p in parts
               for flag, key in (("--kernel", "kernel"), ("--requires", "requires")) if key not in p]
    if missing:
        raise UsageError("; ".join(missing))
    return [Check(**p) for p in parts]
