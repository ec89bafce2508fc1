"""A lab run's results, in one place: the schema; the document a run makes, with its points (pass,
stretch, and the gates of runs/scoring.py); the files it is written to and read back from; and a
failure's message in the grader's own words (GoogleTest's framing taken off). grade.py,
grade_lab.py (`meson test --suite labNN`), the self-tests (tools/expect_outcome.py), the score table
(report.py), the technique checks (technique/inspect_kernels.py) and the batch use it; nothing else
writes a lab's results.
"""
import glob
import json
import os
import sys

from runs import scoring

# v2 added "counters" (grader/explain/README.md); v1 documents (no counters) still load.
SCHEMA = "gpu-histogram-workbook/results/v2"
READABLE_SCHEMAS = (SCHEMA, "gpu-histogram-workbook/results/v1")


def score_of(status, tiers, points, stretch):
    """A test's points before the gates: its pass points when it passed, plus its stretch points
    when a stretch tier was met too."""
    if status != "passed":
        return 0.0
    met = any(t.get("name") == "stretch" and t.get("met") for t in tiers)
    return points + (stretch if met else 0.0)


def test_entry(name, kind, status, points, stretch=0.0, needs=(), message="", tiers=(),
               metrics=None, fault="", kernels=None, evidence=None):
    """One test of a results document, with its points before the gates. `kind`: the checker's
    "main", "edge" or "speed" (grader/core/results.hpp's TestKind), or "check" (a technique
    check; `kernels`: those it read; `evidence`: its `ran` requirement, whether the machine code
    met its `requires`, and a GPU's map of that code, for a judge of what ran: technique/evidence.py)."""
    entry = {"name": name, "status": status, "kind": kind,
             "score": score_of(status, tiers, points, stretch), "max_score": points + stretch,
             "message": message, "needs": list(needs), "metrics": dict(metrics or {}),
             "tiers": list(tiers), "fault": fault}
    if kernels is not None:
        entry["kernels"] = list(kernels)
    if evidence is not None:
        entry["evidence"] = evidence
    return entry


def document(lab, submission, backend, device, tests, headline=None, gated=True):
    """A lab's results document around its test entries. `gated`: apply the gates of
    runs/scoring.py now (a technique checks' document alone is gated when loaded with its lab's,
    whose tests its checks need)."""
    if gated:
        scoring.apply_gates(tests)
    result = {"schema": SCHEMA, "lab": lab, "submission": submission, "backend": backend,
              "device": device, "score": sum(t["score"] for t in tests),
              "max_score": sum(t["max_score"] for t in tests), "tests": tests}
    if headline:
        result["headline"] = headline
    return result


def withhold(result, reason):
    """Withholds a document's points (the batch's integrity findings): each earned score is kept
    as "earned" and the score becomes 0, the reason first in its message."""
    for test in result["tests"]:
        if test["score"]:
            test["message"] = f"score withheld: {reason}\n{test['message']}".strip()
            test["earned"], test["score"] = test["score"], 0.0
    result["score"] = 0.0


def lab_document(lab, submission, hello, table, outcomes, headline=None):
    """The results document of a lab's run. `table`: the checker's points table [(test, pass
    points, stretch points, kind, needs)] in run order; `outcomes`: {test: runs.harness.TestOutcome}
    (tests without one were left out of this run); `hello`: what the checker said of itself."""
    tests = [test_entry(name, kind, outcomes[name].status, points, stretch, needs,
                        outcomes[name].message, outcomes[name].tiers, outcomes[name].metrics,
                        outcomes[name].fault)
             for name, points, stretch, kind, needs in table if name in outcomes]
    hello = hello or {}
    return document(lab, submission, hello.get("backend", "?"), hello.get("device", "?"), tests,
                    headline)


def failures_text(document):
    """Every failed test with its whole message: what the score table shortens."""
    lines = []
    for test in document["tests"]:
        if test["status"] == "failed":
            lines += [f"FAILED {document['lab']} {test['name']}", test["message"].rstrip(), ""]
    return "\n".join(lines)


def write_text(path, text):
    """Written then renamed, so that a reader never sees half a file."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temporary = path + ".partial"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temporary, path)


def write_document(path, document):
    write_text(path, json.dumps(document, indent=1) + "\n")


def write(results_dir, document, output):
    """labNN.json (the score table's input), labNN-failures.txt, labNN-output.txt."""
    lab = document["lab"]
    write_document(os.path.join(results_dir, f"{lab}.json"), document)
    write_text(os.path.join(results_dir, f"{lab}-failures.txt"), failures_text(document))
    write_text(os.path.join(results_dir, f"{lab}-output.txt"), output)


def attach_counters(results_dir, lab, counters):
    """Adds a lab's explanation (grader/explain/explanations.py's section) to its results file."""
    path = os.path.join(results_dir, f"{lab}.json")
    document = load_file(path)
    if document is not None:
        document["counters"] = counters
        write_document(path, document)


def load_file(path):
    """A results document, or None (with a warning) when the file is unreadable or not one."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        print(f"warning: cannot read {path}: {error}", file=sys.stderr)
        return None
    if data.get("schema") not in READABLE_SCHEMAS:
        print(f"warning: {path} is not a results file of this grader", file=sys.stderr)
        return None
    return data


def load_run(build_dir):
    """(results of this run, labs not run this time, labs run without a results file). grade.py
    writes results/run.json naming the labs it ran; without it (after a `meson test`), every
    results file found is shown, as found."""
    folder = os.path.join(build_dir, "results")
    try:
        with open(os.path.join(folder, "run.json")) as f:
            run = json.load(f)
    except (OSError, json.JSONDecodeError):
        run = None
    if run is None:
        paths = sorted(glob.glob(os.path.join(folder, "lab*.json")))
        return scoring.gate_documents([r for r in map(load_file, paths) if r]), [], []
    results, missing = [], []
    for lab in run["labs_run"]:
        found = [load_file(p) for p in sorted(glob.glob(os.path.join(folder, f"{lab}*.json")))]
        found = [r for r in found if r]
        if not any(r["lab"] == lab for r in found):
            missing.append(lab)
        results += found
    return (scoring.gate_documents(results),
            [lab for lab in run["all_labs"] if lab not in run["labs_run"]], missing)


GTEST_ACTUAL = ("Actual: false (", "Actual: true (")
GTEST_THREW = ('C++ exception with description "', '" thrown in the test body.')


def own_words(message):
    """A failure's message in the grader's own words, GoogleTest's framing taken off: "Failed",
    "file.cu:79: Failure", "Value of: expression", "Expected: true", and the "Actual: false (...)"
    around the grader's explanation (what it found wrong, then the wrong bins), or the 'C++
    exception with description "..." thrown in the test body.' around the grader's exception.
    The one place that does it: the score table, the batch's log.txt, results.json and class
    report use it."""
    out, explaining = [], False
    for line in (message or "").splitlines():
        bare = line.strip()
        if bare.startswith(GTEST_THREW[0]):
            line = bare = bare[len(GTEST_THREW[0]):]
        if bare.endswith(GTEST_THREW[1]):
            line = bare = bare[:-len(GTEST_THREW[1])]
        if bare in ("Expected: true", "Expected: false"):
            if explaining and out and out[-1].endswith(")"):
                out[-1] = out[-1][:-1]  # the parenthesis GoogleTest closes the explanation with
            explaining = False
        elif bare == "Failed" or bare.endswith(": Failure") or bare.startswith("Value of:"):
            continue
        elif bare.startswith(GTEST_ACTUAL):
            out.append(bare[bare.index("(") + 1:])
            explaining = True
        elif bare not in ("Actual: false", "Actual: true"):
            out.append(line.rstrip())
    return "\n".join(out).strip("\n")


def telling_line(message):
    """The first line that says what went wrong, in the grader's own words (own_words)."""
    for line in own_words(message).splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def shorten(text, limit):
    """`text` in at most `limit` characters, cut at a word with an ellipsis (…) where too long."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"
