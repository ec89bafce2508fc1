// What kernels print (device printf): a path from the device to the host that no copy counter
// sees. A kernel can printf the samples, and host code that moves its standard output (dup2,
// freopen, setvbuf, a pipe) can read them back and count there. So what graded kernels print is
// counted and capped where it is made, before it reaches the host's descriptors and buffers:
// - CPU backend (device_output_cpu.cpp): device printf is the host's printf, wrapped at the
//   runner's link (-Wl,--wrap: printf, vprintf, puts, putchar and their _chk twins), so every call
//   from device code is counted with the bytes it formats, whatever host code does with stdout;
//   a call whose kernels printed more than the cap fails, saying so.
// - GPU (device_output_cuda.cu): CUPTI has no record of device printf. The runner bounds it: the
//   printf FIFO (cudaLimitPrintfFifoSize) is set to kDevicePrintfFifoBytes before any call, and
//   locked there by a launch of the runner's own kernel that can print (the limit cannot change
//   after one); whatever kernels print then, the host gets at most the FIFO's bytes per launch or
//   synchronization. Where the limit does not hold (code before main() launched a printing kernel
//   first, or this GPU lets it change), every call fails, saying so.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace grader::runner {

constexpr std::uint64_t kMaxDevicePrintfCalls = 64;    // per graded call (a round: each call's)
constexpr std::uint64_t kMaxDevicePrintfBytes = 1024;  // ... too few for the samples of a test
constexpr std::size_t kDevicePrintfFifoBytes = 4096;   // GPU: the printf FIFO, per launch
constexpr std::size_t kMaxDevicePrintfFifoBytes = 64 * 1024;  // where the driver rounds it up

// Before the first call (after the counters start: it uses CUDA on a GPU).
void bound_device_output();
// Why the call or round just run (`calls` calls) fails for what its kernels printed, or "" (also
// on a GPU: why no call can pass, the FIFO unbounded). Resets the count.
std::string device_output_problem(std::size_t calls);

}  // namespace grader::runner
