// Lab 04's functions on both sides of the grader (grader/core/student_code.hpp): built into the
// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into the checker
// it defines each one as a call into the runner, so the checker never links the student's code.
#include "lab04_thread_per_bin.cuh"

#include "grader/core/lab_calls.hpp"

#ifdef GRADER_RUNNER_SIDE

GRADER_RUNNER_TABLE(GRADER_EXPOSE(lab04::histogram_v1_inverse),
                    GRADER_EXPOSE(lab04::histogram_v2_banks),
                    GRADER_EXPOSE(lab04::histogram_v3_banks2),
                    GRADER_EXPOSE(lab04::histogram_v4_banks4),
                    GRADER_EXPOSE(lab04::fastest_samples_per_block))

#else

GRADER_STUDENT_EXCEPTION(lab04::LaunchShapeError);

namespace lab04 {

void histogram_v1_inverse(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  return grader::call_student<void>("lab04::histogram_v1_inverse", d_samples, n, d_bins, launch);
}
void histogram_v2_banks(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  return grader::call_student<void>("lab04::histogram_v2_banks", d_samples, n, d_bins, launch);
}
void histogram_v3_banks2(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  return grader::call_student<void>("lab04::histogram_v3_banks2", d_samples, n, d_bins, launch);
}
void histogram_v4_banks4(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  return grader::call_student<void>("lab04::histogram_v4_banks4", d_samples, n, d_bins, launch);
}
int fastest_samples_per_block() {
  return grader::call_student<int>("lab04::fastest_samples_per_block");
}

}  // namespace lab04

#endif
