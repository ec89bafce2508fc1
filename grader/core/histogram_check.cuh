// The correctness check every histogram lab uses: run the student's launcher on guarded, poisoned
// device buffers and compare the bins exactly with the CPU reference.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "grader/core/bins_check.cuh"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/missing_samples_hint.hpp"

namespace grader {

// `what` describes the input, e.g. "1023 uniform samples". The int-sample, int-bin case of
// bins_match (bins_check.cuh), with the CPU reference histogram as the expected bins.
template <class Launch>
::testing::AssertionResult histogram_matches_cpu(const std::string& what,
                                                 const std::vector<int>& samples, int num_bins,
                                                 const KernelRun& run, Launch&& launch) {
  const std::vector<int> expected = cpu_histogram(samples, num_bins);
  return bins_match(what, samples, expected, run, std::forward<Launch>(launch),
                    BinsHint<int>([&](const std::vector<int>& got) {
                      return missing_samples_hint(samples, expected, got);
                    }));
}

}  // namespace grader
