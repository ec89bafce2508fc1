// The checker's trusted answers for outputs it cannot afford to check on the CPU (the timed
// rounds' fresh inputs: 2^25 elements, K of them a round): the grader's own plain kernels, or
// CUB, run in the checker's process, compared on the GPU.
#pragma once
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

namespace grader {

// d_bins[0..num_bins) is the histogram of d_samples[0..n) (values outside the bins ignored).
::testing::AssertionResult histogram_matches_reference(const int* d_samples, int n, const int* d_bins,
                                                       int num_bins);
// d_out is the inclusive scan of d_in, in tiles of `tile` elements (0: the whole array).
::testing::AssertionResult scan_matches_reference(const int* d_in, int n, const int* d_out, int tile);
// d_out is d_in[0..count) copied.
::testing::AssertionResult copy_matches(const int* d_in, std::size_t count, const int* d_out);
// d_out is d_in equalized (handouts/06: the exclusive CDF's lookup table).
::testing::AssertionResult equalization_matches_reference(const std::uint8_t* d_in, std::size_t n,
                                                          const std::uint8_t* d_out);

}  // namespace grader
