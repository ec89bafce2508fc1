#!/usr/bin/env python3
"""machine_speed.py, the factor the batch's tests scale their time limits by: 1 on the reference
machine or a faster one, proportional to the workload's time on a slower or busier one, capped;
GRADER_TIME_SCALE overrides it. Under a second."""
import itertools
import os
import unittest

from batch.tests import machine_speed


class MachineSpeed(unittest.TestCase):
    def test_the_factor_follows_the_workload_time(self):
        reference = machine_speed.REFERENCE_S
        self.assertEqual(machine_speed.factor_of(reference), 1.0)
        self.assertEqual(machine_speed.factor_of(reference / 3), 1.0)  # never shortened
        self.assertAlmostEqual(machine_speed.factor_of(reference * 2.5), 2.5)
        self.assertEqual(machine_speed.factor_of(reference * 100), machine_speed.MAX_SCALE)

    def test_the_median_of_the_repeats_is_taken(self):
        ticks = itertools.chain.from_iterable([(0, 1), (0, 9), (0, 2)])  # 1, 9 and 2 s
        self.assertEqual(machine_speed.measure(clock=lambda: next(ticks), repeats=3), 2)

    def test_measured_once_then_given_to_what_the_test_starts(self):
        env = {}
        busy = machine_speed.REFERENCE_S * 2
        self.assertEqual(machine_speed.scale(env, measured=busy), 2.0)
        self.assertEqual(env[machine_speed.ENV], "2.00")
        self.assertEqual(machine_speed.scale(env, measured=busy * 10), 2.0)  # not measured again

    def test_the_variable_overrides_and_is_checked(self):
        self.assertEqual(machine_speed.scale({machine_speed.ENV: "0.5"}), 0.5)
        for bad in ("fast", "0", "-2"):
            with self.assertRaises(ValueError):
                machine_speed.scale({machine_speed.ENV: bad})

    def test_a_real_measurement_is_a_factor(self):
        env = {}
        factor = machine_speed.scale(env)
        print(f"this machine now: factor {factor} ({machine_speed.measure() * 1000:.1f} ms of "
              f"workload, {machine_speed.REFERENCE_S * 1000:.1f} ms on the reference machine)")
        self.assertTrue(1.0 <= factor <= machine_speed.MAX_SCALE, factor)

    def test_limits_as_text_for_a_command_line(self):
        saved = os.environ.get(machine_speed.ENV)
        os.environ[machine_speed.ENV] = "2.5"
        try:
            self.assertEqual(machine_speed.seconds(10), "25")
        finally:
            if saved is None:
                del os.environ[machine_speed.ENV]
            else:
                os.environ[machine_speed.ENV] = saved


if __name__ == "__main__":
    unittest.main(verbosity=2)
