#!/usr/bin/env python3
"""Turn a benchmark run (benchmark.json, written by `benchmark --out DIR`) into the Markdown tables
of handouts/benchmark.md: one table per group, one row per kernel, one column per distribution.

    python3 grader/bench/bench_markdown.py build/bench-results/benchmark.json > tables.md

The scan group is one distribution, so it gets the benchmark's own columns instead. Needs only the
Python standard library.
"""
import argparse
import json
import sys
from pathlib import Path

SCAN_GROUP = "scan (int32)"


def number(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def ratios(row):
    """The ratios that apply to a row, in the order of the handout's cells."""
    parts = []
    if row.get("read_percent") is not None:
        parts.append(f"{row['read_percent']:.1f} % read")
    if row.get("copy_percent") is not None:
        parts.append(f"{row['copy_percent']:.1f} % copy")
    if row.get("speedup_vs_baseline") is not None:
        parts.append(f"{row['speedup_vs_baseline']:.1f}× base")
    if row.get("speedup_vs_cub") is not None:
        parts.append(f"{row['speedup_vs_cub']:.2f}× CUB")
    return parts


def cell(row):
    if row["result"] != "correct":
        return row["result"].upper()
    text = f"{row['median_ms']:.4f} ms"
    parts = ratios(row)
    return f"{text} ({', '.join(parts)})" if parts else text


def group_table(group, rows):
    distributions = list(dict.fromkeys(r["distribution"] for r in rows))
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    by_key = {(r["kernel"], r["distribution"]): r for r in rows}
    lines = [f"**{group}**", "", "| kernel | " + " | ".join(distributions) + " |",
             "|---" * (len(distributions) + 1) + "|"]
    for kernel in kernels:
        cells = [cell(by_key[(kernel, d)]) if (kernel, d) in by_key else "" for d in distributions]
        lines.append(f"| {kernel} | " + " | ".join(cells) + " |")
    return lines


def scan_table(rows):
    lines = [f"**{SCAN_GROUP}**", "", "| kernel | launch | median ms | spread | GB/s | % copy | × CUB |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['launch']} | {r['median_ms']:.4f} | {r['spread_percent']:.1f} % | "
                     f"{r['gbps']:.0f} | {number(r.get('copy_percent'), 1)} | {number(r.get('speedup_vs_cub'), 2)} |")
    return lines


# Reports since the yardsticks are timed in turn with each kernel say so ("ratios": "in turn").
IN_TURN = ("; ratios to the read, the copy and CUB are the medians of the runs' ratios, those "
           "yardsticks timed in turn with each kernel.")


def clocks(machine):
    """', SM clock up to 1980 MHz, power limit 700 W' where the run could read them (NVML)."""
    if machine.get("sm_clock_max_mhz") is None or machine.get("power_limit_w") is None:
        return ""
    return f", SM clock up to {machine['sm_clock_max_mhz']:.0f} MHz, power limit {machine['power_limit_w']:.0f} W"


def render(report):
    machine = report["machine"]
    lines = [f"{machine['gpu']}, driver {machine['driver']}, CUDA runtime {machine['cuda_runtime']}, "
             f"{machine['date']}{clocks(machine)}; medians of {machine['timed_runs']} runs, L2 flushed before each"
             + (IN_TURN if machine.get("ratios") == "in turn" else "."), ""]
    groups = {}
    for row in report["rows"]:
        groups.setdefault(row["group"], []).append(row)
    for group, rows in groups.items():
        lines += scan_table(rows) if group == SCAN_GROUP else group_table(group, rows)
        lines.append("")
    lines += targets_table(report.get("targets", []))
    return "\n".join(lines)


def targets_table(targets):
    """The run's goals (benchmark.cu's evaluate_targets), each met or missed."""
    if not targets:
        return []
    lines = ["**Targets**", "", "| target | goal | measured | kernel |", "|---|---|---|---|"]
    for t in targets:
        verdict = "met" if t["met"] else "**missed**"
        lines.append(f"| {t['target']} | {t['goal']:g} | {number(t['measured'], 2)}: {verdict} | {t['kernel']} |")
    return lines + [""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", type=Path, help="benchmark.json from `benchmark --out DIR`")
    args = parser.parse_args(argv)
    try:
        report = json.loads(args.json.read_text())
        text = render(report)
    except FileNotFoundError:
        sys.exit(f"{args.json}: not found; run `meson compile -C build bench` (or benchmark --out DIR) first")
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        sys.exit(f"{args.json}: not a benchmark report ({error}); rerun the benchmark to rewrite it")
    print(text)


if __name__ == "__main__":
    main()
