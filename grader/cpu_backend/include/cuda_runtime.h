// cuda_runtime.h for the CPU backend: lets unchanged CUDA C++ (kernels,
// launches after transform_launches.py, the runtime API) compile with a host
// C++17 compiler and run on the CPU. Safe to force-include (-include
// cuda_runtime.h) and to include again.
//
// CUDA_CPU_BACKEND is defined so code can tell it runs here; __CUDACC__ and
// __CUDA_ARCH__ are not, because this is not nvcc and there is no device
// compilation pass.
#ifndef CPU_BACKEND_CUDA_RUNTIME_H
#define CPU_BACKEND_CUDA_RUNTIME_H

#ifndef CUDA_CPU_BACKEND
#define CUDA_CPU_BACKEND 1
#endif

// Standard headers first: libstdc++ uses the spelling __noinline__ inside an
// attribute, which the qualifier macros below would otherwise rewrite.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cpu_backend/vector_types.hpp"
#include "cpu_backend/qualifiers.hpp"
#include "cpu_backend/runtime_types.hpp"
#include "cpu_backend/runtime_api.hpp"
#include "cpu_backend/builtin_variables.hpp"
#include "cpu_backend/synchronization.hpp"
#include "cpu_backend/atomics.hpp"
#include "cpu_backend/device_intrinsics.hpp"
#include "cpu_backend/launch.hpp"
#include "cpu_backend/control.hpp"

#endif  // CPU_BACKEND_CUDA_RUNTIME_H
