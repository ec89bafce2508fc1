"""Integrity checks of a submission's lab file: its source (comments stripped) and the symbols of
its compiled object.

Three kinds of finding:
  shortcut    the work handed to a library (CUB, Thrust, cuBLAS, ...) where the lab asks for a
              hand-written kernel; the lab's score is withheld (unless --integrity report)
  tamper      reaching into the grader: its namespace, GoogleTest, its private channel, a file
              #included from elsewhere in the project, code run before main(); score withheld
  suspicious  host calls a lab file has no use for (exit, write, getenv, fork, ...); reported for
              the instructor to look at, no effect on the score
Anything the lab's reference solution does itself is allowed in that lab (it is checked the same
way, and its findings are subtracted), so a lab that permits a library needs no rule here.

The comment stripping and the CUB/Thrust rule are the grader's own (grader/core/source_rules.hpp),
through grader/batch/source_scan.cpp, so a lab's tests and this tool agree on them.
"""
import json
import re
import shutil
import subprocess

LIBRARIES = r"(?:cublas|cusparse|cufft|curand|cusolver|cudnn|cutensor|nvjpeg|cutlass|npp[a-z])"
LIBRARY_CALL = re.compile(r"(?<![\w.>])(" + LIBRARIES + r"\w*)\s*(?:\(|::)")
LIBRARY_NAMESPACE = re.compile(r"\busing\s+namespace\s+(?:::)?(cub|thrust)\b|"
                               r"\bnamespace\s+\w+\s*=\s*(?:::)?(cub|thrust)\b")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])\s*([^>"]*)[>"]')
LIBRARY_HEADER = re.compile(r"^(?:cub|thrust|" + LIBRARIES + r")", re.I)
GRADER_API = re.compile(r"(?<![\w])(grader|testing)\s*::")
TEST_MACROS = re.compile(r"\b(GTEST_\w+|TEST(?:_F|_P)?\s*\(|(?:EXPECT|ASSERT)_[A-Z_]+|ADD_FAILURE|"
                         r"RecordProperty)")
CONSTRUCTOR_ATTR = re.compile(r"__attribute__\s*\(\(\s*(?:__)?constructor")
GRADER_VARIABLE = re.compile(r"\bGRADER_[A-Z_]+")
HOST_CALLS = re.compile(
    r"(?<![\w.>:])(?:std\s*::\s*)?(exit|_exit|_Exit|quick_exit|abort|terminate|system|popen|fork|"
    r"vfork|exec[lv]p?e?|kill|raise|signal|sigaction|setenv|unsetenv|putenv|getenv|"
    r"secure_getenv|dup[23]?|fcntl|ioctl|open|openat|creat|fopen|freopen|write|pwrite|read|pread|"
    r"close|unlink|remove|rename|mmap|mprotect|ptrace|syscall|dlopen|dlsym|setjmp|longjmp|atexit|"
    r"at_quick_exit|prctl|chdir|setuid|setgid|socket|connect)\s*\(")
SPECIAL_PATHS = re.compile(r"/proc/|/dev/|\benviron\b")

SYMBOL_LIBRARY = re.compile(r"(?:^|[^\w])(?:cub|thrust|cutlass)::|^_?" + LIBRARIES, re.I)
STRONG_DEFINED = set("TDBRGSC")


def finding(category, rule, detail, where):
    return {"category": category, "rule": rule, "detail": detail, "where": where}


def scan_sources(scanner, paths):
    """{path: {"forbidden": [...], "stripped": text}} from the grader's source scanner."""
    done = subprocess.run([scanner] + list(paths), capture_output=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"source scanner failed: {done.stderr.decode(errors='replace')[-500:]}")
    data = json.loads(done.stdout.decode("utf-8", "replace"))
    return {entry["path"]: entry for entry in data["files"]}


def source_findings(raw_text, scanned, allowed_headers):
    found = [finding("shortcut", "library", f"{use} (the lab asks for a hand-written kernel)",
                     "source") for use in scanned.get("forbidden", [])]
    raw_lines = raw_text.splitlines()
    for number, code in enumerate(scanned.get("stripped", "").splitlines(), 1):
        raw = raw_lines[number - 1] if number - 1 < len(raw_lines) else ""
        where = f"line {number}"
        include = INCLUDE.match(raw) if "include" in code else None
        if include:
            quote, path = include.group(1), include.group(2).strip()
            if LIBRARY_HEADER.match(path) and not path.lower().startswith(("cub/", "thrust/")):
                found.append(finding("shortcut", "library", f"{where}: #include <{path}>", "source"))
            elif quote == '"' and path not in allowed_headers:
                found.append(finding("tamper", "include",
                                     f'{where}: #include "{path}": only the lab\'s own headers may '
                                     "be included with quotes", "source"))
            elif quote == "<" and (path.startswith("/") or ".." in path or
                                   re.match(r"(grader|gtest|gmock|labs|solutions|starter)\b", path)):
                found.append(finding("tamper", "include", f"{where}: #include <{path}>", "source"))
            continue
        for match in LIBRARY_CALL.finditer(code):
            found.append(finding("shortcut", "library", f"{where}: {match.group(1)}", "source"))
        for match in LIBRARY_NAMESPACE.finditer(code):
            found.append(finding("shortcut", "library",
                                 f"{where}: namespace {match.group(1) or match.group(2)}", "source"))
        for match in GRADER_API.finditer(code):
            what = "the grader's code" if match.group(1) == "grader" else "GoogleTest"
            found.append(finding("tamper", "grader-api", f"{where}: uses {what} ({match.group(0)})",
                                 "source"))
        for match in TEST_MACROS.finditer(code):
            found.append(finding("tamper", "grader-api",
                                 f"{where}: uses GoogleTest ({match.group(1).rstrip('( ')})", "source"))
        if CONSTRUCTOR_ATTR.search(code):
            found.append(finding("tamper", "before-main",
                                 f"{where}: __attribute__((constructor)) runs code before the grader",
                                 "source"))
        for match in HOST_CALLS.finditer(code):
            found.append(finding("suspicious", "host-call", f"{where}: calls {match.group(1)}()",
                                 "source"))
        if SPECIAL_PATHS.search(raw) and not raw.lstrip().startswith("//"):
            found.append(finding("suspicious", "host-call",
                                 f"{where}: names {SPECIAL_PATHS.search(raw).group(0)}", "source"))
        variable = GRADER_VARIABLE.search(raw)
        if variable and not raw.lstrip().startswith("//"):
            found.append(finding("tamper", "grader-api",
                                 f"{where}: names the grader's variable {variable.group(0)}", "source"))
    return found


def nm_symbols(objects):
    """[(type letter, demangled name)] of the objects; None when nm is not installed."""
    nm = shutil.which("nm")
    if not nm or not objects:
        return None
    done = subprocess.run([nm, "-C"] + list(objects), capture_output=True, text=True,
                          errors="replace", timeout=120)
    symbols = []
    for line in done.stdout.splitlines():
        match = re.match(r"^\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z?])\s+(.+)$", line)
        if match and not line.endswith(":"):
            symbols.append((match.group(1), match.group(2).strip()))
    return symbols


def symbol_findings(symbols):
    found, libraries = [], []
    for kind, name in symbols or []:
        if SYMBOL_LIBRARY.search(name):
            libraries.append(name)
        elif kind in STRONG_DEFINED and (name.startswith(("grader::", "testing::")) or name == "main"):
            found.append(finding("tamper", "defines-grader-symbol",
                                 f"defines {name[:120]} (replaces the grader's own code)", "symbols"))
        elif kind == "U" and name.startswith(("grader::", "testing::")):
            found.append(finding("tamper", "grader-api", f"calls {name[:120]}", "symbols"))
    if libraries:
        readable = sorted(set(libraries), key=lambda n: (not re.match(r"(cub|thrust|cutlass)::", n), n))
        shown = "; ".join(n[:100] for n in readable[:2])
        found.append(finding("shortcut", "library",
                             f"{len(set(libraries))} library symbol(s) in the compiled code, e.g. {shown}",
                             "symbols"))
    return found


def _key(item):
    return item["category"], item["rule"], re.sub(r"^line \d+: ", "", item["detail"])


def calibrate(findings, reference_findings):
    """Drop what the reference solution does too: the lab allows it."""
    allowed = {_key(f) for f in reference_findings}
    allowed_rules = {(f["category"], f["rule"]) for f in reference_findings if f["where"] == "symbols"}
    kept = []
    for item in findings:
        if _key(item) in allowed:
            continue
        if item["where"] == "symbols" and (item["category"], item["rule"]) in allowed_rules:
            continue
        kept.append(item)
    return kept


def withholds_score(findings):
    return any(f["category"] in ("shortcut", "tamper") for f in findings)


def summary(findings):
    """One line for reports: 'library shortcut: line 9: cub::DeviceHistogram; ...'."""
    labels = {"shortcut": "library shortcut", "tamper": "grader tampering", "suspicious": "suspicious"}
    parts = [f"{labels[f['category']]}: {f['detail']}" for f in findings]
    return "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")
