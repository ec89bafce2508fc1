"""Tests for grader/technique/inspect_kernels.py.
Run: PYTHONPATH=grader python3 grader/technique/tests/test_inspect_kernels.py"""
import os
import shutil
import subprocess
import sys
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from technique import inspect_kernels as ik
from counting import sass

TOOLS = Path(__file__).resolve().parent.parent

# The shape of `cuobjdump -sass` output (encodings trimmed): an interleaved loop at 0x30..0x80.
SASS = """
\t\tFunction : _ZN5lab0212_GLOBAL__N_118interleaved_kernelEPKiiPi
\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;        /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;            /* 0x0000000000007919 */
        /*0020*/               @P0 EXIT ;
        /*0030*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0040*/                   REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7 ;
        /*0050*/                   LDG.E.128 R8, desc[UR4][R4.64+0x4] ;
        /*0060*/                   REDUX.SUM UR5, R3 ;
        /*0070*/                   ISETP.NE.AND P1, PT, R6, RZ, PT ;
        /*0080*/               @P1 BRA 0x30 ;
        /*0090*/                   EXIT ;
        /*00a0*/                   BRA 0xa0;
\t\tFunction : _Z13shared_kernelPKiiPi
.L_x_0:
        /*0000*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0010*/                   ATOMS.POPC.INC.32 RZ, [R2+UR4] ;
        /*0020*/              @!P0 BRA `(.L_x_0) ;
        /*0030*/                   EXIT ;
"""

PTX = """
.visible .entry _Z13grouped_kernelPKiiPi(
\t.param .u64 _Z13grouped_kernelPKiiPi_param_0
)
{
\t.reg .pred \t%p<3>;
$L__BB0_1:
\tld.global.v4.u32 \t{%r1, %r2, %r3, %r4}, [%rd1];
\tatom.shared.add.u32 \t%r5, [%r6], 1;
\tred.global.add.u32 \t[%rd2], %r7;
\t@%p1 bra \t$L__BB0_1;
\tret;
}
.func helper()
{
$L__BB1_1:
\tld.global.u32 \t%r1, [%rd1];
\tbra.uni \t$L__BB1_1;
}
"""


class ParsesListings(unittest.TestCase):
    def test_sass_loops_count_families_and_vector_widths(self):
        kernels = ik.parse_sass(SASS)
        self.assertEqual(len(kernels), 2)
        loops = ik.find_loops(kernels[ik.find_kernel(kernels, "interleaved_kernel")])
        self.assertEqual(len(loops), 1, "the BRA to itself after EXIT is not a loop")
        counts = loops[0].counts
        self.assertEqual(counts["global_load"], 5)  # LDG.E + LDG.E.128
        self.assertEqual(counts["global_atomic"], 1)  # REDG, not the warp reduction REDUX
        self.assertEqual(counts["loads_before_global_atomic"], 1)

    def test_sass_labels_mark_loops_too(self):
        kernels = ik.parse_sass(SASS)
        loops = ik.find_loops(kernels[ik.find_kernel(kernels, "shared_kernel")])
        self.assertEqual(len(loops), 1)
        self.assertEqual(loops[0].counts["shared_atomic"], 1)

    def test_ptx_loops_skip_device_functions(self):
        kernels = ik.parse_ptx(PTX)
        self.assertEqual(list(kernels), ["_Z13grouped_kernelPKiiPi"])
        loop, = ik.find_loops(kernels["_Z13grouped_kernelPKiiPi"])
        self.assertEqual(loop.counts["global_load"], 4)
        self.assertEqual(loop.counts["shared_atomic"], 1)
        self.assertEqual(loop.counts["global_atomic"], 1)
        self.assertEqual(loop.counts["loads_before_global_atomic"], 4)

    def test_kernel_scope_counts_instructions_outside_loops_too(self):
        sass = """
\t\tFunction : _Z11warp_kernelPKiPi
        /*0000*/                   SHFL.UP PT, R3, R2, 0x1, RZ ;
        /*0010*/                   SHFL.UP PT, R5, R4, 0x2, RZ ;
        /*0020*/                   EXIT ;
"""
        kernels = ik.parse_sass(sass)
        self.assertEqual(ik.find_loops(kernels["_Z11warp_kernelPKiPi"]), [])
        ok, message = ik.Check("v4", "warp_kernel", "kernel: shuffle>=1").run(kernels, "address", "x.cu")
        self.assertTrue(ok, message)
        self.assertIn("2 warp shuffles", message)
        ok, message = ik.Check("v4", "warp_kernel", "kernel: shuffle>=3", "use shfl").run(kernels, "address", "x.cu")
        self.assertFalse(ok)
        self.assertIn("must hold at least 3 warp shuffles; it holds 2 warp shuffles. Hint: use shfl", message)
        ok, _ = ik.Check("loop", "warp_kernel", "shuffle>=1").run(kernels, "address", "x.cu")
        self.assertFalse(ok, "without the kernel: scope only loops count")

    def test_kernel_names_match_whole_identifiers_only(self):
        kernels = {"_Z9v1_kernelPi": [], "_Z12v1_kernel_2Pi": []}
        self.assertEqual(ik.find_kernel(kernels, "v1_kernel"), "_Z9v1_kernelPi")
        self.assertIsNone(ik.find_kernel(kernels, "kernel"))

    def test_checks_report_what_each_loop_holds(self):
        kernels = ik.parse_sass(SASS)
        ok, message = ik.Check("ilp", "interleaved_kernel", "loads_before_global_atomic>=4", "load first") \
            .run(kernels, "address", "x.cu")
        self.assertFalse(ok)
        self.assertIn("1 words loaded before the first global atomic", message)
        self.assertIn("Hint: load first", message)
        ok, message = ik.Check("missing", "no_such_kernel", "global_load>=1").run(kernels, "address", "x.cu")
        self.assertFalse(ok)
        self.assertIn("Keep the kernel names", message)

    def test_kernels_in_an_anonymous_namespace_are_found_after_a_digit_hash(self):
        # As nvcc 13 names it (the hash's length prefix, 56, counts the whole hash).
        mangled = "_ZN5lab0456_GLOBAL__N__f4f87896_23_lab04_thread_per_bin_cu_904cdbb925histogram_v2_banks_kernelEPKiiPii"
        kernels = {mangled: [], "_Z26histogram_v3_banks2_kernelPKiiPii": []}
        self.assertEqual(ik.find_kernel(kernels, "histogram_v2_banks_kernel"), mangled)

    def test_implication_checks_every_innermost_loop_meeting_the_condition(self):
        # Two copies of a shared-memory scan (unrolled body, remainder); one does an atomic.
        sass = """
\t\tFunction : _Z9scan_loopPKiiPi
        /*0000*/                   LDS.128 R4, [UR4] ;
        /*0010*/                   ISETP.NE.AND P1, PT, R4, R0, PT ;
        /*0020*/               @P1 BRA 0x0 ;
        /*0030*/                   LDS R4, [UR4] ;
        /*0040*/                   REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7 ;
        /*0050*/               @P1 BRA 0x30 ;
        /*0060*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0070*/                   STS [R3], R2 ;
        /*0080*/               @P1 BRA 0x60 ;
        /*0090*/                   EXIT ;
"""
        kernels = ik.parse_sass(sass)
        rule = ("scan_loop", "shared_load>=1 => global_atomic==0,shared_atomic==0", "count in a register")
        ok, message = ik.Check("no atomics", *rule).run(kernels, "address", "x.cu")
        self.assertFalse(ok)
        self.assertIn("0x0030..0x0050", message)
        self.assertNotIn("0x0060", message, "the copy loop reads no shared memory: not checked")
        self.assertIn("Hint: count in a register", message)
        clean = {name: [i for i in body if i.family != "global_atomic"] for name, body in kernels.items()}
        ok, message = ik.Check("no atomics", *rule).run(clean, "address", "x.cu")
        self.assertTrue(ok, message)
        ok, message = ik.Check("no scan", "scan_loop", "shuffle>=1 => global_atomic==0").run(
            kernels, "address", "x.cu")
        self.assertFalse(ok, "a condition no loop meets is a failure, not a vacuous pass")

    def test_bad_requirements_are_usage_errors(self):
        with self.assertRaises(ik.UsageError):
            ik.Check("x", "k", "loads>=1")
        with self.assertRaises(ik.UsageError):
            ik.make_checks([{"label": "x", "kernel": "k"}])


def fatbin(arch, functions):
    """One cubin's block of `cuobjdump -sass` on an executable."""
    return (f"\nFatbin elf code:\n================\narch = {arch}\ncode version = [1,8]\n"
            f"host = linux\ncompile_size = 64bit\n\n\tcode for {arch}\n\t.target\t{arch}\n"
            + "".join(functions))


SHARED_LOOP = """
\t\tFunction : {name}
        /*0000*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0010*/                   ATOMS.POPC.INC.32 RZ, [R2+UR4] ;
        /*0020*/               @P0 BRA 0x0 ;
        /*0030*/                   EXIT ;
"""
GLOBAL_LOOP = SHARED_LOOP.replace("ATOMS.POPC.INC.32 RZ, [R2+UR4]", "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7")
REAL = "_ZN5lab0312_GLOBAL__N_133histogram_v1_shared_slices_kernelEPKiiPii"
RULE = ["--check", "v1", "--kernel", "histogram_v1_shared_slices_kernel",
        "--requires", "global_load>=1,shared_atomic>=1,global_atomic==0"]
PTX_BLOCK = "\nFatbin ptx code:\n================\narch = sm_90\ncode version = [9,0]\ncompressed\n"


class ReadsTheGradedRunner(unittest.TestCase):
    """--runner: the machine code of the executable that ran, every architecture it holds."""

    def run_main(self, listing, *extra, cuobjdump="/bin/cuobjdump"):
        with tempfile.TemporaryDirectory() as tmp:
            runner = os.path.join(tmp, "lab03_runner_graded")
            Path(runner).write_text("an executable")
            results = os.path.join(tmp, "results.json")
            with mock.patch.object(sass, "find_cuobjdump", return_value=cuobjdump), \
                    mock.patch.object(sass, "disassemble", return_value=listing):
                code = ik.main(["--runner", runner, *RULE, "--needs", "v1=Lab03S.Main",
                                "--results", results, "--lab", "lab03-technique", *extra])
            with open(results) as f:
                return code, json.load(f)["tests"][0]

    def test_the_runners_own_code_decides(self):
        code, test = self.run_main(fatbin("sm_90", [SHARED_LOOP.format(name=REAL)]) + PTX_BLOCK)
        self.assertEqual((code, test["status"], test["score"]), (0, "passed", 1))
        self.assertEqual((test["kind"], test["needs"]), ("check", ["Lab03S.Main"]))
        code, test = self.run_main(fatbin("sm_90", [GLOBAL_LOOP.format(name=REAL)]))
        self.assertEqual((code, test["status"], test["score"]), (1, "failed", 0))
        self.assertIn("[sm_90]", test["message"])

    def test_every_architecture_the_runner_holds_must_pass(self):
        # __CUDA_ARCH__ tricks: right on one architecture, global atomics on the other.
        listing = fatbin("sm_80", [SHARED_LOOP.format(name=REAL)]) + fatbin("sm_90", [GLOBAL_LOOP.format(name=REAL)])
        code, test = self.run_main(listing)
        self.assertEqual(test["status"], "failed")
        self.assertIn("[sm_90]", test["message"])

    def test_a_decoy_beside_the_kernel_or_a_second_copy_fails(self):
        decoy = "_Z33histogram_v1_shared_slices_kernelv"  # same name, never launched
        listing = fatbin("sm_90", [SHARED_LOOP.format(name=decoy), GLOBAL_LOOP.format(name=REAL)])
        self.assertEqual(self.run_main(listing)[1]["status"], "failed")
        twice = fatbin("sm_90", [GLOBAL_LOOP.format(name=REAL)]) + fatbin("sm_90", [SHARED_LOOP.format(name=REAL)])
        code, test = self.run_main(twice)
        self.assertEqual(test["status"], "failed")
        self.assertIn("two machine codes", test["message"])

    def test_unreadable_machine_code_fails_closed_saying_why(self):
        code, test = self.run_main("", cuobjdump=None)
        self.assertEqual((code, test["status"], test["score"]), (2, "failed", 0))
        self.assertIn("not graded: cuobjdump or nvdisasm was not found", test["message"])
        code, _ = self.run_main("", "--expect-fail-all", cuobjdump=None)
        self.assertEqual(code, 2, "a self-test that expects failures must not pass on no code")
        code, test = self.run_main(PTX_BLOCK)
        self.assertEqual((code, test["status"]), (2, "failed"))
        self.assertIn("no GPU machine code", test["message"])

    def test_results_never_come_from_a_second_compile(self):
        for argv in (["x.cu", *RULE, "--needs", "v1=A.B", "--results", "r.json"],
                     ["--runner", "r", *RULE, "--results", "r.json"]):
            self.assertEqual(ik.main(argv), 2, argv)


TRICK = r"""
__global__ void histogram_v1_shared_slices_kernel(const int* s, int n, int* h) {
  __shared__ int p[256];
  p[threadIdx.x] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
#ifdef GRADER_RUNNER_SIDE
    atomicAdd(&h[s[i]], 1);
#else
    atomicAdd(&p[s[i]], 1);
#endif
  }
  __syncthreads();
  atomicAdd(&h[threadIdx.x], p[threadIdx.x]);
}
"""


class NotGraded(unittest.TestCase):
    """--not-graded (the CPU backend): skipped, 0 points; a compile is advice, said to be so."""

    def test_a_runner_side_macro_trick_earns_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            source, results = os.path.join(tmp, "k.cu"), os.path.join(tmp, "r.json")
            Path(source).write_text(TRICK)
            code = ik.main([source, "--mode", "ptx", *RULE, "--needs", "v1=A.B",
                            "--not-graded", "the CPU backend runs no GPU machine code",
                            "--results", results, "--lab", "lab03-technique"])
            with open(results) as f:
                document = json.load(f)
        self.assertEqual(code, ik.SKIP)
        self.assertEqual((document["score"], document["tests"][0]["status"]), (0, "skipped"))
        message = document["tests"][0]["message"]
        self.assertTrue(message.startswith("not graded: the CPU backend"), message)
        if shutil.which("nvcc"):  # the second compile is fooled: why it is never graded
            self.assertIn("), not graded: would pass", message)
        else:
            self.assertIn("no advice", message)


SOURCE = r"""
__global__ void plain_kernel(const int* s, int n, int* h) {
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&h[s[i]], 1);
}
__global__ void grouped_kernel(const int* s, int n, int* h) {
  for (int i = 4 * threadIdx.x; i + 3 < n; i += 4 * blockDim.x) {
    const int a = s[i], b = s[i + 1], c = s[i + 2], d = s[i + 3];
    atomicAdd(&h[a], 1); atomicAdd(&h[b], 1); atomicAdd(&h[c], 1); atomicAdd(&h[d], 1);
  }
}
__global__ void shared_kernel(const int* s, int n, int* h) {
  __shared__ int p[256];
  p[threadIdx.x] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&p[s[i]], 1);
  __syncthreads();
  atomicAdd(&h[threadIdx.x], p[threadIdx.x]);
}
"""

CHECKS = ["--check", "grouped", "--kernel", "grouped_kernel", "--requires", "loads_before_global_atomic>=4,global_atomic>=4",
          "--check", "private", "--kernel", "shared_kernel", "--requires", "shared_atomic>=1,global_atomic==0,global_load>=1"]


@unittest.skipUnless(shutil.which("nvcc"), "nvcc not found")
class CompilesAndChecks(unittest.TestCase):
    def run_tool(self, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "k.cu")
            Path(source).write_text(SOURCE)
            return subprocess.run([sys.executable, str(TOOLS / "inspect_kernels.py"), source, *extra],
                                  capture_output=True, text=True)

    def check_mode(self, mode):
        done = self.run_tool("--mode", mode, *CHECKS)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        wrong = self.run_tool("--mode", mode, "--check", "plain", "--kernel", "plain_kernel", "--requires", "loads_before_global_atomic>=4,global_atomic>=4",
                              "--check", "private", "--kernel", "plain_kernel", "--requires", "shared_atomic>=1",
                              "--expect-fail-all")
        self.assertEqual(wrong.returncode, 0, wrong.stdout + wrong.stderr)

    def test_ptx(self):
        self.check_mode("ptx")

    def test_sass_when_cuobjdump_works(self):
        if not ik.find_cuobjdump(shutil.which("nvcc")):
            self.skipTest("cuobjdump not installed")
        done = self.run_tool("--mode", "sass", *CHECKS)
        if "cuobjdump -sass failed" in done.stderr:
            self.skipTest("cuobjdump cannot disassemble here (no nvdisasm)")
        self.check_mode("sass")

    def test_a_passing_check_fails_under_expect_fail(self):
        done = self.run_tool("--mode", "ptx", *CHECKS, "--expect-fail", "grouped")
        self.assertEqual(done.returncode, 1, done.stdout)


if __name__ == "__main__":
    unittest.main()
