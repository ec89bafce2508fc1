// Bookkeeping for "device" memory. Every cudaMalloc allocation sits between
// two canary zones; a write outside the allocation that lands in a zone is
// found at the next check (after every launch, at cudaFree and at
// cudaDeviceSynchronize) and reported like a GPU memory fault. New
// allocations are filled with 0xff bytes (NaN as float, -1 as int) because
// GPU memory is not zeroed either, and forgetting a cudaMemset is a common
// bug that zeroed memory would hide.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cpu_backend::detail {

inline constexpr unsigned char uninitialized_byte = 0xff;

// ---- cudaMalloc / cudaMallocManaged ----
void* device_allocate(std::size_t bytes);  // nullptr when out of memory
// Checks the allocation's canaries, then frees it. False if `pointer` is not
// the start of a live allocation.
bool device_free(void* pointer);
void device_free_all();
std::size_t device_bytes_in_use();

// True when [pointer, pointer + bytes) lies inside one live allocation or
// one registered __device__ / __constant__ variable.
bool device_range_valid(const void* pointer, std::size_t bytes);
bool is_device_pointer(const void* pointer);
// [start, start + bytes) of every live allocation, registered variable and pinned host buffer,
// sorted by start: what a kernel may reach as global memory (for the counting mode).
std::vector<std::pair<std::uintptr_t, std::size_t>> global_memory_ranges();
void register_symbol(const void* address, std::size_t bytes);
void unregister_symbol(const void* address);

// Checks every live allocation's canaries. Damage is reported as a fault
// (sticky cudaErrorIllegalAddress) mentioning `when`, and the zone is
// repaired so the same damage is reported once. Returns false on damage.
bool check_all_canaries(const std::string& when);

// ---- cudaMallocHost / cudaHostAlloc ----
void* host_allocate(std::size_t bytes);
bool host_free(void* pointer);
// True when [pointer, pointer + bytes) lies inside one pinned host buffer.
bool pinned_range_valid(const void* pointer, std::size_t bytes);

}  // namespace cpu_backend::detail
