// The report line of a counted program (program_report.hpp): read back exactly, and anything else
// (missing, cut short, a field twice or unknown, text for a number) is no report at all.
#include "grader/runner/program_report.hpp"

#include <gtest/gtest.h>

namespace {

using grader::runner::parse_program_report;

TEST(ProgramReport, ReadsEveryField) {
  const auto counts = parse_program_report(
      "kernels=2 h2d=4096 d2h=4100 kernel_ns=1500 longest_kernel_ns=1000 host_memory=cudaHostAlloc d2h_heads=none token=abc\n",
      "abc");
  ASSERT_TRUE(counts);
  EXPECT_EQ(2u, counts->kernels);
  EXPECT_EQ(4096u, counts->host_to_device_bytes);
  EXPECT_EQ(4100u, counts->device_to_host_bytes);
  EXPECT_EQ(1500u, counts->kernel_ns);
  EXPECT_EQ(1000u, counts->longest_kernel_ns);
  EXPECT_EQ("cudaHostAlloc", counts->host_memory);
  const auto clean =
      parse_program_report("kernels=0 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc\n", "abc");
  ASSERT_TRUE(clean);
  EXPECT_EQ("", clean->host_memory);
}

TEST(ProgramReport, ReadsTheFirstValuesOfEachCopyBack) {
  const auto counts = parse_program_report(
      "kernels=1 h2d=40 d2h=4100 kernel_ns=1 longest_kernel_ns=1 host_memory=none "
      "d2h_heads=1,2,3,4,5,6,7,8,9,10;0,0,0,0,0,0,0,0,0,-2147483648 token=abc\n", "abc");
  ASSERT_TRUE(counts);
  ASSERT_EQ(2u, counts->d2h_heads.size());
  EXPECT_EQ(10, counts->d2h_heads[0][9]);
  EXPECT_EQ(-2147483648LL, counts->d2h_heads[1][9]);
  const std::string line = "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=";
  for (const char* heads : {"1,2,3", "1,2,3,4,5,6,7,8,9,10;", "1,2,3,4,5,6,7,8,9,x", "--1,2,3,4,5,6,7,8,9,10",
                            "1,2,3,4,5,6,7,8,9,10;1,2,3,4,5,6,7,8,9,10;1,2,3,4,5,6,7,8,9,10;"
                            "1,2,3,4,5,6,7,8,9,10;1,2,3,4,5,6,7,8,9,10"}) {
    EXPECT_FALSE(parse_program_report(line + heads + " token=abc\n", "abc")) << heads;
  }
}

TEST(ProgramReport, RefusesAnythingElse) {
  const std::string good = "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc\n";
  ASSERT_TRUE(parse_program_report(good, "abc"));
  EXPECT_FALSE(parse_program_report(good, "abd"));  // another run's, or forged
  EXPECT_FALSE(parse_program_report(good, ""));
  for (const char* text : {"", "kernels=1 token=abc\n",
                           "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc",
                           "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc\nkernels=1\n",
                           "kernels=-1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc\n",
                           "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 kernels=5 token=abc\n",
                           "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc extra=1\n",
                           "kernels=1 h2d=0 d2h=x kernel_ns=0 longest_kernel_ns=0 host_memory=none d2h_heads=none token=abc\n",
                           "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none\n",
                           "kernels=1 h2d=0 d2h=0 kernel_ns=0 longest_kernel_ns=0 host_memory=none token=abc\n"}) {
    EXPECT_FALSE(parse_program_report(text, "abc")) << text;
  }
}

}  // namespace
