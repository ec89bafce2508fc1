// A privatized shared-memory histogram as a yardstick: the single-pass method a histogram lab is
// measured against when the question is how much work a method does, not how it uses atomics.
// Each block keeps private bins in shared memory, walks the samples with a grid-stride loop and
// merges its bins into the global ones once at the end: O(samples) work, whatever the bin count.
#pragma once

#include "grader/core/yardsticks.cuh"

namespace grader {

// Largest bin count the yardstick takes: its private bins live in 48 KiB of shared memory.
constexpr int kPrivatizedMaxBins = 12 * 1024;

// Adds the histogram of d_samples[0..n) into d_bins (the caller zeroes them); samples outside
// [0, num_bins) are ignored. Throws std::invalid_argument for num_bins outside 1..kPrivatizedMaxBins.
void privatized_histogram(const int* d_samples, int n, int* d_bins, int num_bins);
Measurement measure_privatized_histogram(const int* d_samples, int n, int num_bins);


}  // namespace grader
