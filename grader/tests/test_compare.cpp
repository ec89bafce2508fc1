#include <gtest/gtest.h>

#include "grader/core/compare.hpp"
#include "grader/core/patterns.hpp"

namespace {

const int kPoison = static_cast<int>(grader::kPoisonWord);

TEST(CompareExact, AcceptsIdenticalBins) {
  const auto c = grader::compare_exact<int>({1, 2, 3}, {1, 2, 3}, kPoison);
  EXPECT_TRUE(c.matches());
  EXPECT_EQ(c.expected_total, 6);
  EXPECT_EQ(c.describe("bin"), "all 3 bins match");
}

TEST(CompareExact, ReportsEachWrongBinWithIndexExpectedAndGot) {
  const auto c = grader::compare_exact<int>({5, 0, 7}, {5, 1, 6}, kPoison);
  ASSERT_FALSE(c.matches());
  EXPECT_EQ(c.wrong, 2u);
  const std::string text = c.describe("bin");
  EXPECT_NE(text.find("2 of 3 bins wrong; total 12, expected 12"), std::string::npos) << text;
  EXPECT_NE(text.find("bin 1: expected 0, got 1"), std::string::npos) << text;
  EXPECT_NE(text.find("bin 2: expected 7, got 6"), std::string::npos) << text;
}

TEST(CompareExact, NamesTheEntriesInThePlural) {
  const auto c = grader::compare_exact<int>({1, 2}, {1, 3}, kPoison);
  EXPECT_NE(c.describe("CDF entry").find("1 of 2 CDF entries wrong"), std::string::npos);
  EXPECT_NE(c.describe("gray level").find("1 of 2 gray levels wrong"), std::string::npos);
  EXPECT_NE(c.describe("key").find("1 of 2 keys wrong"), std::string::npos);
}

TEST(CompareExact, NamesPoisonedBinsAsNeverWritten) {
  const auto c = grader::compare_exact<int>({1, 2}, {1, kPoison}, kPoison);
  EXPECT_EQ(c.poisoned, 1u);
  EXPECT_NE(c.describe("bin").find("never written"), std::string::npos);
}

TEST(CompareExact, ShowsOnlyTheFirstFewMismatchesAndCountsTheRest) {
  std::vector<int> expected(100, 1), got(100, 0);
  const auto c = grader::compare_exact(expected, got, kPoison);
  EXPECT_EQ(c.first_wrong.size(), grader::kMismatchesShown);
  EXPECT_NE(c.describe("bin").find("and 92 more"), std::string::npos);
}

TEST(CompareExact, TreatsAShortResultAsWrong) {
  const auto c = grader::compare_exact<int>({1, 2, 3}, {1}, kPoison);
  EXPECT_EQ(c.wrong, 2u);
}

TEST(CompareExact, WorksForUnsignedLongLong) {
  const auto c = grader::compare_exact<unsigned long long>({1ull << 40}, {1ull << 40}, 0);
  EXPECT_TRUE(c.matches());
}

}  // namespace
