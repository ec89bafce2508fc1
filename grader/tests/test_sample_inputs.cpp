#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/sample_inputs.hpp"

namespace {

TEST(SampleInputs, AreTheSameForTheSameSeedAndDifferForAnother) {
  EXPECT_EQ(grader::uniform_samples(1000, 1024, 7), grader::uniform_samples(1000, 1024, 7));
  EXPECT_NE(grader::uniform_samples(1000, 1024, 7), grader::uniform_samples(1000, 1024, 8));
}

TEST(SampleInputs, StayInRange) {
  for (int s : grader::uniform_samples(10000, 1024, 1)) ASSERT_TRUE(s >= 0 && s < 1024);
  for (int s : grader::normal_samples(10000, 1024, 1000, 200, 1)) ASSERT_TRUE(s >= 0 && s < 1024);
}

TEST(SampleInputs, NormalSamplesCentreOnTheMean) {
  const auto samples = grader::normal_samples(100000, 1024, 500, 30, 3);
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  EXPECT_NEAR(mean, 500, 1);
}

TEST(CpuHistogram, CountsEveryValueAndIgnoresOutOfRange) {
  const auto bins = grader::cpu_histogram({3, 9, 0, 5, 4, 4, 5, 0, 6, 0, 4, 4, -1, 10}, 10);
  EXPECT_EQ(bins, (std::vector<int>{3, 0, 0, 1, 4, 2, 1, 0, 0, 1}));
}

TEST(PythonList, PrintsLikePython) {
  EXPECT_EQ(grader::python_list({3, 0, 12}, 10), "[3, 0, 12]");
  EXPECT_EQ(grader::python_list({3, 0, 12}, 2), "[3, 0]");
  EXPECT_EQ(grader::python_list({}, 10), "[]");
}

}  // namespace
