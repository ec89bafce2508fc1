// The hardware's rules for one warp-level request, as Nsight Compute counts them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cpu_backend::counting {

struct lane_access {
    std::uint32_t lane;          // 0..31
    std::uintptr_t address;
    std::uint32_t bytes;         // 1..16
};

// Global memory: the distinct 32-byte sectors the request's lanes touch.
std::uint32_t global_sectors(const lane_access* lanes, std::size_t count);

struct shared_cost {
    std::uint32_t wavefronts = 0;
    std::uint32_t bank_conflicts = 0;
};
// Shared memory: 32 banks of 4 bytes. Lanes are served in phases: all 32 for accesses of up to
// 4 bytes, 2 phases of 16 lanes for 8 bytes, 4 phases of 8 lanes for 16 bytes. A phase costs the
// largest number of distinct 4-byte words any one bank holds among its lanes' words (a word read
// by several lanes is a broadcast: it counts once); wavefronts = the sum over phases with an
// active lane, bank conflicts = wavefronts minus those phases.
shared_cost shared_wavefronts(const lane_access* lanes, std::size_t count);

// Atomics: the distinct addresses of the request (lanes on one address serialize).
std::uint32_t distinct_addresses(const lane_access* lanes, std::size_t count);

}  // namespace cpu_backend::counting
