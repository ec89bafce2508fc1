// The ThreadSanitizer entry points GCC calls in code compiled with -fsanitize=thread, provided
// here instead of libtsan: plain and volatile accesses are recorded (recorder.cpp; volatile ones
// apart with --param=tsan-distinguish-volatile=1), atomic read-modify-writes are done and then
// recorded (a compare-and-swap that did not swap as a read), atomic loads and stores (the
// backend's CAS loops read the word first) are done without being recorded, fences are done and
// told to the race detector. This file must not itself be instrumented.
#include <cstddef>
#include <cstdint>

#include "recorder.hpp"

using cpu_backend::counting::detail::access_op;
using cpu_backend::counting::detail::record;

#define COUNTED_ACCESS(name, bytes, op) \
    extern "C" void name(void* address) { record(__builtin_return_address(0), address, bytes, access_op::op); }
#define COUNTED_WIDTHS(prefix, op)                                                      \
    COUNTED_ACCESS(prefix##1, 1, op) COUNTED_ACCESS(prefix##2, 2, op) COUNTED_ACCESS(prefix##4, 4, op) \
    COUNTED_ACCESS(prefix##8, 8, op) COUNTED_ACCESS(prefix##16, 16, op)

COUNTED_WIDTHS(__tsan_read, load)
COUNTED_WIDTHS(__tsan_write, store)
COUNTED_WIDTHS(__tsan_volatile_read, volatile_load)
COUNTED_WIDTHS(__tsan_volatile_write, volatile_store)
COUNTED_ACCESS(__tsan_unaligned_read2, 2, load)
COUNTED_ACCESS(__tsan_unaligned_read4, 4, load)
COUNTED_ACCESS(__tsan_unaligned_read8, 8, load)
COUNTED_ACCESS(__tsan_unaligned_read16, 16, load)
COUNTED_ACCESS(__tsan_unaligned_write2, 2, store)
COUNTED_ACCESS(__tsan_unaligned_write4, 4, store)
COUNTED_ACCESS(__tsan_unaligned_write8, 8, store)
COUNTED_ACCESS(__tsan_unaligned_write16, 16, store)

extern "C" {

void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read_range(void* address, unsigned long bytes) {
    record(__builtin_return_address(0), address, bytes, access_op::load);
}
void __tsan_write_range(void* address, unsigned long bytes) {
    record(__builtin_return_address(0), address, bytes, access_op::store);
}
// __threadfence() and __threadfence_system() are sequentially consistent fences, the block's an
// acquire-release one (cpu_backend/synchronization.hpp): GCC passes the order.
void __tsan_atomic_thread_fence(int order) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (cpu_backend::counting::detail::race::enabled) cpu_backend::counting::detail::race::fence(order == __ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

}  // extern "C"

#define ATOMIC_RMW(bits, type, name, builtin)                                                        \
    extern "C" type __tsan_atomic##bits##_##name(volatile type* address, type value, int) {        \
        const type old = builtin(address, value, __ATOMIC_SEQ_CST);                                \
        record(__builtin_return_address(0), const_cast<type*>(address), sizeof(type), access_op::atomic); \
        return old;                                                                                \
    }
#define CAS_RECORD(type, swapped) \
    record(__builtin_return_address(0), const_cast<type*>(address), sizeof(type), \
           (swapped) ? access_op::atomic : access_op::atomic_read)
#define ATOMIC_WIDTH(bits, type)                                                                     \
    extern "C" type __tsan_atomic##bits##_load(const volatile type* address, int) {                 \
        return __atomic_load_n(address, __ATOMIC_SEQ_CST);                                         \
    }                                                                                              \
    extern "C" void __tsan_atomic##bits##_store(volatile type* address, type value, int) {          \
        __atomic_store_n(address, value, __ATOMIC_SEQ_CST);                                        \
    }                                                                                              \
    ATOMIC_RMW(bits, type, exchange, __atomic_exchange_n)                                          \
    ATOMIC_RMW(bits, type, fetch_add, __atomic_fetch_add)                                          \
    ATOMIC_RMW(bits, type, fetch_sub, __atomic_fetch_sub)                                          \
    ATOMIC_RMW(bits, type, fetch_and, __atomic_fetch_and)                                          \
    ATOMIC_RMW(bits, type, fetch_or, __atomic_fetch_or)                                            \
    ATOMIC_RMW(bits, type, fetch_xor, __atomic_fetch_xor)                                          \
    ATOMIC_RMW(bits, type, fetch_nand, __atomic_fetch_nand)                                        \
    extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile type* address, type* expected, \
                                                                 type desired, int, int) {         \
        const bool swapped =                                                                       \
            __atomic_compare_exchange_n(address, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        CAS_RECORD(type, swapped);                                                                       \
        return swapped;                                                                            \
    }                                                                                              \
    extern "C" int __tsan_atomic##bits##_compare_exchange_weak(volatile type* address, type* expected, \
                                                               type desired, int, int) {           \
        const bool swapped =                                                                       \
            __atomic_compare_exchange_n(address, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        CAS_RECORD(type, swapped);                                                                       \
        return swapped;                                                                            \
    }                                                                                              \
    extern "C" type __tsan_atomic##bits##_compare_exchange_val(volatile type* address, type expected, \
                                                               type desired, int, int) {           \
        const type asked = expected;                                                               \
        const bool swapped =                                                                       \
            __atomic_compare_exchange_n(address, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        CAS_RECORD(type, swapped || expected == asked);                                                  \
        return expected;                                                                           \
    }

ATOMIC_WIDTH(8, std::int8_t)
ATOMIC_WIDTH(16, std::int16_t)
ATOMIC_WIDTH(32, std::int32_t)
ATOMIC_WIDTH(64, std::int64_t)
