// The streaming read is the ruler of every "% of read bandwidth" in the score table. Timed the way
// the checker times everything (rounds of fresh inputs, grader/core/timed_rounds.cuh), it must
//   - reach at least 80 % of the bandwidth this GPU's memory clock and bus width give (below that
//     the ruler is soft and every ratio against it flatters the kernel), and
//   - take at most 3 % longer than the same kernel timed in this process with CUDA events (what
//     the channel between checker and runner still adds after its fixed cost is taken off).
// Needs a GPU; skips on the CPU backend.
#include <gtest/gtest.h>

#include <cstdio>

#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/round_yardsticks.cuh"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/yardsticks.cuh"

namespace {

constexpr double kLeastPercentOfPeak = 80.0;
constexpr double kMostChannelPercent = 3.0;
constexpr std::size_t kSamples = std::size_t(1) << 25;  // the labs' standard input size

class ReadYardstick : public grader::SpeedTest {};

TEST_F(ReadYardstick, ReachesEightyPercentOfTheoreticalPeak) {
  const double peak_gbps = grader::theoretical_bandwidth_gbps();
  if (peak_gbps <= 0) GTEST_SKIP() << "this GPU reports no memory clock or bus width: no peak to compare with";
  grader::DeviceBuffer<int> samples(grader::uniform_samples(kSamples, 1024, 5));
  const grader::Measurement& read = grader::read_bandwidth_yardstick(samples.data(), kSamples);
  const double percent = 100.0 * read.gbps() / peak_gbps;
  std::printf("[ roofline ] streaming read of 2^25 int32: %.4f ms, %.0f GB/s = %.1f%% of the theoretical "
              "%.0f GB/s\n", read.time_ms.median, read.gbps(), percent, peak_gbps);
  EXPECT_GE(percent, kLeastPercentOfPeak)
      << "the grader's streaming read reaches " << percent << " % of this GPU's theoretical bandwidth ("
      << peak_gbps << " GB/s): the timing method adds overhead, or the read kernel is not at the roofline";
}

TEST_F(ReadYardstick, TimedInRoundsWithinThreePercentOfCudaEvents) {
  grader::DeviceBuffer<int> samples(grader::uniform_samples(kSamples, 1024, 5));
  const grader::Measurement& rounds = grader::read_bandwidth_yardstick(samples.data(), kSamples);
  const grader::Measurement events = grader::measure_read_bandwidth(samples.data(), kSamples);
  const double extra = 100.0 * (rounds.time_ms.median / events.time_ms.median - 1);
  std::printf("[ channel  ] streaming read of 2^25 int32: %.4f ms in rounds (channel cost %.0f us a round, "
              "taken off), %.4f ms with CUDA events in one process: %+.1f%%\n",
              rounds.time_ms.median, 1000 * grader::channel_cost_ms(), events.time_ms.median, extra);
  EXPECT_LE(extra, kMostChannelPercent)
      << "timed in rounds, the streaming read takes " << extra << " % longer than with CUDA events in one "
      << "process: the channel between checker and runner costs more than its measured fixed cost";
}

}  // namespace
