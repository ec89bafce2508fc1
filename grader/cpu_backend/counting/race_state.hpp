// Inside the race detector: the state race_detector.cpp (accesses, blocks, launches) and
// race_clocks.cpp (what orders them) share.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "race_detector.hpp"

namespace cpu_backend::counting::detail::race {

using range = std::pair<std::uintptr_t, std::uintptr_t>;  // [first, end)

struct thread_clock {
    std::uint32_t clock = 1;
    std::uint32_t knowledge = 0;
    std::uint32_t pending_same = 0;   // releases of its own block it read, until its next fence
    std::uint32_t pending_other = 0;  // device-scope releases of other blocks it read
    std::uint32_t release = 0;        // what its last fence released
    bool fenced = false, release_device = false;
};

// The release a word carries: set by a strong write after a fence, joined by atomic
// read-modify-writes after one (a release sequence), dropped by a strong write without a fence.
struct sync_word {
    std::uint32_t knowledge = 0;
    std::uint32_t block = 0;  // the releasing block (~0u: several)
    bool device = true;       // every release was device-scope (__threadfence())
};

// The launch in progress (one at a time: launches hold the backend's launch lock).
struct launch_state {
    std::mutex mutex;
    bool active = false;
    std::string kernel, launched_at, label;
    dim3 grid, block;
    std::vector<range> global_ranges;  // sorted
    std::vector<access_record> global_records;
    bool global_unchecked = false;  // more global accesses than kept_global (race_detector.cpp)
    std::deque<knowledge> table;
    std::unordered_map<std::uint32_t, std::vector<std::uintptr_t>> barrier_sites;  // blocks with barriers
    std::unordered_map<std::uintptr_t, sync_word> syncs;
    bool fenced = false;  // a fence ran: strong writes may carry releases
    std::uint32_t blocks_started = 0;
    std::unordered_set<std::uintptr_t> uninitialised_pcs;
    std::unordered_map<std::string, std::uintptr_t> dynamic_arrays;  // kernel -> 1 + pointer's TLS offset
    std::vector<raw_witness> found;
};

launch_state& launch();

// The accesses kept of one site (pc, operation, bytes) on one word in one epoch: the first, the
// first by another thread, the first that is not a lane of the first's warp instruction. Without
// knowledge, two accesses of one epoch race when their threads differ and they are not one warp
// instruction; if any two of a site's accesses (or one of each of two sites) race, two of these
// do. An access that carries knowledge is always kept.
struct kept_site {
    std::uintptr_t pc = 0;
    access_op op = access_op::load;
    std::uint8_t mask = 0;
    std::uint32_t first = 0, other_thread = ~0u, other_instruction = ~0u;  // indices into the records
    std::uint32_t next = ~0u;                                              // the word's next site
};

struct block_state {
    bool running = false;
    std::uint32_t block = 0, threads = 0, epoch = 0;
    std::uint64_t seq = 0;
    range dynamic_shared{0, 0}, static_shared{0, 0};
    std::vector<thread_clock> clocks;
    bool knowing = false;                  // some thread's knowledge is not empty
    std::vector<access_record> shared;     // this epoch's shared accesses
    std::vector<access_record> global;     // the block's global accesses
    std::vector<std::uint64_t> written;    // shared bytes written since the block started
    std::vector<std::uintptr_t> barriers;  // the sites of the barriers passed
    std::vector<raw_witness> uninitialised;
    // This epoch's kept sites: per shared word (tagged with the epoch + 1), per global word.
    std::vector<kept_site> sites;
    std::vector<std::uint64_t> shared_heads;  // (tag << 32) | first site
    std::unordered_map<std::uintptr_t, std::uint32_t> global_heads;
    std::uint32_t tag = 0;
    std::vector<std::uintptr_t> touched;  // the shared words of this epoch's kept sites
    std::size_t global_room = 0;          // global accesses the launch may still keep from this block
    bool shared_knowing = false;          // a shared access with knowledge (kept whole) this epoch
};
// The block this host thread runs: this_block, and `running` pointing at it while it runs (a plain
// TLS word, read at every access).
extern thread_local block_state this_block;
extern __thread block_state* running;
extern bool any_fence;  // a fence ran in the launch: strong accesses synchronise

// Uninitialised shared reads (race_uninitialised.cpp): marks the bytes a write sets and says
// whether they were all written before; notes a candidate witness; confirms an epoch's candidates
// (a read that another thread's later write in the epoch races with is left to the analysis).
bool written_before(block_state& b, std::uintptr_t address, std::size_t bytes, bool sets);
void note_uninitialised(block_state& b, const access_record& r);
void confirm_uninitialised(block_state& b, std::vector<raw_witness>& found);

// Knowledge (race_clocks.cpp): a new table entry (0 for an empty one); two joined.
std::uint32_t add(knowledge&& k);
std::uint32_t join(std::uint32_t a, std::uint32_t b);
// Releases and acquires through a strong access by thread t (once a fence ran).
void synchronise(block_state& b, thread_clock& t, std::uintptr_t address, access_op op);
// After a barrier: every thread knows what any knew, less the block's own (its epochs order that).
void share_knowledge(block_state& b);

}  // namespace cpu_backend::counting::detail::race
