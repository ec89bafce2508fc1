// The aarch64 fiber switch (AAPCS64, ELF: Linux and the BSDs). As on x86-64,
// the switch is an ordinary function call, so only the callee-saved state
// needs saving: x19-x28, the frame pointer x29, the link register x30 (where
// the switch returns to) and the low 64 bits of v8-v15 (d8-d15); the stack
// pointer is the context. FPCR/FPSR are shared by all fibers of a host thread;
// kernels do not change them. Before this switch existed aarch64 used
// ucontext, whose sigprocmask system call made each switch 25-30x slower.
#include "fiber.hpp"

#if CPU_BACKEND_FIBER_HAS_ASSEMBLY && defined(__aarch64__)

#include <cstdint>

extern "C" void cpu_backend_fiber_switch_aarch64(void** save_stack_pointer, void* load_stack_pointer);
extern "C" void cpu_backend_fiber_trampoline_aarch64();

// The saved frame, from the stack pointer up: x19..x28, x29, x30, d8..d15.
asm(R"(
    .text
    .globl cpu_backend_fiber_switch_aarch64
    .type cpu_backend_fiber_switch_aarch64, %function
    .p2align 4
cpu_backend_fiber_switch_aarch64:
    sub sp, sp, #160
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x2, sp
    str x2, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #160
    ret
    .size cpu_backend_fiber_switch_aarch64, .-cpu_backend_fiber_switch_aarch64

    .globl cpu_backend_fiber_trampoline_aarch64
    .type cpu_backend_fiber_trampoline_aarch64, %function
    .p2align 4
cpu_backend_fiber_trampoline_aarch64:
    mov x0, x20
    blr x19
    brk #0
    .size cpu_backend_fiber_trampoline_aarch64, .-cpu_backend_fiber_trampoline_aarch64
)");

namespace cpu_backend::detail {

void asm_fiber_prepare(asm_fiber_context& context, void* stack_low, std::size_t stack_size,
                       fiber_entry_fn entry, void* argument) {
    auto top = reinterpret_cast<std::uintptr_t>(stack_low) + stack_size;
    top &= ~std::uintptr_t{15};  // sp must stay 16-byte aligned
    // 16 zero bytes at the top: a null frame record that ends backtraces.
    auto* end_of_frames = reinterpret_cast<std::uint64_t*>(top - 16);
    end_of_frames[0] = 0;
    end_of_frames[1] = 0;
    std::uint64_t* frame = end_of_frames - 20;  // the 160-byte frame the switch pops
    for (int i = 0; i < 20; ++i) frame[i] = 0;
    frame[0] = reinterpret_cast<std::uint64_t>(entry);     // x19
    frame[1] = reinterpret_cast<std::uint64_t>(argument);  // x20
    frame[10] = reinterpret_cast<std::uint64_t>(end_of_frames);                        // x29
    frame[11] = reinterpret_cast<std::uint64_t>(&cpu_backend_fiber_trampoline_aarch64);  // x30
    context.stack_pointer = frame;
}

void asm_fiber_switch(asm_fiber_context& from, const asm_fiber_context& to) {
    cpu_backend_fiber_switch_aarch64(&from.stack_pointer, to.stack_pointer);
}

}  // namespace cpu_backend::detail

#endif
