// The host threads that run blocks. The launching thread takes part too, so
// a pool for N host threads keeps N-1 helpers, started on first use and
// parked on a condition variable between launches.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace cpu_backend::detail {

class host_thread_pool {
public:
    static host_thread_pool& instance();

    // Runs work(argument) on `participants` host threads at once (the
    // caller and participants-1 helpers); returns when all have returned.
    void run(unsigned participants, void (*work)(void*), void* argument);

private:
    void helper_loop(unsigned index, std::uint64_t seen);

    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::vector<std::thread> helpers_;
    std::uint64_t generation_ = 0;
    unsigned wanted_ = 0;     // helpers taking part in the current generation
    unsigned remaining_ = 0;  // of those, how many have not finished
    void (*work_)(void*) = nullptr;
    void* argument_ = nullptr;
};

}  // namespace cpu_backend::detail
