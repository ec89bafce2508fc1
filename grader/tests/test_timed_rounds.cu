// The checks of a timed round that do not need a GPU's clock (grader/core/timed_rounds.cuh), run
// on a GPU or on the CPU backend with the runner of round_check_calls.cu: an honest call passes; a
// call that fills its input with -1 (no bin), zeroes its bins and counts nothing fails because its
// input changed (it passed when the round was checked against the input as the runner left it); a
// source that a runner was once given is refused. And the rule that a time faster than the memory
// allows is no measurement (speed_report.cuh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/gpu_references.cuh"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/speed_report.cuh"
#include "grader/core/student_code.hpp"
#include "grader/core/timed_rounds.cuh"

namespace round_check {
void count(const int* d_in, int n, int* d_bins, int num_bins);
void wipe_input(const int* d_in, int n, int* d_bins, int num_bins);
}  // namespace round_check

namespace {

constexpr int kBins = 256;
constexpr int kSamples = 1 << 16;

using Launcher = void (*)(const int*, int, int*, int);

// A few short rounds of a fixed number of calls: the checks, not the clock, are under test.
::testing::AssertionResult time_it(const std::string& name, const int* source, Launcher launcher) {
  const grader::TimedWork<int, int> work{
      name, source, kSamples, kBins,
      [launcher](const int* in, int* bins) { launcher(in, kSamples, bins, kBins); },
      [](const int* in, const int* bins) { return grader::histogram_matches_reference(in, kSamples, bins, kBins); }};
  grader::RoundOptions options;
  options.rounds = 2;
  options.steady_spread = 0;
  options.calls = 3;
  options.subtract_channel_cost = false;
  grader::Summary per_call;
  return grader::time_rounds(grader::student_runner(), work, per_call, options);
}

class TimedRounds : public grader::GpuTest {};

TEST_F(TimedRounds, AnHonestCallPasses) {
  const grader::DeviceBuffer<int> source(grader::uniform_samples(kSamples, kBins, 3));
  EXPECT_TRUE(time_it("count", source.data(), round_check::count));
}

TEST_F(TimedRounds, ACallThatWipesItsInputFails) {
  const grader::DeviceBuffer<int> source(grader::uniform_samples(kSamples, kBins, 4));
  const ::testing::AssertionResult result = time_it("wipe_input", source.data(), round_check::wipe_input);
  ASSERT_FALSE(result) << "a round whose calls wiped their inputs and counted nothing passed";
  EXPECT_NE(std::string(result.message()).find("was changed during the round"), std::string::npos)
      << result.message();
  EXPECT_NE(std::string(result.message()).find("a timed call must not write its input"), std::string::npos)
      << result.message();
}

TEST_F(TimedRounds, ASourceARunnerWasGivenIsRefused) {
  const std::vector<int> samples = grader::uniform_samples(kSamples, kBins, 5);
  grader::DeviceBuffer<int> given(samples), bins(kBins);
  round_check::count(given.data(), kSamples, bins.data(), kBins);  // the runner now has `given`
  grader::discard_student_calls();
  const ::testing::AssertionResult result = time_it("count", given.data(), round_check::count);
  ASSERT_FALSE(result) << "a round made its inputs from a buffer the runner can write";
  EXPECT_NE(std::string(result.message()).find("a buffer a runner was given"), std::string::npos)
      << result.message();
}

// Bytes over a median time: what the rule compares.
grader::Measurement moved(double bytes, double ms) {
  grader::Measurement m;
  m.bytes = bytes;
  m.time_ms.median = ms;
  return m;
}

TEST(ImplausibleSpeed, FasterThanTheReadYardstickByMoreThanTheMarginIsFlagged) {
  const grader::Measurement read = moved(1e9, 1.0);  // 1000 GB/s
  const std::string flagged = grader::implausible_speed("k", moved(1e9, 0.5), read, "streaming read");
  EXPECT_NE(flagged.find("2.00x the 1000 GB/s this GPU's streaming read reached"), std::string::npos) << flagged;
  EXPECT_NE(flagged.find("earns nothing"), std::string::npos) << flagged;
  EXPECT_FALSE(grader::implausible_speed("k", moved(1e9, 0.85), read, "streaming read").empty());  // 1.18x
}

TEST(ImplausibleSpeed, WithinTheMarginOrSlowerIsAMeasurement) {
  const grader::Measurement read = moved(1e9, 1.0);
  EXPECT_EQ(grader::implausible_speed("k", moved(1e9, 0.93), read, "streaming read"), "");  // 1.075x
  EXPECT_EQ(grader::implausible_speed("k", moved(1e9, 4.0), read, "streaming read"), "");
  EXPECT_EQ(grader::implausible_speed("k", moved(1e9, 1.0), moved(1e9, 0.0), "streaming read"), "");
}

}  // namespace
