// Reads of shared memory that no thread of the block wrote since it started (race_detector.hpp):
// a map of the block's written bytes (static __shared__ area, then dynamic), candidates noted as
// they happen, confirmed when their epoch ends.
#include <algorithm>

#include "race_state.hpp"

namespace cpu_backend::counting::detail::race {
namespace {

std::size_t bit_of(const block_state& b, std::uintptr_t address) {
    if (address >= b.dynamic_shared.first && address < b.dynamic_shared.second)
        return (b.static_shared.second - b.static_shared.first) + (address - b.dynamic_shared.first);
    return address - b.static_shared.first;
}

}  // namespace

// Marks the shared bytes a write sets; whether they were all written before (since the block
// started).
bool written_before(block_state& b, std::uintptr_t address, std::size_t bytes, bool sets) {
    bool written = true;
    const std::size_t first = bit_of(b, address);
    if (bytes <= 32 && first % 64 + bytes <= 64) {  // within one word of the map: the usual case
        if (first / 64 >= b.written.size()) return true;
        std::uint64_t& word = b.written[first / 64];
        const std::uint64_t bits = ((std::uint64_t{1} << bytes) - 1) << (first % 64);
        written = (word & bits) == bits;
        if (sets) word |= bits;
        return written;
    }
    for (std::size_t i = 0; i < bytes; ++i) {
        const std::size_t bit = bit_of(b, address + i);
        if (bit / 64 >= b.written.size()) return true;
        std::uint64_t& word = b.written[bit / 64];
        written = written && (word >> (bit % 64) & 1u);
        if (sets) word |= std::uint64_t{1} << (bit % 64);
    }
    return written;
}

// A read of shared bytes no thread of the block wrote since it started: a candidate witness (one
// per site and epoch), confirmed when the epoch ends.
void note_uninitialised(block_state& b, const access_record& r) {
    for (const raw_witness& w : b.uninitialised)
        if (w.first.pc == r.pc) return;
    {
        launch_state& l = launch();
        std::lock_guard<std::mutex> lock(l.mutex);
        if (l.uninitialised_pcs.count(r.pc)) return;
    }
    raw_witness w;
    w.first = r;
    b.uninitialised.push_back(w);
}

// A read of unwritten bytes that another thread writes later in the same epoch is one side of a
// race, reported as such: not an uninitialised read. The others are, once per site and launch.
void confirm_uninitialised(block_state& b, std::vector<raw_witness>& found) {
    for (raw_witness& w : b.uninitialised) {
        const access_record& read = w.first;
        const bool raced = std::any_of(b.shared.begin(), b.shared.end(), [&](const access_record& x) {
            return x.word == read.word && (x.mask & read.mask) != 0 && writes(x.op) && x.thread != read.thread &&
                   x.seq > read.seq && !(strong(x.op) && strong(read.op));
        });
        if (raced) continue;
        launch_state& l = launch();
        {
            std::lock_guard<std::mutex> lock(l.mutex);
            if (!l.uninitialised_pcs.insert(read.pc).second) continue;
        }
        found.push_back(std::move(w));
    }
    b.uninitialised.clear();
}

}  // namespace cpu_backend::counting::detail::race
