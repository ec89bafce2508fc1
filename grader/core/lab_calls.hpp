// What each lab's call table labNN_calls.cu (written into the build folder by
// grader/core/lab_calls.py from the lab header's declarations) and the yardsticks'
// yardstick_calls.cu start with. Built into the runner (GRADER_RUNNER_SIDE) the file lists the
// functions by name with GRADER_RUNNER_TABLE; built into the checker it defines each function as a
// call_student() into the runner (grader/core/student_code.hpp).
#pragma once

#ifdef GRADER_RUNNER_SIDE
#include "grader/runner/table.hpp"

#define GRADER_RUNNER_TABLE(...)                                                  \
  const std::vector<grader::runner::Exposed>& grader::runner::exposed_functions() { \
    static const std::vector<Exposed> table{__VA_ARGS__};                           \
    return table;                                                                   \
  }
#else
#include "grader/core/student_code.hpp"
#endif
