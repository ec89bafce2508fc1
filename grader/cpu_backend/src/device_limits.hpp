// The limits the CPU backend enforces and reports, modelled on a compute
// capability 8.0 GPU so that launch errors match what a GPU returns.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpu_backend::detail::limits {

inline constexpr unsigned max_threads_per_block = 1024;
inline constexpr unsigned max_block_dim[3] = {1024, 1024, 64};
inline constexpr unsigned max_grid_dim[3] = {2147483647u, 65535, 65535};
inline constexpr std::size_t shared_memory_per_block = 48 * 1024;
inline constexpr std::size_t shared_memory_per_block_optin = 227 * 1024;
inline constexpr std::size_t shared_memory_per_multiprocessor = 228 * 1024;
inline constexpr std::size_t reserved_shared_memory_per_block = 1024;
inline constexpr int max_threads_per_multiprocessor = 2048;
inline constexpr int max_blocks_per_multiprocessor = 32;
inline constexpr int registers_per_block = 65536;
inline constexpr int compute_major = 8;
inline constexpr int compute_minor = 0;
inline constexpr int clock_rate_khz = 1410000;
inline constexpr int memory_clock_rate_khz = 1215000;
inline constexpr int memory_bus_width_bits = 5120;
inline constexpr int l2_cache_bytes = 40 * 1024 * 1024;
inline constexpr std::size_t constant_memory_bytes = 64 * 1024;

// cudaMalloc returns 256-byte aligned memory, as on a GPU.
inline constexpr std::size_t allocation_alignment = 256;

}  // namespace cpu_backend::detail::limits
