// Lab 01 grader: exact histograms from both kernels on adversarial inputs and several launch
// shapes, then their speed next to the grader's global-atomics baseline on the same GPU.
#include <gtest/gtest.h>

#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/histogram_check.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/samples_file.hpp"
#include "grader/core/speed_report.cuh"
#include "grader/core/standard_data.hpp"
#include "lab01_global_atomics.cuh"

namespace {

using lab01::GridStrideLaunch;
using lab01::kNumBins;
using lab01::SliceLaunch;

// Speed threshold: a sanity tier only; lab 01's kernels are all bound by the same atomics.
constexpr double kMaxSlowdownVsBaseline = 1.5;

int sm_count() { return grader::device_status().properties.multiProcessorCount; }

std::vector<SliceLaunch> slice_shapes() {
  return {{32, 1}, {128, 3}, {256, 64}, {1024, 7}, lab01::fastest_slice_launch()};
}
std::vector<GridStrideLaunch> grid_stride_shapes() {
  return {{1, 32}, {7, 128}, {4 * sm_count(), 256}, {4096, 1024},
          lab01::fastest_grid_stride_launch(sm_count())};
}

// Both versions behind one interface, so every input case is written once.
struct Version {
  const char* kernel;
  bool slices;
  std::vector<SliceLaunch> slice_launches;
  std::vector<GridStrideLaunch> grid_launches;
};
Version slices_version() { return {"histogram_v1_slices", true, slice_shapes(), {}}; }
Version grid_stride_version() { return {"histogram_v2_grid_stride", false, {}, grid_stride_shapes()}; }

void expect_matches(const Version& v, const std::string& what, const std::vector<int>& samples) {
  if (v.slices) {
    for (const SliceLaunch& launch : v.slice_launches) {
      EXPECT_TRUE(grader::histogram_matches_cpu(
          what, samples, kNumBins, {v.kernel, grader::describe(launch)},
          [&](const int* d_s, int n, int* d_b) { lab01::histogram_v1_slices(d_s, n, d_b, launch); }));
    }
  } else {
    for (const GridStrideLaunch& launch : v.grid_launches) {
      EXPECT_TRUE(grader::histogram_matches_cpu(
          what, samples, kNumBins, {v.kernel, grader::describe(launch)},
          [&](const int* d_s, int n, int* d_b) { lab01::histogram_v2_grid_stride(d_s, n, d_b, launch); }));
    }
  }
}

std::uint64_t seed() { return grader::run_options().seed; }

// One copy of the standard data on the device for every speed test, so the yardsticks measured
// on it are measured once.
const grader::DeviceBuffer<int>& standard_samples_on_device() {
  static const grader::DeviceBuffer<int> d_samples(grader::standard_samples(kNumBins));
  return d_samples;
}
std::size_t large() { return grader::scaled_size(std::size_t{1} << 22); }

class Lab01Slices : public grader::GpuTest {
 protected:
  Version version = slices_version();
};
class Lab01GridStride : public grader::GpuTest {
 protected:
  Version version = grid_stride_version();
};

// ---- v1: slices --------------------------------------------------------------------------------
GRADED_TEST(Lab01Slices, MatchesCpuOnUniformSamples, 2) {
  expect_matches(version, "uniform samples", grader::uniform_samples(large() + 5, kNumBins, seed()));
}
GRADED_TEST(Lab01Slices, MatchesCpuOnNormalSamples, 1) {
  expect_matches(version, "normal(500, 30) samples",
                 grader::normal_samples(large() + 3, kNumBins, 500, 30, seed() + 1));
}
GRADED_TEST(Lab01Slices, MatchesCpuOnAllEqualSamples, 1) {
  expect_matches(version, "all samples equal", grader::constant_samples(grader::scaled_size(1 << 20), 7));
}
GRADED_TEST(Lab01Slices, MatchesCpuWhenEverySampleIsTheLargestValue, 1) {
  expect_matches(version, "all samples 1023", grader::constant_samples(4099, kNumBins - 1));
}
GRADED_EDGE_TEST(Lab01Slices, HandlesAnEmptyInput, 1) {
  expect_matches(version, "0 samples", {});
}
GRADED_EDGE_TEST(Lab01Slices, HandlesASingleSample, 1) {
  expect_matches(version, "1 sample", {kNumBins - 1});
}
GRADED_TEST(Lab01Slices, MatchesCpuOn1023Samples, 1) {
  expect_matches(version, "1023 samples", grader::uniform_samples(1023, kNumBins, seed() + 2));
}
GRADED_TEST(Lab01Slices, MatchesCpuWhenSizeIsNotAMultipleOfBlockTimesSlice, 2) {
  for (const SliceLaunch& launch : slice_shapes()) {
    const std::size_t per_block = std::size_t(launch.threads_per_block) * launch.samples_per_thread;
    for (std::size_t n : {3 * per_block + 1, 3 * per_block - 1, per_block / 2 + 1}) {
      const Version one_shape{version.kernel, true, {launch}, {}};
      expect_matches(one_shape, std::to_string(n) + " uniform samples",
                     grader::uniform_samples(n, kNumBins, seed() + n));
    }
  }
}
GRADED_TEST(Lab01Slices, MatchesCpuOnTheStandardDataFile, 1) {
  const std::vector<int>& samples = grader::standard_samples(kNumBins);
  // The line data/histogram.py prints (handout Q1): over the whole file, also where the CPU backend
  // tests only its first part.
  constexpr std::size_t kWholeFile = std::size_t{1} << 25;
  const std::vector<int> whole = grader::scaled_size(kWholeFile) < kWholeFile
                                     ? grader::load_samples_file(grader::run_options().data_path, kNumBins)
                                     : std::vector<int>{};
  const std::vector<int>& shown = whole.empty() ? samples : whole;
  std::printf("[ data     ] first 10 bins of the data file (%zu samples): %s\n", shown.size(),
              grader::python_list(grader::cpu_histogram(shown, kNumBins), 10).c_str());
  expect_matches(version, "standard data file", samples);
}
GRADED_TEST(Lab01Slices, MatchesCpuForTheLaunchShapesOfTheHandoutTable, 1) {
  // 64 blocks over 2^25 samples with slices of 512, 1024 and 2048 (handout question 2.4).
  const Version table{version.kernel, true, {{1024, 512}, {512, 1024}, {256, 2048}}, {}};
  expect_matches(table, "standard data file", grader::standard_samples(kNumBins));
}

// ---- v2: grid-stride ---------------------------------------------------------------------------
GRADED_TEST(Lab01GridStride, MatchesCpuOnUniformSamples, 2) {
  expect_matches(version, "uniform samples", grader::uniform_samples(large() + 5, kNumBins, seed()));
}
GRADED_TEST(Lab01GridStride, MatchesCpuOnNormalSamples, 1) {
  expect_matches(version, "normal(500, 30) samples",
                 grader::normal_samples(large() + 3, kNumBins, 500, 30, seed() + 1));
}
GRADED_TEST(Lab01GridStride, MatchesCpuOnAllEqualSamples, 1) {
  expect_matches(version, "all samples equal", grader::constant_samples(grader::scaled_size(1 << 20), 7));
}
GRADED_TEST(Lab01GridStride, MatchesCpuWhenEverySampleIsTheLargestValue, 1) {
  expect_matches(version, "all samples 1023", grader::constant_samples(4099, kNumBins - 1));
}
GRADED_EDGE_TEST(Lab01GridStride, HandlesAnEmptyInput, 1) {
  expect_matches(version, "0 samples", {});
}
GRADED_EDGE_TEST(Lab01GridStride, HandlesASingleSample, 1) {
  expect_matches(version, "1 sample", {kNumBins - 1});
}
GRADED_TEST(Lab01GridStride, MatchesCpuWhenSizeIsNotAMultipleOfTheGrid, 2) {
  for (std::size_t n : {1023u, 4097u, 1000003u}) {
    expect_matches(version, std::to_string(n) + " uniform samples",
                   grader::uniform_samples(grader::scaled_ragged_size(n), kNumBins, seed() + n));
  }
}
GRADED_TEST(Lab01GridStride, MatchesCpuOnTheStandardDataFile, 1) {
  expect_matches(version, "standard data file", grader::standard_samples(kNumBins));
}

// ---- speed -------------------------------------------------------------------------------------
class Lab01Speed : public grader::SpeedTest {
 protected:
  // A correct result first: a fast wrong kernel earns nothing. Then time it on the standard data.
  template <class Launch>
  void check_speed(const char* kernel, const std::string& launch_text, Launch launch) {
    const std::vector<int>& samples = grader::standard_samples(kNumBins);
    ASSERT_TRUE(grader::histogram_matches_cpu("standard data file", samples, kNumBins,
                                              {kernel, launch_text}, launch));
    const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
    const int n = static_cast<int>(samples.size());
    grader::Measurement measured;
    ASSERT_TRUE(grader::time_student_histogram(kernel + (" (" + launch_text + ")"), d_samples.data(), n,
                                               kNumBins, launch, measured));
    const grader::SpeedFigures figures = grader::report_speed(
        kernel + (" (" + launch_text + ")"), measured,
        grader::read_bandwidth_yardstick(d_samples.data(), samples.size()),
        grader::baseline_histogram_yardstick(d_samples.data(), n, kNumBins));
    const double slowdown = 1.0 / figures.speedup_vs_baseline;
    EXPECT_LE(slowdown, kMaxSlowdownVsBaseline)
        << kernel << " takes " << slowdown << "x the baseline's time; at most "
        << kMaxSlowdownVsBaseline << "x passes. Try the launch shapes of your sweep (question 2.4).";
  }
};

GRADED_SPEED_TEST(Lab01Speed, SlicesRunWithinOneAndAHalfTimesTheBaseline, 2, 0) {
  const SliceLaunch launch = lab01::fastest_slice_launch();
  check_speed("histogram_v1_slices", grader::describe(launch),
              [=](const int* d_s, int n, int* d_b) { lab01::histogram_v1_slices(d_s, n, d_b, launch); });
}
GRADED_HEADLINE_SPEED_TEST(Lab01Speed, GridStrideRunsWithinOneAndAHalfTimesTheBaseline, 2, 0,
                           "v2 grid-stride") {
  const GridStrideLaunch launch = lab01::fastest_grid_stride_launch(sm_count());
  check_speed("histogram_v2_grid_stride", grader::describe(launch),
              [=](const int* d_s, int n, int* d_b) { lab01::histogram_v2_grid_stride(d_s, n, d_b, launch); });
}

}  // namespace
