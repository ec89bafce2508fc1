#include "block_scheduler.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "cpu_backend/builtin_variables.hpp"
#include "launch_observer.hpp"

namespace cpu_backend::detail {
namespace {

CPU_BACKEND_TLS block_scheduler* running_scheduler = nullptr;

// Threads yield at roughly one atomic in this many (unless the seed is 0).
constexpr std::uint32_t atomic_yield_one_in = 8;

}  // namespace

block_scheduler* current_scheduler() { return running_scheduler; }

block_scheduler::block_scheduler(std::size_t stack_bytes) : stacks_(stack_bytes) {}

void block_scheduler::reset_for_block(grid_job& job, uint3 block_index, std::uint64_t block_linear_index) {
    job_ = &job;
    block_index_ = block_index;
    block_shape_ = job.block;
    one_dimensional_ = block_shape_.y == 1 && block_shape_.z == 1;
    thread_count_ = job.threads_per_block;
    exited_count_ = 0;
    barrier_arrived_ = 0;
    barrier_predicate_count_ = 0;
    barrier_result_ = 0;
    aborted_ = false;
    pending_release_ = nullptr;
    seed_ = job.seed;
    // The schedule depends only on the seed and the block, never on which
    // host thread runs the block or in which order blocks are run.
    random_.seed(seed_ ^ splitmix64(block_linear_index + 0x51ed2701ull));

    threads_.resize(thread_count_);
    for (cuda_thread& thread : threads_) {
        thread.stack = nullptr;
        thread.state = thread_state::not_started;
    }
    const std::uint32_t warp_count = (thread_count_ + 31) / 32;
    warps_.assign(warp_count, warp_status{});
    for (std::uint32_t w = 0; w < warp_count; ++w) {
        std::uint32_t lanes = std::min<std::uint32_t>(32, thread_count_ - w * 32);
        warps_[w].existing = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
        warps_[w].runnable = lanes;
    }

    ready_.reset(thread_count_);
    order_.resize(thread_count_);
    for (std::uint32_t t = 0; t < thread_count_; ++t) order_[t] = t;
    if (!in_order()) random_.shuffle(order_, thread_count_);
    for (std::uint32_t t = 0; t < thread_count_; ++t) ready_.push(order_[t]);
}

bool block_scheduler::run_block(grid_job& job, uint3 block_index, std::uint64_t block_linear_index) {
    reset_for_block(job, block_index, block_linear_index);
    running_scheduler = this;
    blockIdx = block_index;
    std::uint32_t first = 0;
    ready_.pop(first);
    start_or_resume(first, main_context_);
    // Back on the host thread's own stack: every thread has finished, no
    // thread can run any more, or the block faulted.
    release_pending_stack();
    running_scheduler = nullptr;
    if (!aborted_ && exited_count_ != thread_count_) {
        job.record_fault(cudaErrorLaunchFailure, describe_deadlock());
        aborted_ = true;
    }
    reclaim_stacks();
    return !aborted_;
}

void block_scheduler::start_or_resume(std::uint32_t next, fiber_context& save_into) {
    cuda_thread& thread = threads_[next];
    if (thread.state == thread_state::not_started && thread.stack == nullptr) {
        thread.stack = stacks_.acquire();
        if (thread.stack == nullptr) {
            const std::string message = describe_block() +
                                        ": could not map a fiber stack (fewer host threads, "
                                        "CUDA_CPU_BACKEND_THREADS, or a smaller CUDA_CPU_BACKEND_STACK_KB may help)";
            if (&save_into != &main_context_) fault(cudaErrorLaunchOutOfResources, message);
            job_->record_fault(cudaErrorLaunchOutOfResources, message);
            aborted_ = true;
            return;
        }
        fiber_prepare(thread.context, thread.stack->low, thread.stack->bytes, &block_scheduler::fiber_entry, this);
    }
    current_ = next;
    fiber_switch(save_into, thread.context);
}

void block_scheduler::fiber_entry(void* self) { static_cast<block_scheduler*>(self)->fiber_main(); }

void block_scheduler::fiber_main() {
    for (;;) {
        release_pending_stack();
        const std::uint32_t self = current_;
        run_thread(self);
        mark_blocked(self, thread_state::exited);
        warps_[self / 32].exited |= 1u << (self % 32);
        ++exited_count_;

        fiber_stack* stack = threads_[self].stack;
        threads_[self].stack = nullptr;
        std::uint32_t next = 0;
        if (ready_.pop(next)) {
            if (threads_[next].state == thread_state::not_started) {
                // Run the next thread on this stack, in this loop.
                threads_[next].stack = stack;
                current_ = next;
                continue;
            }
            pending_release_ = stack;
            current_ = next;
            fiber_switch(discarded_context_, threads_[next].context);
        } else {
            pending_release_ = stack;
            fiber_switch(discarded_context_, main_context_);
        }
        __builtin_unreachable();  // a finished fiber is never resumed
    }
}

void block_scheduler::run_thread(std::uint32_t thread) {
    threads_[thread].state = thread_state::runnable;
    set_thread_index(thread);
    // No exception may cross the fiber boundary: catch it here, leave the
    // handler, then fault.
    std::string escaped;
    try {
        job_->invocation.run(job_->invocation.payload);
    } catch (const std::exception& error) {
        escaped = std::string("a C++ exception escaped the kernel: ") + error.what();
    } catch (...) {
        escaped = "a C++ exception of unknown type escaped the kernel";
    }
    if (!escaped.empty()) fault(cudaErrorLaunchFailure, describe_thread(thread) + ": " + escaped);
}

void block_scheduler::set_thread_index(std::uint32_t thread) const {
    if (one_dimensional_) {
        threadIdx.x = thread;
        threadIdx.y = 0;
        threadIdx.z = 0;
        return;
    }
    threadIdx.x = thread % block_shape_.x;
    const std::uint32_t rest = thread / block_shape_.x;
    threadIdx.y = rest % block_shape_.y;
    threadIdx.z = rest / block_shape_.y;
}

void block_scheduler::switch_to_next() {
    const std::uint32_t self = current_;
    std::uint32_t next = 0;
    if (!ready_.pop(next)) {
        // Nothing can run: the host thread's context diagnoses the deadlock.
        fiber_switch(threads_[self].context, main_context_);
        __builtin_unreachable();
    }
    if (next == self) return;
    start_or_resume(next, threads_[self].context);
    // Resumed: whoever switched here set current_ to this thread.
    release_pending_stack();
    set_thread_index(self);
}

void block_scheduler::release_pending_stack() {
    if (pending_release_ != nullptr) {
        stacks_.release(pending_release_);
        pending_release_ = nullptr;
    }
}

void block_scheduler::reclaim_stacks() {
    for (cuda_thread& thread : threads_) {
        if (thread.stack != nullptr) {
            stacks_.release(thread.stack);
            thread.stack = nullptr;
        }
    }
}

void block_scheduler::mark_blocked(std::uint32_t thread, thread_state state) {
    threads_[thread].state = state;
    warp_status& warp = warps_[thread / 32];
    --warp.runnable;
    if (warp.runnable == 0 && warp.activemask_waiting != 0) resolve_activemask(thread / 32);
}

void block_scheduler::make_runnable(std::uint32_t thread) {
    threads_[thread].state = thread_state::runnable;
    ++warps_[thread / 32].runnable;
    ready_.push(thread);
}

int block_scheduler::barrier(int predicate, const void* site) {
    const std::uint32_t self = current_;
    barrier_site_ = site;
    ++barrier_arrived_;
    barrier_predicate_count_ += predicate != 0 ? 1 : 0;
    mark_blocked(self, thread_state::at_barrier);
    // Every thread of the block must arrive; one that exited never will, and
    // the deadlock diagnosis reports it.
    if (barrier_arrived_ == thread_count_) release_barrier();
    switch_to_next();
    // Stable until every thread has passed this barrier and reached the next.
    return barrier_result_;
}

void block_scheduler::release_barrier() {
    if (launch_observer* observer = installed_launch_observer()) observer->barrier_released(barrier_site_);
    barrier_result_ = static_cast<int>(barrier_predicate_count_);
    barrier_arrived_ = 0;
    barrier_predicate_count_ = 0;
    for (std::uint32_t t = 0; t < thread_count_; ++t) order_[t] = t;
    if (!in_order()) random_.shuffle(order_, thread_count_);
    for (std::uint32_t t = 0; t < thread_count_; ++t) make_runnable(order_[t]);
}

void block_scheduler::yield() {
    ready_.push(current_);  // stays runnable, goes to the back of the queue
    switch_to_next();
}

void block_scheduler::atomic_schedule_point() {
    if (!in_order() && random_.below(atomic_yield_one_in) == 0) yield();
}

void block_scheduler::fault(cudaError_t error, const std::string& message) {
    job_->record_fault(error, message);
    aborted_ = true;
    // Abandon this fiber (and the block's others); the host thread's
    // context reclaims their stacks. Nothing on them is unwound.
    fiber_switch(discarded_context_, main_context_);
    __builtin_unreachable();
}

}  // namespace cpu_backend::detail
