"""Points reward work: an edge-case, shape or rule test that code doing nothing also passes (an
empty input, a refused launch shape) earns its points only when the tests it needs (the main
tests of its version, listed by the grader as the test's "needs") passed in the same run.
A needed test that did not run here (skipped for want of something on this machine, such as a
real photograph, or left out of the batch's plan because the reference skipped it) does not gate;
at least one needed test must have passed. The checker applies the same rule to the results file it
writes itself (grader/core/results.cpp).
"""

GATE_MESSAGE = ("passed, but earns its points only once the main tests of this version pass (code "
                "that does nothing passes this check too); not passed yet: ")


def apply_gates(tests):
    """tests: dicts with name, status, score, message and needs (a list of test names).
    Zeroes the score of each passed test whose needed tests did not all pass, saying why."""
    status = {t["name"]: t["status"] for t in tests}
    for test in tests:
        ran = [name for name in test.get("needs") or [] if status.get(name, "skipped") != "skipped"]
        missing = [name for name in ran if status[name] != "passed"]
        if test.get("needs") and not ran:
            missing = list(test["needs"])
        if missing and test["score"]:
            test["message"] = "\n".join(filter(None, [test["message"],
                                                      GATE_MESSAGE + ", ".join(missing)]))
            test["score"] = 0.0
    return tests
