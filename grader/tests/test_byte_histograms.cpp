#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "grader/core/byte_inputs.hpp"
#include "grader/core/cpu_histograms.hpp"

namespace {

TEST(ByteInputs, AreTheSameForTheSameSeedAndDifferForAnother) {
  EXPECT_EQ(grader::random_bytes(1000, 7), grader::random_bytes(1000, 7));
  EXPECT_NE(grader::random_bytes(1000, 7), grader::random_bytes(1000, 8));
  EXPECT_EQ(grader::generated_text(1000, 7), grader::generated_text(1000, 7));
}

TEST(ByteInputs, RandomBytesCoverEveryValue) {
  const auto bins = grader::cpu_byte_histogram(grader::random_bytes(100000, 1));
  EXPECT_EQ(std::count(bins.begin(), bins.end(), 0u), 0);
}

TEST(ByteInputs, GeneratedTextHasTheRequestedSizeAndEveryTrap) {
  const auto text = grader::generated_text(20000, 3);
  ASSERT_EQ(text.size(), 20000u);
  for (unsigned char wanted : {'a', 'z', 'y', 'A', 'Z', '0', '`', '{', '\n'}) {
    EXPECT_NE(std::find(text.begin(), text.end(), wanted), text.end()) << "no '" << wanted << "'";
  }
  EXPECT_TRUE(std::any_of(text.begin(), text.end(), [](unsigned char c) { return c >= 128; }));
}

TEST(ByteInputs, ReadTextFilesConcatenatesInNameOrder) {
  const auto folder = std::filesystem::temp_directory_path() / "grader_byte_inputs_test";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "b.md") << "second";
  std::ofstream(folder / "a.md") << "first ";
  std::ofstream(folder / "c.txt") << "ignored";
  const auto bytes = grader::read_text_files(folder.string(), ".md");
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "first second");
  EXPECT_THROW(grader::read_text_files(folder.string(), ".none"), std::runtime_error);
  std::filesystem::remove_all(folder);
}

TEST(CpuHistograms, CountValuesAndIgnoreTooLargeOnes) {
  EXPECT_EQ(grader::cpu_value_histogram({0, 3, 3, 4095, 4096, 9999}, 4096)[3], 2u);
  EXPECT_EQ(grader::cpu_value_histogram({0, 3, 3, 4095, 4096, 9999}, 4096)[4095], 1u);
}

TEST(CpuHistograms, GroupLowerCaseLettersByFour) {
  const std::string text = "abcd efgh yz Z A ` { 0 \xC3\xA9 y";
  const auto bins = grader::cpu_letter_histogram({text.begin(), text.end()}, 4);
  EXPECT_EQ(bins, (std::vector<unsigned int>{4, 4, 0, 0, 0, 0, 3}));
}

TEST(CpuHistograms, SaturateCapsAtTheCapAndKeepsSmallerCounts) {
  EXPECT_EQ(grader::cpu_saturate({0, 126, 127, 128, 4000000000u}, 127),
            (std::vector<unsigned int>{0, 126, 127, 127, 127}));
}

}  // namespace
