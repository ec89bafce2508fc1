// Inside the counting library: the race detector (races.hpp) as the recorder and the __tsan_*
// hooks feed it, and what its parts share. race_detector.cpp keeps the accesses and the clocks
// that order them, race_analysis.cpp finds the unordered conflicting pairs, race_report.cpp turns
// them into witnesses.
//
// Happens-before, as this detector works it out (README.md, "Race detector", says why):
// - program order within a CUDA thread;
// - __syncthreads(): every access of a block before a barrier is ordered before every access after
//   it. A block's barriers number its epochs (0 before the first), so two accesses of one block in
//   different epochs are ordered;
// - __syncwarp(mask): the lanes of the mask, through vector clocks;
// - a release (a fence, then a strong write: atomic, or volatile to global memory) read by an
//   acquire (a strong read of that value, then a fence): through vector clocks and the epochs of
//   the releasing block ("knowledge", below).
// Shuffles, votes and the other _sync intrinsics order nothing: they exchange registers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cpu_backend/vector_types.hpp"
#include "races.hpp"

namespace cpu_backend::counting::detail {

// What an access did, as the hooks tell it (recorder.hpp's access_op is this).
enum class access_op : std::uint8_t {
    load,
    store,
    atomic,       // an atomic read-modify-write
    atomic_read,  // an atomic compare-and-swap that failed: read, wrote nothing
    volatile_load,
    volatile_store,
};

namespace race {

// The switch (races.hpp's set_race_detection); read on every access.
extern bool enabled;

// One access to one 4-byte word (wider accesses are split), as the analysis needs it.
struct access_record {
    std::uintptr_t word = 0;         // address / 4
    std::uintptr_t pc = 0;           // absolute
    std::uint64_t seq = 0;           // run order within the launch
    std::uint32_t block = 0;         // linear block index
    std::uint32_t epoch = 0;         // the block's barriers before the access
    std::uint32_t clock = 0;         // the thread's clock (bumped at each __syncwarp and fence)
    std::uint32_t knowledge = 0;     // what the thread knew happened before (0: nothing)
    std::uint32_t execution = 0;     // the site's execution by the thread in this epoch (one warp
                                     // instruction: same site, warp and execution)
    std::uint16_t thread = 0;        // linear thread index in the block
    std::uint8_t mask = 0;           // the bytes of the word (bit i: byte i)
    access_op op = access_op::load;  // volatile shared accesses are recorded as plain ones
    std::uint8_t bytes = 0;          // the whole access's width (at most 255)
};

inline bool writes(access_op op) {
    return op == access_op::store || op == access_op::atomic || op == access_op::volatile_store;
}
inline bool strong(access_op op) { return op != access_op::load && op != access_op::store; }

// Thread t of block b: one key.
inline std::uint64_t thread_key(std::uint32_t block, std::uint32_t thread) {
    return (static_cast<std::uint64_t>(block) << 16) | thread;
}

// What a thread knows happened before its current point, beyond its own block's earlier epochs:
// accesses of thread k with a clock below clocks[k], and of block b in epochs below epochs[b].
struct knowledge {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> clocks;  // sorted by key
    std::vector<std::pair<std::uint32_t, std::uint32_t>> epochs;  // sorted by block
};
// The launch's knowledge table (0: empty), immutable entries.
const knowledge& knowledge_of(std::uint32_t id);

// a happens-before b, or b before a.
bool ordered(const access_record& a, const access_record& b);

// A pair found racing (or, second.pc == 0, an uninitialised shared read), before its lines are known.
struct raw_witness {
    access_record first, second;
    // The pc of the same thread's plain access of the other kind to the word, in the same epoch
    // (0: none): on the same line as the racing one, the two are a read-modify-write (x++).
    std::uintptr_t partner[2] = {0, 0};
    // Filled where the accesses were seen: the barrier sites of each side's interval (absolute
    // pcs, 0: the kernel's start or end), where the word lies.
    std::uintptr_t before[2] = {0, 0}, after[2] = {0, 0};
    std::string region;            // "static" (offset from the TLS block), "dynamic", "global"
    std::uintptr_t array_tls = 0;  // dynamic: 1 + the TLS offset of the extern __shared__ pointer (0: unknown)
    std::uint64_t offset = 0, allocation_bytes = 0;
};

// Finds the races among `records` (race_analysis.cpp; sorts them): one witness for each pair of
// sites not found racing in this launch yet, appended to `found`. forget_pairs(): a new launch.
void analyse(std::vector<access_record>& records, std::vector<raw_witness>& found);
// The same for the records of one word (sorts them); `all`: every record of the epoch or launch.
void analyse_word(std::vector<access_record>& word, const std::vector<access_record>& all,
                  std::vector<raw_witness>& found);
void forget_pairs();

// The report (race_report.cpp): witnesses found in a launch, with its label, kernel and launch site.
void add_witnesses(std::vector<raw_witness>&& found, const std::string& label, const std::string& kernel,
                   const std::string& launched_at, dim3 grid, dim3 block);
// A launch whose global memory went unchecked: it made more global accesses than the detector keeps.
void add_unchecked(const std::string& label, const std::string& kernel, const std::string& launched_at);
void clear_witnesses();

// The recorder's side (race_detector.cpp).
void launch_begins(const std::string& kernel, const std::string& file, int line, const std::string& label, dim3 grid,
                   dim3 block);
void launch_ends();
void block_begins(uint3 block, std::uint32_t threads, std::pair<std::uintptr_t, std::uintptr_t> dynamic_shared,
                  std::pair<std::uintptr_t, std::uintptr_t> static_shared);
void block_ends();
void barrier_released(const void* site);
void warp_synchronized(std::uint32_t warp, std::uint32_t mask);
// One access by the running thread to memory the recorder counts (shared: the block's).
void access(std::uint32_t thread, std::uintptr_t pc, std::uintptr_t address, std::size_t bytes, access_op op,
            bool shared, std::uint32_t execution);
// __threadfence() (device) or __threadfence_block(), by the running thread.
void fence(bool device);
// The extern __shared__ array whose pointer variable this is (for the witnesses' names).
void name_dynamic_shared(const void* pointer_variable);

}  // namespace race
}  // namespace cpu_backend::counting::detail
