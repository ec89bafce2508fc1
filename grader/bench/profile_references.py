#!/usr/bin/env python3
"""Profile the benchmark's kernels with Nsight Compute: for each kernel each benchmark row launches,
its DRAM throughput (% of the device's peak), achieved occupancy, L2 hit rate and the stall that
holds its warps most, as a Markdown table (and profile.csv beside it).

    python3 grader/bench/profile_references.py build/grader/bench/kernel_benchmark --out DIR [--only scan]
    python3 grader/bench/profile_references.py --table DIR/profile.csv [--match uniform]

The benchmark runs with --profile: each kernel once, untimed, between cudaProfilerStart and Stop;
ncu profiles only those launches. Needs ncu on PATH and permission to read the GPU's counters.
ncu runs each kernel at its base clocks with the caches flushed, several passes per kernel, so its
durations are longer than the benchmark's; read its percentages, not its times. --table prints a
saved profile.csv as Markdown, only the rows whose label holds --match if given.
"""
import argparse
import csv
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
L2_HIT = "lts__t_sector_hit_rate.pct"
DURATION = "gpu__time_duration.sum"
STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio")
METRICS = [DRAM, OCCUPANCY, L2_HIT, DURATION,
           r"regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"]
NOT_STALLS = {"selected", "not_selected"}  # issuing, or ready and passed over: not held


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def rows_in_order(log):
    """[(row label, number of kernels ncu profiled for it)] from the benchmark's merged output."""
    rows = []
    for line in log.splitlines():
        if line.startswith("==BENCH== "):
            rows.append([line[len("==BENCH== "):].strip(), 0])
        elif line.startswith("==PROF== Profiling") and rows:
            rows[-1][1] += 1
    return rows


def kernel_figures(report):
    """One dict per profiled kernel, in launch order, from `ncu --import --csv --page raw`."""
    out = subprocess.run(["ncu", "--import", str(report), "--csv", "--page", "raw",
                          "--print-units", "base"],
                         check=True, capture_output=True, text=True).stdout
    records = list(csv.DictReader(io.StringIO(out)))[1:]  # the first record holds the units
    figures = []
    for r in records:
        stalls = {}
        for name, value in r.items():
            match = STALL.fullmatch(name or "")
            if match and match.group(1) not in NOT_STALLS and number(value) is not None:
                stalls[match.group(1)] = number(value)
        top = max(stalls, key=stalls.get) if stalls else None
        figures.append({"kernel": r["Kernel Name"].split("(")[0], "dram": number(r.get(DRAM, "")),
                        "occupancy": number(r.get(OCCUPANCY, "")), "l2_hit": number(r.get(L2_HIT, "")),
                        "us": (number(r.get(DURATION, "")) or 0) / 1000,  # base unit: ns
                        "stall": f"{top} ({stalls[top]:.1f})" if top else "-"})
    return figures


HEADER = ["row", "kernel", "us", "dram_pct", "occupancy_pct", "l2_hit_pct", "top_stall"]


def short_name(kernel):
    """A kernel's own name: no return type, namespaces or template arguments."""
    base = kernel.replace("<unnamed>", "").removeprefix("void ").split("<")[0]
    return base.split("::")[-1]


def markdown(csv_rows):
    """The Markdown table of profile.csv's rows (without its header); a row's label is the
    benchmark's "group | kernel | input"."""
    lines = ["| group | benchmark row | input | kernel | µs (ncu) | DRAM % of peak | achieved occupancy % | "
             "L2 hit % | top stall (cycles per issue) |", "|---" * 9 + "|"]
    for label, kernel, *figures in csv_rows:
        cells = (label.split(" | ") + ["", "", ""])[:3] + [short_name(kernel)] + figures
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def table(rows, figures):
    """Pairs the log's rows with the report's kernels, in order: (Markdown, CSV rows)."""
    csv_rows = []
    k = 0
    for label, count in rows:
        for f in figures[k:k + count]:
            csv_rows.append([label, f["kernel"], f"{f['us']:.1f}", f"{f['dram']:.1f}", f"{f['occupancy']:.1f}",
                             f"{f['l2_hit']:.1f}", f["stall"]])
        k += count
    if k != len(figures):
        raise SystemExit(f"error: the log names {k} profiled kernels, the report holds {len(figures)}")
    return markdown(csv_rows), [HEADER] + csv_rows


def saved_table(path, match):
    with open(path, newline="") as f:
        records = list(csv.reader(f))
    if not records or records[0] != HEADER:
        raise SystemExit(f"error: {path} is not a profile.csv written by this script (header {HEADER})")
    return markdown([r for r in records[1:] if match in r[0]])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", type=Path, nargs="?", help="the built kernel_benchmark")
    parser.add_argument("--out", type=Path, help="folder for the report, log and tables")
    parser.add_argument("--only", default="", help="only the benchmark groups whose name holds this")
    parser.add_argument("--table", type=Path, help="print this saved profile.csv as Markdown instead")
    parser.add_argument("--match", default="", help="with --table: only rows whose label holds this")
    args = parser.parse_args(argv)
    if args.table:
        sys.stdout.write(saved_table(args.table, args.match))
        return 0
    if args.benchmark is None or args.out is None:
        parser.error("give the kernel_benchmark to profile and --out DIR (or --table CSV)")
    if shutil.which("ncu") is None:
        raise SystemExit("error: ncu (Nsight Compute) is not on PATH; it ships with the CUDA toolkit "
                         "(e.g. /usr/local/cuda/bin)")
    args.out.mkdir(parents=True, exist_ok=True)
    report = args.out / "profile"
    command = ["ncu", "--profile-from-start", "off", "--metrics", ",".join(METRICS), "--export", str(report),
               "--force-overwrite", str(args.benchmark), "--profile"] + (["--only", args.only] if args.only else [])
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    (args.out / "profile.log").write_text(run.stdout)
    if run.returncode != 0 or "ERR_NVGPUCTRPERM" in run.stdout:
        sys.stdout.write(run.stdout[-3000:])
        raise SystemExit(f"error: ncu exited {run.returncode}; its log is in {args.out / 'profile.log'}")
    markdown, csv_rows = table(rows_in_order(run.stdout), kernel_figures(report.with_suffix(".ncu-rep")))
    (args.out / "profile.md").write_text(markdown)
    with open(args.out / "profile.csv", "w", newline="") as f:
        csv.writer(f).writerows(csv_rows)
    sys.stdout.write(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
