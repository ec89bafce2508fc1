// Byte patterns the grader fills device memory with. 0xA5A5A5A5 as an int is -1515870811, a value
// no histogram bin or scan of small samples produces by accident; guard zones hold a different
// pattern so an unwritten output and an out-of-bounds write are never confused.
#pragma once
#include <cstddef>
#include <cstdint>

namespace grader {

constexpr unsigned char kPoisonByte = 0xA5;
constexpr unsigned char kGuardByte = 0x5A;
constexpr std::uint32_t kPoisonWord = 0xA5A5A5A5u;
constexpr std::size_t kGuardBytes = 4096;

}  // namespace grader
