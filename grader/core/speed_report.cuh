// Speed figures of one kernel next to this GPU's yardsticks, measured in the same run: the time,
// the bandwidth it reached, the share of the GPU's read bandwidth, the speedup over the baseline.
#pragma once
#include <string>

#include "grader/core/yardsticks.cuh"

namespace grader {

struct SpeedFigures {
  double time_ms = 0;
  double gbps = 0;
  double percent_of_read_bandwidth = 0;
  double speedup_vs_baseline = 0;  // baseline time / this kernel's time
};

// Computes the figures, prints one line for the student and records them as the test's metrics.
SpeedFigures report_speed(const std::string& kernel, const Measurement& kernel_time,
                          const Measurement& read_bandwidth, const Measurement& baseline);

// The yardsticks for one device array, measured once per run and reused by every speed test.
const Measurement& read_bandwidth_yardstick(const int* d_samples, std::size_t n);
const Measurement& baseline_histogram_yardstick(const int* d_samples, int n, int num_bins);

}  // namespace grader
