"""The student's sweep plot beside the handout's (plot_sweeps.py): one PNG with the handout's figure
on the left and the student's on the right, each under a line saying whose run it is.
Needs Pillow, which matplotlib installs."""
from pathlib import Path

HANDOUT_FIGURES = Path(__file__).resolve().parents[2] / "handouts" / "figures"
GAP, LABEL_HEIGHT = 24, 28


def handout_figure(lab):
    """handouts/figures/labNN_sweep.png: the figure the lab's handout shows beside its sweep question."""
    path = HANDOUT_FIGURES / f"lab{lab}_sweep.png"
    return path if path.is_file() else None


def write_beside(lab, yours, out, your_label, handout_label):
    """out/labNN_beside.png: the handout's figure, then yours, at the same height. Returns its path,
    or None without Pillow or without a handout figure for this lab."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        return None
    theirs = handout_figure(lab)
    if theirs is None:
        return None
    left, right = Image.open(theirs).convert("RGB"), Image.open(yours).convert("RGB")
    height = max(left.height, right.height)
    left = left.resize((round(left.width * height / left.height), height))
    right = right.resize((round(right.width * height / right.height), height))
    page = Image.new("RGB", (left.width + GAP + right.width, height + LABEL_HEIGHT), "white")
    page.paste(left, (0, LABEL_HEIGHT))
    page.paste(right, (left.width + GAP, LABEL_HEIGHT))
    pen = ImageDraw.Draw(page)
    try:
        font = ImageFont.load_default(size=16)  # Pillow 10.1 and newer
    except TypeError:
        font = ImageFont.load_default()
    pen.text((8, 5), handout_label, fill="black", font=font)
    pen.text((left.width + GAP + 8, 5), your_label, fill="black", font=font)
    pen.line([(left.width + GAP // 2, 0), (left.width + GAP // 2, page.height)], fill=(200, 200, 200), width=1)
    path = Path(out) / f"lab{lab}_beside.png"
    page.save(path, optimize=True)
    return path
