#include <gtest/gtest.h>

#include "grader/core/source_rules.hpp"

namespace {

using grader::forbidden_library_uses;

TEST(StripCommentsAndStrings, RemovesCommentsAndKeepsLineNumbers) {
  EXPECT_EQ(grader::strip_comments_and_strings("a // b\nc /* d\ne */ f\n"), "a \nc  \n f\n");
}

TEST(StripCommentsAndStrings, BlanksStringAndCharacterLiterals) {
  EXPECT_EQ(grader::strip_comments_and_strings("s = \"cub::x \\\" //\"; c = '\\'';"), "s = \"\"; c = '';");
}

TEST(ForbiddenLibraryUses, FindsCubAndThrustCallsWithTheirLines) {
  const auto uses = forbidden_library_uses("int x;\ncub::DeviceScan::InclusiveSum(a);\n"
                                           "::thrust::inclusive_scan(b);\n");
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[0], "line 2: cub::DeviceScan");
  EXPECT_EQ(uses[1], "line 3: thrust::inclusive_scan");
}

TEST(ForbiddenLibraryUses, FindsIncludesOfEitherLibrary) {
  const auto uses = forbidden_library_uses("#include <cub/cub.cuh>\n#  include \"thrust/scan.h\"\n");
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[0], "line 1: #include <cub/cub.cuh>");
  EXPECT_EQ(uses[1], "line 2: #include <thrust/scan.h>");
}

TEST(ForbiddenLibraryUses, IgnoresCommentsStringsAndOtherNamespaces) {
  EXPECT_TRUE(forbidden_library_uses("// cub::DeviceScan would be faster\n"
                                     "/* #include <cub/cub.cuh>\n thrust::sort */\n"
                                     "const char* s = \"thrust::\";\n"
                                     "my_cub::scan(); cuda::std::min(1, 2); int cub = 1;\n")
                  .empty());
}

TEST(ReadTextFile, NamesTheFileItCannotRead) {
  EXPECT_THROW(
      {
        try {
          grader::read_text_file("/no/such/file.cu");
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("/no/such/file.cu"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
