// Lab 04 grader: exact histograms from the four thread-per-bin kernels on adversarial inputs and
// several chunk sizes, launch shapes they must refuse, then their speed next to each other and to
// a privatized shared-memory histogram measured on the same GPU in the same run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/histogram_check.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/privatized_yardstick.cuh"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/speed_report.cuh"
#include "grader/core/standard_data.hpp"
#include "grader/core/student_code.hpp"
#include "lab04_thread_per_bin.cuh"

namespace {

using lab04::ChunkLaunch;
using lab04::kNumBins;

// Speed thresholds, as ratios of times measured in this run (handout questions 3.1 and 4.1), set
// below the smallest ratio measured: 2.94x and 3.4x on H200s, 6x on the course's RTX 3060; banks4
// took 0.86x the time of banks on an H200.
constexpr double kMinBanksSpeedupOverInverse = 2.0;
constexpr double kMaxBanks4TimeOverBanks = 1.1;  // banks4 must not be slower than banks
// A comparison's slower side counts at most this many times the streaming read of the same samples
// (timed the same way in the same run): about the most a real version of it takes (its worst seen
// times 1.15; handouts/benchmark.md), so a version slowed on purpose cannot lower the bar the other
// must pass. banks must then beat 425 / 2 reads, which no real inverse kernel does.
constexpr double kInverseCapOverRead = 425;
constexpr double kBanksCapOverRead = 145;

// Every kernel here compares each sample with every bin: n x 1024 steps. The CPU backend runs them
// one CUDA thread at a time, so there inputs stop at 2^13 samples; edge cases are small anyway.
constexpr std::size_t kCpuBackendMaxSamples = std::size_t{1} << 13;
std::size_t sized(std::size_t full_size) {
  const std::size_t scaled = grader::scaled_size(full_size);
  return grader::kCpuBackend ? std::min(scaled, kCpuBackendMaxSamples) : scaled;
}

using Launcher = void (*)(const int*, int, int*, ChunkLaunch);

struct Version {
  const char* kernel;
  int bins_per_thread;
  Launcher launcher;
  int threads() const { return lab04::threads_to_cover_the_bins(bins_per_thread); }
  ChunkLaunch shape(int samples_per_block) const { return {threads(), samples_per_block}; }
};
const Version kInverse{"histogram_v1_inverse", lab04::kBinsPerThreadInverse, lab04::histogram_v1_inverse};
const Version kBanks{"histogram_v2_banks", lab04::kBinsPerThreadBanks, lab04::histogram_v2_banks};
const Version kBanks2{"histogram_v3_banks2", lab04::kBinsPerThreadBanks2, lab04::histogram_v3_banks2};
const Version kBanks4{"histogram_v4_banks4", lab04::kBinsPerThreadBanks4, lab04::histogram_v4_banks4};

// The seed's 1024, one not a multiple of the block nor of 4, the largest, one smaller than a block
// (most threads copy nothing), and the one the student picked.
std::vector<int> chunk_sizes() {
  std::vector<int> sizes{1024, 1000, lab04::kMaxSamplesPerBlock, 96};
  const int picked = lab04::fastest_samples_per_block();
  if (std::find(sizes.begin(), sizes.end(), picked) == sizes.end()) sizes.push_back(picked);
  return sizes;
}

::testing::AssertionResult matches(const Version& v, ChunkLaunch launch, const std::string& what,
                                   const std::vector<int>& samples) {
  try {
    return grader::histogram_matches_cpu(
        what, samples, kNumBins, {v.kernel, grader::describe(launch)},
        [&](const int* d_s, int n, int* d_b) { v.launcher(d_s, n, d_b, launch); });
  } catch (const lab04::LaunchShapeError& error) {
    return ::testing::AssertionFailure() << "[" << what << "] " << v.kernel << " refused "
                                         << grader::describe(launch)
                                         << ", a shape it must take: " << error.what();
  }
}

void expect_matches(const Version& v, const std::string& what, const std::vector<int>& samples,
                    const std::vector<int>& sizes = chunk_sizes()) {
  for (int samples_per_block : sizes) EXPECT_TRUE(matches(v, v.shape(samples_per_block), what, samples));
}

std::uint64_t seed() { return grader::run_options().seed; }

// The standard data file; on the CPU backend its first kCpuBackendMaxSamples samples.
std::vector<int> standard_data(std::string& what) {
  const std::vector<int>& all = grader::standard_samples(kNumBins);
  const std::size_t n = std::min(all.size(), sized(all.size()));
  what = n == all.size() ? "standard data file"
                         : "first " + std::to_string(n) + " samples of the standard data file";
  return std::vector<int>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
}

// Every value 0..1023 in order, `rounds` times: each bin is hit by exactly one sample per round.
std::vector<int> sawtooth(int rounds) {
  std::vector<int> samples;
  for (int r = 0; r < rounds; ++r) {
    for (int v = 0; v < kNumBins; ++v) samples.push_back(v);
  }
  return samples;
}

// The launcher must throw LaunchShapeError before launching, with a message that contains
// `must_mention` (the number of threads per block the version needs, or the chunk limit).
void expect_rejected(const Version& v, ChunkLaunch bad, const std::string& must_mention,
                     const std::string& why) {
  const std::vector<int> samples = grader::uniform_samples(3000, kNumBins, seed() + 5);
  grader::DeviceBuffer<int> d_samples(samples);
  grader::DeviceBuffer<int> d_bins(kNumBins);
  try {
    v.launcher(d_samples.data(), static_cast<int>(samples.size()), d_bins.data(), bad);
  } catch (const lab04::LaunchShapeError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(must_mention), std::string::npos)
        << v.kernel << " refused " << grader::describe(bad) << " as it should, but its message \""
        << message << "\" does not say " << must_mention << " (see lab04_thread_per_bin.cuh)";
    return;
  } catch (const grader::RunnerFailure&) {
    throw;  // a crash, not a refusal: it ends the test with its own message
  } catch (const std::exception& error) {
    ADD_FAILURE() << v.kernel << " refused " << grader::describe(bad)
                  << " with the wrong exception (it must be lab04::LaunchShapeError): " << error.what();
    return;
  }
  // Accepted: say what the shape did, as the runner saw it.
  const auto error = static_cast<cudaError_t>(grader::take_student_calls().reply.cuda_error);
  ADD_FAILURE() << v.kernel << " accepted " << grader::describe(bad) << ": " << why
                << (error != cudaSuccess
                        ? " (the launch then failed: " + grader::describe_cuda_error(error) + ")"
                        : " (it launched anyway)")
                << ". It must throw lab04::LaunchShapeError before launching (question 1.1).";
}

void expect_rejects_blocks_not_covering_the_bins(const Version& v) {
  const int needed = v.threads();
  for (int threads : {needed / 2, needed == 1024 ? 1023 : 2 * needed}) {
    expect_rejected(v, {threads, 1024}, std::to_string(needed),
                    std::to_string(threads) + " threads own " +
                        std::to_string(threads * v.bins_per_thread) + " bins, not " +
                        std::to_string(kNumBins));
  }
}

void expect_rejects_chunks_not_fitting(const Version& v) {
  for (int samples_per_block : {0, -8, lab04::kMaxSamplesPerBlock + 1}) {
    expect_rejected(v, v.shape(samples_per_block), std::to_string(samples_per_block),
                    "a chunk of " + std::to_string(samples_per_block) +
                        " samples is empty or does not fit in shared memory");
  }
}

class Lab04Inverse : public grader::GpuTest {
 protected:
  const Version& version = kInverse;
};
class Lab04Banks : public grader::GpuTest {
 protected:
  const Version& version = kBanks;
};
class Lab04Banks2 : public grader::GpuTest {
 protected:
  const Version& version = kBanks2;
};
class Lab04Banks4 : public grader::GpuTest {
 protected:
  const Version& version = kBanks4;
};

// The same cases for each version; each body is one call, so a failure names the version's
// fixture and the case. large() keeps the CPU backend fast.
std::size_t large() { return sized(std::size_t{1} << 22); }

#define LAB04_CORRECTNESS_TESTS(Fixture)                                                           \
  GRADED_TEST(Fixture, MatchesCpuOnUniformSamples, 2) {                                            \
    expect_matches(version, "uniform samples", grader::uniform_samples(large() + 5, kNumBins, seed())); \
  }                                                                                                \
  GRADED_TEST(Fixture, MatchesCpuOnNormalSamples, 1) {                                             \
    expect_matches(version, "normal(500, 30) samples",                                             \
                   grader::normal_samples(large() + 3, kNumBins, 500, 30, seed() + 1));            \
  }                                                                                                \
  GRADED_TEST(Fixture, MatchesCpuOnAllEqualSamples, 1) {                                           \
    expect_matches(version, "all samples equal", grader::constant_samples(large(), 7));            \
  }                                                                                                \
  GRADED_TEST(Fixture, MatchesCpuWhenEverySampleIsTheLargestValue, 1) {                            \
    expect_matches(version, "all samples 1023", grader::constant_samples(4099, kNumBins - 1));     \
  }                                                                                                \
  GRADED_TEST(Fixture, MatchesCpuWhenEveryBinIsHitOncePerRound, 1) {                               \
    expect_matches(version, "0..1023 three times", sawtooth(3));                                   \
  }                                                                                                \
  GRADED_EDGE_TEST(Fixture, HandlesAnEmptyInput, 1) { expect_matches(version, "0 samples", {}); }  \
  GRADED_EDGE_TEST(Fixture, HandlesASingleSample, 1) {                                             \
    expect_matches(version, "1 sample", {kNumBins - 1});                                           \
  }                                                                                                \
  GRADED_TEST(Fixture, MatchesCpuWhenSizeIsNotAMultipleOfTheChunk, 2) {                            \
    for (int chunk : chunk_sizes()) {                                                              \
      for (std::size_t n : {2 * std::size_t(chunk) + 1, std::size_t(chunk) - 1,                    \
                            std::size_t(chunk) / 2 + 1}) {                                         \
        expect_matches(version, std::to_string(n) + " uniform samples",                            \
                       grader::uniform_samples(n, kNumBins, seed() + n), {chunk});                 \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  GRADED_TEST(Fixture, MatchesCpuOnTheStandardDataFile, 1) {                                       \
    std::string what;                                                                              \
    const std::vector<int> samples = standard_data(what);                                          \
    expect_matches(version, what, samples, {1024, 2048, 4096, 8192});                              \
  }                                                                                                \
  GRADED_EDGE_TEST(Fixture, RejectsABlockThatDoesNotCoverTheBins, 1) {                             \
    expect_rejects_blocks_not_covering_the_bins(version);                                          \
  }                                                                                                \
  GRADED_EDGE_TEST(Fixture, RejectsAChunkThatIsEmptyOrDoesNotFitInSharedMemory, 1) {               \
    expect_rejects_chunks_not_fitting(version);                                                    \
  }

LAB04_CORRECTNESS_TESTS(Lab04Inverse)
LAB04_CORRECTNESS_TESTS(Lab04Banks)
LAB04_CORRECTNESS_TESTS(Lab04Banks2)
LAB04_CORRECTNESS_TESTS(Lab04Banks4)

// ---- speed -------------------------------------------------------------------------------------
// One copy of the standard data on the device, so each version and yardstick is timed once on it.
const grader::DeviceBuffer<int>& standard_samples_on_device() {
  static const grader::DeviceBuffer<int> d_samples(grader::standard_samples(kNumBins));
  return d_samples;
}

class Lab04Speed : public grader::SpeedTest {
 protected:
  int n() const { return static_cast<int>(grader::standard_samples(kNumBins).size()); }

  // Checks the version on the standard data with the student's chunk size, then times it (once
  // per run: several tests compare the same versions). A fast wrong kernel earns nothing.
  ::testing::AssertionResult timed(const Version& v, grader::Measurement& out) {
    static std::map<const Version*, grader::Measurement> measured;
    const auto found = measured.find(&v);
    if (found != measured.end()) {
      out = found->second;
      return ::testing::AssertionSuccess();
    }
    const ChunkLaunch launch = v.shape(lab04::fastest_samples_per_block());
    const ::testing::AssertionResult correct =
        matches(v, launch, "standard data file", grader::standard_samples(kNumBins));
    if (!correct) return correct;
    const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
    grader::Measurement m;
    const ::testing::AssertionResult timed_ok = grader::time_student_histogram(
        v.kernel + (" (" + grader::describe(launch) + ")"), d_samples.data(), n(), kNumBins,
        [&](const int* d_s, int count, int* d_b) { v.launcher(d_s, count, d_b, launch); }, m);
    if (!timed_ok) return timed_ok;
    out = measured.emplace(&v, m).first->second;
    return ::testing::AssertionSuccess();
  }

  // The streaming read of the standard samples, timed in rounds in this run (the caps above).
  double read_ms() {
    const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
    return grader::read_bandwidth_yardstick(d_samples.data(), d_samples.size()).time_ms.median;
  }

  grader::SpeedFigures report(const Version& v, const grader::Measurement& m) {
    const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
    return grader::report_speed(
        v.kernel + (" (" + grader::describe(v.shape(lab04::fastest_samples_per_block())) + ")"), m,
        grader::read_bandwidth_yardstick(d_samples.data(), d_samples.size()),
        grader::baseline_histogram_yardstick(d_samples.data(), n(), kNumBins));
  }
};

GRADED_HEADLINE_SPEED_TEST(Lab04Speed, BanksRunsAtLeastTwiceAsFastAsInverse, 3, 0, "v2 banks") {
  grader::Measurement inverse, banks;
  ASSERT_TRUE(timed(kInverse, inverse));
  ASSERT_TRUE(timed(kBanks, banks));
  report(kBanks, banks);
  const double cap_ms = kInverseCapOverRead * read_ms();
  const double speedup = std::min(inverse.time_ms.median, cap_ms) / banks.time_ms.median;
  grader::record_metric("inverse_ms", inverse.time_ms.median);
  grader::record_metric("inverse_cap_ms", cap_ms);
  grader::record_metric("speedup_vs_inverse", speedup);
  std::printf("[ speed    ] histogram_v2_banks is %.2fx faster than histogram_v1_inverse (%.4g ms%s)\n",
              speedup, inverse.time_ms.median,
              inverse.time_ms.median > cap_ms ? ", counted as the cap: 425 reads, more than any real inverse kernel takes" : "");
  EXPECT_GE(speedup, kMinBanksSpeedupOverInverse)
      << "histogram_v2_banks is only " << speedup << "x faster than histogram_v1_inverse; at least "
      << kMinBanksSpeedupOverInverse << "x passes. v2 keeps its count in a register and adds "
      << "(s_chunk[i] == bin) ? 1 : 0 with no branch; v1 counts in shared memory (question 3.1).";
}

GRADED_SPEED_TEST(Lab04Speed, Banks4TakesAtMostATenthMoreTimeThanBanks, 2, 0) {
  grader::Measurement banks, banks4;
  ASSERT_TRUE(timed(kBanks, banks));
  ASSERT_TRUE(timed(kBanks4, banks4));
  report(kBanks4, banks4);
  const double ratio = banks4.time_ms.median / std::min(banks.time_ms.median, kBanksCapOverRead * read_ms());
  grader::record_metric("banks_ms", banks.time_ms.median);
  grader::record_metric("time_over_banks", ratio);
  std::printf("[ speed    ] histogram_v4_banks4 takes %.2fx the time of histogram_v2_banks (%.4g ms)\n",
              ratio, banks.time_ms.median);
  EXPECT_LE(ratio, kMaxBanks4TimeOverBanks)
      << "histogram_v4_banks4 takes " << ratio << "x the time of histogram_v2_banks; at most "
      << kMaxBanks4TimeOverBanks << "x passes. Keep the four counts in registers: an array indexed "
      << "only inside #pragma unroll loops (question 4.1).";
}

// No threshold: how far each version is from a method that does O(samples) work (question 6).
GRADED_SPEED_TEST(Lab04Speed, EveryVersionIsComparedWithAPrivatizedHistogram, 0, 0) {
  const grader::DeviceBuffer<int>& d_samples = standard_samples_on_device();
  const grader::Measurement& privatized =
      grader::privatized_histogram_yardstick(d_samples.data(), n(), kNumBins);
  grader::record_metric("privatized_ms", privatized.time_ms.median);
  std::printf("[ speed    ] grader's privatized shared-memory histogram: %.4g ms\n",
              privatized.time_ms.median);
  const struct {
    const Version& version;
    const char* name;
  } versions[] = {{kInverse, "inverse"}, {kBanks, "banks"}, {kBanks2, "banks2"}, {kBanks4, "banks4"}};
  for (const auto& entry : versions) {
    grader::Measurement m;
    ASSERT_TRUE(timed(entry.version, m));
    const double slowdown = m.time_ms.median / privatized.time_ms.median;
    grader::record_metric(std::string(entry.name) + "_ms", m.time_ms.median);
    grader::record_metric(std::string(entry.name) + "_over_privatized", slowdown);
    std::printf("[ speed    ] %-20s %9.4g ms  %7.1fx the privatized histogram's time\n",
                entry.version.kernel, m.time_ms.median, slowdown);
  }
}

}  // namespace
