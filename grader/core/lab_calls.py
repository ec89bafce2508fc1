#!/usr/bin/env python3
"""Writes a lab's call table, labNN_calls.cu, from the lab's header (labs/meson.build runs it).

Usage: lab_calls.py HEADER --output labNN_calls.cu [--namespace labNN]

The graded functions are the functions the header declares without a body in its namespace (labNN,
from the file name: lab05_scan_warps.cuh -> lab05); the student's file defines them. The output,
built into the lab's runner (GRADER_RUNNER_SIDE), lists them by name (GRADER_RUNNER_TABLE); built
into the checker it defines each one as a call_student() into the runner
(grader/core/student_code.hpp); built with GRADER_KNOWN_WRONG_TABLE (the known-wrong kernels'
runners) it takes the functions as weak references, so such a file defines only what it breaks.
Also derived from the header: PointerMembers for each struct a
graded function takes by value that holds device pointers (they travel like pointer arguments), and
GRADER_STUDENT_EXCEPTION for each exception class the header defines (it crosses back as itself).
Skipped: definitions (inline, constexpr, __device__ functions), kernels, constants, types. A
declaration it cannot turn into a call is an error that names the header's line.
"""
import argparse
import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_]\w*"
# Types that hold no pointer; anything else taken by value must be a struct or enum of the header.
PLAIN_TYPES = {"void", "bool", "char", "signed", "unsigned", "short", "int", "long", "float",
               "double", "size_t", "std::size_t", "std::ptrdiff_t", "ptrdiff_t"} | {
    f"{ns}{sign}int{bits}_t" for ns in ("", "std::") for sign in ("", "u") for bits in (8, 16, 32, 64)}
STD_EXCEPTIONS = {f"std::{name}" for name in (
    "exception", "logic_error", "invalid_argument", "domain_error", "length_error", "out_of_range",
    "runtime_error", "range_error", "overflow_error", "underflow_error")}
SKIPPED_WORDS = {"using", "typedef", "static_assert", "constexpr", "inline", "static", "extern",
                 "__global__", "__device__", "namespace", "enum", "union"}


class HeaderError(Exception):
    """A declaration the generator cannot turn into a call: the message names the header's line."""


def blank_comments(text):
    """The text with comments, string and character literals and preprocessor lines blanked to
    spaces (newlines kept, so offsets still give line numbers)."""
    out, i, n = list(text), 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            end = i
            while end < n and (text[end] != "\n" or text[end - 1] == "\\"):
                end += 1
            start, i = i, end
        elif text.startswith("//", i):
            start, i = i, text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            start, i = i, (n if end < 0 else end + 2)
        elif c in "\"'":
            end = i + 1
            while end < n and text[end] != c:
                end += 2 if text[end] == "\\" else 1
            for k in range(i + 1, min(end, n)):  # the quotes stay: a literal remains one token
                out[k] = " " if out[k] != "\n" else "\n"
            i = end + 1
            at_line_start = False
            continue
        else:
            if not c.isspace():
                at_line_start = False
            elif c == "\n":
                at_line_start = True
            i += 1
            continue
        for k in range(start, i):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def statements(text, begin, end):
    """(offset, statement) for each statement of text[begin:end] at its own brace level: ended by a
    ';' outside brackets, or by the '}' closing a body that needs no ';' (a function, a namespace)."""
    found, depth, start = [], 0, begin
    for i in range(begin, end):
        c = text[i]
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if c == "}" and depth == 0:
                head = text[start:text.find("{", start)]
                if "=" not in head and not re.match(r"\s*(struct|class|union|enum)\b", head):
                    found.append((start, text[start:i + 1]))
                    start = i + 1
        elif c == ";" and depth == 0:
            found.append((start, text[start:i + 1]))
            start = i + 1
    return [(offset + len(s) - len(s.lstrip()), s.strip()) for offset, s in found if s.strip()]


def split_top(text, separator):
    """text split at each separator outside (), <>, {}, []."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "(<{[":
            depth += 1
        elif c in ")>}]":
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def squeeze(text):
    return re.sub(r"\s*([*&]+|,)\s*", r"\1 ", re.sub(r"\s+", " ", text)).replace(" ,", ",").strip()


def name_and_type(declaration, what, line):
    """(name, type) of `const int* d_in` or `WarpActivity activity = {}` (the default dropped)."""
    text = squeeze(split_top(declaration, "=")[0])
    if "[" in text or "(" in text:
        raise HeaderError(f"line {line}: {what} `{text}` is an array or a function: pass a pointer")
    match = re.fullmatch(rf"(.*?[\s*&])({IDENT})", text)
    if not match or match.group(2) in PLAIN_TYPES or not match.group(1).strip() \
            or match.group(1).rstrip().endswith("::"):
        raise HeaderError(f"line {line}: {what} `{text}` has no name: the checker's side "
                          f"forwards each parameter by its name")
    return match.group(2), squeeze(match.group(1))


def parse_function(statement, line):
    """{'name', 'returns', 'parameters': [(type, name)]} of `R name(T a, U b = x);`."""
    opening = statement.find("(")
    depth = 0
    for closing in range(opening, len(statement)):
        depth += {"(": 1, ")": -1}.get(statement[closing], 0)
        if depth == 0:
            break
    head, inside, tail = statement[:opening], statement[opening + 1:closing], statement[closing + 1:]
    if tail.strip() not in (";", "noexcept;"):
        raise HeaderError(f"line {line}: cannot read `{squeeze(statement)}`: expected "
                          f"`ReturnType name(Type parameter, ...);`")
    if "operator" in head or "<" in head:
        raise HeaderError(f"line {line}: `{squeeze(head)}` is an operator or a template: the "
                          f"grader can call plain functions only")
    name, returns = name_and_type(head, "the function", line)
    parameters = []
    if squeeze(inside) not in ("", "void"):
        for parameter in split_top(inside, ","):
            parameter_name, parameter_type = name_and_type(parameter, f"a parameter of {name}", line)
            parameters.append((parameter_type, parameter_name))
    return {"name": name, "returns": returns, "parameters": parameters, "line": line}


def parse_class(statement, text, offset):
    """{'name', 'bases', 'pointers': [member names], 'line'} of a struct or class definition."""
    line = line_of(text, offset)
    match = re.match(rf"(struct|class)\s+({IDENT})\s*(?::([^{{]*))?{{", statement)
    if not match:
        raise HeaderError(f"line {line}: cannot read the type `{squeeze(statement[:60])}...`")
    bases = [squeeze(re.sub(r"\b(public|protected|private|virtual)\b", "", base))
             for base in (match.group(3) or "").split(",") if base.strip()]
    body_offset = offset + match.end()
    pointers = []
    for member_offset, member in statements(text, body_offset, offset + statement.rindex("}")):
        member_line = line_of(text, member_offset)
        member = re.sub(r"^((public|protected|private)\s*:\s*)+", "", member)
        words = re.findall(IDENT, member)
        if "(" in split_top(member, "=")[0] or not words or words[0] in SKIPPED_WORDS | {
                "public", "private", "protected", "using", "friend", "struct", "class"}:
            continue
        if "*" in member and len(split_top(split_top(member, "=")[0], ",")) > 1:
            raise HeaderError(f"line {member_line}: declare one pointer member a line")
        declaration = split_top(member.rstrip(";"), "=")[0].split("{")[0]
        member_name, member_type = name_and_type(declaration, "a member", member_line)
        if "*" in member_type:
            pointers.append(member_name)
    return {"name": match.group(2), "bases": bases, "pointers": pointers, "line": line}


def read_header(text, namespace):
    """(functions, structs by name, exception class names) of the header's namespace."""
    clean = blank_comments(text)
    opening = re.search(rf"\bnamespace\s+{namespace}\s*{{", clean)
    if not opening:
        raise HeaderError(f"no `namespace {namespace} {{` in the header")
    depth = 0
    for closing in range(opening.end() - 1, len(clean)):
        depth += {"{": 1, "}": -1}.get(clean[closing], 0)
        if depth == 0:
            break
    functions, structs, exceptions, enums = [], {}, [], set()
    for offset, statement in statements(clean, opening.end(), closing):
        line = line_of(clean, offset)
        first = re.match(r"\[\[.*?\]\]\s*|", statement).end()  # [[nodiscard]] and the like
        words = re.findall(IDENT, statement[first:])
        if words and words[0] in ("struct", "class") and "{" in statement:
            parsed = parse_class(statement, clean, offset)
            structs[parsed["name"]] = parsed
            if any(base in STD_EXCEPTIONS or base in exceptions for base in parsed["bases"]):
                exceptions.append(parsed["name"])
        elif words and words[0] == "enum":
            enums.add(words[2] if words[1] in ("class", "struct") else words[1])
        elif words and words[0] == "template":
            raise HeaderError(f"line {line}: a template cannot be called across processes: "
                              f"declare the plain functions the grader calls")
        elif not words or words[0] in SKIPPED_WORDS or statement.endswith("}"):
            continue
        elif "(" in split_top(statement, "=")[0]:
            functions.append(parse_function(statement[first:], line))
    if not functions:
        raise HeaderError(f"namespace {namespace} of the header declares no function to grade")
    return functions, structs, exceptions, enums


def travelling_structs(functions, structs, enums):
    """The structs, in the order first used, that graded functions take by value and that hold
    pointers. A by-value type the header does not define is an error: it could hide a pointer."""
    used = []
    for function in functions:
        types = [("returns", function["returns"])] + [("takes", t) for t, _ in function["parameters"]]
        for role, text in types:
            if "*" in text:
                continue
            base = squeeze(re.sub(r"\b(const|volatile|struct|class)\b|&", " ", text))
            if base in structs:
                if structs[base]["pointers"] and role == "returns":
                    raise HeaderError(f"line {function['line']}: {function['name']} returns "
                                      f"{base}, which holds pointers: they cannot travel back")
                if structs[base]["pointers"] and base not in used:
                    used.append(base)
            elif base not in enums and not set(base.split()) <= PLAIN_TYPES:
                raise HeaderError(f"line {function['line']}: {function['name']} {role} `{base}`, "
                                  f"which the header does not define: define it there, so that its "
                                  f"pointer members (if any) can be sent")
    return used


def call_table(text, namespace, header_name):
    """labNN_calls.cu's text for the header's text."""
    functions, structs, exceptions, enums = read_header(text, namespace)
    number = namespace[len("lab"):] if namespace.startswith("lab") else namespace
    out = [f"// Generated by grader/core/lab_calls.py from {header_name}: edit the header, not this.",
           f"// Lab {number}'s functions on both sides of the grader (grader/core/student_code.hpp): "
           "built into the",
           "// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into "
           "the checker",
           "// it defines each one as a call into the runner, so the checker never links the student's code.",
           f'#include "{header_name}"', "", '#include "grader/core/lab_calls.hpp"', ""]
    for name in travelling_structs(functions, structs, enums):
        members = ", ".join(f"&{namespace}::{name}::{member}" for member in structs[name]["pointers"])
        out += ["template <>", f"struct grader::runner::PointerMembers<{namespace}::{name}> {{",
                f"  static constexpr auto list = std::make_tuple({members});", "};", ""]
    exposed = [f"GRADER_EXPOSE({namespace}::{function['name']})" for function in functions]
    out += ["#ifdef GRADER_RUNNER_SIDE", "", "#ifdef GRADER_KNOWN_WRONG_TABLE",
            "// A known-wrong kernels' file defines only the functions its cases break: in its "
            "runners the",
            "// others are weak references, left null, and a call of one is refused naming it.",
            f"namespace {namespace} {{"]
    for function in functions:
        parameters = ", ".join(f"{t} {n}" for t, n in function["parameters"])
        out.append(f"__attribute__((weak)) {function['returns']} {function['name']}({parameters});")
    out += [f"}}  // namespace {namespace}", "#endif", "",
            "GRADER_RUNNER_TABLE(" + ",\n                    ".join(exposed) + ")", "", "#else", ""]
    out += [f"GRADER_STUDENT_EXCEPTION({namespace}::{name});" for name in exceptions]
    out += [""] * bool(exceptions) + [f"namespace {namespace} {{", ""]
    for function in functions:
        parameters = ", ".join(f"{t} {n}" for t, n in function["parameters"])
        arguments = "".join(f", {n}" for _, n in function["parameters"])
        out += [f"{function['returns']} {function['name']}({parameters}) {{",
                f"  return grader::call_student<{function['returns']}>(\"{namespace}::"
                f"{function['name']}\"{arguments});", "}"]
    out += ["", f"}}  // namespace {namespace}", "", "#endif", ""]
    return "\n".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("header", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--namespace", help="default: the header's name up to its first _")
    args = parser.parse_args(argv)
    namespace = args.namespace or args.header.name.split("_")[0]
    try:
        table = call_table(args.header.read_text(), namespace, args.header.name)
    except HeaderError as error:
        print(f"{args.header}: {error}", file=sys.stderr)
        return 1
    args.output.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
