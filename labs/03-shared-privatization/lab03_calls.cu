// Lab 03's functions on both sides of the grader (grader/core/student_code.hpp): built into the
// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into the checker
// it defines each one as a call into the runner, so the checker never links the student's code.
#include "lab03_shared_privatization.cuh"

#include "grader/core/lab_calls.hpp"

#ifdef GRADER_RUNNER_SIDE

GRADER_RUNNER_TABLE(GRADER_EXPOSE(lab03::histogram_v1_shared_slices),
                    GRADER_EXPOSE(lab03::histogram_v2_shared_grid_stride),
                    GRADER_EXPOSE(lab03::histogram_v3_bytes),
                    GRADER_EXPOSE(lab03::histogram_v4_wide),
                    GRADER_EXPOSE(lab03::saturate_v4),
                    GRADER_EXPOSE(lab03::histogram_v5_letters),
                    GRADER_EXPOSE(lab03::fastest_slice_launch),
                    GRADER_EXPOSE(lab03::fastest_grid_stride_launch))

#else

namespace lab03 {

void histogram_v1_shared_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  return grader::call_student<void>(
      "lab03::histogram_v1_shared_slices", d_samples, n, d_bins, launch);
}
void histogram_v2_shared_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  return grader::call_student<void>(
      "lab03::histogram_v2_shared_grid_stride", d_samples, n, d_bins, launch);
}
void histogram_v3_bytes(const unsigned char* d_bytes, int n, unsigned int* d_bins, int blocks) {
  return grader::call_student<void>("lab03::histogram_v3_bytes", d_bytes, n, d_bins, blocks);
}
void histogram_v4_wide(const unsigned int* d_values, int n, unsigned int* d_bins, GridStrideLaunch launch) {
  return grader::call_student<void>("lab03::histogram_v4_wide", d_values, n, d_bins, launch);
}
void saturate_v4(unsigned int* d_bins, int num_bins, unsigned int cap) {
  return grader::call_student<void>("lab03::saturate_v4", d_bins, num_bins, cap);
}
void histogram_v5_letters(const unsigned char* d_text, int n, unsigned int* d_bins, GridStrideLaunch launch) {
  return grader::call_student<void>("lab03::histogram_v5_letters", d_text, n, d_bins, launch);
}
SliceLaunch fastest_slice_launch() {
  return grader::call_student<SliceLaunch>("lab03::fastest_slice_launch");
}
GridStrideLaunch fastest_grid_stride_launch(int sm_count) {
  return grader::call_student<GridStrideLaunch>("lab03::fastest_grid_stride_launch", sm_count);
}

}  // namespace lab03

#endif
