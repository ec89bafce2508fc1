// A kernel launch: check the configuration as a GPU would, run the blocks
// on the host threads, then turn any fault into CUDA's sticky error.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "block_scheduler.hpp"
#include "cpu_backend/builtin_variables.hpp"
#include "cpu_backend/launch.hpp"
#include "device_limits.hpp"
#include "function_attributes.hpp"
#include "grid_job.hpp"
#include "host_thread_pool.hpp"
#include "launch_observer.hpp"
#include "memory_registry.hpp"
#include "runtime_state.hpp"

namespace cpu_backend::detail {
namespace {

// What a launch with an impossible shape (a zero or oversized grid or block)
// returns. Measured with CUDA 13.0 (driver 580) on an H200: such launches,
// and launches asking for more dynamic shared memory than allowed, fail
// with cudaErrorInvalidValue ("invalid argument"). Older CUDA versions
// returned cudaErrorInvalidConfiguration for the shape errors.
constexpr cudaError_t invalid_launch_configuration_error = cudaErrorInvalidValue;

constexpr std::size_t shared_canary_bytes = 256;

// The counting mode's hooks (launch_observer.hpp); none by default.
launch_observer* observer_installed = nullptr;
constexpr unsigned char shared_canary_value = 0x5a;

// What each host thread keeps between blocks and launches.
struct worker_resources {
    block_scheduler scheduler{settings_fiber_stack_bytes()};
};

worker_resources& this_thread_worker() {
    thread_local worker_resources worker;
    return worker;
}

// One buffer per host thread, at a fixed address for the thread's lifetime,
// so that `extern __shared__` pointers (static thread_local, see
// transform_launches.py) initialised once per host thread stay valid.
unsigned char* this_thread_shared_memory() {
    struct buffer_deleter {
        void operator()(unsigned char* p) const { std::free(p); }
    };
    thread_local std::unique_ptr<unsigned char, buffer_deleter> buffer(static_cast<unsigned char*>(
        std::aligned_alloc(256, limits::shared_memory_per_block_optin + shared_canary_bytes)));
    return buffer.get();
}

uint3 block_index_of(std::uint64_t linear, dim3 grid) {
    uint3 index;
    index.x = static_cast<unsigned>(linear % grid.x);
    const std::uint64_t rest = linear / grid.x;
    index.y = static_cast<unsigned>(rest % grid.y);
    index.z = static_cast<unsigned>(rest / grid.y);
    return index;
}

// Dynamic shared memory starts every block filled with 0xff (it is not
// zeroed on a GPU either) and is followed by a canary checked after the block.
std::string check_shared_canary(const unsigned char* shared, std::size_t bytes, uint3 block) {
    const unsigned char* canary = shared + bytes;
    for (std::size_t i = 0; i < shared_canary_bytes; ++i) {
        if (canary[i] == shared_canary_value) continue;
        return "block (" + std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z) +
               ") wrote past the end of its " + std::to_string(bytes) +
               " bytes of dynamic shared memory (byte offset " + std::to_string(bytes + i) + ")";
    }
    return {};
}

void run_blocks(void* argument) {
    grid_job& job = *static_cast<grid_job*>(argument);
    block_scheduler& scheduler = this_thread_worker().scheduler;
    unsigned char* shared = this_thread_shared_memory();
    blockDim = job.block;
    gridDim = job.grid;
    for (;;) {
        if (job.faulted.load(std::memory_order_relaxed)) return;
        const std::uint64_t linear = job.next_block.fetch_add(1, std::memory_order_relaxed);
        if (linear >= job.block_count) return;
        const uint3 index = block_index_of(linear, job.grid);
        std::memset(shared, uninitialized_byte, job.dynamic_shared_bytes);
        std::memset(shared + job.dynamic_shared_bytes, shared_canary_value, shared_canary_bytes);
        launch_observer* observer = observer_installed;
        if (observer) observer->block_begin(index, job.threads_per_block, shared, job.dynamic_shared_bytes);
        const bool completed = scheduler.run_block(job, index, linear);
        if (observer) observer->block_end(completed);
        if (!completed) return;
        const std::string overflow = check_shared_canary(shared, job.dynamic_shared_bytes, index);
        if (!overflow.empty()) {
            job.record_fault(cudaErrorIllegalAddress, overflow);
            return;
        }
    }
}

std::mutex& launch_mutex() {
    static std::mutex mutex;
    return mutex;
}

bool configuration_valid(const launch_config& config) {
    const dim3 g = config.grid, b = config.block;
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0) return false;
    if (b.x > limits::max_block_dim[0] || b.y > limits::max_block_dim[1] || b.z > limits::max_block_dim[2])
        return false;
    if (static_cast<std::uint64_t>(b.x) * b.y * b.z > limits::max_threads_per_block) return false;
    return g.x <= limits::max_grid_dim[0] && g.y <= limits::max_grid_dim[1] && g.z <= limits::max_grid_dim[2];
}

}  // namespace

void* dynamic_shared_memory() { return this_thread_shared_memory(); }

void set_launch_observer(launch_observer* observer) { observer_installed = observer; }
launch_observer* installed_launch_observer() { return observer_installed; }

void launch_grid(const launch_config& config, const kernel_site& site, const void* kernel_address,
                 kernel_invocation invocation) {
    const std::string description =
        std::string("kernel '") + site.kernel_name + "' launched at " + site.file + ":" + std::to_string(site.line);
    if (block_scheduler* scheduler = current_scheduler()) {
        scheduler->fault(cudaErrorNotSupported,
                         scheduler->describe_thread(scheduler->current_thread()) + " launched " + description +
                             ": launching kernels from device code is not supported by the CPU backend");
    }
    std::lock_guard<std::mutex> lock(launch_mutex());
    count_kernel_launch();
    if (sticky_error_check() != cudaSuccess) return;  // a faulted context runs nothing
    if (!configuration_valid(config)) {
        record_error(invalid_launch_configuration_error);
        return;
    }
    if (config.dynamic_shared_bytes > max_dynamic_shared_bytes(kernel_address)) {
        record_error(cudaErrorInvalidValue);
        return;
    }

    grid_job job;
    job.invocation = invocation;
    job.grid = config.grid;
    job.block = config.block;
    job.dynamic_shared_bytes = config.dynamic_shared_bytes;
    job.threads_per_block = config.block.x * config.block.y * config.block.z;
    job.block_count = static_cast<std::uint64_t>(config.grid.x) * config.grid.y * config.grid.z;
    job.seed = settings_seed();
    const auto participants =
        static_cast<unsigned>(std::min<std::uint64_t>(settings_host_threads(), job.block_count));
    if (observer_installed) {
        kernel_site located = site;
        located.address = kernel_address;
        observer_installed->launch_begin(config, located);
    }
    const auto started = std::chrono::steady_clock::now();
    host_thread_pool::instance().run(participants, &run_blocks, &job);
    count_kernel_time(static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count()));

    if (observer_installed) observer_installed->launch_end(job.faulted.load());
    if (job.faulted.load()) report_fault(job.fault_error, description + ": " + job.fault_message);
    check_all_canaries("after " + description);
}

}  // namespace cpu_backend::detail
