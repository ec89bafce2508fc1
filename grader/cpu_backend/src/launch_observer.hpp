// A hook for tools that watch kernels run (the counting mode, counting/): told of every launch,
// block, block barrier and warp intrinsic. None is installed by default, and then each hook costs
// one load and a branch; an observer sees the launch and changes nothing in it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu_backend/launch.hpp"
#include "cpu_backend/synchronization.hpp"
#include "cpu_backend/vector_types.hpp"

namespace cpu_backend::detail {

class launch_observer {
public:
    virtual ~launch_observer() = default;
    // Before the first block of a launch whose configuration is valid.
    virtual void launch_begin(const launch_config& config, const kernel_site& site) = 0;
    // On the host thread that runs the block, before its first CUDA thread starts.
    virtual void block_begin(uint3 block, std::uint32_t threads, const void* dynamic_shared,
                             std::size_t dynamic_shared_bytes) = 0;
    // When every thread of the block has arrived at a __syncthreads() (once per barrier); `site`:
    // the return address of the last arriving thread's call (where the barrier is in its code).
    virtual void barrier_released(const void* site) = 0;
    // When the lanes of `mask` of a warp have all arrived in a _sync intrinsic (once per call).
    virtual void warp_synchronized(std::uint32_t warp, std::uint32_t mask, warp_op op) {
        (void)warp, (void)mask, (void)op;
    }
    // After the block's last thread ended (completed: no fault, no deadlock).
    virtual void block_end(bool completed) = 0;
    virtual void launch_end(bool faulted) = 0;
    // A lane's call of a warp intrinsic (a shuffle, a vote, __syncwarp), before it waits for the
    // warp; `pc`: where the kernel called it.
    virtual void warp_collective_called(warp_op op, const void* pc) { (void)op, (void)pc; }
};

// Installed before the first launch, never while one runs.
void set_launch_observer(launch_observer* observer);
launch_observer* installed_launch_observer();

}  // namespace cpu_backend::detail
