// Lab 01's functions on both sides of the grader (grader/core/student_code.hpp): built into the
// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into the checker
// it defines each one as a call into the runner, so the checker never links the student's code.
#include "lab01_global_atomics.cuh"

#include "grader/core/lab_calls.hpp"

#ifdef GRADER_RUNNER_SIDE

GRADER_RUNNER_TABLE(GRADER_EXPOSE(lab01::histogram_v1_slices),
                    GRADER_EXPOSE(lab01::histogram_v2_grid_stride),
                    GRADER_EXPOSE(lab01::fastest_slice_launch),
                    GRADER_EXPOSE(lab01::fastest_grid_stride_launch))

#else

namespace lab01 {

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  return grader::call_student<void>("lab01::histogram_v1_slices", d_samples, n, d_bins, launch);
}
void histogram_v2_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  return grader::call_student<void>(
      "lab01::histogram_v2_grid_stride", d_samples, n, d_bins, launch);
}
SliceLaunch fastest_slice_launch() {
  return grader::call_student<SliceLaunch>("lab01::fastest_slice_launch");
}
GridStrideLaunch fastest_grid_stride_launch(int sm_count) {
  return grader::call_student<GridStrideLaunch>("lab01::fastest_grid_stride_launch", sm_count);
}

}  // namespace lab01

#endif
