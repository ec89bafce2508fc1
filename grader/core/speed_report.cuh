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
  bool implausible = false;        // faster than the memory allows: the test fails (below)
};

// Computes the figures, prints one line for the student and records them as the test's metrics.
// A time that implies moving the kernel's bytes faster than the read yardstick measured in this
// run (implausible_speed) fails the test.
SpeedFigures report_speed(const std::string& kernel, const Measurement& kernel_time,
                          const Measurement& read_bandwidth, const Measurement& baseline);

// A kernel's time is only a measurement when moving the bytes it must at least move
// (kernel_time.bytes) in that time is within kMostShareOfYardstick of the rate this GPU's
// `yardstick` (a streaming read, or a copy for work that must write as much as it reads) reached
// in the same run. Records the metric "implausible_speed" (1 or 0) and returns "" when plausible,
// else the message a test fails with: no points for it, flagged for the instructor.
constexpr double kMostShareOfYardstick = 1.10;
std::string implausible_speed(const std::string& kernel, const Measurement& kernel_time,
                              const Measurement& yardstick, const std::string& yardstick_name);

// Once per run, before the first figure: how times are taken, the channel's cost, and how close
// the grader's read gets to the theoretical peak.
void report_timing_method(const Measurement& read_bandwidth);

}  // namespace grader
