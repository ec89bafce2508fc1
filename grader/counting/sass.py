"""The machine code of a built program: `cuobjdump -sass` of the executable itself (the runner that
was graded), split by GPU architecture into kernels. No GPU needed; nothing of the program runs.

The technique checks (inspect_kernels.py --runner) read it, never a second compile of the source:
the runner is built with its own defines (GRADER_RUNNER_SIDE, the -gencode of the build), and a
second compile without them may see other code. Every architecture the executable holds SASS for
is code that some GPU runs, so each one is checked (a GPU newer than all of them JIT-compiles the
PTX of the newest, which is the source of that architecture's SASS, with the same __CUDA_ARCH__).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from counting.listing import parse_sass

INSTALL_HINT = ("install the CUDA toolkit's cuobjdump and nvdisasm, or `pip install "
                "nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` (grade.py installs them into .venv)")


class Unreadable(Exception):
    """The program's machine code cannot be read: the checks fail closed, saying this."""


def find_tool(name, nvcc):
    """cuobjdump or nvdisasm: next to nvcc, on PATH, else from NVIDIA's wheel in this Python's
    site-packages (nvidia/cu13/bin/ for CUDA 13, nvidia/cuda_<tool>/bin/ for CUDA 12)."""
    candidates = []
    if nvcc:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), name))
    candidates.append(shutil.which(name))
    for root in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]} | set(sys.path):
        if root and os.path.isdir(root):
            candidates += sorted(glob.glob(os.path.join(root, "nvidia", "*", "bin", name)))
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def find_cuobjdump(nvcc):
    """cuobjdump, where nvdisasm (which `cuobjdump -sass` runs) is found too; else None."""
    return find_tool("cuobjdump", nvcc) if find_tool("nvdisasm", nvcc) else None


def disassemble(cuobjdump, path, nvcc=None):
    """`cuobjdump -sass PATH`; raises Unreadable with cuobjdump's own words."""
    # cuobjdump runs nvdisasm, which the wheels install beside it or in a folder of its own.
    folders = [os.path.dirname(cuobjdump)] + [os.path.dirname(find_tool("nvdisasm", nvcc) or cuobjdump)]
    env = dict(os.environ, PATH=os.pathsep.join(folders + [os.environ.get("PATH", "")]))
    try:
        done = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True, env=env,
                              errors="replace", timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Unreadable(f"cuobjdump -sass {path} could not run: {error}") from error
    if done.returncode != 0:
        raise Unreadable(f"cuobjdump -sass {path} failed ({done.returncode}): "
                         f"{(done.stderr or done.stdout).strip()[-400:]}; {INSTALL_HINT}")
    return done.stdout


ARCH = re.compile(r"^\s*arch\s*=\s*(sm_\w+)")


def split_by_arch(text):
    """({architecture: {mangled kernel: [Instruction]}}, [(architecture, kernel) found twice]) from
    `cuobjdump -sass` of an executable: one block per embedded cubin ("Fatbin elf code"); the PTX
    blocks ("Fatbin ptx code") hold no instructions in this listing and are passed over."""
    blocks, current = [], None
    for line in text.splitlines():
        header = line.strip()
        if header in ("Fatbin elf code:", "Fatbin ptx code:"):
            current = {"elf": header.startswith("Fatbin elf"), "arch": None, "lines": []}
            blocks.append(current)
            continue
        if current is None:
            continue
        arch = ARCH.match(line)
        if arch and current["arch"] is None:
            current["arch"] = arch.group(1)
        current["lines"].append(line)
    by_arch, twice = {}, []
    for block in blocks:
        if not block["elf"]:
            continue
        kernels = parse_sass("\n".join(block["lines"]))
        known = by_arch.setdefault(block["arch"] or "an unnamed architecture", {})
        for name, instructions in kernels.items():
            if name in known:
                twice.append((block["arch"], name))
            known[name] = instructions
    return {arch: kernels for arch, kernels in by_arch.items() if kernels}, twice


def read_program(path, nvcc):
    """({architecture: kernels}, [(architecture, kernel) found twice]) of the executable at `path`;
    raises Unreadable, saying why, when its machine code cannot be read. A kernel found twice for
    one architecture (e.g. a cubin the source embeds itself) is the checks' to refuse: which of the
    two runs cannot be told."""
    if not os.path.isfile(path):
        raise Unreadable(f"the graded program {path} is not there: build it first "
                         "(meson compile, or grade.py)")
    cuobjdump = find_cuobjdump(nvcc)
    if not cuobjdump:
        raise Unreadable(f"cuobjdump or nvdisasm was not found, so the machine code of {path} "
                         "cannot be read; " + INSTALL_HINT)
    by_arch, twice = split_by_arch(disassemble(cuobjdump, path, nvcc))
    if not by_arch:
        raise Unreadable(f"{path} holds no GPU machine code (SASS) at all")
    return by_arch, twice
