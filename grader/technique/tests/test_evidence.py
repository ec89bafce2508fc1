#!/usr/bin/env python3
"""technique/evidence.py without a GPU: `ran` requirements judged on made-up evidence of both
backends (a GPU's SASS offsets with their listing, the CPU backend's access sites), and the four
ways a kernel can hold the lesson's instructions without doing the work with them: a privatized
loop behind a condition that never holds, a warp scan on a branch that never runs, the checked
kernel launched on no samples while another kernel counts, and a decoy of the same short name in
another namespace. Run: PYTHONPATH=grader python3 grader/technique/tests/test_evidence.py"""
import unittest

from counting.listing import parse_sass
from technique import evidence

HASH = "_GLOBAL__N__1c2d3e4f_35_lab03_shared_privatization_cu_0a1b2c3d"  # as nvcc names the file's
REAL = f"_ZN5lab03{len(HASH)}{HASH}33histogram_v1_shared_slices_kernelEPKiiPii"  # anonymous namespace
DECOY = "_Z33histogram_v1_shared_slices_kernelPKiiPi"
SASS = f"""
        Function : {REAL}
        /*0100*/                   LDG.E R2, desc[UR6][R2.64] ;
        /*0110*/                   ATOMS.POPC.INC.32 RZ, [R6+URZ] ;
        /*0120*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;
        /*0130*/                   LDG.E.128 R8, desc[UR6][R4.64] ;
        Function : {DECOY}
        /*0100*/                   LDG.E R2, desc[UR6][R2.64] ;
        /*0110*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;
"""
LISTING = parse_sass(SASS)
CODE = evidence.code_map(LISTING, [REAL, DECOY])
PRIVATIZED = "kernel.shared_atomic >= 0.9 * all.global_load_words"


def call(entries, collected=True, unavailable=""):
    return {"function": "lab03::histogram_v1_shared_slices", "collected": collected,
            "unavailable": unavailable, "entries": entries}


def gpu(kernel, pc, warps, threads, sectors=0):
    return [kernel, pc, "", 0, warps, threads, sectors]


def cpu(kernel, pc, kind, bytes_per_lane, warps, threads, sectors=0):
    return [kernel, pc, kind, bytes_per_lane, warps, threads, sectors]


class Gpu(unittest.TestCase):
    def test_a_privatized_kernel_that_counted_in_shared_memory_passes(self):
        calls = [call([gpu(REAL, 0x100, 32, 1024, 128), gpu(REAL, 0x110, 32, 1024), gpu(REAL, 0x120, 8, 256)])]
        ok, message = evidence.judge(PRIVATIZED, calls, [REAL], CODE)
        self.assertTrue(ok, message)
        self.assertIn("kernel.shared_atomic 1024 >= 922", message)

    def test_a_privatized_loop_behind_a_condition_that_never_holds_fails(self):
        # The ATOMS never ran (absent from the evidence); the global atomics did the counting.
        calls = [call([gpu(REAL, 0x100, 32, 1024, 128), gpu(REAL, 0x120, 32, 1024)])]
        ok, message = evidence.judge(PRIVATIZED, calls, [REAL], CODE)
        self.assertFalse(ok)
        self.assertIn("kernel.shared_atomic 0 >= 922", message)

    def test_a_decoy_of_the_same_short_name_earns_the_real_kernel_nothing(self):
        # The check read the lab's kernel; the decoy at global scope did the work.
        calls = [call([gpu(DECOY, 0x100, 32, 1024, 128), gpu(DECOY, 0x110, 32, 1024)])]
        self.assertFalse(evidence.judge(PRIVATIZED, calls, [REAL], CODE)[0])

    def test_wide_loads_count_four_words_a_lane(self):
        kernel, every, why = evidence.tallies([call([gpu(REAL, 0x130, 8, 256, 128)])], [REAL], CODE)
        self.assertEqual((why, every.value("global_load_words")), ("", 1024))
        self.assertEqual(kernel.value("load_sectors_per_128_bytes"), 4)  # 128 sectors for 4096 bytes


class Cpu(unittest.TestCase):
    def test_the_checked_kernel_launched_on_no_samples_while_another_counts_fails(self):
        calls = [call([cpu("histogram_v1_shared_slices_kernel", 1, "shared_store", 4, 32, 1024),
                       cpu("count_everything_kernel", 2, "global_load", 4, 32, 1024, 128),
                       cpu("count_everything_kernel", 3, "global_atomic", 4, 32, 1024)])]
        ok, message = evidence.judge(PRIVATIZED, calls, ["histogram_v1_shared_slices_kernel"])
        self.assertFalse(ok)
        self.assertIn("kernel.shared_atomic 0", message)

    def test_a_warp_scan_on_a_branch_that_never_runs_fails_and_one_that_runs_passes(self):
        scan = "kernel.shuffle >= all.global_load_words"
        shared_scan = [call([cpu("cdf_kernel", 1, "global_load", 4, 8, 256, 32),
                             cpu("cdf_kernel", 2, "shared_load", 4, 40, 1280)])]
        self.assertFalse(evidence.judge(scan, shared_scan, ["cdf_kernel"])[0])
        warp_scan = [call([cpu("cdf_kernel", 1, "global_load", 4, 8, 256, 32),
                           cpu("cdf_kernel", 2, "shuffle", 0, 40, 1280)])]
        self.assertTrue(evidence.judge(scan, warp_scan, ["cdf_kernel"])[0])

    def test_bytes_count_a_quarter_word_and_the_worst_load_of_weight_gives_the_sectors(self):
        calls = [call([cpu("k", 1, "global_load", 1, 32, 1024, 32), cpu("k", 2, "global_load", 4, 32, 1024, 128),
                       cpu("k", 3, "global_load", 4, 1, 10, 10)])]
        kernel, every, _ = evidence.tallies(calls, ["k"])
        self.assertEqual(every.value("global_load_words"), 256 + 1024 + 10)
        # Bytes and words read coalesced alike: 4 sectors for 128 bytes; the 10-thread site (under
        # 1 % of the busiest's threads, a tail) does not count.
        self.assertEqual(kernel.value("load_sectors_per_128_bytes"), 4)

    def test_a_decoy_that_loads_coalesced_more_often_hides_no_strided_load(self):
        strided = cpu("histogram_v2_grid_stride_kernel", 1, "global_load", 4, 32, 1024, 1024)
        decoy = cpu("warm_up_kernel", 2, "global_load", 4, 3200, 102400, 12800)
        kernel, every, _ = evidence.tallies([call([strided, decoy])], ["histogram_v2_grid_stride_kernel"])
        self.assertEqual(every.value("load_sectors_per_128_bytes"), 32)
        self.assertFalse(evidence.judge("all.load_sectors_per_128_bytes <= 8", [call([strided, decoy])],
                                        ["histogram_v2_grid_stride_kernel"])[0])

class FailsClosed(unittest.TestCase):
    def test_no_evidence_or_an_uncollected_call_fails_saying_why(self):
        self.assertIn("did not run in the evidence pass", evidence.judge(PRIVATIZED, [], ["k"])[1])
        ok, message = evidence.judge(PRIVATIZED, [call([], collected=False, unavailable="no CUPTI")], ["k"])
        self.assertFalse(ok)
        self.assertIn("no CUPTI", message)

    def test_counts_that_name_no_instruction_of_the_program_are_not_graded(self):
        # Collected, yet nothing maps to the graded runner's code: not graded (None), never a pass.
        for entries in ([], [gpu("_Z5otherv", 0x100, 32, 1024, 128)]):
            ok, message = evidence.judge(PRIVATIZED, [call(entries)], [REAL], CODE)
            self.assertIsNone(ok)
            self.assertTrue(message.startswith(evidence.NOT_COUNTED), message)

    def test_counts_that_do_not_fit_the_program_are_not_graded(self):
        # Each way a GPU's counts can disagree with the graded runner's machine code: judged on
        # nothing (None, 0 points), never a pass nor a fail of the student's kernel.
        real = [gpu(REAL, 0x100, 32, 1024, 128), gpu(REAL, 0x110, 32, 1024)]
        cases = {
            "kernel(s) the graded runner's machine code does not hold":   # a module loaded at run time
                real + [gpu("_Z11jit_countery", 0x100, 32, 1024, 128)],
            "offsets that are no instruction":                            # past the kernel's end
                real + [gpu(REAL, 0x1000, 32, 1024)],
            "no instruction of the graded runner":                        # not on an instruction
                real + [gpu(REAL, 0x108, 32, 1024)],
            "no thread executed":                                         # the threads' metric empty
                [gpu(REAL, 0x100, 32, 0, 128), gpu(REAL, 0x110, 32, 0)],
            "not one sector":                                             # the sectors' metric empty
                [gpu(REAL, 0x100, 32, 1024, 0), gpu(REAL, 0x110, 32, 1024)],
        }
        for why, entries in cases.items():
            for requirement in (PRIVATIZED, "all.load_sectors_per_128_bytes <= 8"):
                ok, message = evidence.judge(requirement, [call(entries)], [REAL], CODE)
                self.assertIsNone(ok, (why, message))
                self.assertTrue(message.startswith(evidence.NOT_COUNTED), message)
                self.assertIn(why, message)
        self.assertEqual(evidence.unreadable([call(real)], CODE), "")

    def test_the_code_map_knows_where_each_kernel_ends(self):
        self.assertEqual(CODE[REAL]["end"], 0x140)
        self.assertTrue(evidence.placed(CODE, REAL, 0))        # the first instruction: every thread's
        self.assertFalse(evidence.placed(CODE, REAL, 0x140))
        self.assertFalse(evidence.placed(CODE, "_Z5otherv", 0))

    def test_a_bound_of_nothing_counted_proves_nothing(self):
        # The kernels ran (their first instruction counted) but no load was: 0 >= 0.9 x 0 fails,
        # and no load cannot be called coalesced.
        launched = [call([gpu(REAL, 0, 32, 1024)])]
        ok, message = evidence.judge(PRIVATIZED, launched, [REAL], CODE)
        self.assertIs(ok, False)
        self.assertIn("with no all.global_load_words counted", message)
        ok, message = evidence.judge("all.load_sectors_per_128_bytes <= 8", launched, [REAL], CODE)
        self.assertIs(ok, False)
        self.assertIn("no global load counted", message)

    def test_counters_kept_from_users_fail_saying_how_to_lift_it(self):
        refused = call([], collected=False, unavailable="cuptiSassMetricsSetConfig: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")
        ok, message = evidence.judge(PRIVATIZED, [refused], ["k"])
        self.assertFalse(ok)
        self.assertIn("NVreg_RestrictProfilingToAdminUsers=0", message)
        self.assertIn("CPU model", message)

    def test_the_batchs_judge_says_the_checks_hint_when_it_fails(self):
        # as grade.py does (inspect_kernels.judge_what_ran): the hint names the handout question
        check = {"ran": "all.load_sectors_per_128_bytes <= 8", "machine_code_passed": True,
                 "hint": "neighbouring threads read neighbouring samples (question 2.5)"}
        strided = [call([cpu("k", 1, "global_load", 4, 32, 1024, 1024)])]  # 32 sectors a 128 bytes
        ok, message = evidence.judge_check(check, ["T"], {"T": strided}, ["k"])
        self.assertIs(ok, False)
        self.assertTrue(message.endswith(" Hint: neighbouring threads read neighbouring samples "
                                         "(question 2.5)"), message)
        ok, message = evidence.judge_check(check, ["T"], {}, ["k"])  # its needed tests did not run
        self.assertIs(ok, False)
        self.assertNotIn("Hint", message)
        coalesced = [call([cpu("k", 1, "global_load", 4, 32, 1024, 128)])]
        ok, message = evidence.judge_check(check, ["T"], {"T": coalesced}, ["k"])
        self.assertIs(ok, True, message)
        self.assertNotIn("Hint", message)

    def test_the_batchs_judge_counts_the_kernels_the_check_read(self):
        # A check judged on what ran has no launch gate: its results entry's "kernels" is empty, and
        # the batch hands that on. kernel.* must still count the kernel the check read (its "read").
        check = {"ran": "kernel.shared_atomic >= 0.9 * all.global_load_words", "machine_code_passed": True,
                 "read": ["k"]}
        privatized = [call([cpu("k", 1, "global_load", 4, 32, 1024, 128), cpu("k", 2, "shared_atomic", 4, 32, 1024, 0)])]
        ok, message = evidence.judge_check(check, ["T"], {"T": privatized}, [])
        self.assertIs(ok, True, message)
        ok, message = evidence.judge_check(dict(check, read=["other"]), ["T"], {"T": privatized}, [])
        self.assertIs(ok, False, message)

    def test_a_malformed_requirement_is_refused(self):
        for bad in ("kernel.shared_atomic >= lots", "loop.shuffle >= 1", "kernel.flops >= 1"):
            with self.assertRaises(evidence.EvidenceError):
                evidence.parse(bad)
        self.assertEqual(len(evidence.parse("kernel.shuffle >= 1, all.global_load < 2 * kernel.global_load")), 2)


if __name__ == "__main__":
    unittest.main()
