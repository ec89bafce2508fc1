// The correctness check every scan uses: run the student's launcher on guarded, poisoned device
// buffers and compare every output element exactly with the CPU's scan.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/bins_check.cuh"  // KernelRun
#include "grader/core/scan_reference.hpp"

namespace grader {

// Runs `launch(d_in, n, d_out)` and compares d_out with the inclusive scan of `values` restarted
// every `segment` elements (0: one scan over everything). `what` describes the input.
template <class Launch>
::testing::AssertionResult scan_matches_cpu(const std::string& what, const std::vector<int>& values,
                                            std::size_t segment, const KernelRun& run,
                                            Launch&& launch) {
  const std::string where = "[" + what + "] " + run.kernel + " (" + run.launch + ")";
  std::vector<int> got;
  try {
    DeviceBuffer<int> d_in(values);
    DeviceBuffer<int> d_out(values.size());
    std::forward<Launch>(launch)(d_in.data(), static_cast<int>(values.size()), d_out.data());
    check_kernel_ran(run.kernel, run.launch, values.empty() ? Work::kAny : Work::kOnGpu);
    const std::string out_damage = d_out.guard_damage();
    if (!out_damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside its output: " << out_damage;
    }
    const std::string in_damage = d_in.guard_damage();
    if (!in_damage.empty()) {
      return ::testing::AssertionFailure() << where << " wrote outside its input: " << in_damage;
    }
    if (!d_in.holds(values)) {
      return ::testing::AssertionFailure() << where << " modified its input";
    }
    got = d_out.download();
  } catch (const CudaError& error) {
    return ::testing::AssertionFailure() << where << ": " << error.what();
  }
  const Comparison comparison =
      compare_exact(cpu_inclusive_scan(values, segment), got, static_cast<int>(kPoisonWord));
  if (comparison.matches()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << where << ": " << comparison.describe("element");
}

}  // namespace grader
