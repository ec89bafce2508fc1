// Fiber stacks, reused from block to block. Each host thread owns one pool;
// a block needs as many stacks as it has CUDA threads suspended at once (one
// for a kernel without barriers, since a thread that finishes hands its
// stack to the next thread). Every stack has an inaccessible guard page
// below it, so an overflow crashes instead of silently corrupting memory.
//
// Stacks are "coloured": the top of stack k is placed at a different offset
// modulo 64 KiB, so the few hot cache lines at the top of 1024 stacks spread
// over all cache sets. Without it every stack top falls into the same
// handful of L1/L2 sets (the stacks are a multiple of 4 KiB apart) and a
// barrier in a 1024-thread block runs several times slower.
#pragma once

#include <cstddef>
#include <vector>

namespace cpu_backend::detail {

struct fiber_stack {
    void* mapping;
    std::size_t mapping_bytes;
    void* low;           // lowest usable address
    std::size_t bytes;   // usable bytes, from `low` up to the coloured top
};

class fiber_stack_pool {
public:
    explicit fiber_stack_pool(std::size_t stack_bytes);
    ~fiber_stack_pool();
    fiber_stack_pool(const fiber_stack_pool&) = delete;
    fiber_stack_pool& operator=(const fiber_stack_pool&) = delete;

    // A free stack, or nullptr when the system refuses more memory.
    fiber_stack* acquire();
    void release(fiber_stack* stack);

private:
    std::size_t stack_bytes_;
    std::vector<fiber_stack*> all_;
    std::vector<fiber_stack*> free_;
};

}  // namespace cpu_backend::detail
