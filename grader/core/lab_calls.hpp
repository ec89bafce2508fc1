// What each labs/NN/labNN_calls.cu (and the yardsticks' yardstick_calls.cu) starts with. Built into the lab's runner (GRADER_RUNNER_SIDE)
// the file lists the student's functions by name with GRADER_RUNNER_TABLE; built into the checker
// it defines each function as a call_student() into the runner (grader/core/student_code.hpp).
#pragma once

#ifdef GRADER_RUNNER_SIDE
#include "grader/remote/runner_table.hpp"

#define GRADER_RUNNER_TABLE(...)                                                  \
  const std::vector<grader::remote::Exposed>& grader::remote::exposed_functions() { \
    static const std::vector<Exposed> table{__VA_ARGS__};                           \
    return table;                                                                   \
  }
#else
#include "grader/core/student_code.hpp"
#endif
