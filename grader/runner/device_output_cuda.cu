// Device printf on a GPU (device_output.hpp): bounded, not counted (CUPTI has no record of it).
// The printf FIFO is set small before the first call and locked there by a launch of a kernel of
// the runner's own that can print: CUDA refuses to change cudaLimitPrintfFifoSize after a kernel
// that uses printf has run (cudaErrorInvalidValue), so no student code can raise it again. Code
// before main() cannot have set it first: CUDA used there already fails every call
// (counters_cuda.cu). Whatever graded kernels print, the host then gets at most the FIFO's bytes
// per launch or synchronization (the FIFO is circular: older output is overwritten).
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "grader/runner/device_output.hpp"

namespace grader::runner {
namespace {

std::string unbounded;  // why kernel output could not be bounded: every call fails

// Never prints (`print` is 0), but can: its launch locks the FIFO's size.
__global__ void lock_printf_fifo(int print) {
  if (print) printf("%d\n", print);
}

std::string bound() {
  cudaError_t status = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, kDevicePrintfFifoBytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("the grader could not set the size of the kernels' printf buffer (") +
           cudaGetErrorString(status) + "): a kernel that prints ran before the runner's main()?";
  }
  lock_printf_fifo<<<1, 1>>>(0);
  status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    return std::string("the grader's own kernel failed (") + cudaGetErrorString(status) + ")";
  }
  std::size_t size = 0;
  if (cudaDeviceGetLimit(&size, cudaLimitPrintfFifoSize) != cudaSuccess || size > kMaxDevicePrintfFifoBytes) {
    cudaGetLastError();
    return "this GPU keeps the kernels' printf buffer at " + std::to_string(size) + " bytes, more than "
           "the grader's " + std::to_string(kMaxDevicePrintfFifoBytes);
  }
  if (cudaDeviceSetLimit(cudaLimitPrintfFifoSize, size * 2) == cudaSuccess) {  // must be refused now
    cudaDeviceSetLimit(cudaLimitPrintfFifoSize, size);
    return "this GPU lets a program change the size of the kernels' printf buffer after a kernel printed";
  }
  cudaGetLastError();
  return "";
}

}  // namespace

void bound_device_output() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return;  // no GPU: every call says so already
  }
  unbounded = bound();
  if (!unbounded.empty()) std::fprintf(stderr, "[ runner   ] %s\n", unbounded.c_str());
}

std::string device_output_problem(std::size_t) {
  if (unbounded.empty()) return "";
  return unbounded + ": what a kernel prints reaches the host where no counter sees it, so the "
         "grader gives no point for a call it cannot bound (tell your instructor)";
}

}  // namespace grader::runner
