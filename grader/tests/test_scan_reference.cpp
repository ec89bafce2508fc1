#include <gtest/gtest.h>

#include <climits>

#include "grader/core/scan_reference.hpp"

namespace {

TEST(CpuInclusiveScan, AddsEveryEarlierValue) {
  EXPECT_EQ(grader::cpu_inclusive_scan({3, 1, 4, 1, 5}), (std::vector<int>{3, 4, 8, 9, 14}));
}

TEST(CpuInclusiveScan, RestartsAtEverySegment) {
  EXPECT_EQ(grader::cpu_inclusive_scan({1, 1, 1, 1, 1}, 2), (std::vector<int>{1, 2, 1, 2, 1}));
}

TEST(CpuInclusiveScan, HandlesAnEmptyInput) { EXPECT_TRUE(grader::cpu_inclusive_scan({}).empty()); }

TEST(CpuInclusiveScan, WrapsLikeInt32AdditionOnTheGpu) {
  EXPECT_EQ(grader::cpu_inclusive_scan({INT_MAX, 1}), (std::vector<int>{INT_MAX, INT_MIN}));
}

TEST(UniformValues, StaysWithinBothBoundsAndReachesThem) {
  const std::vector<int> v = grader::uniform_values(10000, -3, 3, 1);
  int low = 0, high = 0;
  for (int x : v) {
    ASSERT_GE(x, -3);
    ASSERT_LE(x, 3);
    low += x == -3;
    high += x == 3;
  }
  EXPECT_GT(low, 0);
  EXPECT_GT(high, 0);
}

TEST(UniformValues, IsTheSameForTheSameSeed) {
  EXPECT_EQ(grader::uniform_values(100, 0, 1 << 20, 5), grader::uniform_values(100, 0, 1 << 20, 5));
  EXPECT_NE(grader::uniform_values(100, 0, 1 << 20, 5), grader::uniform_values(100, 0, 1 << 20, 6));
}

}  // namespace
