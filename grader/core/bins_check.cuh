// The correctness check for histograms of any sample and bin type (bytes into unsigned bins,
// unsigned values into 4096 bins, ...) and for kernels that update bins in place (saturation):
// guarded, poisoned device buffers, the launch checked, the output compared exactly with the
// expected bins the test computed on the CPU. histogram_check.cuh adds the int-only shorthand.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"
#ifdef CUDA_CPU_BACKEND
#include "cpu_backend/control.hpp"
#endif

namespace grader {

struct KernelRun {
  std::string kernel;  // "histogram_v1_slices"
  std::string launch;  // "256 threads/block, 7 samples/thread"
};

// What the wrong bins show, where the evidence is unambiguous (e.g. "exactly the last 7 samples
// were not counted"); "" when it shows nothing certain. histogram_check.cuh gives one.
template <class Bin>
using BinsHint = std::function<std::string(const std::vector<Bin>& got)>;

// Runs `launch(d_samples, n, d_bins)` on `samples` and bins full of poison, then compares the bins
// with `expected`. `what` describes the input, e.g. "4099 random bytes". When they differ, the same
// input runs once more (on the CPU backend under another schedule seed): bins that change between
// two runs are a race's signature.
template <class Sample, class Bin, class Launch>
::testing::AssertionResult bins_match(const std::string& what, const std::vector<Sample>& samples,
                                      const std::vector<Bin>& expected, const KernelRun& run,
                                      Launch&& launch, const BinsHint<Bin>& hint = {}) {
  const std::string where = "[" + what + "] " + run.kernel + " (" + run.launch + ")";
  std::vector<Bin> bins;
  try {
    DeviceBuffer<Sample> d_samples(samples);
    DeviceBuffer<Bin> d_bins(expected.size());
    launch(d_samples.data(), static_cast<int>(samples.size()), d_bins.data());
    check_kernel_ran(run.kernel, run.launch, samples.empty() ? Work::kAny : Work::kOnGpu);
    const std::string bins_damage = d_bins.guard_damage();
    if (!bins_damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside the bins: " << bins_damage;
    }
    const std::string samples_damage = d_samples.guard_damage();
    if (!samples_damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside the input: " << samples_damage;
    }
    if (!d_samples.holds(samples)) {
      return ::testing::AssertionFailure() << where << " modified its input";
    }
    bins = d_bins.download();
  } catch (const CudaError& error) {
    return ::testing::AssertionFailure() << "[" << what << "] " << error.what();
  }
  const Comparison comparison = compare_exact(expected, bins, static_cast<Bin>(kPoisonWord));
  if (comparison.matches()) return ::testing::AssertionSuccess();
  std::string hints;
  if (comparison.poisoned == 0) {
    if (hint) hints = hint(bins);
    try {
#ifdef CUDA_CPU_BACKEND
      struct OtherSchedule {  // the rerun's threads meet in another order; restored after it
        std::uint64_t seed = cpu_backend::schedule_seed();
        OtherSchedule() { cpu_backend::set_schedule_seed(seed + 7919); }
        ~OtherSchedule() { cpu_backend::set_schedule_seed(seed); }
      } other_schedule;
#endif
      DeviceBuffer<Sample> d_samples(samples);
      DeviceBuffer<Bin> d_bins(expected.size());
      launch(d_samples.data(), static_cast<int>(samples.size()), d_bins.data());
      check_kernel_ran(run.kernel, run.launch);
      if (d_bins.download() != bins) {
        hints += "\n  hint: the same input gave other bins when it ran again: likely a race (a "
                 "missing __syncthreads(), or a non-atomic update of a shared bin)";
      }
    } catch (const CudaError&) {
    }
  }
  return ::testing::AssertionFailure() << where << ": " << comparison.describe("bin") << hints;
}

// Runs `update(d_bins, count)` on a copy of `before` and compares the result with `expected`:
// for kernels that rewrite the bins in place.
template <class Bin, class Update>
::testing::AssertionResult update_matches(const std::string& what, const std::vector<Bin>& before,
                                          const std::vector<Bin>& expected, const KernelRun& run,
                                          Update&& update) {
  const std::string where = "[" + what + "] " + run.kernel + " (" + run.launch + ")";
  std::vector<Bin> after;
  try {
    DeviceBuffer<Bin> d_bins(before);
    std::forward<Update>(update)(d_bins.data(), static_cast<int>(before.size()));
    check_kernel_ran(run.kernel, run.launch, before.empty() ? Work::kAny : Work::kOnGpu);
    const std::string damage = d_bins.guard_damage();
    if (!damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside the bins: " << damage;
    }
    after = d_bins.download();
  } catch (const CudaError& error) {
    return ::testing::AssertionFailure() << "[" << what << "] " << error.what();
  }
  const Comparison comparison = compare_exact(expected, after, static_cast<Bin>(kPoisonWord));
  if (comparison.matches()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << where << ": " << comparison.describe("bin");
}

}  // namespace grader
