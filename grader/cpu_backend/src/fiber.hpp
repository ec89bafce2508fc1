// Fibers: the execution contexts that let every CUDA thread of a block stop
// at __syncthreads() or a warp intrinsic and be resumed later on the same host
// thread. A block of 1024 threads switches 1024 times per barrier, so the
// switch cost is the backend's main cost. Implementations, chosen at configure
// time by meson.build (README.md, "How fibers were chosen"):
//   * hand-written switches for x86-64 and aarch64 (ELF: Linux, the BSDs):
//     save the callee-saved registers and the stack pointer, no system call;
//   * Boost.Context's fcontext (make_fcontext/jump_fcontext): the same kind of
//     switch, kept by Boost for macOS (Intel and Apple silicon) and other CPUs;
//     meson defines CPU_BACKEND_FIBER_BOOST when it picks it;
//   * ucontext (swapcontext), the portable fallback: it also saves and restores
//     the signal mask with a sigprocmask system call per switch, 15 to 30 times
//     slower. CPU_BACKEND_FIBER_UCONTEXT (or the older
//     CPU_BACKEND_FORCE_UCONTEXT) forces it.
// Without a define from meson (a file compiled on its own) the hand-written
// switch is used where one exists, else ucontext.
#pragma once

#include <cstddef>

#define CPU_BACKEND_FIBER_KIND_ASSEMBLY 1
#define CPU_BACKEND_FIBER_KIND_BOOST 2
#define CPU_BACKEND_FIBER_KIND_UCONTEXT 3

#if defined(__ELF__) && (defined(__x86_64__) || defined(__aarch64__))
#define CPU_BACKEND_FIBER_HAS_ASSEMBLY 1
#else
#define CPU_BACKEND_FIBER_HAS_ASSEMBLY 0
#endif

#if defined(CPU_BACKEND_FIBER_BOOST)
#define CPU_BACKEND_FIBER_KIND CPU_BACKEND_FIBER_KIND_BOOST
#elif defined(CPU_BACKEND_FIBER_UCONTEXT) || defined(CPU_BACKEND_FORCE_UCONTEXT) || !CPU_BACKEND_FIBER_HAS_ASSEMBLY
#define CPU_BACKEND_FIBER_KIND CPU_BACKEND_FIBER_KIND_UCONTEXT
#else
#define CPU_BACKEND_FIBER_KIND CPU_BACKEND_FIBER_KIND_ASSEMBLY
#endif

// ucontext is compiled wherever it is the choice, and on every non-Apple
// system for comparison (bench/). macOS declares it only with _XOPEN_SOURCE,
// which meson.build then defines for the whole library.
#if CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_UCONTEXT || !defined(__APPLE__)
#define CPU_BACKEND_FIBER_HAS_UCONTEXT 1
#include <ucontext.h>
#else
#define CPU_BACKEND_FIBER_HAS_UCONTEXT 0
#endif

namespace cpu_backend::detail {

using fiber_entry_fn = void (*)(void* argument);

// ---- hand-written switch (x86-64 System V, aarch64 AAPCS64) ----
#if CPU_BACKEND_FIBER_HAS_ASSEMBLY
struct asm_fiber_context {
    void* stack_pointer = nullptr;
};
// Prepares `context` so that switching to it calls entry(argument) on the
// given stack. `entry` must never return (it switches away instead).
void asm_fiber_prepare(asm_fiber_context& context, void* stack_low, std::size_t stack_size,
                       fiber_entry_fn entry, void* argument);
// Saves the running context into `from` and resumes `to`.
void asm_fiber_switch(asm_fiber_context& from, const asm_fiber_context& to);
inline constexpr const char* asm_fiber_name =
#if defined(__x86_64__)
    "x86-64 assembly";
#else
    "aarch64 assembly";
#endif
#endif

// ---- Boost.Context ----
#if CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_BOOST
struct boost_fiber_context {
    void* handle = nullptr;  // fcontext_t: valid until this context is resumed once
    fiber_entry_fn entry = nullptr;
    void* argument = nullptr;
};
void boost_fiber_prepare(boost_fiber_context& context, void* stack_low, std::size_t stack_size,
                         fiber_entry_fn entry, void* argument);
void boost_fiber_switch(boost_fiber_context& from, const boost_fiber_context& to);
#endif

// ---- ucontext ----
#if CPU_BACKEND_FIBER_HAS_UCONTEXT
struct ucontext_fiber_context {
    ucontext_t context;
};
void ucontext_fiber_prepare(ucontext_fiber_context& context, void* stack_low,
                            std::size_t stack_size, fiber_entry_fn entry, void* argument);
void ucontext_fiber_switch(ucontext_fiber_context& from, const ucontext_fiber_context& to);
#endif

// ---- the implementation the backend uses ----
#if CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_ASSEMBLY
using fiber_context = asm_fiber_context;
inline void fiber_prepare(fiber_context& c, void* low, std::size_t size, fiber_entry_fn e, void* a) {
    asm_fiber_prepare(c, low, size, e, a);
}
inline void fiber_switch(fiber_context& from, const fiber_context& to) { asm_fiber_switch(from, to); }
inline constexpr const char* fiber_implementation_name = asm_fiber_name;
#elif CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_BOOST
using fiber_context = boost_fiber_context;
inline void fiber_prepare(fiber_context& c, void* low, std::size_t size, fiber_entry_fn e, void* a) {
    boost_fiber_prepare(c, low, size, e, a);
}
inline void fiber_switch(fiber_context& from, const fiber_context& to) { boost_fiber_switch(from, to); }
inline constexpr const char* fiber_implementation_name = "Boost.Context fcontext";
#else
using fiber_context = ucontext_fiber_context;
inline void fiber_prepare(fiber_context& c, void* low, std::size_t size, fiber_entry_fn e, void* a) {
    ucontext_fiber_prepare(c, low, size, e, a);
}
inline void fiber_switch(fiber_context& from, const fiber_context& to) { ucontext_fiber_switch(from, to); }
inline constexpr const char* fiber_implementation_name = "ucontext";
#endif

}  // namespace cpu_backend::detail
