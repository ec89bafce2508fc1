// The CPU backend's own controls, for tests and the grader. None of this
// exists on a GPU: guard uses with #ifdef CUDA_CPU_BACKEND.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cpu_backend {

// The seed of the schedule that orders the CUDA threads of a block between
// barriers (and decides where atomics yield). Seed 0 runs threads in index
// order without random yields. Default: CUDA_CPU_BACKEND_SEED, else 1.
void set_schedule_seed(std::uint64_t seed);
std::uint64_t schedule_seed();

// How many host threads run blocks. Default: CUDA_CPU_BACKEND_THREADS, else
// std::thread::hardware_concurrency(), at most 16.
void set_host_threads(unsigned count);
unsigned host_threads();

// The full message of the most recent fault (a divergent barrier, a warp
// intrinsic waiting for an exited lane, __trap(), an out-of-bounds write, an
// exception escaping a kernel); empty when there has been none since the
// process started or since cudaDeviceReset().
std::string last_fault_message();

// Memory that another process shares with this one (the grader's buffers, mapped from a memfd):
// device memory for copies and sets, without canaries of the backend's own.
void register_external_device_memory(void* base, std::size_t bytes);
void unregister_external_device_memory(void* base);

// Kernels launched and bytes copied device-to-host since the process started (the grader checks
// that a launcher does its work in kernels).
std::uint64_t kernels_launched();
std::uint64_t device_to_host_bytes();
std::uint64_t host_to_device_bytes();
// The first call of this process that made host memory visible to kernels (cudaHostAlloc,
// cudaMallocHost, cudaHostRegister, cudaHostGetDevicePointer, cudaMallocManaged), or nullptr.
// In a program that defines `extern "C" void cpu_backend_refuses_host_memory()` (the grader's
// runner) every such call returns cudaErrorNotPermitted, having done its work all the same (code
// that ignores the error runs on, to fail the call with the grader's reason, not a crash).
const char* host_memory_api();

// Whether the calling host thread is running device code: a CUDA thread of a kernel. The grader's
// runner counts what kernels print (device printf is the host's printf here).
bool in_kernel();

// "x86-64 assembly" or "ucontext".
const char* fiber_implementation();

}  // namespace cpu_backend
