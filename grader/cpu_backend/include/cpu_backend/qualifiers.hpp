// CUDA's declaration qualifiers, mapped onto host C++.
//
// __shared__ becomes `static thread_local`: the backend runs each block on
// one host thread, all of the block's CUDA threads as fibers of that host
// thread, and a host thread runs one block at a time. So a thread_local is
// shared by exactly the CUDA threads of one block and private to it, even
// when several blocks run at once on several host threads. Like real shared
// memory its contents are not reset between blocks.
//
// `extern __shared__` (dynamic shared memory) cannot be expressed with a
// macro; transform_launches.py rewrites those declarations.
#pragma once

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
// Empty on purpose: newer libstdc++ headers (included after this one, e.g. by
// GoogleTest) spell `__attribute__((__noinline__))`, which any non-empty
// definition breaks; an empty one leaves `__attribute__(())`, which is valid.
// Inlining changes no result on this backend.
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __device_builtin__
// __restrict__ is already a GCC keyword with the same meaning.
