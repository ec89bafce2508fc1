#!/usr/bin/env python3
"""Print the student's score table from a build directory's results files.

Usage: python3 grader/report.py [BUILD_DIR]      (reads BUILD_DIR/results/lab*.json)

One row per lab: tests passed, points, and the speed figures of the lab's first timed test
(time, GB/s, share of this GPU's read bandwidth, speedup over the grader's baseline). Then each
failed test with the first line of its message, so the student knows where to look.
"""
import glob
import json
import os
import sys

SCHEMA = "gpu-histogram-workbook/results/v1"
FAILURES_SHOWN_PER_LAB = 3  # the first failures say where to start; the log has the rest


def load_results(build_dir):
    results = []
    for path in sorted(glob.glob(os.path.join(build_dir, "results", "lab*.json"))):
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, json.JSONDecodeError) as error:
            print(f"warning: cannot read {path}: {error}", file=sys.stderr)
            continue
        if data.get("schema") != SCHEMA:
            print(f"warning: {path} is not a results file of this grader", file=sys.stderr)
            continue
        results.append(data)
    return results


def figure(metrics, key, fmt):
    return fmt.format(metrics[key]) if metrics.get(key) is not None else "-"


def speed_metrics(lab):
    for test in lab["tests"]:
        if test["status"] == "passed" and "time_ms" in test["metrics"]:
            return test["metrics"]
    return {}


def telling_line(message):
    """The first line that says what went wrong, past GoogleTest's own framing: "Failed",
    "file.cu:79: Failure", "Value of: expression"; "  Actual: false (why" gives its why."""
    for line in message.strip().splitlines():
        line = line.strip()
        if not line or line == "Failed" or line.endswith(": Failure") or line.startswith("Value of:"):
            continue
        return line[len("Actual: false ("):] if line.startswith("Actual: false (") else line
    return "(no message)"


def table(results):
    header = ("lab", "passed", "skipped", "points", "time ms", "GB/s", "% read bw", "vs baseline")
    rows = []
    for lab in results:
        tests = lab["tests"]
        passed = sum(t["status"] == "passed" for t in tests)
        skipped = sum(t["status"] == "skipped" for t in tests)
        m = speed_metrics(lab)
        rows.append((lab["lab"], f"{passed}/{len(tests)}", str(skipped),
                     f"{lab['score']:g}/{lab['max_score']:g}", figure(m, "time_ms", "{:.3f}"),
                     figure(m, "gbps", "{:.0f}"), figure(m, "percent_of_read_bw", "{:.1f}"),
                     figure(m, "speedup_vs_baseline", "{:.2f}x")))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in
                       enumerate(zip(row, widths))) for row in [header] + rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def main(argv):
    build_dir = argv[1] if len(argv) > 1 else "build"
    results = load_results(build_dir)
    if not results:
        print(f"No results in {build_dir}/results: run `meson test -C {build_dir} --suite grade` first.")
        return 1
    first = results[0]
    print(f"\nScore table - backend {first['backend']}, device: {first['device']}, "
          f"submission: {first['submission']}")
    print(table(results))
    total = sum(r["score"] for r in results), sum(r["max_score"] for r in results)
    print(f"Total: {total[0]:g} / {total[1]:g} points")
    for lab in results:
        failed = [test for test in lab["tests"] if test["status"] == "failed"]
        for test in failed[:FAILURES_SHOWN_PER_LAB]:
            print(f"  FAILED {lab['lab']} {test['name']}: {telling_line(test['message'])[:160]}")
        if len(failed) > FAILURES_SHOWN_PER_LAB:
            print(f"  ... and {len(failed) - FAILURES_SHOWN_PER_LAB} more failed tests in "
                  f"{lab['lab']} (meson test -C {build_dir} --suite {lab['lab'].split('-')[0]} "
                  f"--print-errorlogs shows them all)")
    skipped = [t for lab in results for t in lab["tests"] if t["status"] == "skipped"]
    if skipped:
        reason = (skipped[0]["message"].strip().splitlines() or [""])[-1]
        print(f"  {len(skipped)} test(s) skipped; e.g. {skipped[0]['name']}: {reason[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
