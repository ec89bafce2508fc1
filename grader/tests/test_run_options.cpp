#include <gtest/gtest.h>

#include <cstdlib>

#include "grader/core/run_options.hpp"

namespace {

// One channel each: a checker reads the GRADER_* environment; a tool takes flags.
TEST(RunOptions, ACheckerReadsItsSettingsFromTheEnvironment) {
  setenv("GRADER_RUNNER", "/env/runner", 1);
  setenv("GRADER_DATA", "/env/d.bin", 1);
  setenv("GRADER_SEED", "42", 1);
  char program[] = "lab", positional[] = "positional";
  char* argv[] = {program, positional, nullptr};
  grader::read_checker_options(2, argv);
  unsetenv("GRADER_RUNNER");
  unsetenv("GRADER_DATA");
  unsetenv("GRADER_SEED");
  EXPECT_EQ(grader::run_options().runner_path, "/env/runner");
  EXPECT_EQ(grader::run_options().data_path, "/env/d.bin");
  EXPECT_EQ(grader::run_options().seed, 42u);
}

TEST(RunOptions, ACheckerRefusesFlagsAndNamesItsVariables) {
  char program[] = "lab", flag[] = "--data=/flag/d.bin";
  char* argv[] = {program, flag, nullptr};
  try {
    grader::read_checker_options(2, argv);
    FAIL() << "accepted --data= on a checker's command line";
  } catch (const grader::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("GRADER_DATA"), std::string::npos);
  }
}

TEST(RunOptions, AToolTakesItsFlagsAndLeavesTheRest) {
  char program[] = "lab", data[] = "--data=/tmp/d.bin", seed[] = "--seed=43", keep[] = "positional";
  char* argv[] = {program, data, seed, keep, nullptr};
  int argc = 4;
  grader::parse_tool_options(argc, argv);
  EXPECT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "positional");
  EXPECT_EQ(grader::run_options().data_path, "/tmp/d.bin");
  EXPECT_EQ(grader::run_options().seed, 43u);
}

TEST(RunOptions, AToolRejectsAnUnknownFlagWithTheListOfKnownOnes) {
  char program[] = "lab", bad[] = "--sede=1";
  char* argv[] = {program, bad, nullptr};
  int argc = 2;
  try {
    grader::parse_tool_options(argc, argv);
    FAIL() << "accepted --sede";
  } catch (const grader::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--seed="), std::string::npos);
  }
}

TEST(RunOptions, RejectsASeedThatIsNotANumber) {
  char program[] = "lab", bad[] = "--seed=abc";
  char* argv[] = {program, bad, nullptr};
  int argc = 2;
  EXPECT_THROW(grader::parse_tool_options(argc, argv), grader::UsageError);
}

TEST(ScaledSize, KeepsSmallSizesUnchanged) {
  EXPECT_EQ(grader::scaled_size(1023), 1023u);
  EXPECT_EQ(grader::scaled_size(0), 0u);
}

}  // namespace
