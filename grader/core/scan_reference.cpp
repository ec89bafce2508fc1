#include "grader/core/scan_reference.hpp"

#include "grader/core/keyed_stream.hpp"

namespace grader {

std::vector<int> cpu_inclusive_scan(const std::vector<int>& values, std::size_t segment) {
  std::vector<int> out(values.size());
  std::uint32_t sum = 0;  // unsigned: wraps like the GPU, without signed-overflow UB on the host
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (segment != 0 && i % segment == 0) sum = 0;
    sum += static_cast<std::uint32_t>(values[i]);
    out[i] = static_cast<int>(sum);
  }
  return out;
}

std::vector<int> uniform_values(std::size_t count, int low, int high, std::uint64_t seed) {
  KeyedStream engine(seed);
  const std::uint64_t span = static_cast<std::uint64_t>(static_cast<long long>(high) - low) + 1;
  std::vector<int> values(count);
  for (int& v : values) v = static_cast<int>(low + static_cast<long long>(engine() % span));
  return values;
}

}  // namespace grader
