// The private results channel between a lab's checker and the harness that runs it
// (grader/runs/harness.py: grade.py, grade_lab.py and the batch alike).
//
// When the harness starts a checker it sets GRADER_RESULTS_CHANNEL=KEY_FD,OUT_FD: a pipe
// holding a per-run key, and a pipe the harness reads. Each test's start and verdict then go to
// OUT_FD, every line prefixed with the key, so the harness believes only what the grader's own
// listener wrote: text the submission prints, and the exit status, earn nothing. Without the
// variable (a student's `meson test`) every function here does nothing.
//
// The batch's hidden seed travels in the key pipe too, so it is never in the program's environment
// or arguments (both readable under /proc), and the program does not print it.
//
// The submission's code never runs in this process: it runs in the runner (grader/runner), which
// gets neither the key nor the channel's descriptors, and cannot read this process's memory.
#pragma once
#include <cstdint>
#include <string>

#include "grader/core/results.hpp"

namespace grader::results_channel {

// The batch's hidden seed, when the harness sent one with the key (true) or not (false).
bool hidden_seed(std::uint64_t& seed);
// Sends the run's backend and device (once, when the results listener is made).
void hello(const RunContext& context);
void test_started(const std::string& name);
void test_finished(const TestRecord& record);

}  // namespace grader::results_channel
