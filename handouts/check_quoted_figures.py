#!/usr/bin/env python3
"""Every figure a handout or answer key attributes to a generated table is in that table.

The generated tables: `handouts/benchmark.md`, whose tables bench_markdown.py writes from the
benchmark's JSON, and the Nsight Compute tables beside it (figures/bench/h100_profile.csv and
h200_profile.csv, written by profile_references.py). A handout names them with `benchmark.md`,
`kernel_benchmark` or "the benchmark" ("the workbook benchmark", "the benchmark's v7", "Measured by
the benchmark"). The sweeps' CSV in figures/sweeps/ are not checked: they were converted by hand from
printed tables, and the handouts' sweep tables carry ratios computed from them.

How an attribution is recognised. Each handout and answer key (NN-*.md) is cut into passages:
paragraphs (lines up to a blank line), list items and tables; code blocks are left out. A passage is
cut into sentences (". ", "? " or "! " before a capital, a parenthesis, bold or code text).
  1. A sentence that names the benchmark attributes to it every figure of that sentence.
  2. The paragraph right above a table is its caption (with the heading right above that paragraph,
     if there is one): when it names the benchmark, every figure of
     the table but those of its first column (which names the rows) is attributed to it, each
     figure's context being the caption, the table's header and the figure's row.

What counts as a figure: a number with one decimal point (2.8416, 95.5, 0.94), and a whole number
written with a unit (64 %, 4×, 12 ms, 7 µs), outside code spans, link targets, struck text (~~...~~)
and HTML comments (where a figure waits for a GPU run). Not figures: versions (580.159.04, CUDA 13.0),
dates, times of day, powers (2^25), names (v11, H100, sm_90), a product's factors (2 × 1024); and a
number right after "≈", "=", "~" or "about" (or a range that starts there, "≈ 92–93 %"): a figure
the writer computed or rounded, which the table need not hold (the sign tells the reader so too).

When a figure is found. The benchmark's tables are read cell by cell: each number with the GPU of
its section or column (None in a table of both) and the name of its row (`lab03 v2 shared
grid-stride`, `CUB HistogramEven`; the profile's and the targets' kernel column). A figure is found
when a cell holds the same value written to the same decimals ("0.94" is "0.94×", not "0.9412" or
"0.9"), on the same GPU (in prose, the one GPU the figure's clause names, if it names one: clauses
end at ";", ", ", "and", "against"; in a table, the GPU of the row's first cell or of the column's
header), in a row the figure's context names:
  - the row's version (v2), when its name has one;
  - the family its name starts with (letters, bytes, 4096, scan, equalize, 2^20; a lab's own rows,
    `lab03 ...`, need no name in that lab's handouts, nor the benchmark's scans in lab 05's);
  - for a row without a version, one word of its name that sets it apart (read, copy, baseline,
    CUB, remap).
So "v6 at 0.95× CUB" is looked for in the rows of v6 alone. Quote the table's own digits: a rounded
figure would match too many cells to show that it came from the right one.

Usage: check_quoted_figures.py [HANDOUTS_DIR]   (default: the folder of this script)
Exit status 0 with a summary line when every attributed figure is found, 1 with FILE:LINE lines.
"""
import argparse
import csv
import io
import re
import sys
from decimal import Decimal
from pathlib import Path

# Reading Markdown (code spans, fences, links, list items): markdown_prose.py beside this script.
from markdown_prose import CODE_SPAN, FENCE, INLINE_LINK, LIST_ITEM  # noqa: E402

BENCHMARK_NAMES = re.compile(r"benchmark\.md|\bkernel_benchmark\b|\b[Tt]he (?:workbook )?benchmark\b")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*`_\[])")
# A number: digits with dots between them, not glued to a word, a dot, a caret, a slash or a hyphen.
NUMBER = re.compile(r"(?<![\w.^/\-])[−-]?\d+(?:\.\d+)*(?![\w^]|\.\d)")
UNIT_AFTER = re.compile(r"×|\s?(%|ms\b|µs\b)")
NOT_QUOTED_BEFORE = re.compile(r"(≈|=|~|\babout|\bCUDA|\bCCCL|\bruntime|\bPCIe)\s*(\d+(\.\d+)?\s*[–/]\s*)?$")
HIDDEN = re.compile(r"<!--.*?-->|~~.*?~~", re.S)
TABLE_VALUE = re.compile(r"(?<![\w.^/])[−-]?\d+(?:\.\d+)?(?![\w^]|\.\d)")
GPU = re.compile(r"\bH[12]00\b")
CLAUSE_END = re.compile(r";|,\s|\band\b|\bagainst\b")
VERSION = re.compile(r"(?<![\w-])v\d+(?!\w)")
# Families of benchmark rows that a lab's handouts need not name: lab 05 is all scans.
OWN_FAMILIES = {"lab05": ("scan",)}
# Words of a row's name that do not tell one row from another.
COMMON_WORDS = {"grader", "the", "of", "a", "an", "and", "by", "on", "to", "histogram", "bins", "bin"}


def blank(match):
    """The match with every character but newlines turned to spaces: offsets stay where they were."""
    return re.sub(r"[^\n]", " ", match.group(0))


def blank_target(m):
    """A link with its target blanked: the label is prose, the target is not."""
    start, end = m.start(3) - m.start(0), m.end(3) - m.start(0)
    return m.group(0)[:start] + " " * (end - start) + m.group(0)[end:]


def without_code(text):
    """The text with code spans, HTML comments, struck text and link targets blanked, offsets kept."""
    return INLINE_LINK.sub(blank_target, CODE_SPAN.sub(blank, HIDDEN.sub(blank, text)))


def passages(text):
    """(kind, first line number, lines) for each paragraph, list item and table; code left out."""
    found, current, kind, fence, previous_blank = [], [], None, None, True
    for number, line in enumerate(text.split("\n"), 1):
        marker = FENCE.match(line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and not line.strip().strip(fence[0]):
                fence = None
            continue
        is_table = line.lstrip().startswith("|")
        starts_new = (marker or not line.strip() or is_table != (kind == "table")
                      or (LIST_ITEM.match(line) and not is_table) or line.startswith("#"))
        if starts_new and current:
            found.append((kind, current[0][0], [text_line for _, text_line in current]))
            current, kind = [], None
        if marker:
            fence = marker.group(1)
        elif not line.strip():
            previous_blank = True
        elif previous_blank and line.startswith("    ") and not kind:
            continue  # an indented code block
        else:
            kind = kind or ("table" if is_table else "heading" if line.startswith("#") else "text")
            current.append((number, line))
            previous_blank = False
    if current:
        found.append((kind, current[0][0], [text_line for _, text_line in current]))
    return found


def figures(clean):
    """(offset, figure) for each figure of a text whose code is blanked."""
    out = []
    for m in NUMBER.finditer(clean):
        token = m.group(0).replace("−", "-")
        after, before = clean[m.end():], clean[:m.start()]
        if token.count(".") > 1 or NOT_QUOTED_BEFORE.search(before):
            continue  # a version, or a figure the writer computed
        if "." not in token and (not UNIT_AFTER.match(after) or re.match(r"\s×\s", after)):
            continue  # a count, a name or a product's factor, not a figure
        out.append((m.start(), token))
    return out


def last_gpu(text):
    found = GPU.findall(text)
    return found[-1] if found else None


def clause_gpu(sentence, offset):
    """The GPU of a figure in prose: the one GPU its clause names (clauses end at ";", ", ", "and",
    "against"), else None ("H100 95.5 %; H200 91.7 %", "1.00× on an H100 and 0.99× on an H200")."""
    bounds = [0] + [m.end() for m in CLAUSE_END.finditer(sentence)] + [len(sentence) + 1]
    for start, end in zip(bounds, bounds[1:]):
        if start <= offset < end:
            found = set(GPU.findall(sentence[start:end]))
            return found.pop() if len(found) == 1 else None
    return None


class Cell:
    """One number of a generated table: its value, the GPU it was measured on (None: either) and the
    name of its row (a benchmark row: `lab03 v2 shared grid-stride`, `CUB HistogramEven`)."""

    def __init__(self, token, gpu, name):
        self.value = Decimal(token.replace("−", "-").lstrip("-"))
        self.gpu, self.name = gpu, name


def split_row(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def benchmark_cells(text):
    """Every number of every table of benchmark.md, with its GPU and row name; the prose is left out."""
    cells, gpu, header = [], None, None
    for line in text.split("\n"):
        if line.startswith("#"):
            found = GPU.findall(line)
            gpu = found[0] if line.startswith("### ") and len(found) == 1 else None
        if not line.startswith("|"):
            header = None
            continue
        row = split_row(line)
        if header is None or set(line) <= set("|-: "):
            header = header or row
            continue
        first = header[0].lower()
        name_column = 1 if first == "group" else len(row) - 1 if first == "target" else 0
        for column, cell in enumerate(row):
            if column == name_column or (first == "group" and column < 3):
                continue
            column_gpu = last_gpu(header[column]) if column < len(header) else None
            cells += [Cell(token, gpu or column_gpu, row[name_column]) for token in TABLE_VALUE.findall(cell)]
    return cells


def profile_cells(text, gpu):
    """Every number of a profile CSV (profile_references.py): Nsight Compute's figures per kernel."""
    cells = []
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 3 or row[0] == "row":
            continue
        parts = [part.strip() for part in row[0].split("|")]
        name = parts[1] if len(parts) > 1 else row[0]
        cells += [Cell(token, gpu, name) for field in row[2:] for token in TABLE_VALUE.findall(field)]
    return cells


def benchmark_index(handouts_dir):
    """The benchmark's cells by value."""
    cells = benchmark_cells((handouts_dir / "benchmark.md").read_text(encoding="utf-8"))
    for gpu in ("H100", "H200"):
        path = handouts_dir / "figures" / "bench" / (gpu.lower() + "_profile.csv")
        cells += profile_cells(path.read_text(encoding="utf-8"), gpu)
    index = {}
    for cell in cells:
        index.setdefault((cell.value, cell.value.as_tuple().exponent), []).append(cell)
    return index


def names_row(name, context, lab):
    """True when the context of a figure names this row (the module docstring says how)."""
    words = name.split()
    family = words[0] if words else ""
    lowered = context.lower()
    if re.fullmatch(r"lab\d\d", family) or family in OWN_FAMILIES.get(lab, ()):
        if family not in (lab, *OWN_FAMILIES.get(lab, ())) and family not in lowered:
            return False
    elif family not in ("grader", "CUB") and not re.search(r"(?<![\w^])" + re.escape(family.lower()), lowered):
        return False
    versions = VERSION.findall(name)
    if versions:
        return any(re.search(r"(?<![\w-])" + v + r"(?!\w)", context) for v in versions)
    own = {w for w in re.split(r"[^a-z0-9]+", name.lower()) if w and not w.isdigit()}
    own -= COMMON_WORDS | {family.lower()}
    return not own or any(re.search(r"(?<![a-z])" + re.escape(w), lowered) for w in own)


def attributed(text):
    """(line, figure, gpu, context) for every figure the text attributes to the benchmark."""
    out, caption, heading = [], None, ""
    for kind, first, lines in passages(text):
        raw = "\n".join(lines)
        if kind == "heading":
            heading, caption = raw, None
            continue
        if kind == "table":
            header = lines[0]
            for number, row in enumerate(lines[2:] if caption else [], 2):
                cells = split_row(row)
                offsets = [m.start() for m in re.finditer(r"\|", row.strip())]
                context = "\n".join([caption, header, row])
                for offset, fig in figures(without_code(row.strip())):
                    column = max(sum(1 for o in offsets if o < offset) - 1, 0)
                    if column == 0:
                        continue  # the first column names the row
                    header_cells = split_row(header)
                    gpu = last_gpu(cells[0]) or (last_gpu(header_cells[column])
                                                 if column < len(header_cells) else None)
                    out.append((first + number, fig, gpu, context))
            caption = None
            continue
        clean = without_code(raw)
        start = 0
        for end in [m.start() for m in SENTENCE_END.finditer(clean)] + [len(clean)]:
            sentence = raw[start:end]
            if BENCHMARK_NAMES.search(sentence):
                for offset, fig in figures(clean[start:end]):
                    line = first + clean.count("\n", 0, start + offset)
                    out.append((line, fig, clause_gpu(sentence, offset), sentence))
            start = end
        caption = heading + "\n" + raw if BENCHMARK_NAMES.search(heading + "\n" + raw) else None
        heading = ""
    return out


def check(handouts_dir):
    """FILE:LINE problems, and how many attributed figures were checked."""
    index = benchmark_index(handouts_dir)
    problems, checked = [], 0
    for path in sorted(handouts_dir.glob("[0-9][0-9]-*.md")):
        lab = "lab" + path.name[:2]
        for line, fig, gpu, context in attributed(path.read_text(encoding="utf-8")):
            checked += 1
            value = Decimal(fig.lstrip("-"))
            cells = index.get((value, value.as_tuple().exponent), [])
            if not any((gpu is None or cell.gpu in (None, gpu)) and names_row(cell.name, context, lab)
                       for cell in cells):
                where = f" on the {gpu}" if gpu else ""
                rows = sorted({cell.name for cell in cells if gpu is None or cell.gpu in (None, gpu)})
                hint = f" (it is in: {'; '.join(rows[:3])})" if rows else ""
                problems.append(f"{path.name}:{line}: {fig}{where} is attributed to benchmark.md, whose "
                                f"rows named around it do not hold it{hint}")
    return problems, checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("handouts_dir", nargs="?", default=str(Path(__file__).resolve().parent))
    args = parser.parse_args()
    problems, checked = check(Path(args.handouts_dir))
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} of {checked} figures attributed to benchmark.md are not in it; quote its "
              "own digits from the row the text names (this script's docstring says how figures are matched)")
        return 1
    print(f"ok: {checked} figures attributed to benchmark.md, each in a row its text names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
