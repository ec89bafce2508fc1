#include "grader/core/watchdog.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace grader {
namespace {

constexpr double kDefaultSeconds = 30;

// Shared with the watching thread, and never freed: the thread outlives GoogleTest's listeners,
// which are deleted at exit.
struct WatchState {
  double limit = kDefaultSeconds;
  std::mutex mutex;
  std::condition_variable wake;
  std::string test;
  std::chrono::steady_clock::time_point deadline;
  bool armed = false;
};

// Never returns: it ends the whole program when a test overstays (a kernel in an endless loop
// cannot be interrupted any other way).
void watch(WatchState* state) {
  std::unique_lock<std::mutex> lock(state->mutex);
  for (;;) {
    if (!state->armed) {
      state->wake.wait(lock);
      continue;
    }
    if (state->wake.wait_until(lock, state->deadline) == std::cv_status::timeout && state->armed &&
        std::chrono::steady_clock::now() >= state->deadline) {
      const std::string advice = how_to_allow_more_time(state->limit);
      std::printf("\n[ watchdog ] %s still running after %g s: an endless loop, or a kernel far "
                  "too slow? The grader stopped the program%s%s.\n",
                  state->test.c_str(), state->limit + kWatchdogGraceSeconds,
                  advice.empty() ? "" : " ", advice.c_str());
      std::fflush(stdout);
      std::_Exit(kWatchdogExitStatus);
    }
  }
}

class Watchdog : public ::testing::EmptyTestEventListener {
 public:
  Watchdog() : state_(new WatchState) {
    state_->limit = test_timeout_seconds();
    if (state_->limit > 0) std::thread(watch, state_).detach();
  }

  void OnTestStart(const ::testing::TestInfo& info) override {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->test = std::string(info.test_suite_name()) + "." + info.name();
    state_->deadline = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(state_->limit + kWatchdogGraceSeconds));
    state_->armed = true;
    state_->wake.notify_all();
  }

  void OnTestEnd(const ::testing::TestInfo&) override {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->armed = false;
  }

 private:
  WatchState* state_;
};

}  // namespace

double test_timeout_seconds() {
  const char* text = std::getenv("GRADER_TEST_TIMEOUT");
  if (text == nullptr || *text == '\0') return kDefaultSeconds;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return (*end == '\0' && value >= 0) ? value : kDefaultSeconds;
}

std::string how_to_allow_more_time(double seconds) {
  char more[32];
  std::snprintf(more, sizeof more, "%g", seconds > 0 ? 2 * seconds : 60);
  const char* option = std::getenv("GRADER_TIMEOUT_OPTION");
  if (option == nullptr) {
    return std::string("(to allow more time: GRADER_TEST_TIMEOUT=") + more +
           " meson test ...; meson's own limit on the whole program: meson test "
           "--timeout-multiplier)";
  }
  if (*option == '\0') return "";
  return std::string("(to allow more time: ") + option + " " + more + ")";
}

::testing::TestEventListener* new_watchdog_listener() { return new Watchdog(); }

}  // namespace grader
