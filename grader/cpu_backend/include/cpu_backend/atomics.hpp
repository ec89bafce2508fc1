// CUDA's atomic functions on host memory.
//
// Blocks run in parallel on several host threads, so every atomic is a real
// hardware atomic (GCC __atomic builtins, relaxed order as in CUDA). Before
// each one the scheduler may switch to another CUDA thread of the block (a
// seeded random choice), which varies the interleavings a test sees; after a
// failed atomicCAS it always does, so spin locks make progress.
#pragma once

#include <cstdint>
#include <cstring>

namespace cpu_backend::detail {

void atomic_schedule_point();
void atomic_compare_failed();

template <class T>
T atomic_load_relaxed(T* address) {
    T value;
    __atomic_load(address, &value, __ATOMIC_RELAXED);
    return value;
}

// Applies `update(old)` atomically and returns the old value.
template <class T, class Update>
T atomic_update(T* address, Update update) {
    atomic_schedule_point();
    T old_value = atomic_load_relaxed(address);
    for (;;) {
        T new_value = update(old_value);
        if (__atomic_compare_exchange(address, &old_value, &new_value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return old_value;
    }
}

template <class T>
T atomic_compare_and_swap(T* address, T compare, T value) {
    atomic_schedule_point();
    T expected = compare;
    __atomic_compare_exchange(address, &expected, &value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    if (std::memcmp(&expected, &compare, sizeof(T)) != 0) atomic_compare_failed();
    return expected;
}

}  // namespace cpu_backend::detail

#define CPU_BACKEND_ATOMIC_FETCH(name, builtin, type)                               \
    inline type name(type* address, type value) {                                   \
        cpu_backend::detail::atomic_schedule_point();                               \
        return builtin(address, value, __ATOMIC_RELAXED);                           \
    }
#define CPU_BACKEND_ATOMIC_UPDATE(name, type, expression)                           \
    inline type name(type* address, type value) {                                   \
        return cpu_backend::detail::atomic_update(address, [value]([[maybe_unused]] type old) { \
            (void)value;                                       \
            return static_cast<type>(expression);                                   \
        });                                                                         \
    }
#define CPU_BACKEND_ATOMIC_CAS(name, type)                                          \
    inline type name(type* address, type compare, type value) {                    \
        return cpu_backend::detail::atomic_compare_and_swap(address, compare, value); \
    }

// Each function also exists with the _block and _system scope suffixes; on
// the host all scopes are the same.
#define CPU_BACKEND_ATOMIC_ALL_SCOPES(macro, name, ...) \
    macro(name, __VA_ARGS__) macro(name##_block, __VA_ARGS__) macro(name##_system, __VA_ARGS__)

CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicAdd, __atomic_fetch_add, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicAdd, __atomic_fetch_add, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicAdd, __atomic_fetch_add, unsigned long long)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicAdd, float, old + value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicAdd, double, old + value)

CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicSub, __atomic_fetch_sub, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicSub, __atomic_fetch_sub, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicSub, __atomic_fetch_sub, unsigned long long)

CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicExch, __atomic_exchange_n, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicExch, __atomic_exchange_n, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicExch, __atomic_exchange_n, unsigned long long)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicExch, float, value)

CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMin, int, old < value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMin, unsigned int, old < value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMin, long long, old < value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMin, unsigned long long, old < value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMax, int, old > value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMax, unsigned int, old > value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMax, long long, old > value ? old : value)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicMax, unsigned long long, old > value ? old : value)

// CUDA's wrapping counters: atomicInc counts 0..value then wraps to 0;
// atomicDec counts down and wraps from 0 (or anything above value) to value.
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicInc, unsigned int, old >= value ? 0u : old + 1u)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_UPDATE, atomicDec, unsigned int,
                              (old == 0u || old > value) ? value : old - 1u)

CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicAnd, __atomic_fetch_and, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicAnd, __atomic_fetch_and, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicAnd, __atomic_fetch_and, unsigned long long)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicOr, __atomic_fetch_or, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicOr, __atomic_fetch_or, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicOr, __atomic_fetch_or, unsigned long long)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicXor, __atomic_fetch_xor, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicXor, __atomic_fetch_xor, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_FETCH, atomicXor, __atomic_fetch_xor, unsigned long long)

CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_CAS, atomicCAS, int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_CAS, atomicCAS, unsigned int)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_CAS, atomicCAS, unsigned long long)
CPU_BACKEND_ATOMIC_ALL_SCOPES(CPU_BACKEND_ATOMIC_CAS, atomicCAS, unsigned short)

#undef CPU_BACKEND_ATOMIC_ALL_SCOPES
#undef CPU_BACKEND_ATOMIC_CAS
#undef CPU_BACKEND_ATOMIC_UPDATE
#undef CPU_BACKEND_ATOMIC_FETCH
