// What the runner counts while student code runs, for the "work happens on the GPU" checks:
// kernels launched and bytes copied from device to host. On a GPU through CUPTI's
// activity records (runner_counters_cuda.cu), on the CPU backend through its own counters.
#pragma once
#include <cstdint>

namespace grader::remote {

// Sent instead of a count where the runner cannot count (no CUPTI): the check then fails, saying so.
constexpr std::uint64_t kUncounted = ~std::uint64_t{0};

struct Counters {
  std::uint64_t kernels = 0;
  std::uint64_t device_to_host_bytes = 0;
};

void start_counting();        // once, before the first call
Counters read_and_reset_counters();
// Off during timed rounds, so that recording what ran costs the measured kernels nothing.
void pause_counting(bool paused);

}  // namespace grader::remote
