#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "grader/core/samples_file.hpp"

namespace {

std::string write_file(const std::string& name, const std::vector<unsigned char>& bytes) {
  const std::string path = ::testing::TempDir() + "samples_file_test_" + name + ".bin";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

std::string error_of(const std::string& path, int num_bins) {
  try {
    grader::load_samples_file(path, num_bins);
  } catch (const grader::DataError& error) {
    return error.what();
  }
  return "";
}

TEST(SamplesFile, ReadsLittleEndianInt32) {
  const auto path = write_file("ok", {1, 0, 0, 0, 0xff, 0x03, 0, 0});
  EXPECT_EQ(grader::load_samples_file(path, 1024), (std::vector<int>{1, 1023}));
}

TEST(SamplesFile, ReadsAtMostTheCountAsked) {
  const auto path = write_file("prefix", {1, 0, 0, 0, 2, 0, 0, 0});
  EXPECT_EQ(grader::load_samples_file(path, 1024, 1), (std::vector<int>{1}));
}

TEST(SamplesFile, SaysAMissingFileIsMissingAndHowToMakeIt) {
  const std::string message = error_of("no/such/data.bin", 1024);
  EXPECT_NE(message.find("not found"), std::string::npos) << message;
  EXPECT_NE(message.find("data/generate.py"), std::string::npos) << message;
}

TEST(SamplesFile, SaysATruncatedFileIsTruncated) {
  const std::string message = error_of(write_file("truncated", {1, 0, 0, 0, 7, 0}), 1024);
  EXPECT_NE(message.find("6 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST(SamplesFile, NamesTheFirstOutOfRangeSample) {
  const std::string message = error_of(write_file("range", {5, 0, 0, 0, 0, 4, 0, 0}), 1024);
  EXPECT_NE(message.find("sample 1 is 1024"), std::string::npos) << message;
}

TEST(SamplesFile, RejectsNegativeSamples) {
  const std::string message = error_of(write_file("negative", {0xff, 0xff, 0xff, 0xff}), 1024);
  EXPECT_NE(message.find("sample 0 is -1"), std::string::npos) << message;
}

TEST(SamplesFile, AcceptsAnEmptyFile) {
  EXPECT_TRUE(grader::load_samples_file(write_file("empty", {}), 1024).empty());
}

}  // namespace
