// The correctness check every histogram lab uses: run the student's launcher on guarded, poisoned
// device buffers and compare the bins exactly with the CPU reference.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"

namespace grader {

struct KernelRun {
  std::string kernel;  // "histogram_v1_slices"
  std::string launch;  // "256 threads/block, 7 samples/thread"
};

// Runs `launch(d_samples, n, d_bins)` and returns the bins, or a failure saying what went wrong:
// the CUDA error, an out-of-bounds write, a modified input.
template <class Launch>
::testing::AssertionResult run_histogram(const std::vector<int>& samples, int num_bins,
                                         const KernelRun& run, Launch&& launch,
                                         std::vector<int>& bins) {
  const std::string where = run.kernel + " (" + run.launch + ")";
  try {
    DeviceBuffer<int> d_samples(samples);
    DeviceBuffer<int> d_bins(static_cast<std::size_t>(num_bins));
    std::forward<Launch>(launch)(d_samples.data(), static_cast<int>(samples.size()), d_bins.data());
    check_kernel_ran(run.kernel, run.launch);
    const std::string bins_damage = d_bins.guard_damage();
    if (!bins_damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside the bins: " << bins_damage;
    }
    const std::string samples_damage = d_samples.guard_damage();
    if (!samples_damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside the samples: " << samples_damage;
    }
    if (d_samples.download() != samples) {
      return ::testing::AssertionFailure() << where << " modified its input samples";
    }
    bins = d_bins.download();
  } catch (const CudaError& error) {
    return ::testing::AssertionFailure() << error.what();
  }
  return ::testing::AssertionSuccess();
}

// `what` describes the input, e.g. "1023 uniform samples".
template <class Launch>
::testing::AssertionResult histogram_matches_cpu(const std::string& what,
                                                 const std::vector<int>& samples, int num_bins,
                                                 const KernelRun& run, Launch&& launch) {
  std::vector<int> bins;
  ::testing::AssertionResult ran =
      run_histogram(samples, num_bins, run, std::forward<Launch>(launch), bins);
  if (!ran) return ::testing::AssertionFailure() << "[" << what << "] " << ran.message();
  const Comparison comparison =
      compare_exact(cpu_histogram(samples, num_bins), bins, static_cast<int>(kPoisonWord));
  if (comparison.matches()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "[" << what << "] " << run.kernel << " (" << run.launch
                                       << "): " << comparison.describe("bin");
}

}  // namespace grader
