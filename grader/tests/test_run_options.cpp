#include <gtest/gtest.h>

#include "grader/core/run_options.hpp"

namespace {

TEST(RunOptions, TakesTheGradersFlagsAndLeavesTheRest) {
  char program[] = "lab", data[] = "--data=/tmp/d.bin", seed[] = "--seed=42", keep[] = "positional";
  char* argv[] = {program, data, seed, keep, nullptr};
  int argc = 4;
  grader::parse_run_options(argc, argv);
  EXPECT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "positional");
  EXPECT_EQ(grader::run_options().data_path, "/tmp/d.bin");
  EXPECT_EQ(grader::run_options().seed, 42u);
}

TEST(RunOptions, RejectsAnUnknownFlagWithTheListOfKnownOnes) {
  char program[] = "lab", bad[] = "--sede=1";
  char* argv[] = {program, bad, nullptr};
  int argc = 2;
  try {
    grader::parse_run_options(argc, argv);
    FAIL() << "accepted --sede";
  } catch (const grader::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--seed="), std::string::npos);
  }
}

TEST(RunOptions, RejectsASeedThatIsNotANumber) {
  char program[] = "lab", bad[] = "--seed=abc";
  char* argv[] = {program, bad, nullptr};
  int argc = 2;
  EXPECT_THROW(grader::parse_run_options(argc, argv), grader::UsageError);
}

TEST(ScaledSize, KeepsSmallSizesUnchanged) {
  EXPECT_EQ(grader::scaled_size(1023), 1023u);
  EXPECT_EQ(grader::scaled_size(0), 0u);
}

}  // namespace
