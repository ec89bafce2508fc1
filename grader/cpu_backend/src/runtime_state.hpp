// Process-wide state of the CPU backend: settings read from the environment,
// CUDA's two-level error state (a per-host-thread "last error" and a sticky
// error that a fault sets until cudaDeviceReset), and the fault message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cpu_backend/runtime_types.hpp"

namespace cpu_backend::detail {

// ---- settings ----
std::uint64_t settings_seed();
unsigned settings_host_threads();
// cudaDeviceProp::multiProcessorCount: CUDA_CPU_BACKEND_SM_COUNT, else the host threads. The counting
// mode sets it to a GPU's count, so a kernel that sizes its grid by it launches the GPU's grid.
unsigned settings_multiprocessors();
std::size_t settings_fiber_stack_bytes();

// ---- errors ----
// Records `error` as the calling host thread's last error and returns it.
cudaError_t record_error(cudaError_t error);
cudaError_t sticky_error();
// Returns the sticky error (also recording it as the last error), or
// cudaSuccess. API calls that need a working device start with this.
cudaError_t sticky_error_check();
// A fault: sets the sticky error (the first one stays until reset), keeps
// the message for cpu_backend::last_fault_message() and prints it to stderr.
void report_fault(cudaError_t error, const std::string& message);
// What cudaDeviceReset clears.
void reset_error_state();
// cudaGetLastError / cudaPeekAtLastError.
cudaError_t take_last_error();
cudaError_t peek_last_error();

// ---- counters (cpu_backend::kernels_launched(), device_to_host_bytes()) ----
void count_kernel_launch();
void count_device_to_host_bytes(std::size_t bytes);
// host_work.cpp: bytes copied to the device, each kernel's run time, and the check of every call
// that makes host memory visible to kernels: records the first, and returns cudaSuccess, or in a
// graded runner cudaErrorNotPermitted (not recorded: the caller returns it once it is done).
void count_host_to_device_bytes(std::size_t bytes);
void count_kernel_time(std::uint64_t nanoseconds);
cudaError_t host_visible_memory(const char* api);
// The first int32 values a device-to-host copy brought back (`host`, `bytes`, after the copy), for
// a whole program's report: lab 00 compares the bins it printed with the bins it copied back.
void note_device_to_host_copy(const void* host, std::size_t bytes);

}  // namespace cpu_backend::detail
