#include <gtest/gtest.h>

#include <vector>

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

// Four slow rounds of seven (as an H100 gave just after freeing 34 GB) would move the median; the
// window starts after them.
TEST(FirstSteadyWindow, StartsAfterTheRoundsOfAGpuStillSettling) {
  const std::vector<double> rounds{3742, 3692, 3684, 3657, 3133, 3132, 3126, 3130, 3126, 3134, 3129, 3129};
  const grader::SteadyWindow w = grader::first_steady_window(rounds, 7, 0.02);
  EXPECT_TRUE(w.steady);
  EXPECT_EQ(w.skipped, 3);
  EXPECT_NEAR(w.summary.median, 3132, 0.5);  // 3657 is in the window, outside its middle half
  EXPECT_GT(grader::summarize({rounds.begin(), rounds.begin() + 7}).median, 3600);
}

TEST(FirstSteadyWindow, KeepsTheFirstWindowWhenItIsSteady) {
  const grader::SteadyWindow w = grader::first_steady_window({10, 10.1, 9.9, 10, 10, 10.1, 9.9, 50}, 7, 0.02);
  EXPECT_TRUE(w.steady);
  EXPECT_EQ(w.skipped, 0);
  EXPECT_DOUBLE_EQ(w.summary.median, 10);
}

TEST(FirstSteadyWindow, ToleratesOneOutlierOutsideTheMiddleHalf) {
  EXPECT_TRUE(grader::first_steady_window({10, 10, 10, 40, 10, 10, 10}, 7, 0.02).steady);
}

TEST(FirstSteadyWindow, SaysSoWhenNoWindowIsSteadyAndGivesTheLast) {
  const grader::SteadyWindow w = grader::first_steady_window({1, 2, 3, 4, 5, 6, 7, 8}, 7, 0.02);
  EXPECT_FALSE(w.steady);
  EXPECT_EQ(w.skipped, 1);
  EXPECT_DOUBLE_EQ(w.summary.median, 5);
}

TEST(FirstSteadyWindow, IsNotSteadyWithFewerValuesThanTheWindow) {
  const grader::SteadyWindow w = grader::first_steady_window({10, 10, 10}, 7, 0.02);
  EXPECT_FALSE(w.steady);
  EXPECT_EQ(w.summary.count, 3);
}

}  // namespace
