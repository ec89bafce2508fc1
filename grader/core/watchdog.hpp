// The per-test watchdog: a test still running after GRADER_TEST_TIMEOUT seconds (default 30; 0
// turns it off) ends the program with a message naming the test, instead of a silent wait for
// meson's limit. Exit status 124, as timeout(1) uses.
#pragma once
#include <gtest/gtest.h>

namespace grader {

constexpr int kWatchdogExitStatus = 124;

// A GoogleTest listener that arms the watchdog at each test's start and disarms it at its end.
::testing::TestEventListener* new_watchdog_listener();

}  // namespace grader
