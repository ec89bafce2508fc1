// CUDA error checks that name the call, the file and line, or the kernel that failed.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace grader {

// Thrown by every failed CUDA call the grader makes; the message is meant for the student.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  cudaError_t status() const { return status_; }

 private:
  cudaError_t status_;
};

// "invalid configuration argument (cudaErrorInvalidConfiguration)" plus a hint on where to look.
std::string describe_cuda_error(cudaError_t status);

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

// After a lab's launcher returns: was the launch refused, and did the kernel fault while running?
// `launch` describes what the grader asked for (e.g. "256 threads/block, 64 samples/thread").
// With Work::kOnGpu (a non-empty input) the launcher must also have launched a kernel and copied
// no more than kMaxDeviceToHostBytes to the host: the work happens on the GPU, in kernels.
enum class Work { kAny, kOnGpu };
constexpr unsigned long long kMaxDeviceToHostBytes = 64 << 10;
void check_kernel_ran(const std::string& kernel, const std::string& launch, Work work = Work::kAny);

}  // namespace grader

// A macro, not a function, so the message can quote the call and its file and line.
#define GRADER_CUDA_CHECK(call) ::grader::check_cuda((call), #call, __FILE__, __LINE__)
