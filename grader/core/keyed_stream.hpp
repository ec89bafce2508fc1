// The random bits every generated input is drawn from: ChaCha20 in counter mode, keyed by the
// seed. Its output does not give back its key (a seed recovered from a leaked input would draw
// every other input of the run); mt19937_64's state, and so its seed, follows from 312 outputs.
#pragma once
#include <array>
#include <cstdint>

namespace grader {

// One ChaCha20 block (RFC 8439's block function on the original layout: words 12-13 are a 64-bit
// block counter, 14-15 a 64-bit nonce): `out` = the 16 words of keystream.
void chacha20_block(const std::array<std::uint32_t, 8>& key, std::uint64_t counter,
                    std::uint64_t nonce, std::array<std::uint32_t, 16>& out);

// A UniformRandomBitGenerator of 64-bit words: the keystream of key (seed, 0, ...) and nonce
// `stream`, so inputs drawn from seed + 1 and from `seed` share nothing.
class KeyedStream {
 public:
  using result_type = std::uint64_t;
  explicit KeyedStream(std::uint64_t seed, std::uint64_t stream = 0);
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    if (next_ == 8) refill();
    return words_[next_++];
  }

 private:
  void refill();
  std::array<std::uint32_t, 8> key_{};
  std::uint64_t stream_ = 0;
  std::uint64_t counter_ = 0;
  std::array<std::uint64_t, 8> words_{};
  int next_ = 8;
};

}  // namespace grader
