"""Small SVG drawing helpers for diagrams.py: standard library only, byte-for-byte deterministic."""
import math
from xml.sax.saxutils import escape

# Okabe-Ito, a palette that colour-blind readers tell apart, and light tints of its colours.
BLUE, ORANGE, GREEN, VERMILION = "#0072B2", "#E69F00", "#009E73", "#D55E00"
SKY, PURPLE, YELLOW = "#56B4E9", "#CC79A7", "#F0E442"
INK, GREY, PALE = "#222222", "#8C8C8C", "#F2F2F2"
TINT = {BLUE: "#CCE3F0", ORANGE: "#FAECCC", GREEN: "#CCECE3", VERMILION: "#F7DFCC",
        PURPLE: "#F5E4EE", SKY: "#DDF0FB", GREY: "#E6E6E6"}
SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def num(value):
    """A coordinate with at most two decimals and no trailing zeros."""
    value = round(value, 2)
    if value == int(value):
        return str(int(value))
    return f"{value:.2f}".rstrip("0")


def text_on(fill):
    """Black or white, whichever reads better on a fill colour."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"


class Svg:
    def __init__(self, width, height, title):
        self.width, self.height, self.title = width, height, title
        self.items = []

    def _style(self, fill, stroke, width, dash):
        out = f' fill="{fill}"'
        if stroke:
            out += f' stroke="{stroke}" stroke-width="{num(width)}"'
            if dash:
                out += f' stroke-dasharray="{dash}"'
        return out

    def rect(self, x, y, w, h, fill="none", stroke=INK, width=1, rx=0, dash=None):
        corner = f' rx="{num(rx)}"' if rx else ""
        self.items.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}"{corner}'
                          f'{self._style(fill, stroke, width, dash)}/>')

    def line(self, x1, y1, x2, y2, stroke=INK, width=1.2, dash=None):
        self.items.append(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}"'
                          f'{self._style("none", stroke, width, dash)}/>')

    def polygon(self, points, fill=INK, stroke=None, width=1):
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        self.items.append(f'<polygon points="{pts}"{self._style(fill, stroke, width, None)}/>')

    def polyline(self, points, stroke=INK, width=1.5, dash=None):
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        self.items.append(f'<polyline points="{pts}" stroke-linejoin="round"'
                          f'{self._style("none", stroke, width, dash)}/>')

    def text(self, x, y, s, size=13, anchor="start", fill=INK, bold=False, mono=False, italic=False):
        attrs = f' font-size="{num(size)}"'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if fill != INK:
            attrs += f' fill="{fill}"'
        if bold:
            attrs += ' font-weight="bold"'
        if italic:
            attrs += ' font-style="italic"'
        if mono:
            attrs += f' font-family="{MONO}"'
        self.items.append(f'<text x="{num(x)}" y="{num(y)}"{attrs}>{escape(s)}</text>')

    def head(self, x, y, angle, color, size=8):
        """An arrowhead with its tip at (x, y), pointing along `angle` (radians)."""
        back = [(x - size * math.cos(angle + d), y - size * math.sin(angle + d)) for d in (0.4, -0.4)]
        self.polygon([(x, y), back[0], back[1]], fill=color)

    def arrow(self, x1, y1, x2, y2, color=INK, width=1.5, dash=None, size=8):
        angle = math.atan2(y2 - y1, x2 - x1)
        shorten = size * 0.8
        self.line(x1, y1, x2 - shorten * math.cos(angle), y2 - shorten * math.sin(angle), color, width, dash)
        self.head(x2, y2, angle, color, size)

    def curve_arrow(self, x1, y1, cx, cy, x2, y2, color=INK, width=1.5, dash=None, size=8):
        """A quadratic Bezier from (x1, y1) to (x2, y2) through control point (cx, cy), with a head."""
        angle = math.atan2(y2 - cy, x2 - cx)
        ex, ey = x2 - size * 0.8 * math.cos(angle), y2 - size * 0.8 * math.sin(angle)
        d = f"M{num(x1)},{num(y1)} Q{num(cx)},{num(cy)} {num(ex)},{num(ey)}"
        self.items.append(f'<path d="{d}"{self._style("none", color, width, dash)}/>')
        self.head(x2, y2, angle, color, size)

    def cell(self, x, y, w, h, label="", fill="#FFFFFF", size=11, mono=False, stroke=INK, color=None):
        """A box with a centred label: the unit of most diagrams here."""
        self.rect(x, y, w, h, fill=fill, stroke=stroke, width=1)
        if label != "":
            self.text(x + w / 2, y + h / 2 + size * 0.36, str(label), size, "middle",
                      color or text_on(fill), mono=mono)

    def lines(self, x, y, rows, size=12, gap=1.35, **style):
        """Several lines of text, the first baseline at y."""
        for i, row in enumerate(rows):
            if row:
                self.text(x, y + i * size * gap, row, size, **style)

    def heading(self, title, *subtitles):
        self.text(30, 32, title, 19, bold=True)
        self.lines(30, 56, subtitles, 13)

    def titled(self, x, y, title, *rows):
        """A bold title line, then plain lines."""
        self.text(x, y, title, 12.5, bold=True)
        self.lines(x, y + 17, rows, 12)

    def legend(self, x, y, entries, box=14, gap=26):
        """Colour boxes with labels, left to right."""
        for fill, label in entries:
            self.rect(x, y - box + 3, box, box, fill=fill, stroke=INK)
            self.text(x + box + 6, y, label, 12)
            x += box + 6 + len(label) * 6.8 + gap

    def plot(self, x, y, w, h, values, top, bars=True, colour=BLUE, ticks=True):
        """values[0 .. k-1] as bars or a line, scaled so that `top` reaches the frame's top."""
        self.rect(x, y, w, h, fill="#FFFFFF", stroke=GREY, width=0.8)
        points = [(x + w * v / len(values), y + h - h * values[v] / top) for v in range(len(values))]
        if bars:
            for v, (px, py) in enumerate(points):
                if values[v]:
                    self.rect(px, py, max(w / len(values), 1), y + h - py, fill=colour, stroke=None)
        else:
            self.polyline(points, colour, 1.8)
        if ticks:
            self.text(x, y + h + 12, "0", 9.5, "middle", GREY)
            self.text(x + w, y + h + 12, str(len(values) - 1), 9.5, "middle", GREY)

    def image(self, x, y, rows, px=8):
        """A grayscale image, one square per pixel."""
        for r, row in enumerate(rows):
            for c, v in enumerate(row):
                self.rect(x + px * c, y + px * r, px, px, fill=f"#{v:02X}{v:02X}{v:02X}", stroke=None)
        self.rect(x, y, px * len(rows[0]), px * len(rows), stroke=GREY, width=0.8)

    def svg(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" font-family="{SANS}">')
        body = [head, f"<title>{escape(self.title)}</title>",
                f'<rect width="{self.width}" height="{self.height}" fill="#FFFFFF"/>']
        return "\n".join(body + self.items + ["</svg>"]) + "\n"

    def save(self, path):
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            out.write(self.svg())
