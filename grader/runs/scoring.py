"""Points reward work: an edge-case, shape or rule test that code doing nothing also passes (an
empty input, a refused launch shape) earns its points only when the tests it needs (the main
tests of its version, listed by the grader as the test's "needs") passed in the same run.
The checker applies the same rule to the results file it writes itself (grader/core/results.cpp).
"""

GATE_MESSAGE = ("passed, but earns its points only once the main tests of this version pass (code "
                "that does nothing passes this check too); not passed yet: ")


def apply_gates(tests):
    """tests: dicts with name, status, score, message and needs (a list of test names).
    Zeroes the score of each passed test whose needed tests did not all pass, saying why."""
    passed = {t["name"] for t in tests if t["status"] == "passed"}
    for test in tests:
        missing = [name for name in test.get("needs") or [] if name not in passed]
        if missing and test["score"]:
            test["message"] = "\n".join(filter(None, [test["message"],
                                                      GATE_MESSAGE + ", ".join(missing)]))
            test["score"] = 0.0
    return tests
