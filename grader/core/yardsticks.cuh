// Yardsticks measured in the same process, on the same GPU, as the student's kernels, so speed
// thresholds are ratios that mean the same on a laptop GPU and a data-centre one.
#pragma once
#include <cstddef>

#include "grader/core/statistics.hpp"

namespace grader {

struct Measurement {
  Summary time_ms;
  double bytes = 0;  // bytes the work must read at least
  double gbps() const { return time_ms.median > 0 ? bytes / (time_ms.median * 1e6) : 0; }
};

// One pass of the grader's read-only kernel over d_data[0..count) (d_sink is never written).
void read_everything_once(const int* d_data, std::size_t count, int* d_sink);

// This GPU's streaming-read bandwidth: the grader's own read-only kernel over `count` ints.
Measurement measure_read_bandwidth(const int* d_data, std::size_t count);

// The plain histogram every lab is compared with: grid-stride loop, one global atomicAdd per
// sample. Adds into d_bins (the caller zeroes them).
void baseline_histogram(const int* d_samples, int n, int* d_bins, int num_bins);
Measurement measure_baseline_histogram(const int* d_samples, int n, int num_bins);

}  // namespace grader
