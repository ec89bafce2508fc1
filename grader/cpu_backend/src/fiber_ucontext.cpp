// The portable fiber switch built on ucontext. makecontext only passes int
// arguments, so the entry function and its argument travel through a small
// record whose address is split into two ints.
#include "fiber.hpp"

#if CPU_BACKEND_FIBER_HAS_UCONTEXT

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cpu_backend::detail {
namespace {

struct ucontext_start_record {
    fiber_entry_fn entry;
    void* argument;
};

void ucontext_start(int high, int low) {
    auto bits = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32) |
                static_cast<std::uint32_t>(low);
    auto* record = reinterpret_cast<ucontext_start_record*>(bits);
    record->entry(record->argument);
    std::fputs("cpu_backend: a fiber entry function returned\n", stderr);
    std::abort();
}

}  // namespace

void ucontext_fiber_prepare(ucontext_fiber_context& context, void* stack_low,
                            std::size_t stack_size, fiber_entry_fn entry, void* argument) {
    if (getcontext(&context.context) != 0) {
        std::perror("cpu_backend: getcontext");
        std::abort();
    }
    // The start record lives at the top of the fiber's own stack, so it
    // stays valid until the fiber starts and needs no separate allocation.
    auto top = reinterpret_cast<std::uintptr_t>(stack_low) + stack_size;
    top = (top - sizeof(ucontext_start_record)) & ~std::uintptr_t{15};
    auto* record = reinterpret_cast<ucontext_start_record*>(top);
    record->entry = entry;
    record->argument = argument;
    context.context.uc_stack.ss_sp = stack_low;
    context.context.uc_stack.ss_size = top - reinterpret_cast<std::uintptr_t>(stack_low) - 64;
    context.context.uc_link = nullptr;
    auto bits = reinterpret_cast<std::uint64_t>(record);
    makecontext(&context.context, reinterpret_cast<void (*)()>(&ucontext_start), 2,
                static_cast<int>(bits >> 32), static_cast<int>(bits & 0xffffffffu));
}

void ucontext_fiber_switch(ucontext_fiber_context& from, const ucontext_fiber_context& to) {
    if (swapcontext(&from.context, &to.context) != 0) {
        std::perror("cpu_backend: swapcontext");
        std::abort();
    }
}

}  // namespace cpu_backend::detail

#endif
