"""Points reward work: an edge-case, shape or rule test that code doing nothing also passes (an
empty input, a refused launch shape) earns its points only when the tests it needs (the main
tests of its version, listed by the grader as the test's "needs") passed in the same run. A
technique check (kind "check": what the compiled kernels hold) earns its points the same way, only
once the correctness tests its lab's meson.build names for it passed: a kernel that never ran, or
counts wrong, can still hold the right instructions.
A needed test that did not run here (skipped for want of something on this machine, such as a
real photograph, or left out of the batch's plan because the reference skipped it) does not gate;
at least one needed test must have passed, so a check whose lab did not run earns nothing.
The checker applies the same rule to the results file it writes itself (grader/core/results.cpp);
grade.py, the score table and the batch apply it here, to the checks too.
"""

GATE_MESSAGE = ("passed, but earns its points only once the main tests of this version pass (code "
                "that does nothing passes this check too); not passed yet: ")
CHECK_GATE_MESSAGE = ("passed, but earns its points only once the correctness tests of this "
                      "version pass (kernels that never ran, or count wrong, can hold these "
                      "instructions too); not passed yet: ")


def apply_gates(tests):
    """tests: dicts with name, status, score, message and needs (a list of test names), the lab's
    program tests and its checks together. Zeroes the score of each passed test whose needed tests
    that ran did not all pass, or none of whose needed tests ran, saying why."""
    status = {t["name"]: t["status"] for t in tests}
    for test in tests:
        ran = [name for name in test.get("needs") or [] if status.get(name, "skipped") != "skipped"]
        missing = [name for name in ran if status[name] != "passed"]
        if test.get("needs") and not ran:
            missing = list(test["needs"])
        if missing and test["score"]:
            prefix = CHECK_GATE_MESSAGE if test.get("kind") == "check" else GATE_MESSAGE
            test["message"] = "\n".join(filter(None, [test["message"], prefix + ", ".join(missing)]))
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
