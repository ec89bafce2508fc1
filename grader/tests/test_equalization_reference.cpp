#include <gtest/gtest.h>

#include "grader/core/equalization_reference.hpp"

namespace {

using Pixels = std::vector<std::uint8_t>;

TEST(CpuEqualization, CountsEveryGrayLevelAndScansIntoAnExclusiveCdf) {
  const Pixels pixels = {10, 10, 20, 30, 30, 30};
  const std::vector<unsigned> h = grader::cpu_gray_histogram(pixels);
  EXPECT_EQ(h[10], 2u);
  EXPECT_EQ(h[20], 1u);
  EXPECT_EQ(h[30], 3u);
  const std::vector<unsigned> cdf = grader::cpu_exclusive_cdf(h);
  ASSERT_EQ(cdf.size(), 257u);
  EXPECT_EQ(cdf[10], 0u);  // nothing darker than 10
  EXPECT_EQ(cdf[11], 2u);
  EXPECT_EQ(cdf[30], 3u);
  EXPECT_EQ(cdf[256], 6u);
}

TEST(CpuEqualization, SpreadsTheLevelsOverTheFullRange) {
  // c_min = 2, N - c_min = 4: level 20 goes to 255 * 1/4 = 63.75 -> 64.
  const Pixels out = grader::cpu_equalize({10, 10, 20, 30, 30, 30});
  EXPECT_EQ(out, (Pixels{0, 0, 64, 255, 255, 255}));
}

TEST(CpuEqualization, RoundsHalvesUp) {
  // c_min = 1, N - c_min = 2: level 6 goes to 255 * 1/2 = 127.5 -> 128.
  EXPECT_EQ(grader::cpu_equalize({5, 6, 7}), (Pixels{0, 128, 255}));
}

TEST(CpuEqualization, MapsAbsentLevelsBelowTheDarkestToZeroAndOthersLikeTheirLowerNeighbour) {
  const std::vector<std::uint8_t> lut = grader::cpu_equalization_lut(
      grader::cpu_exclusive_cdf(grader::cpu_gray_histogram({10, 10, 20, 30, 30, 30})));
  EXPECT_EQ(lut[0], 0);
  EXPECT_EQ(lut[9], 0);
  EXPECT_EQ(lut[25], 64);
  EXPECT_EQ(lut[255], 255);
}

TEST(CpuEqualization, LeavesAnImageOfOneGrayLevelUnchanged) {
  EXPECT_EQ(grader::cpu_equalize({77, 77, 77}), (Pixels{77, 77, 77}));
  const std::vector<std::uint8_t> lut =
      grader::cpu_equalization_lut(grader::cpu_exclusive_cdf(grader::cpu_gray_histogram({77})));
  for (int v = 0; v < 256; ++v) ASSERT_EQ(lut[v], v);
}

TEST(CpuEqualization, StretchesTwoLevelsToBlackAndWhite) {
  EXPECT_EQ(grader::cpu_equalize({100, 101, 100}), (Pixels{0, 255, 0}));
}

TEST(CpuEqualization, KeepsAFlatHistogramOverTheFullRangeNearlyUnchanged) {
  Pixels pixels(256);
  for (int v = 0; v < 256; ++v) pixels[v] = static_cast<std::uint8_t>(v);
  const Pixels out = grader::cpu_equalize(pixels);
  // c(v) = v + 1, c_min = 1, N - c_min = 255: exactly the identity.
  EXPECT_EQ(out, pixels);
}

}  // namespace
