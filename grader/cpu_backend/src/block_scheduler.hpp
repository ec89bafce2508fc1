// Runs the CUDA threads of one block as fibers on the calling host thread.
//
// Threads run until they block (at __syncthreads(), in a warp intrinsic,
// in __activemask()) or finish; then the next runnable thread runs. The
// order in which runnable threads are resumed after each barrier is a
// seeded shuffle, so races between threads that a barrier should have
// ordered show up as wrong results, reproducibly for a given seed.
//
// A thread that finishes hands its stack to the next thread that has not
// started yet and runs it in the same loop, without a switch: a block that
// never blocks costs one fiber, not one per thread.
//
// When no thread can run but some have not finished, the block is
// deadlocked (a barrier or warp intrinsic that can never complete on a GPU
// either); the scheduler then explains why instead of hanging.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_backend/synchronization.hpp"
#include "fiber.hpp"
#include "fiber_stack_pool.hpp"
#include "grid_job.hpp"
#include "schedule_random.hpp"

namespace cpu_backend::detail {

enum class thread_state : std::uint8_t { not_started, runnable, at_barrier, at_warp_op, at_activemask, exited };

struct cuda_thread {
    fiber_context context{};
    fiber_stack* stack = nullptr;
    thread_state state = thread_state::not_started;
    // The warp intrinsic this thread waits in (valid while state is at_warp_op).
    warp_op op = warp_op::syncwarp;
    std::uint32_t op_mask = 0;
    std::int32_t op_parameter = 0;
    std::int32_t op_width = 32;
    std::uint64_t op_value = 0;
    std::uint64_t op_result = 0;
    const void* activemask_site = nullptr;
};

struct warp_status {
    std::uint32_t existing = 0;            // lanes that exist in this block
    std::uint32_t exited = 0;
    std::uint32_t waiting = 0;             // lanes waiting in a warp intrinsic
    std::uint32_t activemask_waiting = 0;  // lanes waiting in __activemask()
    std::uint32_t runnable = 0;            // number of lanes not started or runnable
};

// FIFO of runnable threads. A thread is queued at most once at a time, so a
// ring as large as the block never overflows.
class ready_queue {
public:
    void reset(std::uint32_t capacity) {
        items_.resize(capacity);
        capacity_ = capacity;
        head_ = tail_ = size_ = 0;
    }
    void push(std::uint32_t thread) {
        items_[tail_] = thread;
        tail_ = tail_ + 1 == capacity_ ? 0 : tail_ + 1;
        ++size_;
    }
    bool pop(std::uint32_t& thread) {
        if (size_ == 0) return false;
        thread = items_[head_];
        head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
        --size_;
        return true;
    }

private:
    std::vector<std::uint32_t> items_;
    std::uint32_t capacity_ = 0, head_ = 0, tail_ = 0, size_ = 0;
};

class block_scheduler {
public:
    explicit block_scheduler(std::size_t stack_bytes);

    // Runs every CUDA thread of one block. Returns false when the block
    // faulted; the fault is then recorded in `job`.
    bool run_block(grid_job& job, uint3 block_index, std::uint64_t block_linear_index);

    // ---- device-side operations, called on a fiber of the running block ----
    // `site`: where the calling thread waits (its call's return address).
    int barrier(int predicate, const void* site = nullptr);
    std::uint64_t warp_collective(warp_op op, std::uint32_t mask, std::uint64_t value, int parameter, int width);
    std::uint32_t activemask(const void* call_site);
    void atomic_schedule_point();
    void yield();
    // Ends the block (and, through the job, the launch) with a fault.
    [[noreturn]] void fault(cudaError_t error, const std::string& message);

    std::uint32_t current_thread() const { return current_; }
    // "thread 5 of block (0,0,0)", or "thread (1,2,0) of block (3,0,0)" for
    // 2-D and 3-D blocks.
    std::string describe_thread(std::uint32_t thread) const;
    std::string describe_block() const;

private:
    static void fiber_entry(void* self);
    [[noreturn]] void fiber_main();
    void run_thread(std::uint32_t thread);
    void reset_for_block(grid_job& job, uint3 block_index, std::uint64_t block_linear_index);
    void start_or_resume(std::uint32_t next, fiber_context& save_into);
    void switch_to_next();
    void set_thread_index(std::uint32_t thread) const;
    void mark_blocked(std::uint32_t thread, thread_state state);
    void make_runnable(std::uint32_t thread);
    void release_pending_stack();
    void release_barrier();
    void complete_warp_collective(std::uint32_t warp, std::uint32_t mask);
    void check_warp_agreement(std::uint32_t self, std::uint32_t warp);
    void resolve_activemask(std::uint32_t warp);
    void reclaim_stacks();
    std::string describe_deadlock() const;
    bool in_order() const { return seed_ == 0; }

    fiber_stack_pool stacks_;
    fiber_context main_context_{};
    fiber_context discarded_context_{};  // where a finished fiber "saves" itself
    fiber_stack* pending_release_ = nullptr;

    grid_job* job_ = nullptr;
    uint3 block_index_{};
    dim3 block_shape_;
    bool one_dimensional_ = true;
    std::uint32_t thread_count_ = 0;
    std::uint32_t current_ = 0;
    std::uint32_t exited_count_ = 0;
    std::uint32_t barrier_arrived_ = 0;
    std::uint32_t barrier_predicate_count_ = 0;
    const void* barrier_site_ = nullptr;  // the last arriving thread's
    int barrier_result_ = 0;
    bool aborted_ = false;
    std::uint64_t seed_ = 0;
    schedule_random random_;
    std::vector<cuda_thread> threads_;
    std::vector<warp_status> warps_;
    std::vector<std::uint32_t> order_;
    ready_queue ready_;
};

// The scheduler running a block on this host thread; nullptr outside kernels.
block_scheduler* current_scheduler();

// Human-readable names used in fault messages.
const char* warp_op_name(warp_op op);
std::string hex_mask(std::uint32_t mask);
std::string lane_list(std::uint32_t lanes);

}  // namespace cpu_backend::detail
