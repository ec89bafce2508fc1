// Lab 05 grader, correctness: every scan compared element by element with the CPU's, on edge sizes,
// for every tile and block size the launchers allow; the active-warp counts of the block scans
// against their analytical sequences; the rule that the scans are the student's own (no CUB, no
// Thrust). Speed is graded in test_lab05_speed.cu.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "grader/core/device.cuh"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/scan_check.cuh"
#include "grader/core/source_rules.hpp"
#include "lab05_scan_warps.cuh"
#include "lab05_test_support.hpp"

namespace {

using lab05::BlockScanLaunch;
using lab05::WarpActivity;
using lab05::WholeArrayLaunch;
using lab05_test::seed;

// ---- block-local scans: one interface for v1-v4 -------------------------------------------------
struct BlockVersion {
  const char* kernel;
  std::function<void(const int*, int, int*, BlockScanLaunch, WarpActivity)> run;
};

BlockVersion hillis_steele() { return {"scan_v1_hillis_steele", lab05::scan_v1_hillis_steele}; }
BlockVersion blelloch() { return {"scan_v2_blelloch", lab05::scan_v2_blelloch}; }
BlockVersion blelloch_padded() { return {"scan_v3_blelloch_padded", lab05::scan_v3_blelloch_padded}; }
BlockVersion warp_shuffle() {
  return {"scan_v4_warp_shuffle", [](const int* d_in, int n, int* d_out, BlockScanLaunch l, WarpActivity) {
            lab05::scan_v4_warp_shuffle(d_in, n, d_out, l);
          }};
}

// Every tile size the launchers allow, unless the case names its own.
void expect_block_scan_matches(const BlockVersion& v, const std::string& what,
                               const std::vector<int>& values,
                               const std::vector<int>& tiles = {lab05::kTileSizes.begin(),
                                                                lab05::kTileSizes.end()}) {
  for (int tile : tiles) {
    const BlockScanLaunch launch{tile};
    const ::testing::AssertionResult scan = grader::scan_matches_cpu(
        what, values, static_cast<std::size_t>(tile), {v.kernel, lab05::describe(launch)},
        [&](const int* d_in, int n, int* d_out) { v.run(d_in, n, d_out, launch, {}); });
    EXPECT_TRUE(scan);
    if (!scan) return;  // the other tile sizes would only repeat the story
  }
}

std::vector<int> small_values(std::size_t n, std::uint64_t offset) {
  return grader::uniform_values(n, -100, 100, seed() + offset);
}

class BlockScanTest : public grader::GpuTest {
 protected:
  virtual BlockVersion version() const = 0;
  void empty_input() { expect_block_scan_matches(version(), "0 elements", {}); }
  void single_element() { expect_block_scan_matches(version(), "1 element", {-7}); }
  void around_one_warp() {
    for (std::size_t n : {31u, 32u, 33u}) {
      expect_block_scan_matches(version(), std::to_string(n) + " elements", small_values(n, n));
    }
  }
  void around_the_largest_tile() {
    for (std::size_t n : {1023u, 1024u, 1025u}) {
      expect_block_scan_matches(version(), std::to_string(n) + " elements", small_values(n, n));
    }
  }
  void sizes_not_powers_of_two() {
    for (std::size_t full : {3u, 100u, 1000u, 3000u, 100003u}) {
      const std::size_t n = grader::scaled_ragged_size(full);
      expect_block_scan_matches(version(), std::to_string(n) + " elements", small_values(n, n));
    }
  }
  void all_ones() {
    // Element i of a tile scans to i + 1: a wrong entry shows where the scan went wrong.
    expect_block_scan_matches(version(), "5000 ones", std::vector<int>(5000, 1));
  }
  void beyond_sixteen_bits() {
    // Values and sums past the range of 16-bit integers, both signs.
    expect_block_scan_matches(version(), "3077 values in [40000, 70000]",
                              grader::uniform_values(3077, 40000, 70000, seed() + 11));
    expect_block_scan_matches(version(), "3077 values in [-100000, 100000]",
                              grader::uniform_values(3077, -100000, 100000, seed() + 12));
  }
  void large_array() {
    const std::size_t n = grader::scaled_size(std::size_t{1} << 25);
    expect_block_scan_matches(version(), std::to_string(n) + " elements", small_values(n, 13),
                              {32, 1024});
  }
};

// Fixtures named after the versions, so the test names read as sentences.
#define LAB05_BLOCK_SCAN_TESTS(Fixture, make_version)                                           \
  class Fixture : public BlockScanTest {                                                        \
   protected:                                                                                   \
    BlockVersion version() const override { return make_version(); }                          \
  };                                                                                            \
  GRADED_EDGE_TEST(Fixture, HandlesAnEmptyInput, 1) { empty_input(); }                          \
  GRADED_EDGE_TEST(Fixture, ScansASingleElement, 1) { single_element(); }                       \
  GRADED_TEST(Fixture, MatchesCpuAroundOneWarp, 1) { around_one_warp(); }                       \
  GRADED_TEST(Fixture, MatchesCpuAroundTheLargestTile, 1) { around_the_largest_tile(); }        \
  GRADED_TEST(Fixture, MatchesCpuOnSizesThatAreNotPowersOfTwo, 1) { sizes_not_powers_of_two(); } \
  GRADED_TEST(Fixture, MatchesCpuOnAllOnes, 1) { all_ones(); }                                  \
  GRADED_TEST(Fixture, MatchesCpuOnValuesBeyondSixteenBits, 1) { beyond_sixteen_bits(); }       \
  GRADED_TEST(Fixture, MatchesCpuOnTheLargeArray, 1) { large_array(); }

LAB05_BLOCK_SCAN_TESTS(Lab05HillisSteele, hillis_steele)
LAB05_BLOCK_SCAN_TESTS(Lab05Blelloch, blelloch)
LAB05_BLOCK_SCAN_TESTS(Lab05BlellochPadded, blelloch_padded)
LAB05_BLOCK_SCAN_TESTS(Lab05WarpShuffle, warp_shuffle)

// ---- active warps (question 3) ------------------------------------------------------------------
// The analytical sequences for one full tile of n elements (n a power of two, at least 32).
// Hillis-Steele: in the step that adds the element 2^k back, threads 2^k..n-1 add.
std::vector<int> hillis_steele_active_warps(int n) {
  std::vector<int> warps;
  for (int offset = 1; offset < n; offset *= 2) warps.push_back(n / 32 - offset / 32);
  return warps;
}
// Blelloch, n/2 threads: the up-sweep with stride s has n/(2s) adding threads, the down-sweep
// n/(2s) - 1; the adding threads are always the lowest-numbered ones.
std::vector<int> blelloch_active_warps(int n) {
  std::vector<int> warps;
  for (int stride = 1; stride < n; stride *= 2) warps.push_back((n / (2 * stride) + 31) / 32);
  for (int stride = n / 4; stride >= 1; stride /= 2) warps.push_back((n / (2 * stride) - 1 + 31) / 32);
  return warps;
}

std::string list(const std::vector<int>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "] (" + std::to_string(std::accumulate(values.begin(), values.end(), 0)) + " in all)";
}

// Runs one tile of n elements with the flags on, checks the scan, returns the warps counted in
// each iteration (iterations after the last one that marked anything are not reported).
std::vector<int> count_active_warps(const BlockVersion& v, int n) {
  grader::DeviceBuffer<int> d_flags(std::vector<int>(lab05::kMaxIterations * lab05::kMaxWarpsPerBlock, 0));
  const BlockScanLaunch launch{n};
  const ::testing::AssertionResult scan = grader::scan_matches_cpu(
      std::to_string(n) + " elements, counting warps", small_values(static_cast<std::size_t>(n), 21),
      static_cast<std::size_t>(n), {v.kernel, lab05::describe(launch)},
      [&](const int* d_in, int count, int* d_out) { v.run(d_in, count, d_out, launch, {d_flags.data()}); });
  EXPECT_TRUE(scan);
  const std::vector<int> flags = d_flags.download();
  std::vector<int> counts;
  for (int iteration = 0; iteration < lab05::kMaxIterations; ++iteration) {
    int warps = 0;
    for (int w = 0; w < lab05::kMaxWarpsPerBlock; ++w) warps += flags[iteration * lab05::kMaxWarpsPerBlock + w] != 0;
    counts.push_back(warps);
  }
  while (!counts.empty() && counts.back() == 0) counts.pop_back();
  return counts;
}

void expect_active_warps(const BlockVersion& v, const std::function<std::vector<int>(int)>& expected) {
  for (int n : lab05::kTileSizes) {
    const std::vector<int> got = count_active_warps(v, n);
    if (n == lab05::kMaxTile) std::printf("[ warps    ] %s, %d elements: %s\n", v.kernel, n, list(got).c_str());
    EXPECT_EQ(got, expected(n)) << v.kernel << ", one tile of " << n
                                << " elements: active warps per iteration\n  got      " << list(got)
                                << "\n  expected " << list(expected(n))
                                << "\n  Mark a warp (mark_warp_active) only where a thread adds, with "
                                   "the iteration counted from 0 over the whole scan (question 3.1).";
  }
}

class Lab05ActiveWarps : public grader::GpuTest {};

GRADED_TEST(Lab05ActiveWarps, HillisSteeleCountsMatchTheAnalyticalSequence, 2) {
  expect_active_warps(hillis_steele(), hillis_steele_active_warps);
}
GRADED_TEST(Lab05ActiveWarps, BlellochCountsMatchTheAnalyticalSequence, 2) {
  expect_active_warps(blelloch(), blelloch_active_warps);
}
GRADED_TEST(Lab05ActiveWarps, PaddedBlellochCountsMatchTheAnalyticalSequence, 1) {
  expect_active_warps(blelloch_padded(), blelloch_active_warps);
}

// ---- whole-array scans --------------------------------------------------------------------------
struct WholeVersion {
  const char* kernel;
  std::string launch_text;
  std::function<void(const int*, int, int*, void*)> run;
};

std::vector<WholeVersion> multi_block_versions() {
  std::vector<WholeVersion> versions;
  for (int threads : lab05::kWholeArrayBlockSizes) {
    const WholeArrayLaunch launch{threads};
    versions.push_back({"scan_v5_multi_block", lab05::describe(launch),
                        [launch](const int* d_in, int n, int* d_out, void* d_work) {
                          lab05::scan_v5_multi_block(d_in, n, d_out, d_work, launch);
                        }});
  }
  return versions;
}
std::vector<WholeVersion> single_pass_versions() {
  return {{"scan_v6_single_pass", "its own launch shape", lab05::scan_v6_single_pass}};
}

void expect_whole_scan_matches(const std::vector<WholeVersion>& versions, const std::string& what,
                               const std::vector<int>& values) {
  for (const WholeVersion& v : versions) {
    const std::size_t workspace_bytes = lab05::scan_workspace_bytes(static_cast<int>(values.size()));
    grader::DeviceBuffer<unsigned char> d_workspace(workspace_bytes > 0 ? workspace_bytes : 1);
    const ::testing::AssertionResult scan = grader::scan_matches_cpu(
        what, values, 0, {v.kernel, v.launch_text},
        [&](const int* d_in, int n, int* d_out) { v.run(d_in, n, d_out, d_workspace.data()); });
    EXPECT_TRUE(scan);
    const std::string damage = d_workspace.guard_damage();
    EXPECT_TRUE(damage.empty()) << "[" << what << "] " << v.kernel << " (" << v.launch_text
                                << ") wrote outside the " << workspace_bytes
                                << " workspace bytes scan_workspace_bytes asked for: " << damage;
    if (!scan || !damage.empty()) return;  // the other block sizes would only repeat the story
  }
}

class WholeArrayTest : public grader::GpuTest {
 protected:
  virtual std::vector<WholeVersion> versions() const = 0;
  void check(const std::string& what, const std::vector<int>& values) {
    expect_whole_scan_matches(versions(), what, values);
  }
  // Sizes past the small inputs' cap are cut keeping their tail (grader::scaled_ragged_size).
  void sizes(std::initializer_list<std::size_t> ns) {
    for (std::size_t full : ns) {
      const std::size_t n = grader::scaled_ragged_size(full);
      check(std::to_string(n) + " elements", small_values(n, n));
    }
  }
  void ones(std::size_t full) {
    const std::size_t n = grader::scaled_ragged_size(full);
    check(std::to_string(n) + " ones", std::vector<int>(n, 1));
  }
  void values(std::size_t full, int low, int high, std::uint64_t stream) {
    const std::size_t n = grader::scaled_ragged_size(full);
    check(std::to_string(n) + " values in [" + std::to_string(low) + ", " + std::to_string(high) + "]",
          grader::uniform_values(n, low, high, seed() + stream));
  }
};

#define LAB05_WHOLE_ARRAY_TESTS(Fixture, make_versions)                                         \
  class Fixture : public WholeArrayTest {                                                       \
   protected:                                                                                   \
    std::vector<WholeVersion> versions() const override { return make_versions(); }            \
  };                                                                                            \
  GRADED_EDGE_TEST(Fixture, HandlesAnEmptyInput, 1) { check("0 elements", {}); }                \
  GRADED_EDGE_TEST(Fixture, ScansASingleElement, 1) { check("1 element", {-7}); }               \
  GRADED_TEST(Fixture, MatchesCpuAroundOneWarp, 1) { sizes({31, 32, 33}); }                     \
  GRADED_TEST(Fixture, MatchesCpuAroundOneThousandElements, 1) { sizes({1023, 1024, 1025}); }   \
  GRADED_TEST(Fixture, MatchesCpuAcrossTileBoundaries, 2) {                                     \
    sizes({2047, 2049, 4095, 4097, 8191, 8193, 16383, 16385, 65537, 262143});                   \
  }                                                                                             \
  GRADED_TEST(Fixture, MatchesCpuOnSizesThatAreNotPowersOfTwo, 1) { sizes({3, 1000, 1000003}); } \
  GRADED_TEST(Fixture, MatchesCpuOnAllOnes, 1) { ones(300001); }                               \
  GRADED_TEST(Fixture, MatchesCpuOnValuesBeyondSixteenBits, 1) {                                \
    values(20001, 40000, 70000, 31);                                                            \
    values(200003, -100000, 100000, 32);                                                        \
  }                                                                                             \
  GRADED_TEST(Fixture, MatchesCpuOnTheLargeArray, 2) {                                          \
    const std::size_t n = grader::scaled_size(std::size_t{1} << 25);                            \
    check(std::to_string(n) + " elements", small_values(n, 33));                                \
  }

LAB05_WHOLE_ARRAY_TESTS(Lab05MultiBlock, multi_block_versions)
LAB05_WHOLE_ARRAY_TESTS(Lab05SinglePass, single_pass_versions)

// ---- the rule: the scans are the student's own --------------------------------------------------
class Lab05Rules : public grader::GpuTest {};  // skips with the others where nothing can run

// A rule, not a task: no points of its own; breaking it also withholds every speed test's points.
GRADED_EDGE_TEST(Lab05Rules, UsesNeitherCubNorThrust, 0) {
  const lab05_test::RuleCheck& rules = lab05_test::rule_check();
  if (!rules.checked) GTEST_SKIP() << rules.reason;
  EXPECT_TRUE(rules.violations.empty()) << rules.reason;
}

}  // namespace
