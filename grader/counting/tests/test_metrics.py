#!/usr/bin/env python3
"""counting/metrics.py, the one table of counters, names every counter the counting mode writes
(counting.hpp's COUNTING_COUNTERS list, which records.cpp writes) and nothing else, each ncu metric
once; and from_ncu adds up a counter's metrics. Run: PYTHONPATH=grader python3 grader/counting/tests/test_metrics.py"""
import os
import re
import unittest

from counting import metrics

HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "cpu_backend", "counting", "counting.hpp")


def counting_counters():
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    listed = text[text.index("#define COUNTING_COUNTERS(X)"):text.index("struct launch_totals")]
    return re.findall(r"X\((\w+)\)", listed)


class OneTable(unittest.TestCase):
    def test_the_table_names_exactly_the_counters_the_counting_mode_writes(self):
        self.assertEqual(sorted(metrics.COUNTERS), sorted(counting_counters()))

    def test_each_ncu_metric_counts_one_counter(self):
        names = [m for counter in metrics.COUNTERS.values() for m in counter]
        self.assertEqual(len(names), len(set(names)))
        self.assertTrue(set(metrics.COMPARED) <= set(metrics.COUNTERS))

    def test_from_ncu_adds_a_counters_metrics_and_leaves_out_what_ncu_did_not_give(self):
        atom, red = metrics.COUNTERS["global_atomic_requests"]
        found = metrics.from_ncu({atom: 3.0, red: 4.0, "something_else.sum": 1.0})
        self.assertEqual(found, {"global_atomic_requests": 7.0})
        self.assertEqual(metrics.wavefronts_of("shared_load_bank_conflicts"), "shared_load_wavefronts")


if __name__ == "__main__":
    unittest.main()
