#!/usr/bin/env python3
"""Turn a CUDA C++ source file into host C++ for the CPU backend.

Usage: transform_launches.py INPUT OUTPUT [--depfile FILE] [-I DIR]... [--counting]

Two CUDA constructs cannot be expressed with the macros of the backend's
cuda_runtime.h, so this build step rewrites them:

* kernel launches ``kernel<<<grid, block[, shmem[, stream]]>>>(args);``
  become a call of ``cpu_backend::detail::launch_kernel`` (see
  include/cpu_backend/launch.hpp);
* ``extern __shared__ T name[];`` becomes a pointer to the dynamic shared
  memory of the block the host thread is running.

Everything else is left as it is. Comments, string and character literals
are never touched. Line numbers are kept: every rewrite occupies as many
lines as the text it replaces, and the output starts with a #line directive
naming the input, so compiler messages and __FILE__/__LINE__ point into the
.cu file.

Quoted #includes of .cu/.cuh files found next to the including file (or in
an -I directory) are inlined, transformed the same way, between #line
directives (``#pragma once`` becomes an include guard), because such headers
often contain launches too. Other quoted #includes that resolve next to the
including file are rewritten to absolute paths, since the output file lives
in the build directory. With --depfile, a Makefile-style dependency file
lists the inlined files so the build reruns the transform when they change.

Only the Python standard library is used.
"""

import argparse
import hashlib
import os
import re
import sys

# Masking and scanning the source: cuda_lexing.py, beside this file.
from cuda_lexing import (IDENTIFIER_CHARS, line_of, mask_non_code, match_back, match_forward,
                         newline_follows, skip_space_back, skip_space_forward)

INLINED_EXTENSIONS = (".cu", ".cuh")


class TransformError(Exception):
    """A construct the transform cannot rewrite, reported like a compiler error."""

    def __init__(self, path, line, message):
        super().__init__("%s:%d: error: %s" % (path, line, message))



# ---------------------------------------------------------------------------
# Kernel launches
# ---------------------------------------------------------------------------


def _kernel_start(masked, launch_index):
    """Start of the kernel expression ending right before `<<<`, or -1.

    Accepts names, qualified names, template-ids, member access and calls:
    `k`, `ns::k`, `::k`, `k<int, 256>`, `ns::template k<T>`, `obj.fn`,
    `table[i]`, `pick_kernel(x)`.
    """
    index = skip_space_back(masked, launch_index - 1)
    start = -1
    while index >= 0:
        c = masked[index]
        if c == ">":
            opening = match_back(masked, index, "<", ">")
            if opening < 0:
                return -1
            index = skip_space_back(masked, opening - 1)
            if index < 0 or masked[index] not in IDENTIFIER_CHARS:
                return -1
            continue
        if c in ")]":
            opening = match_back(masked, index, "(" if c == ")" else "[", c)
            if opening < 0:
                return -1
            start = opening
            index = skip_space_back(masked, opening - 1)
            if index >= 0 and (masked[index] in IDENTIFIER_CHARS or masked[index] in ")]>"):
                continue
            return start
        if c in IDENTIFIER_CHARS:
            end = index
            while index >= 0 and masked[index] in IDENTIFIER_CHARS:
                index -= 1
            if masked[index + 1].isdigit():
                return -1
            start = index + 1
            word = masked[index + 1 : end + 1]
            if word in ("return", "else", "do", "case", "co_await"):
                return -1
            index = skip_space_back(masked, index)
            if index >= 1 and masked[index - 1 : index + 1] == "::":
                qualifier = index - 1
                index = skip_space_back(masked, index - 2)
                if index < 0 or (masked[index] not in IDENTIFIER_CHARS and masked[index] != ">"):
                    return qualifier  # `::kernel`
                continue
            if index >= 0 and masked[index] == ".":
                index = skip_space_back(masked, index - 1)
                continue
            if index >= 1 and masked[index - 1 : index + 1] == "->":
                index = skip_space_back(masked, index - 2)
                continue
            return start
        return start
    return start


def _config_end(masked, start):
    """Index of the `>>>` that closes a launch configuration starting at `start`.

    It is the first `>>>` outside brackets that is followed by `(`; the
    `(` test skips `>>>` that closes nested templates, as in
    `std::tuple_size<std::tuple<std::vector<int>>>::value`.
    """
    depth = 0
    index = start
    n = len(masked)
    while index < n:
        c = masked[index]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return -1
        elif c == ";" and depth == 0:
            return -1
        elif depth == 0 and masked.startswith(">>>", index):
            after = skip_space_forward(masked, index + 3)
            if after < n and masked[after] == "(":
                return index
        index += 1
    return -1


def _lost_line_breaks(text):
    """The line breaks in `text` (keeping backslash continuations) as a string."""
    breaks = []
    for index, c in enumerate(text):
        if c == "\n":
            breaks.append("\\\n" if index > 0 and text[index - 1] == "\\" else "\n")
    return "".join(breaks)


def _single_line(text):
    text = re.sub(r"\\\n", " ", text)
    return " ".join(text.split())


def _launch_replacement(kernel, config, arguments, line):
    quoted_name = kernel.replace("\\", "\\\\").replace('"', '\\"')
    probe = "::cpu_backend::detail::kernel_address<decltype(cpu_backend_probe_)>(%s)" % kernel
    parts = [
        "::cpu_backend::detail::launch_kernel(",
        "::cpu_backend::detail::launch_config(%s), " % config,
        '"%s", __FILE__, %d, ' % (quoted_name, line),
        "[&]([[maybe_unused]] auto cpu_backend_probe_) -> decltype(%s) { return %s; }, " % (probe, probe),
        "[&](const auto&... cpu_backend_args_) { %s(cpu_backend_args_...); }" % kernel,
    ]
    if arguments.strip():
        parts.append(", " + arguments)
    parts.append(")")
    return "".join(parts)


def rewrite_launches(text, masked, path):
    """Rewrite every kernel launch in `text`; returns the new text."""
    pieces = []
    copied_up_to = 0
    search_from = 0
    while True:
        launch = masked.find("<<<", search_from)
        if launch < 0:
            break
        before = skip_space_back(masked, launch - 1)
        if masked[max(0, before - 7) : before + 1] == "operator" or masked.startswith("<<<<", launch):
            search_from = launch + 3  # `operator<<<T>` or a shift, not a launch
            continue
        line = line_of(text, launch)
        start = _kernel_start(masked, launch)
        if start < 0 or start < copied_up_to:
            raise TransformError(path, line, "cannot find the kernel name before '<<<'")
        config_end = _config_end(masked, launch + 3)
        if config_end < 0:
            raise TransformError(path, line, "cannot find the '>>>(' that ends this kernel launch")
        open_paren = skip_space_forward(masked, config_end + 3)
        close_paren = match_forward(masked, open_paren)
        if close_paren < 0:
            raise TransformError(path, line, "unbalanced parentheses in the arguments of this kernel launch")
        kernel = _single_line(masked[start:launch])
        config = text[launch + 3 : config_end]
        arguments = text[open_paren + 1 : close_paren]
        replacement = _launch_replacement(kernel, config, arguments, line_of(text, start))
        replacement += _lost_line_breaks(text[start:launch]) + _lost_line_breaks(text[config_end:open_paren + 1])
        pieces.append(text[copied_up_to:start])
        pieces.append(replacement)
        copied_up_to = close_paren + 1
        search_from = close_paren + 1
    pieces.append(text[copied_up_to:])
    return "".join(pieces)


# ---------------------------------------------------------------------------
# extern __shared__
# ---------------------------------------------------------------------------

EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\b")
ALIGNMENT_SPECIFIERS = re.compile(
    r"__align__\s*\((?:[^()]|\([^()]*\))*\)"
    r"|alignas\s*\((?:[^()]|\([^()]*\))*\)"
    r"|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)"
)
UNSIZED_ARRAY = re.compile(r"^\s*(?P<type>.*?\S)\s*\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*$", re.DOTALL)


def rewrite_extern_shared(text, masked, path, counting=False):
    """Turn `extern __shared__ T name[];` into a pointer to dynamic shared memory.

    The pointer is `static thread_local`: each host thread runs one block at a
    time and owns one dynamic shared memory buffer at a fixed address, so the
    pointer is initialised once per host thread and right for every block.
    """
    pieces = []
    copied_up_to = 0
    for match in EXTERN_SHARED.finditer(masked):
        line = line_of(text, match.start())
        semicolon = masked.find(";", match.end())
        if semicolon < 0:
            raise TransformError(path, line, "cannot find the ';' ending this extern __shared__ declaration")
        declaration = masked[match.end() : semicolon]
        if "#" in declaration or "{" in declaration:
            raise TransformError(path, line, "unsupported extern __shared__ declaration (inside a macro?)")
        parsed = UNSIZED_ARRAY.match(ALIGNMENT_SPECIFIERS.sub(" ", declaration.replace("\\\n", " ")))
        if parsed is None:
            raise TransformError(
                path, line, "expected 'extern __shared__ TYPE NAME[];' (one unsized array per declaration)"
            )
        element = " ".join(parsed.group("type").split())
        name = parsed.group("name")
        replacement = (
            "static thread_local %s* const %s = static_cast<%s*>(::cpu_backend::detail::dynamic_shared_memory());"
            % (element, name, element)
        )
        if counting:  # the counting mode (counting/) must know this pointer is not shared memory
            replacement = (
                "static thread_local %s* const %s = static_cast<%s*>("
                "::cpu_backend::counting::dynamic_shared_memory_for(&%s));" % (element, name, element, name)
            )
        pieces.append(text[copied_up_to : match.start()])
        pieces.append(replacement + _lost_line_breaks(text[match.start() : semicolon]))
        copied_up_to = semicolon + 1
    pieces.append(text[copied_up_to:])
    return "".join(pieces)


# ---------------------------------------------------------------------------
# Files and #include
# ---------------------------------------------------------------------------

INCLUDE_DIRECTIVE = re.compile(r'^\s*#\s*include\s*"(?P<name>[^"]+)"')
DIRECTIVE_START = re.compile(r"^\s*#\s*include\b")
PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\b")


def line_directive(line, path):
    return '#line %d "%s"' % (line, path.replace("\\", "\\\\").replace('"', '\\"'))


class Transformer:
    def __init__(self, include_dirs, counting=False):
        self.include_dirs = list(include_dirs)
        self.counting = counting
        self.dependencies = []

    def transform_file(self, path, stack=()):
        """The transformed text of `path`, without the leading #line."""
        with open(path, encoding="utf-8", errors="surrogateescape") as source:
            text = source.read()
        if not text.endswith("\n"):
            text += "\n"
        masked = mask_non_code(text)
        text = rewrite_launches(text, masked, path)
        masked = mask_non_code(text)
        text = rewrite_extern_shared(text, masked, path, self.counting)
        return self._expand_includes(text, path, stack + (os.path.realpath(path),))

    def _resolve(self, name, including_path):
        for directory in [os.path.dirname(including_path) or "."] + self.include_dirs:
            candidate = os.path.normpath(os.path.join(directory, name))
            if os.path.isfile(candidate):
                return candidate
        return None

    def _expand_includes(self, text, path, stack):
        lines = text.split("\n")
        masked_lines = mask_non_code(text).split("\n")
        has_pragma_once = False
        for number, (line, masked) in enumerate(zip(lines, masked_lines), start=1):
            if PRAGMA_ONCE.match(masked):
                has_pragma_once = True
                lines[number - 1] = ""
                continue
            if not DIRECTIVE_START.match(masked):
                continue
            directive = INCLUDE_DIRECTIVE.match(line)
            if directive is None:
                continue
            target = self._resolve(directive.group("name"), path)
            if target is None:
                continue
            if not target.endswith(INLINED_EXTENSIONS):
                lines[number - 1] = '#include "%s"' % os.path.abspath(target).replace("\\", "/")
                continue
            self.dependencies.append(target)
            if os.path.realpath(target) in stack:
                lines[number - 1] = "// (recursive #include of %s skipped)" % directive.group("name")
                continue
            body = self.transform_file(target, stack)
            lines[number - 1] = "\n".join(
                [line_directive(1, target), body.rstrip("\n"), line_directive(number + 1, path)]
            )
        result = "\n".join(lines)
        if has_pragma_once:
            guard = "CPU_BACKEND_ONCE_" + hashlib.sha1(os.path.realpath(path).encode()).hexdigest()[:16]
            result = "#ifndef %s\n#define %s\n%s\n%s\n#endif\n" % (guard, guard, line_directive(1, path), result)
        return result


def write_depfile(depfile, output, dependencies):
    def escape(name):
        return name.replace(" ", "\\ ").replace("#", "\\#")

    names = sorted(set(dependencies) | {os.path.abspath(__file__)})
    with open(depfile, "w", encoding="utf-8") as stream:
        stream.write("%s: %s\n" % (escape(output), " ".join(escape(n) for n in names)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--depfile")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    parser.add_argument("--counting", action="store_true",
                        help="for the counting mode (counting/README.md): extern __shared__ pointers known")
    options = parser.parse_args(argv)
    transformer = Transformer(options.include_dirs, options.counting)
    try:
        body = transformer.transform_file(options.input)
    except TransformError as error:
        print(error, file=sys.stderr)
        return 1
    except OSError as error:
        print("%s: error: %s" % (options.input, error), file=sys.stderr)
        return 1
    output = line_directive(1, options.input) + "\n" + body
    with open(options.output, "w", encoding="utf-8", errors="surrogateescape") as stream:
        stream.write(output)
    if options.depfile:
        write_depfile(options.depfile, options.output, transformer.dependencies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
