// The out-of-line functions that device code calls: each forwards to the
// scheduler of the block running on this host thread.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "block_scheduler.hpp"
#include "launch_observer.hpp"
#include "cpu_backend/control.hpp"
#include "cpu_backend/builtin_variables.hpp"
#include "cpu_backend/device_intrinsics.hpp"
#include "cpu_backend/synchronization.hpp"

CPU_BACKEND_TLS uint3 threadIdx;
CPU_BACKEND_TLS uint3 blockIdx;
CPU_BACKEND_TLS dim3 blockDim;
CPU_BACKEND_TLS dim3 gridDim;

namespace cpu_backend::detail {
namespace {

// Device-only functions called from host code are a programming error that
// nvcc rejects at compile time; here it can only be caught at run time.
block_scheduler& require_scheduler(const char* function) {
    block_scheduler* scheduler = current_scheduler();
    if (scheduler == nullptr) {
        std::fprintf(stderr, "cuda-cpu-backend: %s was called outside a kernel\n", function);
        std::abort();
    }
    return *scheduler;
}

}  // namespace

__attribute__((noinline)) int block_barrier(int predicate) {
    return require_scheduler("__syncthreads()").barrier(predicate, __builtin_return_address(0));
}

__attribute__((noinline)) std::uint64_t warp_collective(warp_op op, unsigned mask, std::uint64_t value, int parameter,
                                                        int width) {
    block_scheduler& scheduler = require_scheduler(warp_op_name(op));
    if (launch_observer* observer = installed_launch_observer())
        observer->warp_collective_called(op, __builtin_return_address(0));
    return scheduler.warp_collective(op, mask, value, parameter, width);
}

void atomic_schedule_point() {
    if (block_scheduler* scheduler = current_scheduler()) scheduler->atomic_schedule_point();
}

void atomic_compare_failed() {
    // The value may be held by another CUDA thread of this block (a spin
    // lock): let it run.
    if (block_scheduler* scheduler = current_scheduler()) scheduler->yield();
}

void device_trap() {
    block_scheduler& scheduler = require_scheduler("__trap()");
    scheduler.fault(cudaErrorLaunchFailure, scheduler.describe_thread(scheduler.current_thread()) + " executed __trap()");
}

void device_nanosleep(unsigned nanoseconds) {
    (void)nanoseconds;
    if (block_scheduler* scheduler = current_scheduler()) scheduler->yield();
}

long long device_clock64() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace cpu_backend::detail

bool cpu_backend::in_kernel() { return cpu_backend::detail::current_scheduler() != nullptr; }

__attribute__((noinline)) unsigned __activemask() {
    // The return address identifies the call site: lanes are "active
    // together" when they wait at the same one.
    return cpu_backend::detail::require_scheduler("__activemask()").activemask(__builtin_return_address(0));
}
