// grader/remote/runner_table.hpp: a graded function a known-wrong file leaves out is a null weak
// reference in its runner's table (grader/tools/lab_calls.py); a call of it is refused, naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/remote/runner_table.hpp"

namespace {

int twice(int x) { return 2 * x; }

std::vector<char> encoded(int value) {
  grader::remote::Writer out;
  out.put(value);
  return out.bytes();
}

TEST(RunnerTable, CallsADefinedFunction) {
  const grader::remote::Exposed exposed = grader::remote::expose("twice", &twice);
  const std::vector<char> bytes = encoded(21);
  grader::remote::Reader in(bytes);
  std::vector<char> result;
  exposed.bind(in, {}, result)();
  ASSERT_EQ(result.size(), sizeof(int));
  EXPECT_EQ(*reinterpret_cast<const int*>(result.data()), 42);
}

TEST(RunnerTable, RefusesAFunctionTheFileDoesNotDefine) {
  int (*missing)(int) = nullptr;
  const grader::remote::Exposed exposed = grader::remote::expose("lab09::missing", missing);
  const std::vector<char> bytes = encoded(21);
  grader::remote::Reader in(bytes);
  std::vector<char> result;
  try {
    exposed.bind(in, {}, result);
    FAIL() << "bound a null function";
  } catch (const grader::remote::ProtocolError& error) {
    EXPECT_EQ(std::string(error.what()), "lab09::missing is not defined in this runner's file");
  }
}

}  // namespace
