#include "fiber_stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace cpu_backend::detail {
namespace {

std::size_t page_bytes() {
    static const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return bytes;
}

constexpr std::size_t colour_span = 64 * 1024;  // covers the set-index bits of L1 and L2
constexpr std::size_t cache_line = 64;

}  // namespace

fiber_stack_pool::fiber_stack_pool(std::size_t stack_bytes)
    : stack_bytes_((stack_bytes + page_bytes() - 1) / page_bytes() * page_bytes()) {}

fiber_stack_pool::~fiber_stack_pool() {
    for (fiber_stack* stack : all_) {
        munmap(stack->mapping, stack->mapping_bytes);
        delete stack;
    }
}

fiber_stack* fiber_stack_pool::acquire() {
    if (!free_.empty()) {
        fiber_stack* stack = free_.back();
        free_.pop_back();
        return stack;
    }
    const std::size_t guard = page_bytes();
    const std::size_t total = guard + stack_bytes_ + colour_span;
    // MAP_NORESERVE: only the pages a fiber touches cost memory.
    void* mapping = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED) return nullptr;
    if (mprotect(mapping, guard, PROT_NONE) != 0) {
        munmap(mapping, total);
        return nullptr;
    }
    // Stack k's top lands on cache line (11 * k) mod 1024 of a 64 KiB span.
    const auto end = reinterpret_cast<std::uintptr_t>(mapping) + total;
    const std::uintptr_t wanted = (all_.size() * 11 * cache_line) % colour_span;
    const std::uintptr_t top = end - ((end - wanted) % colour_span);
    char* low = static_cast<char*>(mapping) + guard;
    auto* stack = new fiber_stack{mapping, total, low, top - reinterpret_cast<std::uintptr_t>(low)};
    all_.push_back(stack);
    free_.reserve(all_.size());
    return stack;
}

void fiber_stack_pool::release(fiber_stack* stack) { free_.push_back(stack); }

}  // namespace cpu_backend::detail
