// The counting mode's launch_observer: what the backend tells it of launches, blocks, barriers and
// warp intrinsics goes to the recorder (the counts) and to the race detector; and when it is
// installed.
#include "cpu_backend/control.hpp"
#include "launch_observer.hpp"
#include "recorder.hpp"

namespace cpu_backend::counting::detail {
namespace {

using cpu_backend::detail::warp_op;

class counting_observer final : public cpu_backend::detail::launch_observer {
public:
    void launch_begin(const cpu_backend::detail::launch_config& config,
                      const cpu_backend::detail::kernel_site& site) override {
        recorder_launch_begins(config, site);
        race::launch_begins(site.kernel_name, site.file, site.line, launch_label(), config.grid, config.block);
    }
    void block_begin(uint3 block, std::uint32_t threads, const void* dynamic_shared, std::size_t bytes) override {
        const auto [dynamic, tls] = recorder_block_begins(block, threads, dynamic_shared, bytes);
        race::block_begins(block, threads, dynamic, tls);
    }
    void barrier_released(const void* site) override {
        recorder_barrier_released();
        race::barrier_released(site);
    }
    void warp_synchronized(std::uint32_t warp, std::uint32_t mask, warp_op op) override {
        // Only __syncwarp() orders memory among its lanes; shuffles and votes exchange registers.
        if (op == warp_op::syncwarp) race::warp_synchronized(warp, mask);
    }
    void block_end(bool) override {
        recorder_block_ends();
        race::block_ends();
    }
    void launch_end(bool faulted) override {
        end_launch(faulted);
        race::launch_ends();
    }
    void warp_collective_called(warp_op op, const void* pc) override {
        if (op == warp_op::shfl_idx || op == warp_op::shfl_up || op == warp_op::shfl_down || op == warp_op::shfl_xor)
            recorder_shuffle_called(pc);
    }
};

counting_observer observer;

}  // namespace

// Counting mode runs blocks on one host thread: the counts then do not depend on timing (a CAS
// loop never retries because another block changed the word in between).
void install_observer() {
    cpu_backend::set_host_threads(1);
    cpu_backend::detail::set_launch_observer(&observer);
}

bool start_counting() {
    install_observer();
    counting_on = recording = true;
    return true;
}

}  // namespace cpu_backend::counting::detail

// A program that defines this (the grader's runner) starts with counting off, and turns it on
// with cpu_backend_counting_start() between launches (its evidence mode); a count program counts
// from the start. Either may turn the race detector on (races.hpp) at any time between launches.
extern "C" __attribute__((weak)) void cpu_backend_counting_starts_off();
extern "C" bool cpu_backend_counting_start() { return cpu_backend::counting::detail::start_counting(); }

namespace cpu_backend::counting::detail {
namespace {

const bool installed = [] {
    read_switches(cpu_backend_counting_starts_off == nullptr);
    if (recording) install_observer();
    return true;
}();

}  // namespace
}  // namespace cpu_backend::counting::detail
