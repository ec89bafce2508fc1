#include "grader/core/cpu_reference.hpp"

#include <algorithm>
#include <sstream>

namespace grader {

std::vector<int> cpu_histogram(const std::vector<int>& samples, int num_bins) {
  std::vector<int> bins(static_cast<std::size_t>(num_bins), 0);
  for (int sample : samples) {
    if (sample >= 0 && sample < num_bins) ++bins[static_cast<std::size_t>(sample)];
  }
  return bins;
}

std::string python_list(const std::vector<int>& values, std::size_t count) {
  std::ostringstream text;
  text << "[";
  for (std::size_t i = 0; i < std::min(count, values.size()); ++i) {
    text << (i ? ", " : "") << values[i];
  }
  text << "]";
  return text.str();
}

}  // namespace grader
