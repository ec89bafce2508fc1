// The keyed stream every generated input is drawn from: ChaCha20 as RFC 8439 defines it, the same
// words for the same key, others for another key or stream, and bits that look uniform.
#include <gtest/gtest.h>

#include <array>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "grader/core/keyed_stream.hpp"
#include "grader/core/sample_inputs.hpp"

namespace {

TEST(KeyedStream, ChaCha20BlockIsRfc8439s) {
  // RFC 8439 section 2.3.2: key 00 01 .. 1f, block count 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
  std::array<std::uint32_t, 8> key;
  for (int i = 0; i < 8; ++i) {
    key[i] = static_cast<std::uint32_t>(4 * i) | static_cast<std::uint32_t>(4 * i + 1) << 8 |
             static_cast<std::uint32_t>(4 * i + 2) << 16 | static_cast<std::uint32_t>(4 * i + 3) << 24;
  }
  std::array<std::uint32_t, 16> out;
  grader::chacha20_block(key, 1 | std::uint64_t{0x09000000} << 32, 0x4a000000, out);
  const std::array<std::uint32_t, 16> expected = {
      0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
      0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
  EXPECT_EQ(out, expected);
}

std::vector<std::uint64_t> words(std::uint64_t seed, std::uint64_t stream, int count) {
  grader::KeyedStream engine(seed, stream);
  std::vector<std::uint64_t> out(count);
  for (auto& w : out) w = engine();
  return out;
}

TEST(KeyedStream, TheSameKeyGivesTheSameWordsAndAnotherKeyOrStreamOthers) {
  EXPECT_EQ(words(2025, 0, 100), words(2025, 0, 100));
  const auto base = words(2025, 0, 100);
  for (const auto& other : {words(2026, 0, 100), words(2025, 1, 100), words(2025ull << 32, 0, 100)}) {
    int same = 0;
    for (int i = 0; i < 100; ++i) same += base[i] == other[i];
    EXPECT_EQ(same, 0);
  }
}

TEST(KeyedStream, BitsAreBalancedAndIndependentOfTheirNeighbours) {
  // 2^16 words: each of the 64 bit positions is set in half of them (within 5 standard
  // deviations: 128 of 2^15), and one word agrees with the next in half of their bits.
  const auto w = words(7, 0, 1 << 16);
  for (int bit = 0; bit < 64; ++bit) {
    int set = 0;
    for (std::uint64_t x : w) set += (x >> bit) & 1;
    EXPECT_NEAR(set, 1 << 15, 5 * 128) << "bit " << bit;
  }
  long long agree = 0;
  for (std::size_t i = 1; i < w.size(); ++i) agree += 64 - std::bitset<64>(w[i] ^ w[i - 1]).count();
  EXPECT_NEAR(static_cast<double>(agree) / (w.size() - 1), 32, 0.1);
}

TEST(KeyedStream, UniformSamplesFillTheBinsEvenly) {
  // Chi-square of 2^20 samples over 1024 bins: 1023 degrees of freedom, mean 1023, sd 45.2.
  const auto samples = grader::uniform_samples(1 << 20, 1024, 11);
  std::vector<double> bins(1024, 0);
  for (int s : samples) bins[s] += 1;
  double chi2 = 0;
  for (double b : bins) chi2 += (b - 1024) * (b - 1024) / 1024;
  EXPECT_NEAR(chi2, 1023, 5 * 45.2);
}

TEST(KeyedStream, NormalSamplesHaveTheirMeanAndSpread) {
  const auto samples = grader::normal_samples(1 << 18, 1024, 500, 30, 12);
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  double square = 0;
  for (int s : samples) square += (s - mean) * (s - mean);
  EXPECT_NEAR(mean, 500, 0.5);
  EXPECT_NEAR(std::sqrt(square / samples.size()), 30, 0.5);
}

}  // namespace
