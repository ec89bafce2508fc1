"""Integrity checks of a submission's lab file: its source (comments stripped) and the symbols of
its compiled object.

Three kinds of finding:
  shortcut    the work handed to a library (CUB, Thrust, cuBLAS, ...) where the lab asks for a
              hand-written kernel; the lab's score is withheld (unless --integrity report)
  tamper      reaching into the grader: its namespace, GoogleTest, its private channel, a file
              #included from elsewhere in the project, code run before main(); score withheld
  suspicious  host calls a lab file has no use for (exit, write, getenv, fork, ...); reported for
              the instructor to look at, no effect on the score
What a kernel file has no business doing (grader::probe_uses, and the same names among the
object's symbols and strings, which no macro trick hides) is PROBES: looking for compute-sanitizer
(its name, its tools, the variables and libraries it loads) and the persisting-L2 API are tampering
(the first can only mean to act differently under the race check; the second keeps the timed
inputs in the cache and changes the cache the grader's own timed runs use); reading the
environment, /proc or /sys, the loaded libraries, signalling or tracing processes, testing which
compiler or backend builds it, setting device limits or stream attributes are for review.
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
    r"vfork|exec[lv]p?e?|raise|signal|sigaction|setenv|unsetenv|putenv|"
    r"fcntl|ioctl|open|openat|creat|fopen|write|pwrite|read|pread|"
    r"close|unlink|remove|rename|mmap|mprotect|syscall|setjmp|longjmp|atexit|"
    r"at_quick_exit|prctl|chdir|setuid|setgid|socket|connect)\s*\(")
# A call named from the global namespace (`::write(`, `::std::exit(`) is the same call: the
# qualifier goes before HOST_CALLS reads the line (`x::write(` and `a.write(` stay members).
GLOBAL_QUALIFIER = re.compile(r"(?<![\w>:])::\s*")
# The runner's count of what kernels print wraps printf at link time (grader/runner/
# device_output_cpu.cpp): a name of the wrapping reaches around it.
LINK_WRAPPING = re.compile(r"(?<![\w])(__(?:real|wrap)_\w+)")
SPECIAL_PATHS = re.compile(r"/dev/")  # /proc, /sys and environ: PROBES

# rule of grader::probe_uses -> (category, what the finding says)
PROBES = {
    "sanitizer": ("tamper", "names {what}: a lab file has no reason to look for compute-sanitizer, "
                            "only to act differently under the race check"),
    "l2-persistence": ("tamper", "uses {what}: the persisting-L2 API holds data in the cache across "
                                 "the timed calls and changes the cache of the grader's own runs"),
    "environment": ("suspicious", "reads the environment ({what})"),
    "loaded-libraries": ("suspicious", "looks at the loaded libraries or looks up functions by name ({what})"),
    "other-processes": ("suspicious", "signals or traces a process ({what})"),
    "system-paths": ("suspicious", "names {what}"),
    "backend-test": ("suspicious", "tests which compiler or backend builds it ({what})"),
    "descriptors": ("suspicious", "moves, copies or makes a descriptor or standard stream ({what}): "
                                  "what kernels print, read back on the host, would carry the work there"),
    "device-settings": ("suspicious", "sets a device limit or a stream or launch attribute ({what})"),
}
# The same, among the undefined symbols of the compiled object: (rule, names).
PROBE_SYMBOLS = [
    ("environment", re.compile(r"^(?:secure_getenv|getenv|_?_?environ)$")),
    ("loaded-libraries", re.compile(r"^(?:dl(?:m?open|v?sym|addr1?|info|_iterate_phdr)|_r_debug|"
                                    r"cuGetProcAddress\w*|cudaGetDriverEntryPoint\w*)$")),
    ("other-processes", re.compile(r"^(?:kill|killpg|tgkill|tkill|sigqueue|pidfd_send_signal|"
                                   r"pidfd_open|pidfd_getfd|ptrace|process_vm_(?:read|write)v)$")),
    ("l2-persistence", re.compile(r"^cu(?:da)?CtxResetPersistingL2Cache\w*$")),
    ("descriptors", re.compile(r"^(?:dup[23]?|freopen(?:64)?|fdopen|pipe2?|memfd_create|fmemopen|"
                               r"open_w?memstream|setvbuf|setbuf|setbuffer|setlinebuf|splice|tee|"
                               r"vmsplice|socketpair|mkfifo(?:at)?|close_range|"
                               r"posix_spawn_file_actions_add(?:dup2|open))$")),
    ("device-settings", re.compile(r"^(?:cudaDeviceSetLimit|cuCtxSetLimit|cu(?:da)?StreamSetAttribute|"
                                   r"cu(?:da)?LaunchKernelEx|cu(?:da)?GraphKernelNodeSetAttribute)\w*$")),
]
# In the object's bytes: a string the code holds, however the source spelt it (S(racecheck), "\x73").
OBJECT_STRINGS = [
    ("sanitizer", re.compile(rb"compute-sanitizer|sanitizer|racecheck|synccheck|memcheck|initcheck|"
                             rb"treelauncher|cuda_injection\w*|injection|ld_preload|ld_audit", re.I)),
    ("system-paths", re.compile(rb"/(?:proc|sys)/")),
]

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
    for use in scanned.get("probes", []):
        category, text = PROBES[use["rule"]]
        found.append(finding(category, use["rule"], f"line {use['line']}: " + text.format(what=use["what"]),
                             "source"))
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
        for match in LINK_WRAPPING.finditer(code):
            found.append(finding("tamper", "grader-api", f"{where}: names {match.group(1)}, the "
                                 "grader's wrapping of what kernels print", "source"))
        for match in HOST_CALLS.finditer(GLOBAL_QUALIFIER.sub(" ", code)):
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
        elif kind == "U" and name.startswith(("grader::", "testing::", "__real_", "__wrap_")):
            found.append(finding("tamper", "grader-api", f"calls {name[:120]}", "symbols"))
        elif kind == "U":
            bare = name.split("@")[0]
            for rule, names in PROBE_SYMBOLS:
                if names.match(bare):
                    category, text = PROBES[rule]
                    found.append(finding(category, rule, "the compiled code " + text.format(what=bare),
                                         "symbols"))
    if libraries:
        readable = sorted(set(libraries), key=lambda n: (not re.match(r"(cub|thrust|cutlass)::", n), n))
        shown = "; ".join(n[:100] for n in readable[:2])
        found.append(finding("shortcut", "library",
                             f"{len(set(libraries))} library symbol(s) in the compiled code, e.g. {shown}",
                             "symbols"))
    return found


def object_findings(objects):
    """PROBES among the strings the compiled objects hold (read from their bytes)."""
    found = []
    for path in objects or []:
        try:
            with open(path, "rb") as f:
                data = f.read(64 << 20)
        except OSError:
            continue
        for text in re.findall(rb"[\x20-\x7e]{4,}", data):
            for rule, pattern in OBJECT_STRINGS:
                match = pattern.search(text)
                if match:
                    category, words = PROBES[rule]
                    what = '"' + text.decode()[:60] + '"'
                    item = finding(category, rule, "the compiled code " + words.format(what=what),
                                   "symbols")
                    if item not in found:
                        found.append(item)
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
    # A rule the source already shows needs no second word from the compiled code.
    shown = {(f["category"], f["rule"]) for f in kept if f["where"] == "source"}
    return [f for f in kept if f["where"] != "symbols" or f["rule"] not in PROBES
            or (f["category"], f["rule"]) not in shown]


def withholds_score(findings):
    return any(f["category"] in ("shortcut", "tamper") for f in findings)


def summary(findings):
    """One line for reports: 'library shortcut: line 9: cub::DeviceHistogram; ...'."""
    labels = {"shortcut": "library shortcut", "tamper": "grader tampering", "suspicious": "suspicious"}
    order = list(labels)  # what withholds the score first
    parts = [f"{labels[f['category']]}: {f['detail']}"
             for f in sorted(findings, key=lambda f: order.index(f["category"]))]
    return "; ".join(parts[:3]) + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")
