// Starting student code in a process of its own, the one way the grader does it (a lab's runner,
// lab 00's whole program): its own process group, so that a timeout ends everything it started;
// killed when the checker dies; only the descriptors it is given; no GRADER_* variable.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace grader::runner {

// The checker's environment less every GRADER_* variable (the seed, the results channel).
std::vector<std::string> runner_environment();

// A descriptor of the checker's that the child gets as `target`.
struct ChildDescriptor {
  int source;
  int target;
};

// Forks and, in the child, places each descriptor, closes every other one from 3 up and execs
// argv[0] (looked up on PATH) with runner_environment() and `more_environment` ("NAME=value"
// each, in place of the checker's). An exec that fails prints why on the
// child's stderr and exits 127. Returns the child's pid, or -1 (errno set) if fork failed.
pid_t start_child(const std::vector<std::string>& argv, const std::vector<ChildDescriptor>& descriptors,
                  const std::vector<std::string>& more_environment = {});

}  // namespace grader::runner
