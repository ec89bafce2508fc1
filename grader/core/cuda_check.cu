#include "grader/core/cuda_check.cuh"

#include <cstdio>
#include <sstream>

#include "grader/core/device.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/student_code.hpp"
#include "grader/runner/counters.hpp"

namespace grader {
namespace {

const char* hint_for(cudaError_t status) {
  switch (status) {
    case cudaErrorInvalidConfiguration:
      return "the launch configuration was refused: a block holds 1 to 1024 threads and a grid at "
             "least one block (check the grid size when n is small or 0)";
    case cudaErrorInvalidValue:
      return "an argument was out of range: on CUDA 13 also a refused launch shape (a block of more "
             "than 1024 threads, a grid of zero blocks, too much dynamic shared memory)";
    case cudaErrorIllegalAddress:
      return "a kernel read or wrote outside its buffers; `meson test --setup memcheck` shows where. "
             "This error is sticky: every later GPU call in this run fails too";
    case cudaErrorLaunchFailure:
      return "the kernel faulted while running (on the CPU backend: see the fault message above); "
             "this error is sticky";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "no usable CUDA device; configure with -Dkernel_backend=cpu to check correctness on the CPU";
    case cudaErrorNoKernelImageForDevice:
      return "the build has no code for this GPU: reconfigure with -Dgpu_archs=auto or your GPU's "
             "compute capability (e.g. -Dgpu_archs=86)";
    default:
      return nullptr;
  }
}

// A GPU with pageable memory access (HMM, or a coherent CPU-GPU link as on Grace Hopper) lets a
// kernel read and write the runner's ordinary host memory with no call the counters see: the work
// cannot be proven to stay on the GPU. Graded for credit (the batch: a hidden seed) that check
// fails closed; a student's own run says it once and goes on.
void refuse_pageable_memory_access(const std::string& kernel, const std::string& launch) {
  if (kCpuBackend || !device_status().available || !device_status().properties.pageableMemoryAccess) return;
  const std::string why =
      "this GPU lets kernels read and write ordinary host memory (cudaDevAttrPageableMemoryAccess = 1: "
      "HMM, or a coherent CPU-GPU link), so the grader cannot check that the work ran on the GPU";
  if (run_options().seed_hidden) {
    throw CudaError(cudaErrorNotSupported, kernel + " (" + launch + "): " + why + "; graded for credit "
                    "this check earns nothing here: grade on a GPU without it (an administrator can turn "
                    "HMM off: `options nvidia_uvm uvm_disable_hmm=1`)");
  }
  static bool said = false;
  if (!said) std::printf("[ note     ] %s; a batch run for credit on this machine would earn nothing\n", why.c_str());
  said = true;
}

}  // namespace

std::string describe_cuda_error(cudaError_t status) {
  std::ostringstream text;
  text << cudaGetErrorString(status) << " (" << cudaGetErrorName(status) << ")";
  if (const char* hint = hint_for(status)) text << ": " << hint;
  return text.str();
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::ostringstream text;
  text << "CUDA error in " << call << " at " << file << ":" << line << ": "
       << describe_cuda_error(status);
  throw CudaError(status, text.str());
}

void check_kernel_ran(const std::string& kernel, const std::string& launch, Work work) {
  const StudentCalls calls = take_student_calls();
  if (calls.any) {  // the student's code ran in the runner: what the runner saw
    const runner::CallReply& r = calls.reply;
    const cudaError_t status = static_cast<cudaError_t>(r.cuda_error);
    const std::string fault = r.text.empty() ? "" : "\n  " + r.text;
    if (r.outcome == runner::Outcome::kLaunchError) {
      throw CudaError(status, "launching " + kernel + " (" + launch + ") failed: " +
                                  describe_cuda_error(status) + fault);
    }
    if (r.outcome == runner::Outcome::kRunError) {
      throw CudaError(status, kernel + " (" + launch + ") failed while running: " +
                                  describe_cuda_error(status) + fault);
    }
    // Under a sanitizer (a wrapped runner) CUPTI cannot record: those runs repeat tests that
    // passed, with these checks, in a normal run; they judge hazards only.
    if (r.kernels == runner::kUncounted && !student_runner().options().wrapper.empty()) return;
    if (work == Work::kOnGpu && r.kernels == runner::kUncounted) {
      throw CudaError(cudaErrorNotSupported, kernel + " (" + launch + "): the grader cannot count "
                      "kernel launches on this machine (CUPTI did not load), so it cannot check "
                      "that the work ran on the GPU; this check earns nothing here");
    }
    if (work == Work::kOnGpu && r.device_to_host_bytes > kMaxDeviceToHostBytes) {
      throw CudaError(cudaErrorNotSupported,
                      kernel + " (" + launch + ") copied " + std::to_string(r.device_to_host_bytes) +
                          " bytes from the GPU to the host: the work must happen on the GPU, not "
                          "on copies of the data on the host");
    }
    if (work == Work::kOnGpu && r.kernels == 0) {
      throw CudaError(cudaErrorNotSupported, kernel + " (" + launch + ") launched no kernel: the "
                      "work must happen on the GPU, in a kernel the launcher starts");
    }
    if (work == Work::kOnGpu) refuse_pageable_memory_access(kernel, launch);
    return;
  }
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw CudaError(status, "launching " + kernel + " (" + launch + ") failed: " +
                                describe_cuda_error(status));
  }
  status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    throw CudaError(status, kernel + " (" + launch + ") failed while running: " +
                                describe_cuda_error(status));
  }
}

}  // namespace grader
