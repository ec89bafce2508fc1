// Timing GPU work the way the handouts' figures are measured: CUDA events around the work only,
// warm-up runs first, the L2 cache flushed before every run, an empty kernel launched before
// every other run (half the runs after an odd number of launches, half after an even one), the
// median of many runs.
#pragma once
#include <functional>
#include <vector>

#include "grader/core/statistics.hpp"

namespace grader {

struct TimingOptions {
  int warmup_runs = 3;
  int timed_runs = 20;
  bool flush_l2 = true;  // so a run does not profit from the data the previous one left in L2
};

// Milliseconds per call of `work` (which launches kernels on the default stream).
Summary time_gpu_ms(const std::function<void()>& work, const TimingOptions& options = {});

// Milliseconds of each of `works`, timed in turn: every run times works[0], works[1], ... one
// after the other, each after its own flush, so a drift of the GPU's clocks during the measurement
// reaches them all alike and the ratio of run i's times compares like with like. Result [w][i]:
// work w's time in run i.
std::vector<std::vector<double>> time_gpu_ms_in_turn(const std::vector<std::function<void()>>& works,
                                                     const TimingOptions& options = {});

}  // namespace grader
