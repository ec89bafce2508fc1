// Fibers: the execution contexts that let every CUDA thread of a block stop
// at __syncthreads() or a warp intrinsic and be resumed later on the same host
// thread. Two interchangeable implementations exist:
//   * a hand-written x86-64 switch (saves the six callee-saved registers and
//     the stack pointer; no system call), used on x86-64 by default;
//   * ucontext (swapcontext), the portable fallback. swapcontext also saves
//     and restores the signal mask with a sigprocmask system call per switch,
//     which makes it several times slower (see README.md for the numbers).
// Define CPU_BACKEND_FORCE_UCONTEXT to use ucontext on x86-64 too.
#pragma once

#include <cstddef>

#if defined(__x86_64__) && !defined(CPU_BACKEND_FORCE_UCONTEXT)
#define CPU_BACKEND_FIBER_ASM 1
#else
#define CPU_BACKEND_FIBER_ASM 0
#endif

#include <ucontext.h>

namespace cpu_backend::detail {

using fiber_entry_fn = void (*)(void* argument);

// ---- hand-written switch (x86-64 System V) ----
struct asm_fiber_context {
    void* stack_pointer = nullptr;
};
#if defined(__x86_64__)
// Prepares `context` so that switching to it calls entry(argument) on the
// given stack. `entry` must never return (it switches away instead).
void asm_fiber_prepare(asm_fiber_context& context, void* stack_low, std::size_t stack_size,
                       fiber_entry_fn entry, void* argument);
// Saves the running context into `from` and resumes `to`.
void asm_fiber_switch(asm_fiber_context& from, const asm_fiber_context& to);
#endif

// ---- ucontext fallback ----
struct ucontext_fiber_context {
    ucontext_t context;
};
void ucontext_fiber_prepare(ucontext_fiber_context& context, void* stack_low,
                            std::size_t stack_size, fiber_entry_fn entry, void* argument);
void ucontext_fiber_switch(ucontext_fiber_context& from, const ucontext_fiber_context& to);

// ---- the implementation the backend uses ----
#if CPU_BACKEND_FIBER_ASM
using fiber_context = asm_fiber_context;
inline void fiber_prepare(fiber_context& c, void* low, std::size_t size, fiber_entry_fn e, void* a) {
    asm_fiber_prepare(c, low, size, e, a);
}
inline void fiber_switch(fiber_context& from, const fiber_context& to) { asm_fiber_switch(from, to); }
inline constexpr const char* fiber_implementation_name = "x86-64 assembly";
#else
using fiber_context = ucontext_fiber_context;
inline void fiber_prepare(fiber_context& c, void* low, std::size_t size, fiber_entry_fn e, void* a) {
    ucontext_fiber_prepare(c, low, size, e, a);
}
inline void fiber_switch(fiber_context& from, const fiber_context& to) { ucontext_fiber_switch(from, to); }
inline constexpr const char* fiber_implementation_name = "ucontext";
#endif

}  // namespace cpu_backend::detail
