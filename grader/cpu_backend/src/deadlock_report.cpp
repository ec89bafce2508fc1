// Explains why a block can make no progress. On a GPU these programs hang or
// misbehave silently; here the first cause found is reported, most specific
// first, naming the threads involved.
#include <cstdio>

#include "block_scheduler.hpp"

namespace cpu_backend::detail {
namespace {

std::string triple(unsigned x, unsigned y, unsigned z) {
    char text[48];
    std::snprintf(text, sizeof text, "(%u,%u,%u)", x, y, z);
    return text;
}

std::string count_of(std::uint32_t count, const char* singular, const char* plural) {
    return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

}  // namespace

std::string block_scheduler::describe_block() const {
    return "block " + triple(block_index_.x, block_index_.y, block_index_.z);
}

std::string block_scheduler::describe_thread(std::uint32_t thread) const {
    if (block_shape_.y == 1 && block_shape_.z == 1) return "thread " + std::to_string(thread) + " of " + describe_block();
    const unsigned x = thread % block_shape_.x;
    const unsigned y = (thread / block_shape_.x) % block_shape_.y;
    const unsigned z = thread / (block_shape_.x * block_shape_.y);
    return "thread " + triple(x, y, z) + " of " + describe_block();
}

std::string block_scheduler::describe_deadlock() const {
    // 1. Lanes waiting in a warp intrinsic for a lane that has exited.
    for (std::uint32_t warp = 0; warp < warps_.size(); ++warp) {
        const warp_status& status = warps_[warp];
        for (std::uint32_t lanes = status.waiting; lanes != 0; lanes &= lanes - 1) {
            const cuda_thread& waiter = threads_[warp * 32 + static_cast<std::uint32_t>(__builtin_ctz(lanes))];
            const std::uint32_t gone = waiter.op_mask & status.exited;
            if (gone == 0) continue;
            const std::uint32_t exited_lane = static_cast<std::uint32_t>(__builtin_ctz(gone));
            std::uint32_t waiting_for_it = 0;
            for (std::uint32_t others = status.waiting; others != 0; others &= others - 1) {
                const std::uint32_t other = static_cast<std::uint32_t>(__builtin_ctz(others));
                if ((threads_[warp * 32 + other].op_mask >> exited_lane) & 1u) waiting_for_it |= 1u << other;
            }
            return describe_thread(warp * 32 + exited_lane) + " (warp " + std::to_string(warp) + ", lane " +
                   std::to_string(exited_lane) + ") exited while " +
                   count_of(static_cast<std::uint32_t>(__builtin_popcount(waiting_for_it)), "lane", "lanes") +
                   " of its warp (" + lane_list(waiting_for_it) + ") wait for it in " + warp_op_name(waiter.op) +
                   " with mask " + hex_mask(waiter.op_mask);
        }
    }
    // 2. A barrier that some thread will never reach because it exited.
    if (barrier_arrived_ > 0 && exited_count_ > 0) {
        std::uint32_t first_exited = 0;
        while (threads_[first_exited].state != thread_state::exited) ++first_exited;
        std::string message = describe_thread(first_exited) + " exited while " +
                              count_of(barrier_arrived_, "thread waits", "threads wait") + " at __syncthreads()";
        if (exited_count_ > 1)
            message += " (" + count_of(exited_count_, "thread", "threads") + " of the block exited without reaching it)";
        return message;
    }
    // 3. Lanes waiting in a warp intrinsic for lanes held at the barrier.
    for (std::uint32_t warp = 0; warp < warps_.size(); ++warp) {
        const warp_status& status = warps_[warp];
        if (status.waiting == 0) continue;
        const cuda_thread& waiter = threads_[warp * 32 + static_cast<std::uint32_t>(__builtin_ctz(status.waiting))];
        const std::uint32_t missing = waiter.op_mask & ~status.waiting;
        std::uint32_t at_barrier = 0;
        for (std::uint32_t lanes = missing; lanes != 0; lanes &= lanes - 1) {
            const std::uint32_t lane = static_cast<std::uint32_t>(__builtin_ctz(lanes));
            if (threads_[warp * 32 + lane].state == thread_state::at_barrier) at_barrier |= 1u << lane;
        }
        std::string message = "lanes " + lane_list(status.waiting) + " of warp " + std::to_string(warp) + " of " +
                              describe_block() + " wait in " + warp_op_name(waiter.op) + " with mask " +
                              hex_mask(waiter.op_mask) + " for lanes " + lane_list(missing);
        if (at_barrier != 0)
            message += ", while lanes " + lane_list(at_barrier) + " wait at __syncthreads()";
        else
            message += ", which wait in a different warp intrinsic";
        return message;
    }
    // 4. Anything else.
    return describe_block() + " cannot make progress: " +
           count_of(barrier_arrived_, "thread waits", "threads wait") + " at __syncthreads(), " +
           count_of(exited_count_, "thread has", "threads have") + " exited";
}

}  // namespace cpu_backend::detail
