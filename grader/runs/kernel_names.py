"""A kernel's name, read one way everywhere: by the technique checks (which kernels of a program's
machine code a check reads), by their launch gate (which of those the tests launched,
runs/scoring.py) and by their evidence (what those kernels executed, technique/evidence.py).

A symbol is Itanium-mangled (_Z6kernelPi, _ZN5lab046kernelEPi, _ZN5lab0456_GLOBAL__N__..._6kernelE...)
or plain (an extern "C" kernel, a demangled name, or the name a CPU-backend launch gives). Its
identifier is the kernel's own name: the last length-prefixed name of its nesting, read exactly,
so `a16histogram_kernel` is not `histogram_kernel`, and a hash before the length is not part of it.
"""
import re


def identifier(symbol):
    """The kernel's own name in a symbol as CUPTI records it: Itanium-mangled (_Z6kernelPi,
    _ZN5lab046kernelEPi, _ZN5lab0456_GLOBAL__N__..._6kernelE...: the last length-prefixed name of
    the nesting, read exactly, so `a16histogram_kernel` is not `histogram_kernel`), or plain (an
    extern "C" kernel, or a demangled name)."""
    if not symbol.startswith("_Z"):
        return symbol.split("(")[0].split("<")[0].split("::")[-1]
    i = 2 + (symbol[2:3] == "L")
    nested = symbol[i:i + 1] == "N"
    i += nested
    while nested and symbol[i:i + 1] in ("r", "V", "K"):
        i += 1
    name = ""
    while i < len(symbol) and symbol[i].isdigit():
        digits = re.match(r"\d+", symbol[i:]).group()
        i += len(digits)
        name, i = symbol[i:i + int(digits)], i + int(digits)
        if not nested:
            break
    return name


def same_kernel(read, launched):
    """Whether the kernel a check read (a mangled symbol, or a short name) is the one launched:
    the same symbol when both are mangled; else the same identifier."""
    if read.startswith("_Z") and launched.startswith("_Z"):
        return read == launched
    return identifier(read) == identifier(launched)
