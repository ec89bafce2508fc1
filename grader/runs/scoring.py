"""Points reward work: an edge-case, shape or rule test that code doing nothing also passes (an
empty input, a refused launch shape) earns its points only when the tests it needs (the main
tests of its version, listed by the grader as the test's "needs") passed in the same run. A
technique check (kind "check": what the compiled kernels hold) earns its points the same way, only
once the correctness tests its lab's meson.build names for it passed: a kernel that never ran, or
counts wrong, can still hold the right instructions.
A needed test that did not run here (skipped for want of something on this machine, such as a
real photograph, or left out of the batch's plan because the reference skipped it) does not gate;
at least one needed test must have passed, so a check whose lab did not run earns nothing.
A technique check also names the kernels it read ("kernels"); it earns its points only where its
needed tests that passed launched each of them (the runner records the kernels a call launched,
from CUPTI, as the metrics "launched:NAME"): instructions of a decoy kernel that never ran earn
nothing.
The checker only reports each test (grader/core/results.cpp); grade.py, `meson test` (through
grader/grade_lab.py), the score table and the batch apply the rule here, to the checks too.
"""
from runs.kernel_names import identifier as kernel_identifier  # noqa: F401  (scoring.kernel_identifier)
from runs.kernel_names import same_kernel


GATE_MESSAGE = ("passed, but earns its points only once the main tests of this version pass (code "
                "that does nothing passes this check too); not passed yet: ")
CHECK_GATE_MESSAGE = ("passed, but earns its points only once the correctness tests of this "
                      "version pass (kernels that never ran, or count wrong, can hold these "
                      "instructions too); not passed yet: ")


LAUNCH_MESSAGE = ("passed, but earns its points only for a kernel its correctness tests launched; "
                  "they launched ")
LAUNCHED = "launched:"  # grader/core/results.hpp's kLaunchedMetricPrefix


def unlaunched(check, status, tests_by_name):
    """([] when one of the kernels `check` read was launched by its passed needed tests, else the
    kernels it read), and what those tests launched. A check names the kernels it read as the
    machine code names them (mangled, on a GPU): a launched kernel is one of them only when its
    name is the same symbol, not another kernel of the same short name (kernel_names.py, the one
    reading of a kernel's name); a check that names a short name (a compile's, the CPU backend's)
    matches by that name read the same way."""
    ran = [tests_by_name[n] for n in check.get("needs") or [] if status.get(n) == "passed"]
    launched = sorted({key[len(LAUNCHED):] for t in ran for key in (t.get("metrics") or {})
                       if key.startswith(LAUNCHED)})
    read = check.get("kernels") or []
    hit = any(same_kernel(name, launch) for name in read for launch in launched)
    return ([] if hit or not read else list(read)), launched


def apply_gates(tests):
    """tests: dicts with name, status, score, message and needs (a list of test names), the lab's
    program tests and its checks together. Zeroes the score of each passed test whose needed tests
    that ran did not all pass, or none of whose needed tests ran, saying why."""
    status = {t["name"]: t["status"] for t in tests}
    by_name = {t["name"]: t for t in tests}
    for test in tests:
        ran = [name for name in test.get("needs") or [] if status.get(name, "skipped") != "skipped"]
        missing = [name for name in ran if status[name] != "passed"]
        if test.get("needs") and not ran:
            missing = list(test["needs"])
        if missing and test["score"]:
            prefix = CHECK_GATE_MESSAGE if test.get("kind") == "check" else GATE_MESSAGE
            test["message"] = "\n".join(filter(None, [test["message"], prefix + ", ".join(missing)]))
            test["score"] = 0.0
        if test.get("kind") == "check" and test.get("kernels") and test["score"]:
            kernels, launched = unlaunched(test, status, by_name)
            if kernels:
                said = ", ".join(launched)[:300] if launched else "none the grader could name"
                test["message"] = "\n".join(filter(None, [test["message"], LAUNCH_MESSAGE + said +
                                                           ", not " + ", ".join(kernels)]))
                test["score"] = 0.0
    return tests


def gate_documents(documents):
    """Results documents of one run (labNN.json and the lab's technique file, labNN_technique.json,
    whose "lab" is labNN-technique): the gates applied across each lab's files, and each file's
    score summed again."""
    by_lab = {}
    for document in documents:
        by_lab.setdefault(document["lab"].split("-")[0], []).append(document)
    for group in by_lab.values():
        apply_gates([test for document in group for test in document["tests"]])
        for document in group:
            document["score"] = sum(float(t.get("score") or 0) for t in document["tests"])
    return documents
