// CUDA device intrinsics that have a direct host equivalent: integer bit
// operations, the min/max overloads CUDA declares at global scope, type
// punning and rounding intrinsics, read-only loads, clocks and __trap().
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cpu_backend::detail {
[[noreturn]] void device_trap();
void device_nanosleep(unsigned nanoseconds);
long long device_clock64();
}  // namespace cpu_backend::detail

// ---- bit operations ----
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) |
           __brev(static_cast<unsigned>(x >> 32));
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int selector) {
    std::uint64_t bytes = (static_cast<std::uint64_t>(y) << 32) | x;
    unsigned int result = 0;
    for (int i = 0; i < 4; ++i) {
        unsigned int pick = (selector >> (4 * i)) & 7u;
        result |= static_cast<unsigned int>((bytes >> (8 * pick)) & 0xffu) << (8 * i);
    }
    return result;
}
inline int __mul24(int x, int y) {
    // Sign-extend the low 24 bits of each operand, as the hardware does.
    auto low24 = [](int v) { return static_cast<int>(static_cast<unsigned int>(v) << 8) >> 8; };
    return static_cast<int>(static_cast<unsigned int>(low24(x)) * static_cast<unsigned int>(low24(y)));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}

// ---- min and max, with CUDA's overload set ----
#define CPU_BACKEND_MIN_MAX(a_type, b_type, result_type)                                             \
    inline result_type min(a_type a, b_type b) {                                                     \
        return static_cast<result_type>(a) < static_cast<result_type>(b) ? static_cast<result_type>(a) \
                                                                         : static_cast<result_type>(b); \
    }                                                                                                \
    inline result_type max(a_type a, b_type b) {                                                     \
        return static_cast<result_type>(a) > static_cast<result_type>(b) ? static_cast<result_type>(a) \
                                                                         : static_cast<result_type>(b); \
    }
CPU_BACKEND_MIN_MAX(int, int, int)
CPU_BACKEND_MIN_MAX(unsigned int, unsigned int, unsigned int)
CPU_BACKEND_MIN_MAX(int, unsigned int, unsigned int)
CPU_BACKEND_MIN_MAX(unsigned int, int, unsigned int)
CPU_BACKEND_MIN_MAX(long, long, long)
CPU_BACKEND_MIN_MAX(unsigned long, unsigned long, unsigned long)
CPU_BACKEND_MIN_MAX(long, unsigned long, unsigned long)
CPU_BACKEND_MIN_MAX(unsigned long, long, unsigned long)
CPU_BACKEND_MIN_MAX(long long, long long, long long)
CPU_BACKEND_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
CPU_BACKEND_MIN_MAX(long long, unsigned long long, unsigned long long)
CPU_BACKEND_MIN_MAX(unsigned long long, long long, unsigned long long)
#undef CPU_BACKEND_MIN_MAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(float a, double b) { return std::fmin(static_cast<double>(a), b); }
inline double max(float a, double b) { return std::fmax(static_cast<double>(a), b); }
inline double min(double a, float b) { return std::fmin(a, static_cast<double>(b)); }
inline double max(double a, float b) { return std::fmax(a, static_cast<double>(b)); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- reinterpretation and conversion ----
inline int __float_as_int(float x) { int r; std::memcpy(&r, &x, 4); return r; }
inline unsigned int __float_as_uint(float x) { unsigned int r; std::memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, 8); return r; }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(std::floor(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(std::ceil(x)); }
inline unsigned int __float2uint_rn(float x) { return static_cast<unsigned int>(std::nearbyint(x)); }
inline unsigned int __float2uint_rz(float x) { return static_cast<unsigned int>(x); }
inline unsigned int __float2uint_rd(float x) { return static_cast<unsigned int>(std::floor(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }

// ---- fast math (host precision) ----
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }

// ---- loads, clocks, traps ----
template <class T>
inline T __ldg(const T* address) {
    return *address;
}
inline long long clock64() { return cpu_backend::detail::device_clock64(); }
inline void __nanosleep(unsigned nanoseconds) { cpu_backend::detail::device_nanosleep(nanoseconds); }
[[noreturn]] inline void __trap() { cpu_backend::detail::device_trap(); }
