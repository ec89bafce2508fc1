// Block barriers, warp intrinsics and memory fences.
//
// Every call here that can make a CUDA thread wait is an out-of-line call
// into the backend's scheduler, which switches to another fiber of the same
// block until the condition is met. The _sync warp intrinsics follow CUDA's
// Volta+ rules: every lane named in the mask must arrive before any of them
// continues; lanes outside the mask are not waited for.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "builtin_variables.hpp"

namespace cpu_backend::detail {

enum class warp_op : unsigned char {
    shfl_idx,
    shfl_up,
    shfl_down,
    shfl_xor,
    ballot,
    any,
    all,
    syncwarp,
    match_any,
    match_all,
    reduce_add,
    reduce_min_unsigned,
    reduce_max_unsigned,
    reduce_min_signed,
    reduce_max_signed,
    reduce_and,
    reduce_or,
    reduce_xor
};

// Waits at the block barrier; returns how many threads passed a non-zero
// predicate.
int block_barrier(int predicate);
// The warp-wide exchange behind every _sync intrinsic: returns this lane's
// result once all lanes in `mask` have arrived.
std::uint64_t warp_collective(warp_op op, unsigned mask, std::uint64_t value, int parameter, int width);

template <class T>
std::uint64_t to_bits(T value) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>,
                  "warp intrinsics exchange values of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <class T>
T from_bits(std::uint64_t bits) {
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}
template <class T>
T shuffle(warp_op op, unsigned mask, T value, int parameter, int width) {
    return from_bits<T>(warp_collective(op, mask, to_bits(value), parameter, width));
}

}  // namespace cpu_backend::detail

// ---- block barrier ----
inline void __syncthreads() { cpu_backend::detail::block_barrier(0); }
inline int __syncthreads_count(int predicate) { return cpu_backend::detail::block_barrier(predicate != 0); }
inline int __syncthreads_and(int predicate) {
    return cpu_backend::detail::block_barrier(predicate != 0) ==
           static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}
inline int __syncthreads_or(int predicate) { return cpu_backend::detail::block_barrier(predicate != 0) != 0; }

// ---- warp shuffles ----
template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
    return cpu_backend::detail::shuffle(cpu_backend::detail::warp_op::shfl_idx, mask, var, src_lane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize) {
    return cpu_backend::detail::shuffle(cpu_backend::detail::warp_op::shfl_up, mask, var, static_cast<int>(delta),
                                        width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize) {
    return cpu_backend::detail::shuffle(cpu_backend::detail::warp_op::shfl_down, mask, var, static_cast<int>(delta),
                                        width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
    return cpu_backend::detail::shuffle(cpu_backend::detail::warp_op::shfl_xor, mask, var, lane_mask, width);
}

// ---- warp votes ----
inline unsigned __ballot_sync(unsigned mask, int predicate) {
    return static_cast<unsigned>(
        cpu_backend::detail::warp_collective(cpu_backend::detail::warp_op::ballot, mask, predicate != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int predicate) {
    return static_cast<int>(
        cpu_backend::detail::warp_collective(cpu_backend::detail::warp_op::any, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int predicate) {
    return static_cast<int>(
        cpu_backend::detail::warp_collective(cpu_backend::detail::warp_op::all, mask, predicate != 0, 0, 32));
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
    cpu_backend::detail::warp_collective(cpu_backend::detail::warp_op::syncwarp, mask, 0, 0, 32);
}
// The lanes of the calling warp that are currently executing this same call:
// the backend lets the warp's other runnable lanes run until they reach it,
// block elsewhere, or exit.
unsigned __activemask();

template <class T>
unsigned __match_any_sync(unsigned mask, T value) {
    return static_cast<unsigned>(cpu_backend::detail::warp_collective(
        cpu_backend::detail::warp_op::match_any, mask, cpu_backend::detail::to_bits(value), 0, 32));
}
template <class T>
unsigned __match_all_sync(unsigned mask, T value, int* predicate) {
    auto result = cpu_backend::detail::warp_collective(cpu_backend::detail::warp_op::match_all, mask,
                                                       cpu_backend::detail::to_bits(value), 0, 32);
    *predicate = result != 0;
    return static_cast<unsigned>(result);
}

// ---- warp reductions (sm_80) ----
#define CPU_BACKEND_WARP_REDUCE(name, type, op)                                                       \
    inline type name(unsigned mask, type value) {                                                     \
        return static_cast<type>(cpu_backend::detail::warp_collective(                                \
            cpu_backend::detail::warp_op::op, mask, static_cast<std::uint32_t>(value), 0, 32));       \
    }
CPU_BACKEND_WARP_REDUCE(__reduce_add_sync, unsigned, reduce_add)
CPU_BACKEND_WARP_REDUCE(__reduce_add_sync, int, reduce_add)
CPU_BACKEND_WARP_REDUCE(__reduce_min_sync, unsigned, reduce_min_unsigned)
CPU_BACKEND_WARP_REDUCE(__reduce_min_sync, int, reduce_min_signed)
CPU_BACKEND_WARP_REDUCE(__reduce_max_sync, unsigned, reduce_max_unsigned)
CPU_BACKEND_WARP_REDUCE(__reduce_max_sync, int, reduce_max_signed)
CPU_BACKEND_WARP_REDUCE(__reduce_and_sync, unsigned, reduce_and)
CPU_BACKEND_WARP_REDUCE(__reduce_or_sync, unsigned, reduce_or)
CPU_BACKEND_WARP_REDUCE(__reduce_xor_sync, unsigned, reduce_xor)
#undef CPU_BACKEND_WARP_REDUCE

// ---- memory fences ----
// Blocks on different host threads really run in parallel, so fences are
// real fences. A block runs on one host thread, so __threadfence_block()
// needs only an acquire-release fence; its order tells the counting mode's
// race detector (which sees the order) a block-scope fence from the others.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_ACQ_REL); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
