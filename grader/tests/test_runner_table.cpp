// grader/runner/table.hpp: a graded function a known-wrong file leaves out is a null weak
// reference in its runner's table (grader/core/lab_calls.py); a call of it is refused, naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/runner/table.hpp"

namespace {

int twice(int x) { return 2 * x; }

std::vector<char> encoded(int value) {
  grader::runner::Writer out;
  out.put(value);
  return out.bytes();
}

TEST(RunnerTable, CallsADefinedFunction) {
  const grader::runner::Exposed exposed = grader::runner::expose("twice", &twice);
  const std::vector<char> bytes = encoded(21);
  grader::runner::Reader in(bytes);
  std::vector<char> result;
  exposed.bind(in, {}, result)();
  ASSERT_EQ(result.size(), sizeof(int));
  EXPECT_EQ(*reinterpret_cast<const int*>(result.data()), 42);
}

TEST(RunnerTable, RefusesAFunctionTheFileDoesNotDefine) {
  int (*missing)(int) = nullptr;
  const grader::runner::Exposed exposed = grader::runner::expose("lab09::missing", missing);
  const std::vector<char> bytes = encoded(21);
  grader::runner::Reader in(bytes);
  std::vector<char> result;
  try {
    exposed.bind(in, {}, result);
    FAIL() << "bound a null function";
  } catch (const grader::runner::ProtocolError& error) {
    EXPECT_EQ(std::string(error.what()), "lab09::missing is not defined in this runner's file");
  }
}

}  // namespace
