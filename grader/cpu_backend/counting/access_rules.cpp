#include "access_rules.hpp"

#include <algorithm>

namespace cpu_backend::counting {
namespace {

constexpr std::uint32_t sector_bytes = 32;
constexpr std::uint32_t bank_count = 32;
constexpr std::uint32_t bank_bytes = 4;
// A request touches at most 32 lanes x 16 bytes: 160 words or sectors with misaligned lanes.
constexpr std::size_t most_items = 32 * 5;

std::uint32_t count_distinct(std::uintptr_t* items, std::size_t count) {
    std::sort(items, items + count);
    return static_cast<std::uint32_t>(std::unique(items, items + count) - items);
}

}  // namespace

std::uint32_t global_sectors(const lane_access* lanes, std::size_t count) {
    std::uintptr_t sectors[most_items];
    std::size_t used = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uintptr_t first = lanes[i].address / sector_bytes;
        const std::uintptr_t last = (lanes[i].address + lanes[i].bytes - 1) / sector_bytes;
        for (std::uintptr_t s = first; s <= last && used < most_items; ++s) sectors[used++] = s;
    }
    return count_distinct(sectors, used);
}

shared_cost shared_wavefronts(const lane_access* lanes, std::size_t count) {
    shared_cost cost;
    if (count == 0) return cost;
    bool one_word = true;
    for (std::size_t i = 0; i < count && one_word; ++i)
        one_word = lanes[i].address / bank_bytes == lanes[0].address / bank_bytes &&
                   lanes[i].address % bank_bytes + lanes[i].bytes <= bank_bytes;
    if (one_word) return {1, 0};  // a broadcast: the common case of a thread-per-bin scan
    std::uint32_t widest = 0;
    for (std::size_t i = 0; i < count; ++i) widest = std::max(widest, lanes[i].bytes);
    const std::uint32_t lanes_per_phase = widest > 8 ? 8 : widest > 4 ? 16 : 32;
    for (std::uint32_t phase = 0; phase < 32 / lanes_per_phase; ++phase) {
        std::uintptr_t words[most_items];
        std::size_t used = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (lanes[i].lane / lanes_per_phase != phase) continue;
            const std::uintptr_t first = lanes[i].address / bank_bytes;
            const std::uintptr_t last = (lanes[i].address + lanes[i].bytes - 1) / bank_bytes;
            for (std::uintptr_t w = first; w <= last && used < most_items; ++w) words[used++] = w;
        }
        if (used == 0) continue;
        const std::uint32_t distinct = count_distinct(words, used);
        std::uint32_t per_bank[bank_count] = {};
        std::uint32_t worst = 0;
        for (std::uint32_t i = 0; i < distinct; ++i) worst = std::max(worst, ++per_bank[words[i] % bank_count]);
        cost.wavefronts += worst;
        cost.bank_conflicts += worst - 1;
    }
    return cost;
}

std::uint32_t distinct_addresses(const lane_access* lanes, std::size_t count) {
    std::uintptr_t addresses[32];
    std::size_t used = 0;
    for (std::size_t i = 0; i < count && used < 32; ++i) addresses[used++] = lanes[i].address;
    return count_distinct(addresses, used);
}

}  // namespace cpu_backend::counting
