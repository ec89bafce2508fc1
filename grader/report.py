#!/usr/bin/env python3
"""Print the student's score table from a build directory's results files.

Usage: python3 grader/report.py [BUILD_DIR] [--verbose] [--technique]
                                                 (reads BUILD_DIR/results/lab*.json)

Without --verbose, the short view (grader/short_report.py): what follows, fitted to the terminal,
each lab's first failure, one technique line a lab. With --verbose, the full view below:

One row per lab graded in this run (grade.py names them in results/run.json; the labs it did not
run get a line saying so): tests passed, points, and the figures of the lab's headline kernel
(declared by the lab; time, GB/s, share of the read bandwidth measured in the same run, or of the
copy bandwidth for the labs that write as much as they read, share of the GPU's theoretical peak,
speedup over the grader's baseline). Then every speed test's tiers, met or not; what the kernels'
counters say where they differ from the references' (grader/explain/); each failed test
with the line of its message that says what went wrong, and where the full messages are; the last
line counts tests, as the table does.
"""
import os
import sys

from explain import explanations  # grader/explain/explanations.py: the counters' lines
from runs.results import load_run, telling_line  # grader/runs/results.py

FAILURES_SHOWN_PER_LAB = 3  # the first failures say where to start; the log has the rest


def figure(metrics, key, fmt):
    return fmt.format(metrics[key]) if metrics.get(key) is not None else "-"


def headline(lab):
    """(kernel label, metrics) of the lab's headline kernel: the speed test the lab declares,
    else its first timed test that passed (results files of older graders)."""
    declared = lab.get("headline") or {}
    for test in lab["tests"]:
        if declared and test["name"] == declared.get("test"):
            return declared.get("kernel", "?"), test.get("metrics") or {}
    if declared:
        return declared.get("kernel", "?"), {}
    for test in lab["tests"]:
        if test["status"] == "passed" and "time_ms" in test["metrics"]:
            return test["name"].split(".")[-1], test["metrics"]
    return "-", {}


def share_of_bandwidth(metrics):
    if metrics.get("percent_of_read_bw") is not None:
        return f"{metrics['percent_of_read_bw']:.1f} read"
    if metrics.get("percent_of_copy_bw") is not None:
        return f"{metrics['percent_of_copy_bw']:.1f} copy"
    return "-"


def is_speed_test(test):
    return test.get("kind") == "speed" or ("kind" not in test and
                                           test["name"].split(".")[0].endswith("Speed"))


def tier_lines(results):
    """One line per speed test that ran: its tiers met or not (a test without tiers: its pass
    tier is whether it passed). Skipped ones are counted with the other skipped tests."""
    lines = []
    for lab in results:
        for test in filter(is_speed_test, lab["tests"]):
            tiers = test.get("tiers") or []
            if test["status"] == "skipped":
                continue
            if tiers:
                verdicts = "; ".join(f"{t['name']} {'met' if t.get('met') else 'not met'}"
                                     + (f" ({t['detail']})" if t.get("detail") else "") for t in tiers)
            else:
                verdicts = "pass met" if test["status"] == "passed" else "pass not met"
            lines.append(f"  {lab['lab']} {test['name'].split('.')[-1]}: {verdicts}")
    return lines


def hint_lines(message):
    """The message's hint lines, each once: two inputs failing alike give the same hint twice."""
    hints = []
    for hint in [line.strip() for line in message.splitlines() if "hint:" in line]:
        if hint.count(")") > hint.count("("):
            hint = hint[:-1]  # GoogleTest's "Actual: false (...)" closes on this line
        if hint not in hints:
            hints.append(hint)
    return hints


def races_heading(results):
    """The line above race_lines: the CPU race pass fails tests; on a GPU its witnesses are advice."""
    if any((lab.get("races") or {}).get("advice") for lab in results):
        return ("Data races (the CPU backend's race detector on the host build of your file; "
                "advice beside the GPU's verdicts):")
    return "Data races (the CPU backend's race detector; each fails its function's correctness tests):"


def race_lines(results, results_dir):
    """One line per graded function the CPU backend's race pass found racy (the results' `races`
    key: grader/explain/README.md, the results contract): its first witness, and where all are."""
    lines = []
    for lab in results:
        for function, witnesses in ((lab.get("races") or {}).get("functions") or {}).items():
            more = f" ({len(witnesses)} witnesses: {results_dir}/{lab['lab']}-races.txt)" if len(witnesses) > 1 else ""
            lines.append(f"{witnesses[0]}{more}")
    return lines


def counts(lab):
    tests = lab["tests"]
    return tuple(sum(t["status"] == word for t in tests) for word in ("passed", "failed", "skipped"))


def table(results, not_run=(), missing=(), columns=None):
    """The score table's lines; `columns`: at most that wide (the short view), leaving out the
    figure columns no lab has a figure in, then those that do not fit (said in a last line)."""
    header = ("lab", "passed", "skipped", "points", "headline kernel", "time ms", "GB/s",
              "% of bw", "% of peak", "vs baseline")
    rows = []
    for lab in results:
        passed, failed, skipped = counts(lab)
        kernel, m = headline(lab)
        rows.append((lab["lab"], f"{passed}/{passed + failed}", str(skipped),
                     f"{lab['score']:g}/{lab['max_score']:g}", kernel, figure(m, "time_ms", "{:.3f}"),
                     figure(m, "gbps", "{:.0f}"), share_of_bandwidth(m),
                     figure(m, "percent_of_peak_bw", "{:.1f}"),
                     figure(m, "speedup_vs_baseline", "{:.2f}x")))
    notes = [(lab, "no results: the program stopped before its first test") for lab in missing]
    notes += [(lab, "not run this time") for lab in not_run]
    kept, left_out = list(range(len(header))), []
    if columns:
        kept = [i for i in kept if i < 5 or any(r[i] != "-" for r in rows)]
        while len(kept) > 5 and sum(max(len(r[i]) for r in rows + [header]) + 2 for i in kept) - 2 > columns:
            left_out.insert(0, header[kept.pop()])
    header, rows = tuple(header[i] for i in kept), [tuple(r[i] for i in kept) for r in rows]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    left = (0, 4)  # the lab and the kernel's name read left to right; figures line up right
    lines = ["  ".join(cell.ljust(w) if i in left else cell.rjust(w) for i, (cell, w) in
                       enumerate(zip(row, widths))).rstrip() for row in [header] + rows]
    lines += [lab.ljust(widths[0]) + "  " + note for lab, note in notes]
    lines.insert(1, "-" * max(map(len, lines)))
    if left_out:
        lines.append(f"(left out for the terminal's width: {', '.join(left_out)}; grade.py --verbose "
                     "or a wider terminal shows them)")
    return "\n".join(lines)


def main(argv):
    flags = {a for a in argv[1:] if a.startswith("--")}
    build_dir = next((a for a in argv[1:] if not a.startswith("--")), "build")
    results, not_run, missing = load_run(build_dir)
    if not results and not missing:
        print(f"No results in {build_dir}/results: grade with `python3 grader/grade.py`.")
        return 1
    if "--verbose" not in flags:
        import short_report  # grader/short_report.py: the view that fits a screen
        return short_report.show(build_dir, results, not_run, missing, "--technique" in flags)
    first = (results or [{"backend": "?", "device": "?", "submission": "?"}])[0]
    print(f"\nScore table - backend {first['backend']}, device: {first['device']}, "
          f"submission: {first['submission']}")
    print(table(results, not_run, missing))
    total = sum(r["score"] for r in results), sum(r["max_score"] for r in results)
    print(f"Total: {total[0]:g} / {total[1]:g} points" + (" (labs run this time)" if not_run else ""))
    tiers = tier_lines(results)
    if tiers:
        print("Speed tests (% of bw: of the read, or copy, bandwidth measured in this run):")
        print("\n".join(tiers))
    explained = [(lab["lab"], line) for lab in results for line in explanations.lines(lab)]
    if explained:
        print("Why: your kernels' counters beside the reference's (CPU model unless said; "
              "grade.py --explain labNN shows them all):")
        print("\n".join(f"  {lab} {line}" for lab, line in explained))
    results_dir = os.path.relpath(os.path.join(build_dir, "results"))
    raced = race_lines(results, results_dir)
    if raced:
        print(races_heading(results))
        print("\n".join(f"  {line}" for line in raced))
    for lab in results:
        failed = [test for test in lab["tests"] if test["status"] == "failed"]
        for test in failed[:FAILURES_SHOWN_PER_LAB]:
            print(f"  FAILED {lab['lab']} {test['name']}: {telling_line(test['message'])}")
            for hint in hint_lines(test["message"])[:2]:
                print(f"    {hint}")
        if failed and os.path.exists(os.path.join(build_dir, "results", f"{lab['lab']}-failures.txt")):
            more = f"{len(failed) - FAILURES_SHOWN_PER_LAB} more and " if len(failed) > FAILURES_SHOWN_PER_LAB else ""
            print(f"    ({more}every full message: {results_dir}/{lab['lab']}-failures.txt)")
    for lab in missing:
        print(f"  {lab}: see {results_dir}/{lab}-output.txt")
    not_graded = [(lab["lab"], t) for lab in results for t in lab["tests"]
                  if t.get("kind") == "check" and t["status"] == "skipped"]
    if not_graded:
        reason = (not_graded[0][1]["message"].strip().splitlines() or [""])[0]
        print(f"  Technique checks, 0 points, {reason[:200]}; what a compile of your file says "
              "(advice only):")
        for lab, test in not_graded:
            advice = (test["message"].strip().splitlines() or [""])[-1]
            print(f"    {lab} {test['name'].split('.')[-1]}: {advice[:300]}")
    skipped = [t for lab in results for t in lab["tests"] if t["status"] == "skipped"
               and t.get("kind") != "check"]
    if skipped:
        reason = (skipped[0]["message"].strip().splitlines() or [""])[-1]
        print(f"  {len(skipped)} test(s) skipped; e.g. {skipped[0]['name']}: {reason[:160]}")
    try:
        with open(os.path.join(build_dir, "backend-reason.txt")) as f:
            reason = f.read().strip()
    except OSError:
        reason = ""
    if reason:
        print(f"  CPU backend, speed tests skipped: {reason}")
    passed, failed, skipped = (sum(c) for c in zip(*(counts(lab) for lab in results))) if results else (0, 0, 0)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
