#!/usr/bin/env python3
"""Run one lab's sweep (build/labs/labNN_sweep) on this GPU and draw its table as a PNG.

    python3 grader/bench/plot_sweeps.py --lab 01 --build build --out DIR

  lab 01: time against slice and block (v1), against grid size (v2)
  lab 03: bandwidth against blocks per SM for every grid-stride kernel, next to the streaming read
  lab 04: time against chunk size for the four thread-per-bin versions
  lab 05: bandwidth against block (tile) size, whole-array scans as a share of CUB

Writes DIR/labNN_sweep.png and the sweep's own table as DIR/labNN_sweep.txt. With --table FILE it
plots a table saved earlier instead of running the sweep (no GPU needed). Needs matplotlib.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

LABS = ("01", "03", "04", "05")
NUMBER = r"[-+]?\d+(?:\.\d+)?"


def parse_lab01(text):
    """Rows of `version grid block slice operations time GB/s result`."""
    pattern = re.compile(rf"^(v\d [\w-]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+({NUMBER})\s+({NUMBER})\s+(\w+)")
    rows = []
    for line in text.splitlines():
        m = pattern.match(line)
        if m:
            rows.append({"version": m[1], "grid": int(m[2]), "block": int(m[3]), "slice": int(m[4]),
                         "ms": float(m[6]), "gbps": float(m[7]), "result": m[8]})
    return rows


def parse_lab03(text):
    """kernel (34 columns), launch, data, time, GB/s, vs base, result (the launch may overflow)."""
    pattern = re.compile(rf"^(.*?)\s+(uniform|all equal|random|all 'e'|text)\s+({NUMBER})"
                         rf"(?:\s+({NUMBER}))?(?:\s+{NUMBER}x)?(?:\s+(correct|WRONG))?\s*$")
    rows = []
    for line in text.splitlines():
        m = pattern.match(line[35:])
        if not m or line.startswith(("kernel ", "Lab 03")):
            continue
        grid = re.match(r"(\d+) blocks of (\d+)", m[1].strip())
        rows.append({"kernel": line[:34].strip(), "data": m[2], "ms": float(m[3]),
                     "gbps": float(m[4]) if m[4] else None,
                     "blocks": int(grid[1]) if grid else None,
                     "threads": int(grid[2]) if grid else None, "result": m[5] or ""})
    return rows


def parse_lab04(text):
    """Rows of `version chunk block blocks atomics time Gcmp/s x-privatized result`."""
    pattern = re.compile(rf"^(v\d \w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+(\w+)")
    rows = []
    for line in text.splitlines():
        m = pattern.match(line)
        if m:
            rows.append({"version": m[1], "chunk": int(m[2]), "block": int(m[3]), "ms": float(m[6]),
                         "x_privatized": float(m[8]), "result": m[9]})
    privatized = re.search(rf"privatized shared-memory histogram ({NUMBER}) ms", text)
    return rows, float(privatized[1]) if privatized else None


def parse_lab05(text):
    """version (20 columns), shape, time, GB/s, % copy, % CUB, result (the shape may overflow)."""
    pattern = re.compile(rf"^(.*?)\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+(\S+)\s*$")
    rows = []
    for line in text.splitlines():
        m = pattern.match(line[21:])
        if not m:
            continue
        shape = m[1].strip()
        size = re.match(r"(\d+) (elements|threads)/block", shape)
        rows.append({"version": line[:20].strip(), "shape": shape, "ms": float(m[2]),
                     "gbps": float(m[3]), "copy_pct": float(m[4]), "cub_pct": float(m[5]),
                     "size": int(size[1]) if size else None, "result": m[6]})
    return rows


def gpu_name(text):
    m = re.search(r"sweep on (.+?)(?:, \d+ samples|; inputs|, \d+ int32|$)", text, re.M)
    return m[1] if m else "this GPU"


def sm_count(text, rows):
    m = re.search(r"(\d+) SMs", text)
    if m:
        return int(m[1])
    grids = [r["blocks"] for r in rows if r["kernel"].startswith("v2") and r["blocks"]]
    return min(grids) if grids else 1  # the sweep's smallest grid is one block per SM


def blocks_per_sm_axis(ax, values):
    ticks = sorted(set(values))
    ax.set_xscale("log")
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()


def mark_wrong(ax, xs, ys, results):
    bad = [(x, y) for x, y, r in zip(xs, ys, results) if r == "WRONG"]
    if bad:
        ax.scatter(*zip(*bad), marker="x", color="red", s=60, zorder=5, label="WRONG")


def plot_lab01(plt, text, title):
    rows = parse_lab01(text)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    v1 = [r for r in rows if r["version"].startswith("v1")]
    for block in sorted({r["block"] for r in v1}):
        pts = sorted((r["slice"], r["ms"]) for r in v1 if r["block"] == block)
        left.plot(*zip(*pts), marker="o", label=f"{block} threads/block")
    mark_wrong(left, [r["slice"] for r in v1], [r["ms"] for r in v1], [r["result"] for r in v1])
    left.set(xscale="log", yscale="log", xlabel="samples per thread (slice)", ylabel="time (ms)",
             title="v1 slices")
    left.legend(fontsize=7)
    v2 = sorted((r for r in rows if r["version"].startswith("v2")), key=lambda r: r["grid"])
    right.plot([r["grid"] for r in v2], [r["ms"] for r in v2], marker="o", color="C3")
    mark_wrong(right, [r["grid"] for r in v2], [r["ms"] for r in v2], [r["result"] for r in v2])
    right.set(xscale="log", xlabel="grid (blocks of 256 threads)", ylabel="time (ms)",
              title="v2 grid-stride")
    fig.suptitle(title)
    return fig, len(rows)


def plot_lab03(plt, text, title):
    rows = parse_lab03(text)
    sms = sm_count(text, rows)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    styles = {"uniform": "-", "all equal": "--", "random": "-", "all 'e'": "--", "text": "-"}
    for data in ("uniform", "all equal"):
        v2 = [r for r in rows if r["kernel"] == "v2 shared grid-stride" and r["data"] == data]
        for threads in sorted({r["threads"] for r in v2}):
            pts = sorted((r["blocks"] / sms, r["gbps"]) for r in v2 if r["threads"] == threads)
            left.plot(*zip(*pts), marker="o", linestyle=styles[data], label=f"{threads} threads, {data}")
        read = [r["gbps"] for r in rows if r["kernel"] == "grader: streaming read" and r["data"] == data]
        if read:
            left.axhline(read[0], color="gray", linestyle=styles[data], linewidth=1,
                         label=f"streaming read, {data}")
    blocks_per_sm_axis(left, [r["blocks"] / sms for r in rows if r["kernel"].startswith("v2")] or [1])
    left.set(xlabel="blocks per SM", ylabel="GB/s", title="v2 shared grid-stride, 1024 bins")
    left.legend(fontsize=6)
    for name in ("v3 bytes", "v4 wide (4096 bins)", "v5 letters"):
        shapes = sorted({(r["data"], r["threads"]) for r in rows if r["kernel"] == name and r["blocks"]})
        several_sizes = len({threads for _, threads in shapes}) > 1
        for data, threads in shapes:
            pts = sorted((r["blocks"] / sms, r["gbps"]) for r in rows
                         if r["kernel"] == name and r["data"] == data and r["threads"] == threads)
            label = f"{name}, {data}" + (f", {threads} threads" if several_sizes else "")
            right.plot(*zip(*pts), marker="o", linestyle=styles.get(data, "-"), label=label)
    blocks_per_sm_axis(right, [r["blocks"] / sms for r in rows
                               if r["blocks"] and not r["kernel"].startswith("v2")] or [1])
    right.set(xlabel="blocks per SM", ylabel="GB/s", title="bytes, 4096 bins, letters")
    right.legend(fontsize=6)
    wrong = sum(r["result"] == "WRONG" for r in rows)
    fig.suptitle(title + (f"  ({wrong} WRONG rows)" if wrong else ""))
    return fig, len(rows)


def plot_lab04(plt, text, title):
    rows, privatized = parse_lab04(text)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for version in sorted({r["version"] for r in rows}):
        pts = sorted((r["chunk"], r["ms"]) for r in rows if r["version"] == version)
        ax.plot(*zip(*pts), marker="o", label=version)
    mark_wrong(ax, [r["chunk"] for r in rows], [r["ms"] for r in rows], [r["result"] for r in rows])
    if privatized:
        ax.axhline(privatized, color="gray", linestyle="--", label="privatized shared-memory histogram")
    ax.set(xscale="log", yscale="log", xlabel="samples per block (chunk)", ylabel="time (ms)", title=title)
    ax.set_xticks(sorted({r["chunk"] for r in rows}))
    ax.set_xticklabels([str(c) for c in sorted({r["chunk"] for r in rows})])
    ax.legend(fontsize=7)
    return fig, len(rows)


def plot_lab05(plt, text, title):
    rows = parse_lab05(text)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for version in ("v1 Hillis-Steele", "v2 Blelloch", "v3 Blelloch padded", "v4 warp shuffle"):
        pts = sorted((r["size"], r["gbps"]) for r in rows if r["version"] == version and r["size"])
        if pts:
            left.plot(*zip(*pts), marker="o", label=version)
    for name, color in (("device copy", "gray"), ("CUB InclusiveSum", "black")):
        for r in rows:
            if r["version"] == name:
                left.axhline(r["gbps"], color=color, linestyle="--", linewidth=1, label=name)
                right.axhline(r["cub_pct"], color=color, linestyle="--", linewidth=1, label=name)
    left.set(xscale="log", xlabel="elements per block (tile)", ylabel="GB/s (read + write)",
             title="block-local scans")
    left.set_xticks(sorted({r["size"] for r in rows if r["size"] and "elements" in r["shape"]}))
    left.set_xticklabels([str(s) for s in sorted({r["size"] for r in rows
                                                  if r["size"] and "elements" in r["shape"]})])
    left.legend(fontsize=7)
    v5 = sorted((r["size"], r["cub_pct"]) for r in rows if r["version"] == "v5 multi-block")
    if v5:
        right.bar([str(s) for s, _ in v5], [p for _, p in v5], color="C4", label="v5 multi-block")
    for r in rows:
        if r["version"] == "v6 single pass":
            right.axhline(r["cub_pct"], color="C2", linewidth=2, label="v6 single pass")
    right.set(xlabel="threads per block (v5)", ylabel="% of CUB's throughput", title="whole-array scans")
    right.legend(fontsize=7)
    wrong = sum(r["result"] == "WRONG" for r in rows)
    fig.suptitle(title + (f"  ({wrong} WRONG rows)" if wrong else ""))
    return fig, len(rows)


PLOTS = {"01": plot_lab01, "03": plot_lab03, "04": plot_lab04, "05": plot_lab05}


def run_sweep(lab, build):
    program = build / "labs" / f"lab{lab}_sweep"
    if not program.exists():
        sys.exit(f"error: {program} not found: build it first (meson compile -C {build} lab{lab}_sweep)")
    data = build / "data" / "data.bin"
    command = [str(program)] + ([f"--data={data}"] if data.exists() else [])
    print("running", " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        sys.exit(f"error: lab{lab}_sweep exited with {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", required=True, choices=LABS)
    parser.add_argument("--build", default="build", type=Path, help="the meson build folder")
    parser.add_argument("--out", required=True, type=Path, help="folder for the PNG and the table")
    parser.add_argument("--table", type=Path, help="plot this saved sweep output instead of running it")
    parser.add_argument("--dpi", type=int, default=80)
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("error: matplotlib is not installed: `python3 -m pip install matplotlib` "
                 "(the sweep itself still runs: build/labs/labNN_sweep prints the table)")
    text = args.table.read_text() if args.table else run_sweep(args.lab, args.build)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"lab{args.lab}_sweep.txt").write_text(text)
    title = f"Lab {args.lab} sweep on {gpu_name(text)}"
    fig, count = PLOTS[args.lab](plt, text, title)
    if count == 0:
        sys.exit(f"error: no rows of the lab {args.lab} sweep found in its output")
    fig.tight_layout()
    png = args.out / f"lab{args.lab}_sweep.png"
    fig.savefig(png, dpi=args.dpi)
    print(f"wrote {png} ({count} rows)")


if __name__ == "__main__":
    main()
