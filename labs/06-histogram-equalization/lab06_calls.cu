// Lab 06's functions on both sides of the grader (grader/core/student_code.hpp): built into the
// runner (GRADER_RUNNER_SIDE) it exposes the student's definitions by name; built into the checker
// it defines each one as a call into the runner, so the checker never links the student's code.
#include "lab06_histogram_equalization.cuh"

#include "grader/core/lab_calls.hpp"

template <>
struct grader::remote::PointerMembers<lab06::Workspace> {
  static constexpr auto list = std::make_tuple(&lab06::Workspace::d_bins, &lab06::Workspace::d_cdf,
                                               &lab06::Workspace::d_lut);
};

#ifdef GRADER_RUNNER_SIDE

GRADER_RUNNER_TABLE(GRADER_EXPOSE(lab06::histogram_256),
                    GRADER_EXPOSE(lab06::cdf_exclusive_scan),
                    GRADER_EXPOSE(lab06::build_lut),
                    GRADER_EXPOSE(lab06::remap),
                    GRADER_EXPOSE(lab06::equalize),
                    GRADER_EXPOSE(lab06::fastest_histogram_launch))

#else

namespace lab06 {

void histogram_256(const std::uint8_t* d_pixels, int n, unsigned* d_bins, HistogramLaunch launch) {
  return grader::call_student<void>("lab06::histogram_256", d_pixels, n, d_bins, launch);
}
void cdf_exclusive_scan(const unsigned* d_bins, unsigned* d_cdf) {
  return grader::call_student<void>("lab06::cdf_exclusive_scan", d_bins, d_cdf);
}
void build_lut(const unsigned* d_cdf, std::uint8_t* d_lut) {
  return grader::call_student<void>("lab06::build_lut", d_cdf, d_lut);
}
void remap(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  return grader::call_student<void>("lab06::remap", d_pixels, n, d_lut, d_out);
}
void equalize(const std::uint8_t* d_in, int width, int height, std::uint8_t* d_out, Workspace workspace) {
  return grader::call_student<void>("lab06::equalize", d_in, width, height, d_out, workspace);
}
HistogramLaunch fastest_histogram_launch(int sm_count) {
  return grader::call_student<HistogramLaunch>("lab06::fastest_histogram_launch", sm_count);
}

}  // namespace lab06

#endif
