// threadIdx, blockIdx, blockDim, gridDim and warpSize.
//
// The four index variables are per-host-thread variables that the scheduler
// rewrites whenever it resumes a different CUDA thread. Fibers switch only
// inside out-of-line backend functions (__syncthreads(), warp intrinsics,
// atomics), so the compiler re-reads them after every such call, and a CUDA
// thread always sees its own index. They use GCC's __thread rather than
// C++ thread_local because __thread variables need no per-access
// initialisation check, and the initial-exec TLS model, which reads them
// with one instruction (valid because the backend is linked into
// executables, not loaded with dlopen).
#pragma once

#include "vector_types.hpp"

#define CPU_BACKEND_TLS __thread __attribute__((tls_model("initial-exec")))

extern CPU_BACKEND_TLS uint3 threadIdx;
extern CPU_BACKEND_TLS uint3 blockIdx;
extern CPU_BACKEND_TLS dim3 blockDim;
extern CPU_BACKEND_TLS dim3 gridDim;

constexpr int warpSize = 32;
