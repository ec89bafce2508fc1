#include "grader/core/sample_inputs.hpp"

#include <algorithm>
#include <cmath>

#include "grader/core/keyed_stream.hpp"

namespace grader {
namespace {

// Box-Muller on the keyed stream's bits rather than std::normal_distribution, whose output differs
// between standard libraries: the same seed must give the same inputs everywhere.
double unit_uniform(KeyedStream& engine) {
  return (static_cast<double>(engine() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

}  // namespace

std::vector<int> uniform_samples(std::size_t count, int num_bins, std::uint64_t seed) {
  KeyedStream engine(seed);
  std::vector<int> samples(count);
  for (int& s : samples) s = static_cast<int>(engine() % static_cast<std::uint64_t>(num_bins));
  return samples;
}

std::vector<int> normal_samples(std::size_t count, int num_bins, double mean, double stddev,
                                std::uint64_t seed) {
  KeyedStream engine(seed);
  std::vector<int> samples(count);
  constexpr double kTwoPi = 6.283185307179586;
  for (int& s : samples) {
    const double gaussian = std::sqrt(-2.0 * std::log(unit_uniform(engine))) *
                            std::cos(kTwoPi * unit_uniform(engine));
    const long long value = std::llround(mean + stddev * gaussian);
    s = static_cast<int>(std::clamp<long long>(value, 0, num_bins - 1));
  }
  return samples;
}

std::vector<int> constant_samples(std::size_t count, int value) {
  return std::vector<int>(count, value);
}

}  // namespace grader
