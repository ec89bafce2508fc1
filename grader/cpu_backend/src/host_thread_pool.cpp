#include "host_thread_pool.hpp"

namespace cpu_backend::detail {

host_thread_pool& host_thread_pool::instance() {
    // Never destroyed: helpers stay parked until the process exits, and no
    // destructor has to race with a launch made during static destruction.
    static host_thread_pool* pool = new host_thread_pool;
    return *pool;
}

void host_thread_pool::run(unsigned participants, void (*work)(void*), void* argument) {
    const unsigned helpers = participants > 1 ? participants - 1 : 0;
    if (helpers > 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        while (helpers_.size() < helpers) {
            const auto index = static_cast<unsigned>(helpers_.size());
            // The helper must take part in the generation started below,
            // however late it first takes the lock.
            const std::uint64_t last_seen = generation_;
            helpers_.emplace_back([this, index, last_seen] { helper_loop(index, last_seen); });
        }
        work_ = work;
        argument_ = argument;
        wanted_ = helpers;
        remaining_ = helpers;
        ++generation_;
    }
    wake_.notify_all();
    work(argument);
    if (helpers > 0) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return remaining_ == 0; });
    }
}

void host_thread_pool::helper_loop(unsigned index, std::uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index >= wanted_) continue;
        auto* work = work_;
        void* argument = argument_;
        lock.unlock();
        work(argument);
        lock.lock();
        if (--remaining_ == 0) done_.notify_all();
    }
}

}  // namespace cpu_backend::detail
