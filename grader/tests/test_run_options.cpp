#include <gtest/gtest.h>

#include <cstdlib>

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

TEST(RunOptions, TakesTheSameSettingsFromTheEnvironmentAndTheFlagWins) {
  setenv("GRADER_RUNNER", "/env/runner", 1);
  setenv("GRADER_DATA", "/env/d.bin", 1);
  char program[] = "lab", data[] = "--data=/flag/d.bin";
  char* argv[] = {program, data, nullptr};
  int argc = 2;
  grader::parse_run_options(argc, argv);
  unsetenv("GRADER_RUNNER");
  unsetenv("GRADER_DATA");
  EXPECT_EQ(argc, 1);
  EXPECT_EQ(grader::run_options().runner_path, "/env/runner");
  EXPECT_EQ(grader::run_options().data_path, "/flag/d.bin");
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
