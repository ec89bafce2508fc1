// What the runner counts while student code runs, for the "work happens on the GPU" checks:
// kernels launched, bytes copied from device to host, host memory made visible to the GPU. On a
// GPU through CUPTI's activity records and API callbacks (counters_cuda.cu), on the CPU
// backend through its own counters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace grader::runner {

// Sent instead of a count where the runner cannot count (no CUPTI): the check then fails, saying so.
constexpr std::uint64_t kUncounted = ~std::uint64_t{0};

struct Counters {
  std::uint64_t kernels = 0;
  std::uint64_t device_to_host_bytes = 0;
  // The distinct kernels launched (their symbol names as CUPTI records them), at most
  // kMaxKernelNames: the technique checks earn points only for a kernel that ran (runs/scoring.py).
  // Empty where names are not recorded (the CPU backend, whose checks are not graded).
  std::vector<std::string> kernel_names;
};
constexpr std::size_t kMaxKernelNames = 8;
constexpr std::size_t kMaxKernelNameLength = 256;

void start_counting();        // once, before the first call
Counters read_and_reset_counters();
// What made host memory visible to the GPU in this runner, or "" where nothing did: the first
// call of the student's code (any thread, any time since the runner started) to cudaHostAlloc,
// cudaMallocHost, cudaHostRegister, cudaHostGetDevicePointer, cudaMallocManaged or their driver
// API twins; on a GPU also CUDA used before the runner's main() (a static initializer, where
// nothing can be counted). Sticky: the memory stays visible, so every later call fails too.
std::string host_memory_problem();
// The words every backend uses for it: "a graded launcher allocated host memory the GPU can read
// (cudaHostAlloc): ...".
inline std::string host_memory_message(const std::string& api) {
  return "a graded launcher allocated host memory the GPU can read (" + api + "): the work must stay "
         "on the GPU, in device memory from cudaMalloc (every later call of this runner fails too)";
}
// Off during timed rounds, so that recording what ran costs the measured kernels nothing.
void pause_counting(bool paused);

}  // namespace grader::runner
