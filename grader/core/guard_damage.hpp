// Reads the guard zones around a device array after a kernel ran (host code, testable alone).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace grader {

// "" when both zones still hold the guard pattern; otherwise which side was written and the
// out-of-range indices, counted in elements of `element_size` bytes of an array of `count`.
std::string describe_guard_damage(const std::vector<unsigned char>& before,
                                  const std::vector<unsigned char>& after, std::size_t element_size,
                                  std::size_t count);

}  // namespace grader
