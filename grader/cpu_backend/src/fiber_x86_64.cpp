// The x86-64 fiber switch. Only the registers the System V ABI makes
// callee-saved need saving: the switch is an ordinary function call, so the
// compiler already assumes every other register is clobbered. Floating-point
// control state (MXCSR, x87 control word) is shared by all fibers of a host
// thread; kernels do not change it.
#include "fiber.hpp"

// ELF only (.type/.size directives): macOS uses Boost.Context (meson.build).
#if CPU_BACKEND_FIBER_HAS_ASSEMBLY && defined(__x86_64__)

#include <cstdint>

extern "C" void cpu_backend_fiber_switch_x86_64(void** save_stack_pointer, void* load_stack_pointer);
extern "C" void cpu_backend_fiber_trampoline_x86_64();

asm(R"(
    .text
    .globl cpu_backend_fiber_switch_x86_64
    .type cpu_backend_fiber_switch_x86_64, @function
    .p2align 4
cpu_backend_fiber_switch_x86_64:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size cpu_backend_fiber_switch_x86_64, .-cpu_backend_fiber_switch_x86_64

    .globl cpu_backend_fiber_trampoline_x86_64
    .type cpu_backend_fiber_trampoline_x86_64, @function
    .p2align 4
cpu_backend_fiber_trampoline_x86_64:
    movq %r13, %rdi
    callq *%r12
    ud2
    .size cpu_backend_fiber_trampoline_x86_64, .-cpu_backend_fiber_trampoline_x86_64
)");

namespace cpu_backend::detail {

void asm_fiber_prepare(asm_fiber_context& context, void* stack_low, std::size_t stack_size,
                       fiber_entry_fn entry, void* argument) {
    auto top = reinterpret_cast<std::uintptr_t>(stack_low) + stack_size;
    top &= ~std::uintptr_t{15};
    // After the switch's `ret` pops the trampoline address, %rsp must be
    // 16-byte aligned so that the trampoline's `call` sees an ABI-aligned
    // stack. The 16 bytes above hold a zero "return address" that ends
    // backtraces cleanly.
    auto* slot = reinterpret_cast<std::uint64_t*>(top - 16);
    slot[0] = 0;
    slot[1] = 0;
    std::uint64_t* sp = slot - 7;  // r15 r14 r13 r12 rbx rbp ret
    sp[0] = 0;                                                    // r15
    sp[1] = 0;                                                    // r14
    sp[2] = reinterpret_cast<std::uint64_t>(argument);           // r13
    sp[3] = reinterpret_cast<std::uint64_t>(entry);              // r12
    sp[4] = 0;                                                    // rbx
    sp[5] = 0;                                                    // rbp (ends frame chains)
    sp[6] = reinterpret_cast<std::uint64_t>(&cpu_backend_fiber_trampoline_x86_64);
    context.stack_pointer = sp;
}

void asm_fiber_switch(asm_fiber_context& from, const asm_fiber_context& to) {
    cpu_backend_fiber_switch_x86_64(&from.stack_pointer, to.stack_pointer);
}

}  // namespace cpu_backend::detail

#endif
