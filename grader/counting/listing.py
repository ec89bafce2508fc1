"""Reading compiled kernels: SASS (`cuobjdump -sass`) or PTX listings into kernels, their
instructions by family, and their loops (a branch back to an earlier instruction). No GPU needed.
The technique checks (inspect_kernels.py) decide what the counts must be; this module only counts.
"""
import re

from runs.kernel_names import identifier

FAMILIES = ("global_load", "global_atomic", "shared_atomic", "shared_load", "shared_store", "shuffle")
DERIVED = ("loads_before_global_atomic",)
READABLE = {
    "global_load": "global loads (32-bit words)",
    "global_atomic": "global atomics/reductions",
    "shared_atomic": "shared-memory atomics",
    "shared_load": "shared loads",
    "shared_store": "shared stores",
    "shuffle": "warp shuffles",
    "loads_before_global_atomic": "words loaded before the first global atomic",
}


# ---- Instructions -----------------------------------------------------------------------------
class Instruction:
    def __init__(self, position, text, family, words=1, branch_target=None):
        self.position = position  # SASS byte address, or PTX line number
        self.text = text
        self.family = family  # one of FAMILIES, "branch", or None
        self.words = words
        self.branch_target = branch_target  # position the branch jumps to, if it is a branch


SASS_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:\{\s*)?(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
SASS_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
SASS_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")


def sass_family(opcode):
    base, *modifiers = opcode.split(".")
    if base in ("LDG", "LDGSTS"):
        words = 4 if "128" in modifiers else 2 if "64" in modifiers else 1
        return "global_load", words
    if base in ("RED", "REDG", "ATOMG", "ATOM"):
        return "global_atomic", 1
    if base == "ATOMS":
        return "shared_atomic", 1
    if base in ("LDS", "LDSM"):
        return "shared_load", 1
    if base == "STS":
        return "shared_store", 1
    if base == "SHFL":
        return "shuffle", 1
    if base in ("BRA", "JMP"):
        return "branch", 1
    return None, 1


def parse_sass(text):
    """{mangled kernel name: [Instruction]} from `cuobjdump -sass` output."""
    kernels, functions, current, pending_labels = {}, [], None, []
    for line in text.splitlines():
        function = SASS_FUNCTION.match(line)
        if function:
            current = kernels.setdefault(function.group(1), [])
            functions.append((current, {}))
            pending_labels = []
            continue
        label = SASS_LABEL.match(line)
        if label:
            pending_labels.append(label.group(1))
            continue
        match = SASS_LINE.search(line)
        if current is None or not match:
            continue
        position = int(match.group(1), 16)
        for name in pending_labels:
            functions[-1][1][name] = position
        pending_labels = []
        opcode, operands = match.group(3), match.group(4)
        family, words = sass_family(opcode)
        target = None
        if family == "branch":
            address = re.search(r"0x([0-9a-f]+)", operands)
            named = re.search(r"(\.L_x_\d+)", operands)
            if named:
                target = named.group(1)  # resolved below, once every label is known
            elif address:
                target = int(address.group(1), 16)
        text_of = ((match.group(2) or "") + opcode + operands).strip()
        current.append(Instruction(position, text_of, family, words, target))
    for instructions, labels in functions:
        for ins in instructions:
            if isinstance(ins.branch_target, str):
                ins.branch_target = labels.get(ins.branch_target)
    return kernels


PTX_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)")
PTX_FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.func\b")
PTX_LABEL = re.compile(r"^\s*(\$?[\w$]+):")
PTX_INSTRUCTION = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.:]*)\s*([^;]*);")


def ptx_family(opcode):
    parts = opcode.split(".")
    base = parts[0]
    spaces = [p for p in parts[1:] if p.startswith(("global", "shared", "local", "param", "const"))]
    space = spaces[0].split("::")[0] if spaces else ""
    if base == "ld" and space == "global":
        vector = 4 if "v4" in parts else 2 if "v2" in parts else 1
        bits = max((int(p[1:]) for p in parts if re.fullmatch(r"[usbf]\d+", p)), default=32)
        return "global_load", vector * max(1, bits // 32)
    if base in ("atom", "red"):
        return ("shared_atomic", 1) if space == "shared" else ("global_atomic", 1) \
            if space in ("global", "") else (None, 1)
    if base == "ld" and space == "shared":
        return "shared_load", 1
    if base == "st" and space == "shared":
        return "shared_store", 1
    if base == "shfl":
        return "shuffle", 1
    if base == "bra":
        return "branch", 1
    return None, 1


def parse_ptx(text):
    """{mangled kernel name: [Instruction]} from `nvcc -ptx` output; positions are line numbers."""
    kernels, current, labels = {}, None, {}
    raw = []
    for number, line in enumerate(text.splitlines()):
        entry = PTX_ENTRY.match(line)
        if entry:
            current = kernels.setdefault(entry.group(1), [])
            labels = {}
            raw.append((current, labels))
            continue
        if PTX_FUNC.match(line):
            current = None
            continue
        if current is None:
            continue
        label = PTX_LABEL.match(line)
        if label:
            labels[label.group(1)] = number
            continue
        match = PTX_INSTRUCTION.match(line)
        if not match:
            continue
        opcode, operands = match.group(2), match.group(3)
        family, words = ptx_family(opcode)
        target = operands.strip() if family == "branch" else None
        current.append(Instruction(number, ((match.group(1) or "") + opcode + " " + operands).strip(),
                                   family, words, target))
    for instructions, label_lines in raw:
        for ins in instructions:
            if ins.family == "branch":
                ins.branch_target = label_lines.get(ins.branch_target)
    return kernels


# ---- Loops and counts -------------------------------------------------------------------------
class Loop:
    def __init__(self, body):
        self.body = body
        self.start, self.end = body[0].position, body[-1].position
        self.counts = {family: 0 for family in FAMILIES}
        for ins in body:
            if ins.family in self.counts:
                self.counts[ins.family] += ins.words if ins.family == "global_load" else 1
        in_flight = 0
        for ins in body:
            if ins.family == "global_atomic":
                break
            if ins.family == "global_load":
                in_flight += ins.words
        self.counts["loads_before_global_atomic"] = in_flight

    def describe(self, unit):
        found = ", ".join(f"{self.counts[f]} {READABLE[f]}" for f in FAMILIES + DERIVED
                          if self.counts[f] or f in ("global_load", "global_atomic"))
        return f"loop at {unit} {self.start:#06x}..{self.end:#06x}: {found}" if unit == "address" \
            else f"loop at {unit}s {self.start}..{self.end}: {found}"


def find_loops(instructions):
    """One Loop per backward branch: the instructions from its target to the branch itself."""
    loops = []
    for index, ins in enumerate(instructions):
        # A branch to itself is the padding after EXIT, not a loop.
        if ins.family == "branch" and ins.branch_target is not None and ins.branch_target < ins.position:
            body = [i for i in instructions[:index + 1] if i.position >= ins.branch_target]
            if body:
                loops.append(Loop(body))
    return loops


def innermost(loops):
    """The loops whose body holds no other loop's body."""
    return [loop for loop in loops
            if not any(other is not loop and loop.start <= other.start and other.end <= loop.end
                       and (other.start, other.end) != (loop.start, loop.end) for other in loops)]


def find_kernels(kernels, name):
    """Every kernel whose own name is `name` (runs/kernel_names.py, the one reading of a kernel's
    name that the launch gate and the evidence use too): overloads and template instances, or a
    decoy beside the real one, all of them."""
    return sorted((k for k in kernels if k == name or identifier(k) == name.split("<")[0]), key=len)


def find_kernel(kernels, name):
    """The shortest mangled name that declares `name`, or None."""
    matches = find_kernels(kernels, name)
    return matches[0] if matches else None


def show(kernels, name, unit):
    """Print the kernel's code with its loops marked (inspect_kernels.py --show)."""
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
