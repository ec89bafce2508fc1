// The per-test watchdog: a test still running a little after GRADER_TEST_TIMEOUT seconds (default
// 30; 0 turns it off) ends the program with a message naming the test, instead of a silent wait
// for meson's limit. Exit status 124, as timeout(1) uses. Each call into the student's code has
// the same limit (grader/core/student_code.cu), and ends first, with the clearer message.
#pragma once
#include <gtest/gtest.h>

#include <string>

namespace grader {

constexpr int kWatchdogExitStatus = 124;
// How long after the limit the watchdog ends the program: the call that hung gives its message
// first (the harness, grader/runs/harness.py, kills the program later still).
constexpr double kWatchdogGraceSeconds = 5;

// GRADER_TEST_TIMEOUT: the seconds a test, and each call into the student's code, may run (0 = no
// limit; unset or unreadable = 30).
double test_timeout_seconds();

// How to give a test more time, in the words of what started the program: GRADER_TIMEOUT_OPTION
// names the harness's option (grade.py sets "grade.py --timeout"); set but empty, nothing to say
// (the batch: the instructor's limit); unset, meson test ran it. "(to allow more time: ...)".
std::string how_to_allow_more_time(double seconds);

// A GoogleTest listener that arms the watchdog at each test's start and disarms it at its end.
::testing::TestEventListener* new_watchdog_listener();

}  // namespace grader
