"""Lexing CUDA C++ for transform_launches.py: which characters are code (comments, string and
character literals and digit separators masked out), and small scanners over the masked text.
Only the Python standard library is used.
"""

IDENTIFIER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
RAW_STRING_PREFIXES = ("R", "LR", "uR", "UR", "u8R")
STRING_PREFIXES = ("L", "u", "U", "u8")


# ---------------------------------------------------------------------------
# Lexing: which characters are code
# ---------------------------------------------------------------------------


def mask_non_code(text):
    """Return `text` with comments and literal contents replaced by spaces.

    The result has the same length and the same newlines, so positions found
    in it are positions in `text`. Literal delimiters are blanked as well.
    """
    out = list(text)
    n = len(text)
    i = 0

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            end = i
            while end < n and not (text[end] == "\n" and text[end - 1] != "\\"):
                end += 1
            blank(i, end)
            i = end
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c == '"':
            end = _end_of_quoted(text, i, '"')
            blank(i, end)
            i = end
        elif c == "'":
            end = _end_of_quoted(text, i, "'")
            blank(i, end)
            i = end
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            i = _end_of_number(text, i)
        elif c in IDENTIFIER_CHARS:
            end = i
            while end < n and text[end] in IDENTIFIER_CHARS:
                end += 1
            word = text[i:end]
            if end < n and text[end] == '"' and word in RAW_STRING_PREFIXES:
                literal_end = _end_of_raw_string(text, end)
                blank(end, literal_end)
                i = literal_end
            elif end < n and text[end] in "\"'" and word in STRING_PREFIXES:
                literal_end = _end_of_quoted(text, end, text[end])
                blank(end, literal_end)
                i = literal_end
            else:
                i = end
        else:
            i += 1
    return "".join(out)


def _end_of_quoted(text, start, quote):
    """Index after the literal opened at `start` (stops at an unescaped newline)."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        if c == "\n":
            return i
        i += 1
    return n


def _end_of_raw_string(text, quote_index):
    """Index after R"delimiter( ... )delimiter" starting at the opening quote."""
    paren = text.find("(", quote_index)
    if paren < 0:
        return len(text)
    delimiter = text[quote_index + 1 : paren]
    end = text.find(")" + delimiter + '"', paren)
    return len(text) if end < 0 else end + len(delimiter) + 2


def _end_of_number(text, start):
    """Index after a preprocessing number; handles 1'000'000 digit separators."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c in "eEpP" and i + 1 < n and text[i + 1] in "+-":
            i += 2
        elif c in IDENTIFIER_CHARS or c == ".":
            i += 1
        elif c == "'" and i + 1 < n and text[i + 1] in IDENTIFIER_CHARS:
            i += 2
        else:
            break
    return i


# ---------------------------------------------------------------------------
# Small scanners over masked text
# ---------------------------------------------------------------------------


def skip_space_back(masked, index):
    """Largest k <= index whose character is not whitespace (or -1)."""
    while index >= 0 and (masked[index].isspace() or (masked[index] == "\\" and newline_follows(masked, index))):
        index -= 1
    return index


def newline_follows(masked, index):
    return index + 1 < len(masked) and masked[index + 1] == "\n"


def skip_space_forward(masked, index):
    n = len(masked)
    while index < n and (masked[index].isspace() or (masked[index] == "\\" and newline_follows(masked, index))):
        index += 1
    return index


def match_forward(masked, open_index):
    """Index of the bracket closing the one at open_index ((, [ or {)."""
    depth = 0
    for index in range(open_index, len(masked)):
        c = masked[index]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def match_back(masked, close_index, opener, closer):
    """Index of the `opener` matching the `closer` at close_index, or -1.

    Parenthesized groups inside are skipped whole, so template arguments such
    as `<(N > 2), int>` are matched correctly.
    """
    depth = 0
    index = close_index
    while index >= 0:
        c = masked[index]
        if c == closer:
            depth += 1
        elif c == opener:
            depth -= 1
            if depth == 0:
                return index
        elif c == ")" and closer != ")":
            index = match_back(masked, index, "(", ")")
            if index < 0:
                return -1
        elif c in ";{}":
            return -1
        index -= 1
    return -1


def line_of(text, index):
    return text.count("\n", 0, index) + 1
