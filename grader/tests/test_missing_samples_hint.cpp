// grader/core/missing_samples_hint.cpp: a hint only where the bins prove the bug.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/missing_samples_hint.hpp"

namespace {

std::vector<int> counted(const std::vector<int>& samples, std::size_t first, std::size_t last, int bins) {
  return grader::cpu_histogram(std::vector<int>(samples.begin() + first, samples.begin() + last), bins);
}

std::vector<int> ramp(std::size_t n, int bins) {
  std::vector<int> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<int>((i * 7919) % bins);
  return s;
}

}  // namespace

TEST(MissingSamplesHint, NamesTheTailWhereOnlyTheTailFits) {
  const std::vector<int> s = ramp(1000, 16);
  const std::string hint = grader::missing_samples_hint(s, grader::cpu_histogram(s, 16), counted(s, 0, 990, 16));
  EXPECT_NE(hint.find("exactly the last 10 samples were not counted"), std::string::npos) << hint;
}

TEST(MissingSamplesHint, SaysTheLastSampleInTheSingular) {
  const std::vector<int> s = ramp(1000, 16);
  const std::string hint = grader::missing_samples_hint(s, grader::cpu_histogram(s, 16), counted(s, 0, 999, 16));
  EXPECT_NE(hint.find("exactly the last sample was not counted"), std::string::npos) << hint;
}

TEST(MissingSamplesHint, SaysNothingOfATailWhenEverySampleIsEqual) {
  // A race on all-equal input loses samples that look like any run of the input, the tail too.
  const std::vector<int> s(100000, 3);
  std::vector<int> got = grader::cpu_histogram(s, 16);
  got[3] -= 442312 % 100000;
  EXPECT_EQ(grader::missing_samples_hint(s, grader::cpu_histogram(s, 16), got), "");
}

TEST(MissingSamplesHint, NamesBinsNeverZeroed) {
  const std::vector<int> s = ramp(1000, 16);
  const std::vector<int> expected = grader::cpu_histogram(s, 16);
  std::vector<int> got = expected;
  for (int& b : got) b = static_cast<int>(static_cast<unsigned>(b) + 0xA5A5A5A5u);
  EXPECT_NE(grader::missing_samples_hint(s, expected, got).find("never zeroed"), std::string::npos);
}
