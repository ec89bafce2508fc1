#include "runtime_state.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "cpu_backend/control.hpp"

namespace cpu_backend::detail {

std::atomic<std::uint64_t>& kernel_launches() {
    static std::atomic<std::uint64_t> count{0};
    return count;
}
std::atomic<std::uint64_t>& device_to_host() {
    static std::atomic<std::uint64_t> bytes{0};
    return bytes;
}
void count_kernel_launch() { ++kernel_launches(); }
void count_device_to_host_bytes(std::size_t bytes) { device_to_host() += bytes; }

namespace {

// Parses a non-negative integer environment variable (decimal or 0x hex);
// warns and returns `fallback` if it is set but malformed.
std::uint64_t environment_number(const char* name, std::uint64_t fallback, std::uint64_t minimum) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0' || value < minimum || text[0] == '-') {
        std::fprintf(stderr, "cuda-cpu-backend: ignoring %s=%s (expected an integer >= %llu)\n", name, text,
                     static_cast<unsigned long long>(minimum));
        return fallback;
    }
    return value;
}

// More host threads than this rarely help (blocks are short) and each one
// keeps up to 1024 fiber stacks, two memory mappings each: 64 threads would
// exceed Linux's default limit of 65530 mappings per process.
constexpr unsigned default_host_threads_limit = 16;

unsigned default_host_threads() {
    unsigned hardware = std::thread::hardware_concurrency();
    if (hardware == 0) hardware = 1;
    if (hardware > default_host_threads_limit) hardware = default_host_threads_limit;
    return static_cast<unsigned>(environment_number("CUDA_CPU_BACKEND_THREADS", hardware, 1));
}

std::atomic<std::uint64_t>& seed_setting() {
    static std::atomic<std::uint64_t> seed{environment_number("CUDA_CPU_BACKEND_SEED", 1, 0)};
    return seed;
}

std::atomic<unsigned>& host_threads_setting() {
    static std::atomic<unsigned> threads{default_host_threads()};
    return threads;
}

struct error_state {
    std::mutex mutex;
    std::atomic<cudaError_t> sticky{cudaSuccess};
    std::string fault_message;
};

error_state& errors() {
    static error_state state;
    return state;
}

thread_local cudaError_t last_error = cudaSuccess;

}  // namespace

std::uint64_t settings_seed() { return seed_setting().load(std::memory_order_relaxed); }
unsigned settings_host_threads() { return host_threads_setting().load(std::memory_order_relaxed); }
unsigned settings_multiprocessors() {
    static const auto set = static_cast<unsigned>(environment_number("CUDA_CPU_BACKEND_SM_COUNT", 0, 1));
    return set != 0 ? set : settings_host_threads();
}

std::size_t settings_fiber_stack_bytes() {
    static const std::size_t bytes = environment_number("CUDA_CPU_BACKEND_STACK_KB", 64, 16) * 1024;
    return bytes;
}

cudaError_t record_error(cudaError_t error) {
    if (error != cudaSuccess) last_error = error;
    return error;
}

cudaError_t sticky_error() { return errors().sticky.load(); }

cudaError_t sticky_error_check() { return record_error(sticky_error()); }

void report_fault(cudaError_t error, const std::string& message) {
    error_state& state = errors();
    std::lock_guard<std::mutex> lock(state.mutex);
    std::fprintf(stderr, "cuda-cpu-backend: %s\n", message.c_str());
    std::fflush(stderr);
    cudaError_t expected = cudaSuccess;
    if (state.sticky.compare_exchange_strong(expected, error)) state.fault_message = message;
    last_error = state.sticky.load();
}

void reset_error_state() {
    error_state& state = errors();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.sticky = cudaSuccess;
    state.fault_message.clear();
    last_error = cudaSuccess;
}

cudaError_t take_last_error() {
    cudaError_t error = last_error;
    last_error = cudaSuccess;
    // A sticky error is reported by every call until cudaDeviceReset.
    return error != cudaSuccess ? error : sticky_error();
}

cudaError_t peek_last_error() { return last_error != cudaSuccess ? last_error : sticky_error(); }

}  // namespace cpu_backend::detail

namespace cpu_backend {

void set_schedule_seed(std::uint64_t seed) { detail::seed_setting().store(seed); }
std::uint64_t schedule_seed() { return detail::settings_seed(); }
void set_host_threads(unsigned count) { detail::host_threads_setting().store(count == 0 ? 1 : count); }
unsigned host_threads() { return detail::settings_host_threads(); }

std::uint64_t kernels_launched() { return detail::kernel_launches().load(); }
std::uint64_t device_to_host_bytes() { return detail::device_to_host().load(); }

std::string last_fault_message() {
    detail::error_state& state = detail::errors();
    std::lock_guard<std::mutex> lock(state.mutex);
    return state.fault_message;
}

}  // namespace cpu_backend
