#include "grader/core/speed_report.cuh"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <tuple>

#include "grader/core/results.hpp"
#include "grader/core/round_yardsticks.cuh"

namespace grader {

void report_timing_method(const Measurement& read_bandwidth) {
  static bool said = false;
  const double channel_ms = channel_cost_ms();
  const double peak = theoretical_bandwidth_gbps();
  record_metric("channel_cost_us", 1000 * channel_ms);
  record_metric("read_bw_percent_of_peak", peak > 0 ? 100 * read_bandwidth.gbps() / peak : 0.0);
  if (said) return;
  said = true;
  std::printf("[ timing   ] the grader's clock, rounds of calls on fresh inputs (grader/core/"
              "timed_rounds.cuh), less the channel's %.0f us a round; the grader's streaming read "
              "reaches %.1f%% of this GPU's theoretical %.0f GB/s\n",
              1000 * channel_ms, peak > 0 ? 100 * read_bandwidth.gbps() / peak : 0.0, peak);
}

SpeedFigures report_speed(const std::string& kernel, const Measurement& kernel_time,
                          const Measurement& read_bandwidth, const Measurement& baseline) {
  SpeedFigures f;
  f.time_ms = kernel_time.time_ms.median;
  f.gbps = kernel_time.gbps();
  f.percent_of_read_bandwidth = 100.0 * f.gbps / read_bandwidth.gbps();
  f.speedup_vs_baseline = baseline.time_ms.median / f.time_ms;
  const double peak = theoretical_bandwidth_gbps();
  f.percent_of_peak = peak > 0 ? 100.0 * f.gbps / peak : 0;
  report_timing_method(read_bandwidth);
  std::printf("[ speed    ] %s: %.4g ms (spread %.1f%%), %.1f GB/s = %.1f%% of this GPU's measured read "
              "bandwidth (%.0f GB/s) and %.1f%% of its theoretical peak (%.0f GB/s); %.2fx the "
              "baseline (%.4g ms)\n",
              kernel.c_str(), f.time_ms, 100 * kernel_time.time_ms.relative_spread(), f.gbps,
              f.percent_of_read_bandwidth, read_bandwidth.gbps(), f.percent_of_peak, peak,
              f.speedup_vs_baseline, baseline.time_ms.median);
  record_metric("time_ms", f.time_ms);
  record_metric("gbps", f.gbps);
  record_metric("percent_of_read_bw", f.percent_of_read_bandwidth);
  record_metric("speedup_vs_baseline", f.speedup_vs_baseline);
  record_metric("baseline_ms", baseline.time_ms.median);
  record_metric("read_bw_gbps", read_bandwidth.gbps());
  record_metric("percent_of_peak_bw", f.percent_of_peak);
  record_metric("peak_bw_gbps", peak);
  const std::string implausible = implausible_speed(kernel, kernel_time, read_bandwidth, "streaming read");
  f.implausible = !implausible.empty();
  if (f.implausible) ADD_FAILURE() << implausible;
  return f;
}

std::string implausible_speed(const std::string& kernel, const Measurement& kernel_time,
                              const Measurement& yardstick, const std::string& yardstick_name) {
  const double share = yardstick.gbps() > 0 ? kernel_time.gbps() / yardstick.gbps() : 0;
  const bool implausible = share > kMostShareOfYardstick;
  record_metric("implausible_speed", implausible ? 1.0 : 0.0);
  if (!implausible) return "";
  char text[640];
  std::snprintf(text, sizeof text,
                "%s: %.4g ms a call means moving its %.0f MB at %.0f GB/s, %.2fx the %.0f GB/s this GPU's %s "
                "reached in the same run (at most %.2fx is believable). The grader cannot trust this time "
                "(did the timed calls skip their work?): this speed test earns nothing and is flagged for "
                "the instructor.",
                kernel.c_str(), kernel_time.time_ms.median, kernel_time.bytes / 1e6, kernel_time.gbps(), share,
                yardstick.gbps(), yardstick_name.c_str(), kMostShareOfYardstick);
  std::printf("[ flagged  ] %s\n", text);
  return text;
}

}  // namespace grader
