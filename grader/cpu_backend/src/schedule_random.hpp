// The small, fast, seedable generator behind the block schedule. The same
// seed and block index always give the same sequence, whichever host thread
// runs the block, so a failing schedule can be replayed.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace cpu_backend::detail {

inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

class schedule_random {
public:
    void seed(std::uint64_t value) { state_ = splitmix64(value); }
    std::uint64_t next() {
        state_ += 0x9e3779b97f4a7c15ull;
        return splitmix64(state_);
    }
    // A value in [0, bound), bound > 0 (Lemire's multiply-shift).
    std::uint32_t below(std::uint32_t bound) {
        return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
    }
    // Fisher-Yates shuffle.
    template <class T>
    void shuffle(std::vector<T>& items, std::size_t count) {
        for (std::size_t i = count; i > 1; --i) {
            std::size_t j = below(static_cast<std::uint32_t>(i));
            std::swap(items[i - 1], items[j]);
        }
    }

private:
    std::uint64_t state_ = 0;
};

}  // namespace cpu_backend::detail
