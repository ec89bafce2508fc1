// CUDA's built-in vector types (int2, float4, uchar4, ...) and dim3, laid
// out and aligned exactly as CUDA lays them out, so that code such as
// reinterpret_cast<const int4*>(p)[i] loads 16 aligned bytes as on a GPU.
#pragma once

#include <cstddef>

#define CPU_BACKEND_VECTOR_1(type, base, align)                           \
    struct alignas(align) type {                                          \
        base x;                                                           \
    };                                                                    \
    inline type make_##type(base x) { return type{x}; }
#define CPU_BACKEND_VECTOR_2(type, base, align)                           \
    struct alignas(align) type {                                          \
        base x, y;                                                        \
    };                                                                    \
    inline type make_##type(base x, base y) { return type{x, y}; }
#define CPU_BACKEND_VECTOR_3(type, base)                                  \
    struct type {                                                         \
        base x, y, z;                                                     \
    };                                                                    \
    inline type make_##type(base x, base y, base z) { return type{x, y, z}; }
#define CPU_BACKEND_VECTOR_4(type, base, align)                           \
    struct alignas(align) type {                                          \
        base x, y, z, w;                                                  \
    };                                                                    \
    inline type make_##type(base x, base y, base z, base w) { return type{x, y, z, w}; }

CPU_BACKEND_VECTOR_1(char1, signed char, 1)
CPU_BACKEND_VECTOR_2(char2, signed char, 2)
CPU_BACKEND_VECTOR_3(char3, signed char)
CPU_BACKEND_VECTOR_4(char4, signed char, 4)
CPU_BACKEND_VECTOR_1(uchar1, unsigned char, 1)
CPU_BACKEND_VECTOR_2(uchar2, unsigned char, 2)
CPU_BACKEND_VECTOR_3(uchar3, unsigned char)
CPU_BACKEND_VECTOR_4(uchar4, unsigned char, 4)
CPU_BACKEND_VECTOR_1(short1, short, 2)
CPU_BACKEND_VECTOR_2(short2, short, 4)
CPU_BACKEND_VECTOR_3(short3, short)
CPU_BACKEND_VECTOR_4(short4, short, 8)
CPU_BACKEND_VECTOR_1(ushort1, unsigned short, 2)
CPU_BACKEND_VECTOR_2(ushort2, unsigned short, 4)
CPU_BACKEND_VECTOR_3(ushort3, unsigned short)
CPU_BACKEND_VECTOR_4(ushort4, unsigned short, 8)
CPU_BACKEND_VECTOR_1(int1, int, 4)
CPU_BACKEND_VECTOR_2(int2, int, 8)
CPU_BACKEND_VECTOR_3(int3, int)
CPU_BACKEND_VECTOR_4(int4, int, 16)
CPU_BACKEND_VECTOR_1(uint1, unsigned int, 4)
CPU_BACKEND_VECTOR_2(uint2, unsigned int, 8)
CPU_BACKEND_VECTOR_3(uint3, unsigned int)
CPU_BACKEND_VECTOR_4(uint4, unsigned int, 16)
CPU_BACKEND_VECTOR_1(longlong1, long long, 8)
CPU_BACKEND_VECTOR_2(longlong2, long long, 16)
CPU_BACKEND_VECTOR_1(ulonglong1, unsigned long long, 8)
CPU_BACKEND_VECTOR_2(ulonglong2, unsigned long long, 16)
CPU_BACKEND_VECTOR_1(float1, float, 4)
CPU_BACKEND_VECTOR_2(float2, float, 8)
CPU_BACKEND_VECTOR_3(float3, float)
CPU_BACKEND_VECTOR_4(float4, float, 16)
CPU_BACKEND_VECTOR_1(double1, double, 8)
CPU_BACKEND_VECTOR_2(double2, double, 16)
CPU_BACKEND_VECTOR_3(double3, double)

#undef CPU_BACKEND_VECTOR_1
#undef CPU_BACKEND_VECTOR_2
#undef CPU_BACKEND_VECTOR_3
#undef CPU_BACKEND_VECTOR_4

static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4 must match CUDA's layout");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 must match CUDA's layout");
static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "uchar4 must match CUDA's layout");
static_assert(sizeof(uint3) == 12, "uint3 must match CUDA's layout");

// dim3: like CUDA's, every component defaults to 1, so dim3 g(4) is 4x1x1.
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
