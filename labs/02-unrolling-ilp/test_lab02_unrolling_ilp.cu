// Lab 02 grader: the unrolled kernels give exact histograms for every slice length and wherever
// the input ends; their speed is recorded next to the grader's global-atomics baseline and v1.
// Whether the loops really are unrolled is checked on the compiled code (meson suite technique).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/histogram_check.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/speed_report.cuh"
#include "grader/core/standard_data.hpp"
#include "lab02_unrolling_ilp.cuh"

namespace {

using lab02::kNumBins;
using lab02::SliceLaunch;

// Unrolling does not make an atomics-bound kernel faster (the handout's lesson): the speed tests
// only ask that it not be slower than 1.5x the baseline, as in lab 01.
constexpr double kMaxSlowdownVsBaseline = 1.5;

using Launcher = void (*)(const int*, int, int*, SliceLaunch);

struct Version {
  const char* kernel;
  Launcher launch;
};

std::vector<SliceLaunch> shapes() {
  return {{32, 1}, {64, 3}, {96, 13}, {128, 7}, {256, 64}, {1024, 9}, lab02::fastest_slice_launch()};
}

::testing::AssertionResult matches(const Version& v, const std::string& what,
                                   const std::vector<int>& samples, SliceLaunch launch) {
  return grader::histogram_matches_cpu(
      what, samples, kNumBins, {v.kernel, grader::describe(launch)},
      [&](const int* d_s, int n, int* d_b) { v.launch(d_s, n, d_b, launch); });
}

void expect_matches(const Version& v, const std::string& what, const std::vector<int>& samples) {
  for (const SliceLaunch& launch : shapes()) EXPECT_TRUE(matches(v, what, samples, launch));
}

std::uint64_t seed() { return grader::run_options().seed; }
std::size_t large() { return grader::scaled_size(std::size_t{1} << 22); }

class Lab02PragmaUnroll : public grader::GpuTest {
 protected:
  Version version{"histogram_v2_pragma_unroll", lab02::histogram_v2_pragma_unroll};
};
class Lab02ManualIlp : public grader::GpuTest {
 protected:
  Version version{"histogram_v3_manual_ilp", lab02::histogram_v3_manual_ilp};
};

// The same cases for both versions: every test below is written once, as a macro over the fixture.
#define LAB02_CORRECTNESS_TESTS(Fixture)                                                            \
  GRADED_TEST(Fixture, MatchesCpuOnUniformSamples, 2) {                                             \
    expect_matches(version, "uniform samples", grader::uniform_samples(large() + 5, kNumBins, seed())); \
  }                                                                                                 \
  GRADED_TEST(Fixture, MatchesCpuOnAllEqualSamples, 1) {                                            \
    expect_matches(version, "all samples equal", grader::constant_samples(grader::scaled_size(1 << 20), 7)); \
  }                                                                                                 \
  GRADED_TEST(Fixture, MatchesCpuWhenEverySampleIsTheLargestValue, 1) {                             \
    expect_matches(version, "all samples 1023", grader::constant_samples(4099, kNumBins - 1));      \
  }                                                                                                 \
  GRADED_EDGE_TEST(Fixture, HandlesAnEmptyInput, 1) { expect_matches(version, "0 samples", {}); }   \
  GRADED_EDGE_TEST(Fixture, HandlesASingleSample, 1) {                                              \
    expect_matches(version, "1 sample", {kNumBins - 1});                                            \
  }                                                                                                 \
  GRADED_TEST(Fixture, MatchesCpuForEverySliceFromOneToSeventeen, 2) {                              \
    /* Slices that are not multiples of 4 or 8 leave a tail the unrolled loop must not skip. */     \
    for (int slice = 1; slice <= 17; ++slice) {                                                     \
      const SliceLaunch launch{64, slice};                                                          \
      const std::size_t n = std::size_t(2) * 64 * slice + 5;                                        \
      EXPECT_TRUE(matches(version, std::to_string(n) + " uniform samples",                          \
                          grader::uniform_samples(n, kNumBins, seed() + slice), launch));           \
    }                                                                                               \
  }                                                                                                 \
  GRADED_TEST(Fixture, MatchesCpuWhenTheInputEndsInsideASlice, 2) {                                 \
    /* The last thread gets 1, 2 or 3 samples more than a multiple of 4, or a lone sample. */       \
    for (const SliceLaunch& launch : shapes()) {                                                    \
      const std::size_t slice = launch.samples_per_thread;                                          \
      const std::size_t per_block = slice * launch.threads_per_block;                               \
      for (std::size_t extra : {std::size_t(1), std::size_t(2), std::size_t(3), slice / 2 + 1}) {  \
        const std::size_t n = 2 * per_block + 5 * slice + extra;                                   \
        EXPECT_TRUE(matches(version, std::to_string(n) + " uniform samples",                        \
                            grader::uniform_samples(n, kNumBins, seed() + n), launch));             \
      }                                                                                             \
    }                                                                                               \
  }                                                                                                 \
  GRADED_TEST(Fixture, MatchesCpuOnTheStandardDataFile, 1) {                                        \
    expect_matches(version, "standard data file", grader::standard_samples(kNumBins));              \
  }

LAB02_CORRECTNESS_TESTS(Lab02PragmaUnroll)
LAB02_CORRECTNESS_TESTS(Lab02ManualIlp)

// ---- speed -------------------------------------------------------------------------------------
const grader::DeviceBuffer<int>& standard_samples_on_device() {
  static const grader::DeviceBuffer<int> d_samples(grader::standard_samples(kNumBins));
  return d_samples;
}

class Lab02Speed : public grader::SpeedTest {
 protected:
  ::testing::AssertionResult time_version(const Version& v, SliceLaunch launch, grader::Measurement& measured) {
    const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
    return grader::time_student_histogram(
        v.kernel + (" (" + grader::describe(launch) + ")"), d_samples.data(), static_cast<int>(d_samples.size()),
        kNumBins, [&](const int* d_s, int n, int* d_b) { v.launch(d_s, n, d_b, launch); }, measured);
  }

  // A correct result first: a fast wrong kernel earns nothing. Then time it on the standard data,
  // next to the baseline and to v1 with the same shape.
  void check_speed(const Version& v) {
    const SliceLaunch launch = lab02::fastest_slice_launch();
    const std::vector<int>& samples = grader::standard_samples(kNumBins);
    ASSERT_TRUE(matches(v, "standard data file", samples, launch));
    const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
    const int n = static_cast<int>(samples.size());
    grader::Measurement measured;
    ASSERT_TRUE(time_version(v, launch, measured));
    const grader::SpeedFigures figures = grader::report_speed(
        v.kernel + (" (" + grader::describe(launch) + ")"), measured,
        grader::read_bandwidth_yardstick(d_samples.data(), samples.size()),
        grader::baseline_histogram_yardstick(d_samples.data(), n, kNumBins));
    grader::Measurement v1;
    ASSERT_TRUE(time_version({"histogram_v1_slices", lab02::histogram_v1_slices}, launch, v1));
    const double speedup_vs_v1 = v1.time_ms.median / figures.time_ms;
    grader::record_metric("v1_ms", v1.time_ms.median);
    grader::record_metric("speedup_vs_v1", speedup_vs_v1);
    std::printf("[ speed    ] v1 (not unrolled by hand) with the same shape: %.4g ms, so %s is "
                "%.2fx v1\n", v1.time_ms.median, v.kernel, speedup_vs_v1);
    const double slowdown = 1.0 / figures.speedup_vs_baseline;
    EXPECT_LE(slowdown, kMaxSlowdownVsBaseline)
        << v.kernel << " takes " << slowdown << "x the baseline's time; at most "
        << kMaxSlowdownVsBaseline << "x passes. Try the launch shapes of the sweep (question 4.1).";
  }
};

GRADED_SPEED_TEST(Lab02Speed, PragmaUnrollRunsWithinOneAndAHalfTimesTheBaseline, 1, 0) {
  check_speed({"histogram_v2_pragma_unroll", lab02::histogram_v2_pragma_unroll});
}
GRADED_HEADLINE_SPEED_TEST(Lab02Speed, ManualIlpRunsWithinOneAndAHalfTimesTheBaseline, 1, 0,
                           "v3 manual ILP") {
  check_speed({"histogram_v3_manual_ilp", lab02::histogram_v3_manual_ilp});
}

}  // namespace
