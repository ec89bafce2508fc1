// What the backend records about where work happens, for the grader's "work happens on the GPU"
// checks: bytes copied host-to-device, how long kernels ran, and the first call that made host
// memory visible to kernels (pinned, mapped, registered or managed memory). A graded runner (a
// program that defines cpu_backend_refuses_host_memory, as the grader's runner main does) gets
// such calls refused; a whole program run by the grader (lab 00) reports its counts at exit on
// the descriptor GRADER_PROGRAM_REPORT=FD:TOKEN names, with the token, in the line format of
// grader/runner/program_report.hpp, with the first values of its last device-to-host copies.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cpu_backend/control.hpp"
#include "runtime_state.hpp"

// Defined (strong) by a program whose every host-visible allocation must be refused.
extern "C" __attribute__((weak)) void cpu_backend_refuses_host_memory();

namespace cpu_backend::detail {
namespace {

std::atomic<std::uint64_t> host_to_device{0};
std::atomic<std::uint64_t> kernel_nanoseconds{0};
std::atomic<std::uint64_t> longest_kernel_nanoseconds{0};
std::atomic<const char*> first_host_memory_api{nullptr};
int report_fd = -1;
char report_token[80] = {};

// The first kHeadValues int32 of each of the last kKeptHeads device-to-host copies of at least
// that many (program_report.hpp's d2h_heads), oldest first.
constexpr int kHeadValues = 10, kKeptHeads = 4;
std::mutex heads_mutex;
int heads[kKeptHeads][kHeadValues] = {};
unsigned heads_noted = 0;

std::string heads_text() {
    std::lock_guard<std::mutex> lock(heads_mutex);
    std::string text;
    const unsigned first = heads_noted > kKeptHeads ? heads_noted - kKeptHeads : 0;
    for (unsigned h = first; h < heads_noted; ++h) {
        if (!text.empty()) text += ';';
        for (int v = 0; v < kHeadValues; ++v) text += (v ? "," : "") + std::to_string(heads[h % kKeptHeads][v]);
    }
    return text.empty() ? "none" : text;
}

void write_report() {
    if (report_fd < 0) return;
    const char* api = first_host_memory_api.load();
    char line[1024];
    const int length = std::snprintf(
        line, sizeof line, "kernels=%llu h2d=%llu d2h=%llu kernel_ns=%llu longest_kernel_ns=%llu host_memory=%s "
        "d2h_heads=%s token=%s\n",
        static_cast<unsigned long long>(kernels_launched()), static_cast<unsigned long long>(host_to_device.load()),
        static_cast<unsigned long long>(device_to_host_bytes()),
        static_cast<unsigned long long>(kernel_nanoseconds.load()),
        static_cast<unsigned long long>(longest_kernel_nanoseconds.load()), api ? api : "none",
        heads_text().c_str(), report_token);
    if (length > 0 && length < static_cast<int>(sizeof line)) (void)!write(report_fd, line, static_cast<std::size_t>(length));
    close(report_fd);
    report_fd = -1;
}

// Before main() (the backend's constructors run before the program's own, by priority): the
// descriptor moves out of the way, the token is kept, and the variable is wiped from memory
// (/proc/self/environ too) and from the environment.
__attribute__((constructor(101))) void take_report_descriptor() {
    char* value = std::getenv("GRADER_PROGRAM_REPORT");
    if (value == nullptr) return;
    char* token = std::strchr(value, ':');
    const int fd = std::atoi(value);
    if (token != nullptr && std::strlen(token + 1) < sizeof report_token) std::strcpy(report_token, token + 1);
    std::memset(value, 'x', std::strlen(value));
    unsetenv("GRADER_PROGRAM_REPORT");
    if (fd < 3 || report_token[0] == '\0' || fcntl(fd, F_GETFD) < 0) return;
    report_fd = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    close(fd);
    if (report_fd >= 0) std::atexit(write_report);
}

}  // namespace

void count_host_to_device_bytes(std::size_t bytes) { host_to_device += bytes; }

void note_device_to_host_copy(const void* host, std::size_t bytes) {
    if (report_fd < 0 || bytes < sizeof heads[0]) return;  // only in a program the grader counts
    std::lock_guard<std::mutex> lock(heads_mutex);
    std::memcpy(heads[heads_noted++ % kKeptHeads], host, sizeof heads[0]);
}

void count_kernel_time(std::uint64_t nanoseconds) {
    kernel_nanoseconds += nanoseconds;
    std::uint64_t longest = longest_kernel_nanoseconds.load();
    while (nanoseconds > longest && !longest_kernel_nanoseconds.compare_exchange_weak(longest, nanoseconds)) {
    }
}

cudaError_t host_visible_memory(const char* api) {
    const char* none = nullptr;
    first_host_memory_api.compare_exchange_strong(none, api);
    if (&cpu_backend_refuses_host_memory == nullptr) return cudaSuccess;
    std::fprintf(stderr, "cuda-cpu-backend: %s refused: a graded launcher may not make host memory visible "
                 "to the GPU\n", api);
    return cudaErrorNotPermitted;
}

}  // namespace cpu_backend::detail

namespace cpu_backend {

std::uint64_t host_to_device_bytes() { return detail::host_to_device.load(); }
const char* host_memory_api() { return detail::first_host_memory_api.load(); }

}  // namespace cpu_backend
