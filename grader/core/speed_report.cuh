// Speed figures of one kernel next to this GPU's yardsticks, measured in the same run: the time,
// the bandwidth it reached, the share of the GPU's read bandwidth, the speedup over the baseline.
#pragma once
#include <string>

#include "grader/core/round_yardsticks.cuh"
#include "grader/core/yardsticks.cuh"

namespace grader {

struct SpeedFigures {
  double time_ms = 0;
  double gbps = 0;
  double percent_of_read_bandwidth = 0;
  double speedup_vs_baseline = 0;  // baseline time / this kernel's time
  double percent_of_peak = 0;      // of the theoretical DRAM bandwidth
};

// Computes the figures, prints one line for the student and records them as the test's metrics.
SpeedFigures report_speed(const std::string& kernel, const Measurement& kernel_time,
                          const Measurement& read_bandwidth, const Measurement& baseline);

// Once per run, before the first figure: how times are taken, the channel's cost, and how close
// the grader's read gets to the theoretical peak.
void report_timing_method(const Measurement& read_bandwidth);

}  // namespace grader
