#include <gtest/gtest.h>

#include "grader/core/statistics.hpp"

namespace {

TEST(Summarize, GivesMedianAndQuartilesLikeNumpy) {
  const auto s = grader::summarize({4, 1, 3, 2, 5});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.max, 5);
}

TEST(Summarize, InterpolatesTheMedianOfAnEvenCount) {
  EXPECT_DOUBLE_EQ(grader::summarize({1, 2, 3, 10}).median, 2.5);
}

TEST(Summarize, ReportsRelativeSpreadOfTheMiddleHalf) {
  EXPECT_NEAR(grader::summarize({9, 10, 10, 11}).relative_spread(), 0.05, 1e-12);
}

TEST(Summarize, GivesCountZeroForNoValues) {
  EXPECT_EQ(grader::summarize({}).count, 0);
}

}  // namespace
