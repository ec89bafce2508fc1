"""A technique check's evidence: what the graded build's kernels executed in the tests the check
needs, run again in evidence mode (grader/runner/evidence.hpp; runs/evidence_pass.py). A check's
`ran` requirement asks whether the kernel it reads did the work the lab teaches, whatever its
machine code holds: a privatized loop behind a
condition that never holds, a warp scan on a branch that never runs, or a checked kernel launched
on no samples while another does the work, executes none of the instructions the lesson is about.

Per scope, `kernel` (the kernels the check reads, by the one reading of a kernel's name:
runs/kernel_names.py) or `all` (every kernel the needed tests' calls launched), these quantities:

  global_load, global_store, global_atomic,   thread-level executions of each family (a GPU: the
  shared_load, shared_store, shared_atomic,   threads that executed the family's SASS instructions
  shuffle                                     with their predicate on; the CPU backend: the lanes of
                                              the counting mode's access sites)
  global_load_words                           32-bit words loaded from global memory (a 16-byte
                                              load is 4 words a thread, a byte a quarter)
  threads                                     CUDA threads launched (a GPU: those that executed the
                                              kernel's first instruction; the CPU backend: grid
                                              times block of each launch)
  load_sectors_per_128_bytes                  32-byte sectors a global load read for each 128 bytes
                                              its lanes asked for, at the worst load site of those
                                              that executed at least 1 % of the busiest one's
                                              threads: 4 where a warp's lanes read consecutive bytes
                                              (of any width), 32 for 4-byte lanes 128 bytes apart,
                                              1 for a value every lane reads; a decoy that loads
                                              coalesced more often hides no strided load
A requirement is comma-separated terms `SCOPE.QUANTITY OP BOUND`, judged over every call of the
needed tests, or over the one call that loaded the most when it starts with "largest call:" (a
lesson that shows only where each block has work enough: a thread that owns a bin adds it once,
which small calls cannot tell from an atomic per sample); OP one of >= <= > <, BOUND a
number, `SCOPE.QUANTITY` or `NUMBER * SCOPE.QUANTITY`, e.g. 'kernel.shared_atomic >= 0.9 * all.global_load_words':
every sample the function loaded was counted by a shared atomic of the checked kernel.
"""
import json
import re

from runs.kernel_names import same_kernel

QUANTITIES = ("global_load", "global_store", "global_atomic", "shared_load", "shared_store",
              "shared_atomic", "shuffle", "global_load_words", "threads", "load_sectors_per_128_bytes")
SCOPES = ("kernel", "all")
TERM = re.compile(r"^\s*(\w+)\.(\w+)\s*(>=|<=|>|<)\s*(?:(?:([0-9.]+)\s*\*\s*)?([a-z]+)\.(\w+)|([0-9.]+))\s*$")
OPERATORS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
             "<": lambda a, b: a < b}


# What an administrator does where the driver keeps the GPU's counters to itself: the runner's SASS
# metrics then fail (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), and no check can see what ran.
PERMISSION_FIX = ("the GPU driver keeps performance counters to administrators (ERR_NVGPUCTRPERM), so "
                  "the technique checks cannot see what the kernels executed: an administrator can lift "
                  "it with the driver option NVreg_RestrictProfilingToAdminUsers=0 "
                  "(https://developer.nvidia.com/ERR_NVGPUCTRPERM), or grade as root; until then the check "
                  "earns nothing, and the Why lines (the CPU model: grade.py --explain labNN) show what "
                  "your kernels do")


def not_permitted(why):
    return "INSUFFICIENT_PRIVILEGES" in why or "ERR_NVGPUCTRPERM" in why


# The verdict's words where the counts name nothing (passed is None): the check is not graded,
# 0 points. Where the reference's own counts came back empty too, the batch leaves the check out
# for everyone; where only a submission's did, that is a failure (batch/grading.py).
NOT_COUNTED = "not graded: what ran could not be counted"


class EvidenceError(Exception):
    """A requirement that cannot be read (a project error, said at once)."""


LARGEST = "largest call:"


def parse(requirement):
    """[(scope, quantity, op, factor, scope2, quantity2 or None)] of a `ran` requirement."""
    terms = []
    if requirement.strip().startswith(LARGEST):
        requirement = requirement.strip()[len(LARGEST):]
    for text in filter(str.strip, requirement.split(",")):
        found = TERM.match(text)
        if not found:
            raise EvidenceError(f'bad ran requirement "{text}": SCOPE.QUANTITY OP BOUND')
        scope, quantity, op, factor, scope2, quantity2, number = found.groups()
        for s, q in ((scope, quantity), (scope2, quantity2)):
            if s is not None and (s not in SCOPES or q not in QUANTITIES):
                raise EvidenceError(f'bad ran requirement "{text}": scopes {", ".join(SCOPES)}; '
                                    f'quantities {", ".join(QUANTITIES)}')
        terms.append((scope, quantity, op, float(factor or number or 1), scope2, quantity2))
    return terms


def load(path):
    """{test name: [calls]} of an evidence file (the evidence pass's), {} when there is none."""
    try:
        with open(path, encoding="utf-8") as f:
            found = json.load(f)
    except (OSError, ValueError):
        return {}
    return found.get("tests", {}) if isinstance(found, dict) else {}


class Tally:
    """Executions of one scope: per family, words loaded, and the global load sites."""

    def __init__(self):
        self.counts = {q: 0.0 for q in QUANTITIES}
        self.load_sites = {}  # site -> [threads, bytes asked, sectors]

    def add(self, family, threads, warps, sectors, bytes_per_lane, site):
        if family == "launch":
            self.counts["threads"] += threads
            return
        if family not in self.counts:
            return
        self.counts[family] += threads
        if family == "global_load":
            self.counts["global_load_words"] += threads * bytes_per_lane / 4
            into = self.load_sites.setdefault(site, [0, 0, 0])
            into[0], into[1], into[2] = into[0] + threads, into[1] + threads * bytes_per_lane, into[2] + sectors

    def value(self, quantity):
        if quantity != "load_sectors_per_128_bytes":
            return self.counts[quantity]
        sites = [s for s in self.load_sites.values() if s[1]]
        if not sites:
            return float("inf")  # no load counted: none can be called coalesced
        busiest = max(s[0] for s in sites)
        return max(s[2] * 128 / s[1] for s in sites if s[0] >= busiest / 100)


INSTRUCTION_BYTES = 16  # a SASS instruction's size from Volta on (the oldest GPU the labs build for)


def code_map(listing, kernels):
    """{kernel: {"end": offset past its last instruction, "at": {pc: [family, bytes a lane]}}} of
    `kernels` in a SASS listing ({mangled: [Instruction]}): what a GPU's evidence, which names
    instructions by offset, needs to know of them. Instructions of no family are left out of "at";
    "end" tells an offset of the kernel's code from one outside it."""
    return {k: {"end": max((i.position for i in listing.get(k, ())), default=-INSTRUCTION_BYTES) + INSTRUCTION_BYTES,
                "at": {str(i.position): [i.family, _bytes_per_lane(i)] for i in listing.get(k, ()) if i.family}}
            for k in kernels}


def placed(code, name, pc):
    """Whether a GPU's count of (kernel, offset) names an instruction of the code map's program."""
    kernel = code.get(name)
    return bool(kernel) and isinstance(pc, int) and 0 <= pc < kernel["end"] and pc % INSTRUCTION_BYTES == 0


def best_code(by_arch, calls):
    """Of {arch: code_map()}, the map of the architecture that places the most of the evidence
    (the one the GPU ran)."""
    entries = [e for call in calls for e in call.get("entries", [])]
    return max(by_arch.values(), key=lambda code: sum(placed(code, e[0], e[1]) for e in entries), default={})


def unreadable(calls, code):
    """Why a GPU's counts cannot be read against the graded runner's machine code, or "". Counts
    of a kernel the listing lacks, at an offset outside a kernel's code, with no thread, or loads
    without a sector mean the counts and the program disagree (a module loaded at run time, offsets
    counted from elsewhere, a metric the driver did not fill): nothing is judged on them."""
    entries = [e for call in calls for e in call.get("entries", []) if not e[2]]  # a GPU's: no kind
    if not entries or code is None:
        return ""
    warps = sum(e[4] for e in entries)
    foreign = sorted({e[0] for e in entries if e[0] not in code})
    if foreign:
        share = sum(e[4] for e in entries if e[0] not in code)
        return (f"{share} of {warps} warp instructions counted ran in {len(foreign)} kernel(s) the "
                f"graded runner's machine code does not hold ({_short(foreign[0])} ...)")
    astray = [e for e in entries if not placed(code, e[0], e[1])]
    if astray:
        e = astray[0]
        return (f"{sum(x[4] for x in astray)} of {warps} warp instructions counted at offsets that "
                f"are no instruction of the graded runner's machine code (e.g. {_short(e[0])} at "
                f"{e[1]:#06x}, whose code ends at {code[e[0]]['end']:#06x})")
    if warps and not sum(e[5] for e in entries):
        return f"{warps} warp instructions counted, but no thread executed any of them"
    loads = [e for e in entries if (code[e[0]]["at"].get(str(e[1])) or [None])[0] == "global_load" and e[5]]
    if loads and not sum(e[6] for e in loads):
        return (f"{sum(e[5] for e in loads)} thread-level global loads counted, but not one sector "
                "of memory they read")
    return ""


def _short(name):
    return name if len(name) <= 60 else name[:57] + "..."


def tallies(calls, read, code=None):
    """(the checked kernels' Tally, every kernel's Tally, why none could be made or ""). `read`:
    the kernels the check reads (mangled names on a GPU, the name on the CPU backend); `code`:
    code_map() of the graded runner's kernels (a GPU's entries name SASS offsets; an instruction
    the map lacks is not counted)."""
    kernel, every = Tally(), Tally()
    for call in calls:
        if not call.get("collected"):
            why = call.get("unavailable") or "the runner collected no evidence"
            return kernel, every, PERMISSION_FIX if not_permitted(why) else why
        for name, pc, kind, bytes_per_lane, warps, threads, sectors in call.get("entries", []):
            if kind:  # the CPU backend: the access site's kind
                family, per_lane = kind, bytes_per_lane
            else:     # a GPU: the family of the SASS instruction at pc
                if pc == 0 and name in (code or {}):  # every thread executes a kernel's first instruction
                    ours = any(same_kernel(r, name) for r in read)
                    every.add("launch", threads, warps, 0, 0, None)
                    if ours:
                        kernel.add("launch", threads, warps, 0, 0, None)
                found = (code or {}).get(name, {}).get("at", {}).get(str(pc))
                if found is None:
                    continue
                family, per_lane = found
            site = (name, pc)
            ours = any(same_kernel(r, name) for r in read)
            every.add(family, threads, warps, sectors, per_lane, site)
            if ours:
                kernel.add(family, threads, warps, sectors, per_lane, site)
    return kernel, every, ""


def _bytes_per_lane(instruction):
    """Bytes a lane moves: LDG.E.U8 1, .U16 2, .64 8, .128 16, else 4."""
    suffixes = set(instruction.text.split()[0 if not instruction.text.startswith("@") else 1].split("."))
    for width, size in (("U8", 1), ("S8", 1), ("U16", 2), ("S16", 2), ("64", 8), ("128", 16)):
        if width in suffixes:
            return size
    return 4


def judge(requirement, calls, read, code=None):
    """(passed, message) of a `ran` requirement over the needed tests' calls; `code`: a GPU's
    code_map() of the runner (best_code() of one per architecture). passed is None where the counts
    name no instruction of the program (NOT_COUNTED): the check cannot be graded."""
    if not calls:
        return False, ("no evidence of what ran: the tests this check needs did not run in the "
                       "evidence pass")
    if requirement.strip().startswith(LARGEST):
        calls = [max(calls, key=lambda call: tallies([call], read, code)[1].value("global_load_words"))]
    kernel, every, why = tallies(calls, read, code)
    if why:
        return False, f"no evidence of what ran ({why}): the check cannot tell how the work was done"
    disagree = unreadable(calls, code)
    if disagree:  # counts that do not fit the program prove nothing: not graded, no points
        return None, f"{NOT_COUNTED}: {disagree}, so how the work was done cannot be told on this machine; 0 points"
    if not any(every.counts.values()):  # nothing counted proves nothing: not graded, no points
        named = sorted({e[0] for call in calls for e in call.get("entries", [])})
        return None, (f"{NOT_COUNTED}: the runner's counts hold no instruction of the graded program's "
                      f"kernels ({sum(len(c.get('entries', [])) for c in calls)} counted, in "
                      f"{', '.join(named[:3]) or 'no kernel'}), so how the work was done cannot be told "
                      "on this machine; 0 points")
    scopes = {"kernel": kernel, "all": every}
    failed, shown = [], []
    for scope, quantity, op, factor, scope2, quantity2 in parse(requirement):
        have = scopes[scope].value(quantity)
        bound = factor * scopes[scope2].value(quantity2) if scope2 else factor
        said = f"{scope}.{quantity} {_show(have)} {op} {_show(bound)}" + (
            f" ({_show(factor)} x {scope2}.{quantity2})" if scope2 else "")
        shown.append(said)
        if scope2 and scopes[scope2].value(quantity2) == 0:  # 0 >= 0.9 x 0 proves nothing
            failed.append(f"{said}, with no {scope2}.{quantity2} counted")
        elif not OPERATORS[op](have, bound):
            failed.append(said)
    if failed:
        return False, "what ran: " + "; ".join(failed) + " does not hold"
    return True, "what ran: " + "; ".join(shown)


def _show(number):
    if number == float("inf"):
        return "none (no global load counted)"
    return f"{number:.0f}" if float(number).is_integer() or abs(number) >= 100 else f"{number:.2f}"


def judge_check(evidence_of_check, needs, tests_evidence, read):
    """(passed, message) of a technique check whose machine code was read earlier (its results
    entry's "evidence": the `ran` requirement, whether the code met `requires`, a GPU's code map),
    judged now on what its needed tests executed ({test: calls}, the evidence pass's): the batch's
    judge, after its runs."""
    calls = [call for name in needs for call in tests_evidence.get(name, [])]
    code = evidence_of_check.get("code") or {}
    # The kernels the check read, as it wrote them: its results entry's "kernels" is empty for a
    # check judged on what ran (no launch gate), so `read` alone would leave kernel.* at 0.
    mine = evidence_of_check.get("read")
    read = [str(k) for k in mine] if isinstance(mine, list) and mine else read
    ok, said = judge(evidence_of_check.get("ran", ""), calls, read, best_code(code, calls) if code else None)
    # The check's hint (it names the handout question), as grade.py says it, where what ran was
    # measured and fell short; where the needed tests did not run, their failures are the lesson.
    hint = evidence_of_check.get("hint")
    said += f" Hint: {hint}" if hint and isinstance(hint, str) and ok is False and calls else ""
    if not evidence_of_check.get("machine_code_passed", False):
        return False, f"its machine code does not hold what the lab teaches; {said}"
    return ok, said  # None: not countable (NOT_COUNTED)
