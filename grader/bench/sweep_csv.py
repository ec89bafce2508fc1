"""Read a lab's sweep CSV and work out what to draw; plot_sweeps.py draws it. No matplotlib here.

Every lab's sweep program writes the same layout (`labNN_sweep --csv=FILE`, grader/core/sweep_csv.hpp):

    # key: value          metadata, before the header: what to draw, on which GPU
    column,column,...     the header row
    cell,cell,...         one row per measurement

The keys (a plotter needs nothing else to know about a lab):
    lab, title, gpu, date   the figure's title: "<title> on <gpu>"
    x, y                    the columns drawn; x numeric, or text (one tick per value, in file order)
    xlabel, ylabel          the axis labels (default: the column names)
    xscale, yscale          auto (default): log when the values drawn span more than 10x, else
                            linear (y from 0); or linear, or log
    series                  a column, or a format over the columns ("{version}, {block} threads"):
                            one line per value; a row whose x is empty is drawn as a level line
    style                   a column (optional): one line style per value (solid, dashed, ...)
    panel                   a column or a format (optional): one subplot per value, in file order
    mark                    column=value (optional): those points get a red cross (result=WRONG)
    reference               repeated, "label = value": a horizontal line in the y column's unit
    anything else (note, source)  free text, not drawn
"""
import csv
import math
import string
from dataclasses import dataclass, field
from pathlib import Path

SCALES = ("auto", "linear", "log")


class SweepError(Exception):
    """A CSV that is not a sweep, or metadata that names columns the file lacks."""


@dataclass
class Sweep:
    path: Path
    meta: dict
    references: list  # [(label, value)]
    columns: list
    rows: list  # dicts, column -> text
    notes: list = field(default_factory=list)

    def get(self, key, default=""):
        return self.meta.get(key, default)

    def title(self):
        gpu = self.get("gpu")
        return f"{self.get('title', 'Sweep')} on {gpu}" if gpu else self.get("title", "Sweep")

    def field(self, key, row):
        """The value of metadata `key` (a column, or a format over columns) for one row."""
        spec = self.get(key)
        if not spec:
            return ""
        return row[spec] if "{" not in spec else spec.format_map(row)

    def x_is_numeric(self):
        return all(is_number(r[self.meta["x"]]) for r in self.rows if r[self.meta["x"]] != "")


def is_number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def format_columns(spec):
    """The columns a format such as "{version}, {block} threads" names."""
    return [name for _, name, _, _ in string.Formatter().parse(spec) if name]


def read_sweep(path):
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        raise SweepError(f"{path}: not found")
    meta, references, notes = {}, [], []
    body = 0
    for body, line in enumerate(lines):
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            continue  # a plain comment
        if key == "reference":
            label, sep, number = value.rpartition("=")
            if not sep or not is_number(number):
                raise SweepError(f"{path}: a reference line is `# reference: label = number`, not {line!r}")
            references.append((label.strip(), float(number)))
        elif key == "note":
            notes.append(value)
        else:
            meta[key] = value
    else:
        body = len(lines)
    table = list(csv.reader(lines[body:]))
    if not table or not table[0]:
        raise SweepError(f"{path}: no header row after the metadata: not a sweep CSV")
    columns = [c.strip() for c in table[0]]
    rows = []
    for number, cells in enumerate(table[1:], start=body + 2):
        if not cells:
            continue
        if len(cells) != len(columns):
            raise SweepError(f"{path}:{number}: {len(cells)} cells where the header has {len(columns)}")
        rows.append(dict(zip(columns, (c.strip() for c in cells))))
    sweep = Sweep(path, meta, references, columns, rows, notes)
    check(sweep)
    return sweep


def check(sweep):
    """Every column the metadata names exists; y is numeric; the scales are known."""
    where = sweep.path
    for key in ("x", "y"):
        if key not in sweep.meta:
            raise SweepError(f"{where}: no `# {key}: column` line: not a sweep CSV (see grader/bench/sweep_csv.py)")
    named = [sweep.meta["x"], sweep.meta["y"]]
    for key in ("series", "panel", "style"):
        spec = sweep.get(key)
        named += format_columns(spec) if "{" in spec else [spec] if spec else []
    mark = sweep.get("mark")
    if mark:
        column, sep, _ = mark.partition("=")
        if not sep:
            raise SweepError(f"{where}: `# mark:` is column=value, not {mark!r}")
        named.append(column.strip())
    missing = [c for c in named if c not in sweep.columns]
    if missing:
        raise SweepError(f"{where}: the metadata names columns the header lacks: {', '.join(missing)}")
    for key in ("xscale", "yscale"):
        if sweep.get(key, "auto") not in SCALES:
            raise SweepError(f"{where}: {key} is one of {', '.join(SCALES)}, not {sweep.get(key)!r}")
    bad = [r[sweep.meta["y"]] for r in sweep.rows if r[sweep.meta["y"]] and not is_number(r[sweep.meta["y"]])]
    if bad:
        raise SweepError(f"{where}: the y column {sweep.meta['y']} holds text: {bad[0]!r}")


def check_comparable(sweep, reference):
    """The reference run must be the same sweep: same x and y columns."""
    for key in ("x", "y"):
        if sweep.meta[key] != reference.meta[key]:
            raise SweepError(f"{reference.path} draws {key} = {reference.meta[key]}, {sweep.path} draws "
                             f"{sweep.meta[key]}: not the same sweep")


def panels(sweep):
    """[(panel name, rows)] in file order; one unnamed panel without `# panel:`."""
    out = {}
    for row in sweep.rows:
        out.setdefault(sweep.field("panel", row), []).append(row)
    return list(out.items())


@dataclass
class Series:
    label: str
    style: str
    points: list  # [(x text, y, marked)]
    levels: list  # [y]: rows without an x


def series(sweep, rows):
    """The lines of one panel, in file order: one per (series, style) pair; rows without a y skipped."""
    x, y = sweep.meta["x"], sweep.meta["y"]
    column, _, value = sweep.get("mark").partition("=")
    out = {}
    for row in rows:
        if row[y] == "":
            continue
        key = (sweep.field("series", row) or sweep.get("ylabel", y), sweep.field("style", row))
        line = out.setdefault(key, Series(key[0], key[1], [], []))
        if row[x] == "":
            line.levels.append(float(row[y]))
        else:
            line.points.append((row[x], float(row[y]), bool(column) and row[column.strip()] == value.strip()))
    return list(out.values())


def choose_scale(setting, values):
    """auto: log when the (positive) values span more than 10x, else linear."""
    if setting in ("linear", "log"):
        return setting
    values = [v for v in values if v is not None]
    if not values or min(values) <= 0:
        return "linear"
    return "log" if max(values) / min(values) > 10 else "linear"


def log_ticks(values, most=10, spacing=1.5):
    """The values themselves as ticks of a log axis when they are few and far apart enough for their
    labels not to overlap (each at least `spacing` times the one before); else None."""
    ticks = sorted({v for v in values if v > 0})
    if not ticks or len(ticks) > most:
        return None
    if any(b / a < spacing for a, b in zip(ticks, ticks[1:])):
        return None
    return ticks
