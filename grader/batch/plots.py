"""Plots for the class report: PNG through matplotlib where it is installed, else SVG written here
(no dependency), so the report has its figures on any machine."""
import html
import math
import os
import re

try:  # optional: the report does not need it
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except Exception:  # noqa: BLE001  (any import failure means: write SVG)
    plt = None

WIDTH, HEIGHT, MARGIN = 560, 260, 48


def _bins(values, low, high, count):
    width = (high - low) / count if high > low else 1.0
    counts = [0] * count
    for v in values:
        i = int((v - low) / width) if high > low else 0
        counts[min(max(i, 0), count - 1)] += 1
    return counts, width


def label(name, width=26):
    """A long CamelCase test name on a few short lines: GridStrideRunsWithin... -> 'GridStride Runs\n...'."""
    words, lines, line = re.findall(r"[A-Z]+[a-z0-9]*|[a-z0-9]+|[^A-Za-z0-9]+", name), [], ""
    for word in words:
        if line and len(line) + len(word) > width:
            lines.append(line)
            line = ""
        line += word
    return "\n".join(lines + [line])


def score_histogram(values, max_score, title, stem, use_matplotlib=True):
    """A histogram of scores from 0 to max_score (one bar per point up to 40 points); returns the
    file written."""
    high = max_score or 1
    count = int(round(high)) + 1 if high <= 40 else 20
    low, top = (-0.5, high + 0.5) if high <= 40 else (0, high)
    if plt is not None and use_matplotlib:
        from matplotlib.ticker import MaxNLocator
        fig, ax = plt.subplots(figsize=(WIDTH / 80, HEIGHT / 80), dpi=80)
        ax.hist(values, bins=count, range=(low, top), color="#4c72b0", edgecolor="white")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title), ax.set_xlabel("points"), ax.set_ylabel("students")
        return _save_png(fig, stem)
    counts, width = _bins(values, low, top, count)
    tallest = max(counts) or 1
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    bar_w = plot_w / count
    parts = [_header(title)]
    for i, c in enumerate(counts):
        h = plot_h * c / tallest
        x, y = MARGIN + i * bar_w, HEIGHT - MARGIN - h
        text = f"{low + i * width:g} to {low + (i + 1) * width:g} points: {c} student(s)"
        parts.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bar_w - 2:.1f}" height="{h:.1f}" '
                     f'fill="#4c72b0"><title>{html.escape(text)}</title></rect>')
        if c:
            parts.append(_text(x + bar_w / 2, y - 3, str(c), size=10))
    parts += _axes(low, top, "points", tallest, "students")
    return _write_svg(stem, parts)


def strip_plot(series, title, xlabel, stem, use_matplotlib=True):
    """One row per named series, one dot per value (e.g. each student's speedup)."""
    names = list(series)
    values = [v for name in names for v in series[name]]
    if not values:
        return None
    low, high = min(0.0, min(values)), max(values) * 1.1 or 1.0
    height = MARGIN * 2 + 40 * max(1, len(names))
    if plt is not None and use_matplotlib:
        fig, ax = plt.subplots(figsize=((WIDTH + 160) / 80, height / 80), dpi=80)
        for row, name in enumerate(names):
            ax.scatter(series[name], [row] * len(series[name]), alpha=0.6, color="#dd8452")
        ax.set_yticks(range(len(names)), [label(n) for n in names], fontsize=9)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.set_xlim(low, high), ax.set_title(title), ax.set_xlabel(xlabel)
        return _save_png(fig, stem)
    left = 200
    plot_w = WIDTH + 160 - left - MARGIN
    parts = [_header(title, width=WIDTH + 160, height=height)]
    for row, name in enumerate(names):
        y = MARGIN + 14 + row * 40
        for k, line in enumerate(label(name).splitlines()[:2]):
            parts.append(_text(left - 6, y + 4 + 12 * k - 6 * (len(label(name).splitlines()[:2]) - 1),
                               line, size=10, anchor="end"))
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        for v in series[name]:
            x = left + plot_w * (v - low) / (high - low)
            parts.append(f'<circle cx="{x:.1f}" cy="{y}" r="4" fill="#dd8452" fill-opacity="0.6">'
                         f'<title>{v:.4g}</title></circle>')
    bottom = height - MARGIN
    parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{bottom}" y2="{bottom}" stroke="#333"/>')
    for tick in _ticks(low, high):
        x = left + plot_w * (tick - low) / (high - low)
        parts.append(_text(x, bottom + 14, f"{tick:g}", size=10))
    parts.append(_text(left + plot_w / 2, bottom + 32, xlabel, size=11))
    return _write_svg(stem, parts, width=WIDTH + 160, height=height)


def counter_strip(values, reference, title, xlabel, stem, use_matplotlib=True):
    """One watched counter: a dot per submission's value, a red line at the reference's; returns
    the file written (a small figure: the class page shows one per counter, side by side)."""
    points = list(values) + ([reference] if reference is not None else [])
    if not points:
        return None
    low, high = min(0.0, min(points)), max(points) * 1.1 or 1.0
    width, height, left, right = 380, 120, 16, 16
    jitter = [((i * 7919) % 13 - 6) / 6 for i in range(len(values))]  # fixed: the same page twice
    if plt is not None and use_matplotlib:
        fig, ax = plt.subplots(figsize=(width / 80, height / 80), dpi=80)
        ax.scatter(values, [0.25 * j for j in jitter], alpha=0.6, color="#4c72b0", s=18)
        if reference is not None:
            ax.axvline(reference, color="#c03030", linewidth=2)
        ax.set_yticks([]), ax.set_ylim(-0.5, 0.5), ax.set_xlim(low, high)
        ax.set_title(title, fontsize=9), ax.set_xlabel(xlabel, fontsize=8)
        ax.tick_params(labelsize=8)
        return _save_png(fig, stem)
    plot_w, top, bottom = width - left - right, 30, height - 36
    middle = (top + bottom) / 2
    x = lambda v: left + plot_w * (v - low) / (high - low)
    parts = [_text(width / 2, 16, title, size=11, weight="bold")]
    parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{bottom}" y2="{bottom}" stroke="#333"/>')
    if reference is not None:
        parts.append(f'<line x1="{x(reference):.1f}" x2="{x(reference):.1f}" y1="{top}" y2="{bottom}" '
                     f'stroke="#c03030" stroke-width="2"><title>the reference: {reference:.4g}</title></line>')
    for v, j in zip(values, jitter):
        parts.append(f'<circle cx="{x(v):.1f}" cy="{middle + j * (bottom - top) / 3:.1f}" r="4" '
                     f'fill="#4c72b0" fill-opacity="0.6"><title>{v:.4g}</title></circle>')
    for tick in _ticks(low, high, 4):
        parts.append(_text(x(tick), bottom + 13, f"{tick:g}", size=9))
    parts.append(_text(width / 2, bottom + 28, xlabel, size=9))
    return _write_svg(stem, parts, width=width, height=height)


def _ticks(low, high, count=5):
    span = high - low
    if span <= 0:
        return [low]
    step = 10 ** math.floor(math.log10(span / count))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= count:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step) + 1)]


def _header(title, width=WIDTH, height=HEIGHT):
    return _text(width / 2, 20, title, size=13, weight="bold")


def _text(x, y, text, size=11, anchor="middle", weight="normal"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" font-family="sans-serif">{html.escape(str(text))}</text>')


def _axes(low, high, xlabel, tallest, ylabel):
    bottom, plot_w = HEIGHT - MARGIN, WIDTH - 2 * MARGIN
    parts = [f'<line x1="{MARGIN}" x2="{WIDTH - MARGIN}" y1="{bottom}" y2="{bottom}" stroke="#333"/>',
             f'<line x1="{MARGIN}" x2="{MARGIN}" y1="{MARGIN}" y2="{bottom}" stroke="#333"/>']
    for tick in _ticks(low, high):
        x = MARGIN + plot_w * (tick - low) / (high - low or 1)
        parts.append(_text(x, bottom + 14, f"{tick:g}", size=10))
    parts.append(_text(WIDTH / 2, bottom + 32, xlabel))
    parts.append(_text(MARGIN - 6, MARGIN + 4, str(tallest), size=10, anchor="end"))
    parts.append(f'<text x="14" y="{HEIGHT / 2}" font-size="11" font-family="sans-serif" '
                 f'transform="rotate(-90 14 {HEIGHT / 2})" text-anchor="middle">{ylabel}</text>')
    return parts


def _save_png(fig, stem):
    fig.tight_layout()
    fig.savefig(stem + ".png.partial", format="png")
    plt.close(fig)
    os.replace(stem + ".png.partial", stem + ".png")
    return stem + ".png"


def _write_svg(stem, parts, width=WIDTH, height=HEIGHT):
    path = stem + ".svg"
    body = "\n".join(parts)
    text = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n'
            f"{body}\n</svg>\n")
    temporary = path + ".partial"
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)
    return path
