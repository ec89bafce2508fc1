// Timing GPU work the way the handouts' figures are measured: CUDA events around the work only,
// warm-up runs first, the L2 cache flushed before every run, the median of many runs.
#pragma once
#include <functional>

#include "grader/core/statistics.hpp"

namespace grader {

struct TimingOptions {
  int warmup_runs = 3;
  int timed_runs = 20;
  bool flush_l2 = true;  // so a run does not profit from the data the previous one left in L2
};

// Milliseconds per call of `work` (which launches kernels on the default stream).
Summary time_gpu_ms(const std::function<void()>& work, const TimingOptions& options = {});

}  // namespace grader
