"""Reads a handout's Markdown without a Markdown library, for render_handouts.py --check: its prose
with code left out, its links and images, and the question labels that would share a paragraph.
Standard library only."""
import html
import re
import urllib.parse
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^ {0,3}([-+*]|\d{1,9}[.)])(\s|$)")
CODE_SPAN = re.compile(r"(`+)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.S)
INLINE_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
HTML_REFERENCE = re.compile(r"<(img|a)\b[^>]*?\b(?:src|href)\s*=\s*([\"'])(.*?)\2", re.I | re.S)
URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def prose_only(text):
    """The Markdown with code blocks and spans blanked, newlines kept (a link shown as code is no link)."""
    out, fence, previous, in_list = [], None, "blank", False
    for line in text.split("\n"):
        marker = FENCE.match(line)
        if fence:  # inside a fenced block until a fence of the same character, at least as long
            closing = marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence)
            fence = None if closing and not line.strip().strip(fence[0]) else fence
        elif marker:
            fence = marker.group(1)
        elif not line.strip():
            previous = "blank"
        # An indented code block starts after a blank line (it cannot interrupt a paragraph), and not
        # inside a list, where indentation continues the list item.
        elif (line.startswith("\t") or line.startswith("    ")) and previous in ("blank", "code") and not in_list:
            previous = "code"
        else:
            in_list = bool(LIST_ITEM.match(line)) or (in_list and (previous != "blank" or line.startswith(" ")))
            previous = "prose"
            out.append(line)
            continue
        out.append("")
    return CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), "\n".join(out))


def references(text):
    """(line, target, is_image) for every link and image of a Markdown text, code left out."""
    prose = prose_only(text)
    found = [(m.start(), m.group(3).strip("<>"), m.group(1) == "!") for m in INLINE_LINK.finditer(prose)]
    found += [(m.start(1), m.group(1).strip("<>"), False) for m in REFERENCE_DEFINITION.finditer(prose)]
    found += [(m.start(), html.unescape(m.group(3)), m.group(1).lower() == "img")
              for m in HTML_REFERENCE.finditer(prose)]
    return sorted((prose.count("\n", 0, offset) + 1, target, image) for offset, target, image in found)


def local_path(target):
    """The file part of a link target ('' for an anchor in the same page); None for web addresses and mail."""
    return None if URL_SCHEME.match(target) else urllib.parse.unquote(re.split(r"[#?]", target)[0])


# A question's bold label, `**Q2.4 — Measure (15 min).**`, `**Q1.2**` or an answer key's `**Q4.1.**`.
QUESTION_LABEL = re.compile(r"\*\*Q(\d+(?:\.\d+)?)(?=[\s.*—(-])")
# Lines that end the paragraph above them in CommonMark: a heading, a list item, a quote, a table row.
STARTS_BLOCK = re.compile(r"^ {0,3}(#{1,6}(\s|$)|>|\|)")


def merged_questions(text):
    """(line, first, second) for each question label that would render in the same paragraph (or list
    item) as the label before it: lines with no blank line between them join into one paragraph."""
    merged, previous = [], None  # previous: the last label of the current paragraph
    for number, line in enumerate(prose_only(text).split("\n"), 1):
        if not line.strip() or STARTS_BLOCK.match(line) or LIST_ITEM.match(line):
            previous = None
        for label in QUESTION_LABEL.finditer(line):
            if previous and previous != label.group(1):
                merged.append((number, previous, label.group(1)))
            previous = label.group(1)
    return merged
