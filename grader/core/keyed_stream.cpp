#include "grader/core/keyed_stream.hpp"

namespace grader {
namespace {

inline std::uint32_t rotate(std::uint32_t x, int bits) { return (x << bits) | (x >> (32 - bits)); }

inline void quarter_round(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c, std::uint32_t& d) {
  a += b; d = rotate(d ^ a, 16);
  c += d; b = rotate(b ^ c, 12);
  a += b; d = rotate(d ^ a, 8);
  c += d; b = rotate(b ^ c, 7);
}

}  // namespace

void chacha20_block(const std::array<std::uint32_t, 8>& key, std::uint64_t counter,
                    std::uint64_t nonce, std::array<std::uint32_t, 16>& out) {
  const std::array<std::uint32_t, 16> input = {
      0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,  // "expand 32-byte k"
      key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
      static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32),
      static_cast<std::uint32_t>(nonce), static_cast<std::uint32_t>(nonce >> 32)};
  std::array<std::uint32_t, 16> x = input;
  for (int round = 0; round < 20; round += 2) {
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) out[i] = x[i] + input[i];
}

KeyedStream::KeyedStream(std::uint64_t seed, std::uint64_t stream) : stream_(stream) {
  key_[0] = static_cast<std::uint32_t>(seed);
  key_[1] = static_cast<std::uint32_t>(seed >> 32);
}

void KeyedStream::refill() {
  std::array<std::uint32_t, 16> block;
  chacha20_block(key_, counter_++, stream_, block);
  for (int i = 0; i < 8; ++i) {
    words_[i] = block[2 * i] | (static_cast<std::uint64_t>(block[2 * i + 1]) << 32);
  }
  next_ = 0;
}

}  // namespace grader
