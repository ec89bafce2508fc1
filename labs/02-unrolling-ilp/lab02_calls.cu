// Lab 02's functions on both sides of the grader (grader/core/student_code.hpp): built into the
// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into the checker
// it defines each one as a call into the runner, so the checker never links the student's code.
#include "lab02_unrolling_ilp.cuh"

#include "grader/core/lab_calls.hpp"

#ifdef GRADER_RUNNER_SIDE

GRADER_RUNNER_TABLE(GRADER_EXPOSE(lab02::histogram_v1_slices),
                    GRADER_EXPOSE(lab02::histogram_v2_pragma_unroll),
                    GRADER_EXPOSE(lab02::histogram_v3_manual_ilp),
                    GRADER_EXPOSE(lab02::fastest_slice_launch))

#else

namespace lab02 {

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  return grader::call_student<void>("lab02::histogram_v1_slices", d_samples, n, d_bins, launch);
}
void histogram_v2_pragma_unroll(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  return grader::call_student<void>(
      "lab02::histogram_v2_pragma_unroll", d_samples, n, d_bins, launch);
}
void histogram_v3_manual_ilp(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  return grader::call_student<void>("lab02::histogram_v3_manual_ilp", d_samples, n, d_bins, launch);
}
SliceLaunch fastest_slice_launch() {
  return grader::call_student<SliceLaunch>("lab02::fastest_slice_launch");
}

}  // namespace lab02

#endif
