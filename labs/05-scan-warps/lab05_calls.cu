// Lab 05's functions on both sides of the grader (grader/core/student_code.hpp): built into the
// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into the checker
// it defines each one as a call into the runner, so the checker never links the student's code.
#include "lab05_scan_warps.cuh"

#include "grader/core/lab_calls.hpp"

template <>
struct grader::remote::PointerMembers<lab05::WarpActivity> {
  static constexpr auto list = std::make_tuple(&lab05::WarpActivity::d_flags);
};

#ifdef GRADER_RUNNER_SIDE

GRADER_RUNNER_TABLE(GRADER_EXPOSE(lab05::scan_v1_hillis_steele),
                    GRADER_EXPOSE(lab05::scan_v2_blelloch),
                    GRADER_EXPOSE(lab05::scan_v3_blelloch_padded),
                    GRADER_EXPOSE(lab05::scan_v4_warp_shuffle),
                    GRADER_EXPOSE(lab05::scan_workspace_bytes),
                    GRADER_EXPOSE(lab05::scan_v5_multi_block),
                    GRADER_EXPOSE(lab05::scan_v6_single_pass),
                    GRADER_EXPOSE(lab05::fastest_multi_block_launch))

#else

namespace lab05 {

void scan_v1_hillis_steele(const int* d_in, int n, int* d_out, BlockScanLaunch launch, WarpActivity activity) {
  return grader::call_student<void>(
      "lab05::scan_v1_hillis_steele", d_in, n, d_out, launch, activity);
}
void scan_v2_blelloch(const int* d_in, int n, int* d_out, BlockScanLaunch launch, WarpActivity activity) {
  return grader::call_student<void>("lab05::scan_v2_blelloch", d_in, n, d_out, launch, activity);
}
void scan_v3_blelloch_padded(const int* d_in, int n, int* d_out, BlockScanLaunch launch, WarpActivity activity) {
  return grader::call_student<void>(
      "lab05::scan_v3_blelloch_padded", d_in, n, d_out, launch, activity);
}
void scan_v4_warp_shuffle(const int* d_in, int n, int* d_out, BlockScanLaunch launch) {
  return grader::call_student<void>("lab05::scan_v4_warp_shuffle", d_in, n, d_out, launch);
}
std::size_t scan_workspace_bytes(int n) {
  return grader::call_student<std::size_t>("lab05::scan_workspace_bytes", n);
}
void scan_v5_multi_block(const int* d_in, int n, int* d_out, void* d_workspace, WholeArrayLaunch launch) {
  return grader::call_student<void>(
      "lab05::scan_v5_multi_block", d_in, n, d_out, d_workspace, launch);
}
void scan_v6_single_pass(const int* d_in, int n, int* d_out, void* d_workspace) {
  return grader::call_student<void>("lab05::scan_v6_single_pass", d_in, n, d_out, d_workspace);
}
WholeArrayLaunch fastest_multi_block_launch() {
  return grader::call_student<WholeArrayLaunch>("lab05::fastest_multi_block_launch");
}

}  // namespace lab05

#endif
