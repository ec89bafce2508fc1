#!/usr/bin/env python3
"""Draw a lab's sweep as a PNG, next to the handout's run of the same sweep.

    python3 grader/bench/plot_sweeps.py --lab 03                 run lab 03's sweep on this GPU, draw it
    python3 grader/bench/plot_sweeps.py --all --build build-cuda --out DIR    every lab with a sweep
    python3 grader/bench/plot_sweeps.py --csv FILE [--reference FILE] --out DIR   a CSV saved earlier

--lab and --all compile the sweep (meson compile -C BUILD labNN_sweep: your latest code), run it with
--csv=OUT/labNN_sweep.csv (its table scrolls by as usual) and draw OUT/labNN_sweep.png (OUT: plots/),
then OUT/labNN_beside.png: the figure the lab's handout shows (handouts/figures/labNN_sweep.png) on
the left, yours on the right.
The handout's run is drawn faint beside yours: handouts/figures/sweeps/labNN_*.csv, the one of your
GPU's model where there is one (--reference FILE: another; --reference none: no reference). The
labs are those of labs/labs.txt whose sweep the build has (labs/NN-*/meson.build, 'tools').

What is drawn comes from the CSV's metadata alone (grader/bench/sweep_csv.py): any lab's sweep.
Needs matplotlib: where it is missing, it is installed into the project's .venv from
requirements-plots.txt (once) and the command runs again there; --no-install stops instead.
--check reads the CSV and says what would be drawn, without matplotlib.
"""
import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

# Run as a file (python3 grader/bench/plot_sweeps.py), Python sees this folder only: run again
# with grader/, the import root, on PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from bench import plot_beside, sweep_csv  # noqa: E402
from bench.sweep_csv import SweepError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv" / "bin" / "python3"
REQUIREMENTS = ROOT / "requirements-plots.txt"
REFERENCES = ROOT / "handouts" / "figures" / "sweeps"
MARKERS = "osD^vP*Xph<>"
STYLES = ["-", "--", ":", "-."]
REFERENCE_STYLES = [(0, (4, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), (0, (2, 3))]


def fail(message, code=2):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(code)


def import_pyplot(install):
    """matplotlib's pyplot; when missing, install requirements-plots.txt into .venv and run again there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        pass
    how = f"`{Path(sys.executable).name} -m pip install -r {REQUIREMENTS.relative_to(ROOT)}`"
    if not install:
        fail(f"matplotlib is not installed for {sys.executable}: {how} (or run without --no-install)")
    if os.environ.get("PLOT_SWEEPS_SET_UP") == "1":
        fail(f"matplotlib still cannot be imported in {sys.executable} after installing it; {how}")
    if not VENV_PYTHON.exists():
        print(f"matplotlib is missing: creating {VENV_PYTHON.parent.parent} for it (once) ...", flush=True)
        try:
            venv.create(VENV_PYTHON.parent.parent, with_pip=True)
        except Exception as error:  # ensurepip missing (Debian's python3-venv), a read-only folder
            fail(f"could not create .venv ({error}): install python3-venv, or matplotlib with {how}")
    if subprocess.run([str(VENV_PYTHON), "-c", "import matplotlib"], capture_output=True).returncode != 0:
        print(f"Installing matplotlib into .venv from {REQUIREMENTS.name} (once) ...", flush=True)
        done = subprocess.run([str(VENV_PYTHON), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)])
        if done.returncode != 0:
            fail(f"pip could not install {REQUIREMENTS.name} into .venv; install matplotlib yourself: {how}")
    env = dict(os.environ, PLOT_SWEEPS_SET_UP="1",
               PATH=str(VENV_PYTHON.parent) + os.pathsep + os.environ.get("PATH", ""))
    os.execve(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve())] + sys.argv[1:], env)


# ---- Drawing -----------------------------------------------------------------------------------

def set_scale(ax, axis, scale, values):
    """A log axis labels plain numbers (1, 2, 5, 10 ...; or the values themselves when few), never
    the minor ticks; a linear y axis starts at 0."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter
    target = ax.xaxis if axis == "x" else ax.yaxis
    values = [v for v in values if scale != "log" or v > 0]
    if not values:
        return
    if scale == "log":
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        ticks = sweep_csv.log_ticks(values) if axis == "x" else None
        if ticks:
            target.set_major_locator(FixedLocator(ticks))
            target.set_minor_locator(FixedLocator([]))
        else:
            decades = max(values) / min(values)
            target.set_major_locator(LogLocator(10, subs=(1, 2, 5) if decades < 300 else (1,)))
        target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        target.set_minor_formatter(NullFormatter())
        if axis == "y":  # room above and below the lines
            ax.set_ylim(min(values) / 1.3, max(values) * 1.3)
    elif axis == "y" and values and min(values) >= 0:
        ax.set_ylim(0, max(values) * 1.08 or 1)


def draw_panel(plt, ax, sweep, rows, ref_rows, reference):
    """Draws one panel's lines; returns its series' legend entries, the entries every panel shares
    (reference lines, the faint run, line styles), and the y values of this run and of both."""
    from matplotlib.lines import Line2D
    mine = sweep_csv.series(sweep, rows)
    theirs = sweep_csv.series(reference, ref_rows) if reference else []
    labels = []
    for line in mine + theirs:
        labels += [line.label] if line.label not in labels else []
    palette = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20").colors
    colors = {label: (palette[i % len(palette)], MARKERS[i % len(MARKERS)]) for i, label in enumerate(labels)}
    numeric = sweep.x_is_numeric() and (reference is None or reference.x_is_numeric())
    categories = []
    for line in mine + theirs:
        categories += [x for x, _, _ in line.points if x not in categories]
    position = (lambda x: float(x)) if numeric else categories.index
    styles = {}
    for line in mine + theirs:
        styles.setdefault(line.style, STYLES[len(styles) % len(STYLES)])
    xs, ys, own_ys, handles = [], [], [], {}  # own_ys: this run's alone choose the scales
    for faint, lines in ((True, theirs), (False, mine)):
        for line in lines:
            color, marker = colors[line.label]
            pts = sorted((position(x), y, marked) for x, y, marked in line.points)
            look = dict(color=color, linestyle=styles[line.style], marker=marker)
            if faint:
                look.update(alpha=0.3, linewidth=1, markersize=3, zorder=1)
            else:
                look.update(linewidth=1.6, markersize=5, zorder=3)
                handles.setdefault(line.label, Line2D([], [], color=color, marker=marker, label=line.label))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], **look)
                bad = [(p[0], p[1]) for p in pts if p[2]]
                if bad and not faint:
                    ax.scatter(*zip(*bad), marker="x", color="red", s=70, zorder=5)
                    handles["WRONG"] = Line2D([], [], color="red", marker="x", linestyle="", label="WRONG result")
            for level in line.levels:
                ax.axhline(level, color=color, linestyle=styles[line.style],
                           linewidth=1 if faint else 1.6, alpha=0.3 if faint else 1, zorder=1 if faint else 3)
                if not faint:
                    handles[line.label] = Line2D([], [], color=color, linestyle=styles[line.style],
                                                 label=f"{line.label} (no {sweep.meta['x']}: drawn across)")
            xs += [p[0] for p in pts]
            ys += [p[1] for p in pts] + line.levels
            own_ys += [] if faint else [p[1] for p in pts] + line.levels
    style_handles = [Line2D([], [], color="0.3", linestyle=s, label=f"{v}") for v, s in styles.items() if v]
    if len(style_handles) < 2:
        style_handles = []
    common = {}
    for n, (label, value) in enumerate(sweep.references):
        look = dict(color="0.45", linestyle=REFERENCE_STYLES[n % len(REFERENCE_STYLES)], linewidth=1.2)
        ax.axhline(value, zorder=2, **look)
        common[f"ref {n}"] = Line2D([], [], label=f"{label} ({value:.4g})", **look)
        ys.append(value)
        own_ys.append(value)
    for n, (label, value) in enumerate(reference.references if reference else []):
        ax.axhline(value, zorder=1, color="0.45", alpha=0.3, linewidth=1,
                   linestyle=REFERENCE_STYLES[n % len(REFERENCE_STYLES)])
        ys.append(value)
    if reference:
        common["faint"] = Line2D([], [], color="0.3", alpha=0.3, marker="o", markersize=3,
                                 label=f"faint: {reference.get('gpu', 'reference run')}")
    if numeric:
        set_scale(ax, "x", sweep_csv.choose_scale(sweep.get("xscale", "auto"), xs), xs)
    else:
        ax.set_xticks(range(len(categories)))
        long_labels = sum(len(c) for c in categories) > 60
        ax.set_xticklabels(categories, rotation=30 if long_labels else 0, ha="right" if long_labels else "center")
    ax.set_xlabel(sweep.get("xlabel", sweep.meta["x"]))
    ax.set_ylabel(sweep.get("ylabel", sweep.meta["y"]))
    ax.grid(True, which="major", color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    return list(handles.values()), list(common.values()) + style_handles, own_ys, ys


def legend(ax, handles):
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False,
              borderaxespad=0)


def draw(plt, sweep, reference=None):
    mine = sweep_csv.panels(sweep)
    theirs = dict(sweep_csv.panels(reference)) if reference else {}
    names = [name for name, _ in mine] + [name for name in theirs if name not in dict(mine)]
    # One column: a page shows the figure near full size (two columns 14 in wide were shown at 58 %
    # in the rendered handout, their legends about 5 px high).
    cols = 1
    rows = len(names)
    fig, axes = plt.subplots(rows, cols, figsize=(8.5, 1.2 + 3.4 * rows),
                             squeeze=False, layout="constrained")
    drawn = []
    for ax, name in zip(axes.flat, names):
        drawn.append(draw_panel(plt, ax, sweep, dict(mine).get(name, []), theirs.get(name, []), reference))
        if name:
            ax.set_title(name, fontsize=10)
    # One y scale for every panel (this run's values choose it, both runs' set its range), and the
    # entries the panels share in the first panel's legend only.
    own_ys = [y for panel in drawn for y in panel[2]]
    all_ys = [y for panel in drawn for y in panel[3]]
    scale = sweep_csv.choose_scale(sweep.get("yscale", "auto"), own_ys)
    for n, (ax, (series, common, _, _)) in enumerate(zip(axes.flat, drawn)):
        set_scale(ax, "y", scale, all_ys)
        legend(ax, series + (common if n == 0 else []))
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    title = sweep.title()
    if reference:
        when = f", {reference.get('date')}" if reference.get("date") else ""
        title += f"\n(faint: the same sweep on {reference.get('gpu', 'another GPU')}{when})"
    fig.suptitle(title, fontsize=11)
    return fig


def save_png(fig, path, dpi):
    """A PNG of 128 colours (a third of matplotlib's RGBA file, the same to the eye) where Pillow,
    which matplotlib installs, is there."""
    try:
        from PIL import Image
    except ImportError:
        return fig.savefig(path, dpi=dpi)
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=dpi, format="png")
    image = Image.open(buffer).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


def describe(sweep, reference=None):
    """What would be drawn, in words: --check, and the test without matplotlib."""
    out = [sweep.title()]
    ys = [value for _, value in sweep.references]  # one y scale for all panels, as draw() has it
    for _, rows in sweep_csv.panels(sweep):
        lines = sweep_csv.series(sweep, rows)
        ys += [y for line in lines for _, y, _ in line.points] + [y for line in lines for y in line.levels]
    yscale = sweep_csv.choose_scale(sweep.get("yscale", "auto"), ys)
    for name, rows in sweep_csv.panels(sweep):
        lines = sweep_csv.series(sweep, rows)
        xs = [float(x) for line in lines for x, _, _ in line.points] if sweep.x_is_numeric() else []
        xscale = sweep_csv.choose_scale(sweep.get("xscale", "auto"), xs) if xs else "categories"
        marked = sum(m for line in lines for _, _, m in line.points)
        out.append(f"panel {name or '(one)'}: {len(lines)} lines, x {xscale}, y {yscale}, {marked} marked")
        out += [f"  {line.label}" + (f" [{line.style}]" if line.style else "") +
                f": {len(line.points)} points" + (f", {len(line.levels)} levels" if line.levels else "")
                for line in lines]
    out += [f"reference line {label} = {value:g}" for label, value in sweep.references]
    if reference:
        out.append(f"faint: {reference.title()}")
    return "\n".join(out)


# ---- Running the sweeps ------------------------------------------------------------------------

def lab_numbers():
    """The labs of labs/labs.txt, as their numbers ("01")."""
    lines = (ROOT / "labs" / "labs.txt").read_text().splitlines()
    return [line.strip().split("-")[0] for line in lines if line.strip() and not line.startswith("#")]


def build_targets(build):
    """The targets this build defines (meson's own list, as `meson introspect --targets` reads it)."""
    info = build / "meson-info" / "intro-targets.json"
    if not info.exists():
        fail(f"{build} is not a configured build: run `python3 grader/grade.py` first (or meson setup {build})")
    return {t["name"] for t in json.loads(info.read_text())}


def default_reference(lab, sweep):
    """The handout's run of this lab on the same GPU model, else the first one there is."""
    files = sorted(REFERENCES.glob(f"lab{lab}_*.csv"))
    model = sweep.get("gpu").split(" (")[0]
    same = [f for f in files if sweep_csv.read_sweep(f).get("gpu").split(" (")[0] == model]
    return (same or files or [None])[0]


class RunError(Exception):
    pass


def run_sweep(lab, build, out, targets):
    """Compile the sweep (and the standard data file it reads), run it, return its CSV."""
    meson = shutil.which("meson") or str(VENV_PYTHON.parent / "meson")
    names = [f"lab{lab}_sweep"] + (["standard-data"] if "standard-data" in targets else [])
    if subprocess.run([meson, "compile", "-C", str(build)] + names).returncode != 0:
        raise RunError(f"lab{lab}_sweep did not build (see above)")
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / f"lab{lab}_sweep.csv"
    command = [str(build / "labs" / f"lab{lab}_sweep"), f"--csv={csv_path}"]
    data = build / "data" / "data.bin"
    if data.exists():
        command.append(f"--data={data}")
    print("$ " + " ".join(command), flush=True)
    code = subprocess.run(command).returncode
    if code != 0:
        raise RunError(f"lab{lab}_sweep exited with {code} (its message is above); no plot")
    return csv_path


def plot(plt, csv_path, reference_arg, out, lab=None, dpi=110):
    sweep = sweep_csv.read_sweep(csv_path)
    lab = lab or sweep.get("lab", csv_path.stem)
    if reference_arg == "none":
        reference_path = None
    elif reference_arg:
        reference_path = Path(reference_arg)
    else:
        reference_path = default_reference(lab, sweep)
        if reference_path and reference_path.resolve() == Path(csv_path).resolve():
            reference_path = None  # a handout's run itself: drawn alone
    reference = sweep_csv.read_sweep(reference_path) if reference_path else None
    if reference:
        sweep_csv.check_comparable(sweep, reference)
    if plt is None:
        print(describe(sweep, reference))
        return
    fig = draw(plt, sweep, reference)
    out.mkdir(parents=True, exist_ok=True)
    png = out / f"lab{lab}_sweep.png"
    save_png(fig, png, dpi)
    plt.close(fig)
    print(f"wrote {png}" + (f" (faint: {reference_path})" if reference else ""))
    if Path(csv_path).resolve().parent != REFERENCES.resolve():  # a handout's run is not put beside itself
        beside = plot_beside.write_beside(lab, png, out, f"yours: {sweep.get('gpu', 'this GPU')}",
                                          "the handout's: handouts/figures/" + png.name)
        if beside:
            print(f"wrote {beside} (the handout's figure on the left, yours on the right)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--lab", help="run this lab's sweep (01, 03, ...) and draw it")
    what.add_argument("--all", action="store_true", help="run and draw every lab's sweep")
    what.add_argument("--csv", type=Path, help="draw this sweep CSV (no GPU needed)")
    parser.add_argument("--reference",
                        help="a CSV drawn faint beside it (default: the handout's run); none: no reference")
    parser.add_argument("--build", default="build", type=Path, help="the meson build folder (default: build)")
    parser.add_argument("--out", default="plots", type=Path, help="folder for the CSVs and PNGs (default: plots)")
    parser.add_argument("--dpi", type=int, default=110)
    parser.add_argument("--check", action="store_true", help="say what would be drawn; no PNG, no matplotlib")
    parser.add_argument("--no-install", action="store_true", help="fail where matplotlib is missing")
    args = parser.parse_args()
    plt = None if args.check else import_pyplot(install=not args.no_install)
    try:
        if args.csv:
            return plot(plt, args.csv, args.reference, args.out, dpi=args.dpi)
        labs = lab_numbers()
        args.lab = args.lab.zfill(2) if args.lab else None  # --lab 3 is lab 03
        targets = build_targets(args.build)
        if args.all:
            chosen = [lab for lab in labs if f"lab{lab}_sweep" in targets]
            if args.reference and args.reference != "none":
                fail("--all takes each lab's own reference: give --reference none or nothing")
        elif args.lab not in labs:
            fail(f"no lab {args.lab} in labs/labs.txt (labs: {', '.join(labs)})")
        elif f"lab{args.lab}_sweep" not in targets:
            fail(f"{args.build} has no lab{args.lab}_sweep: lab {args.lab} has no sweep, or the build "
                 f"leaves the lab out (`python3 grader/grade.py --labs {args.lab}` configures it in)")
        else:
            chosen = [args.lab]
        failed = []
        for lab in chosen:  # --all goes on past a lab that fails, and says so at the end
            try:
                plot(plt, run_sweep(lab, args.build, args.out, targets), args.reference, args.out, lab,
                     args.dpi)
            except (RunError, SweepError) as error:
                print(f"error: {error}", file=sys.stderr)
                failed.append(lab)
        if failed:
            fail(f"no plot for lab {', '.join(failed)}", 1)
    except SweepError as error:
        fail(str(error))


if __name__ == "__main__":
    sys.exit(main())
