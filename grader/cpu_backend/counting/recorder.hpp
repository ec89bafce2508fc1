// Inside the counting library: what the __tsan_* hooks call, and what the per-block recorder
// hands to the launch's records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "counting.hpp"

namespace cpu_backend::counting::detail {

enum class access_op : std::uint8_t { load, store, atomic };

// One access by the running CUDA thread; ignored outside a block and for memory that is neither
// global (a cudaMalloc allocation, a registered variable, pinned host memory) nor the block's
// shared memory (its locals, kernel parameters, host memory).
void record(const void* pc, const void* address, std::size_t bytes, access_op op);

// A site: the hook's return address, the 16-byte part of a wider copy, the kind of access.
using site_key = std::tuple<std::uintptr_t, std::uint32_t, access_kind>;
using site_map = std::map<site_key, site_counts>;

// The launch in progress (records.cpp): a finished block's counts are added to it.
void add_block(const site_map& sites, std::uint64_t barriers);
void begin_launch(const std::string& kernel, const std::string& file, int line, dim3 grid, dim3 block,
                  std::size_t dynamic_shared_bytes);
void end_launch(bool faulted);

// [first, end) of this host thread's TLS block of the program itself, {0, 0} if unknown (tls_guards.cpp).
std::pair<std::uintptr_t, std::uintptr_t> program_tls_block();
// [first, end) offsets in the program's TLS block of its thread_local guard variables (tls_guards.cpp).
std::vector<std::pair<std::uintptr_t, std::uintptr_t>> tls_guard_offsets();

}  // namespace cpu_backend::counting::detail
