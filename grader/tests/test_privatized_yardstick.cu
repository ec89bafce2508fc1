// The privatized yardstick must be right before its time means anything: exact bins on the inputs
// the labs use, out-of-range samples ignored, counts added to what the bins held. Runs on a GPU or
// on the CPU backend; skips without either.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/histogram_check.cuh"
#include "grader/core/privatized_yardstick.cuh"
#include "grader/core/sample_inputs.hpp"

namespace {

constexpr int kBins = 1024;

::testing::AssertionResult privatized_matches_cpu(const std::string& what,
                                                  const std::vector<int>& samples, int num_bins) {
  return grader::histogram_matches_cpu(
      what, samples, num_bins, {"histogram_privatized (grader yardstick)", "grid-stride"},
      [&](const int* d_samples, int n, int* d_bins) {
        GRADER_CUDA_CHECK(cudaMemset(d_bins, 0, num_bins * sizeof(int)));
        grader::privatized_histogram(d_samples, n, d_bins, num_bins);
      });
}

class PrivatizedYardstick : public grader::GpuTest {};

TEST_F(PrivatizedYardstick, MatchesCpuOnUniformSamples) {
  EXPECT_TRUE(privatized_matches_cpu("uniform", grader::uniform_samples(100003, kBins, 7), kBins));
}

TEST_F(PrivatizedYardstick, MatchesCpuOnAllEqualSamples) {
  EXPECT_TRUE(privatized_matches_cpu("all 1023", grader::constant_samples(70001, kBins - 1), kBins));
}

TEST_F(PrivatizedYardstick, HandlesEmptyAndTinyInputs) {
  EXPECT_TRUE(privatized_matches_cpu("0 samples", {}, kBins));
  EXPECT_TRUE(privatized_matches_cpu("1 sample", {5}, kBins));
}

TEST_F(PrivatizedYardstick, TakesOtherBinCounts) {
  EXPECT_TRUE(privatized_matches_cpu("256 bins", grader::uniform_samples(5000, 256, 3), 256));
  EXPECT_TRUE(privatized_matches_cpu("4096 bins", grader::uniform_samples(5000, 4096, 4), 4096));
}

TEST_F(PrivatizedYardstick, IgnoresSamplesOutsideTheBins) {
  EXPECT_TRUE(privatized_matches_cpu("out of range", {-1, 0, 1024, 1023, 99999, 3}, kBins));
}

TEST_F(PrivatizedYardstick, AddsToWhatTheBinsHeld) {
  const std::vector<int> samples = grader::uniform_samples(4000, kBins, 11);
  grader::DeviceBuffer<int> d_samples(samples);
  grader::DeviceBuffer<int> d_bins(std::vector<int>(kBins, 1));
  grader::privatized_histogram(d_samples.data(), static_cast<int>(samples.size()), d_bins.data(),
                               kBins);
  grader::check_kernel_ran("histogram_privatized (grader yardstick)", "grid-stride");
  std::vector<int> expected = grader::cpu_histogram(samples, kBins);
  for (int& bin : expected) bin += 1;
  EXPECT_EQ(d_bins.download(), expected);
}

TEST_F(PrivatizedYardstick, RefusesBinCountsItCannotHold) {
  EXPECT_THROW(grader::privatized_histogram(nullptr, 0, nullptr, 0), std::invalid_argument);
  EXPECT_THROW(grader::privatized_histogram(nullptr, 0, nullptr, grader::kPrivatizedMaxBins + 1),
               std::invalid_argument);
}

}  // namespace
