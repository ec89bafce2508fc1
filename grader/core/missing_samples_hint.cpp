// Hints for the classic histogram bugs, only where the bins prove them.
#include <sstream>
#include <string>
#include <vector>

#include "grader/core/cpu_reference.hpp"

namespace grader {
namespace {

constexpr std::size_t kLargestChunkChecked = std::size_t{1} << 16;

// Whether `missing` (expected - got, per bin) is exactly the histogram of samples[first, last).
bool is_histogram_of(const std::vector<long long>& missing, const std::vector<int>& samples,
                     std::size_t first, std::size_t last) {
  std::vector<long long> counts(missing.size(), 0);
  for (std::size_t i = first; i < last; ++i) {
    const int v = samples[i];
    if (v < 0 || static_cast<std::size_t>(v) >= counts.size()) return false;
    ++counts[static_cast<std::size_t>(v)];
  }
  return counts == missing;
}

}  // namespace

std::string missing_samples_hint(const std::vector<int>& samples, const std::vector<int>& expected,
                                 const std::vector<int>& got) {
  if (got.size() != expected.size() || samples.empty()) return "";
  std::vector<long long> missing(expected.size());
  long long short_by = 0, over_by = 0;
  for (std::size_t b = 0; b < expected.size(); ++b) {
    missing[b] = static_cast<long long>(expected[b]) - got[b];
    (missing[b] > 0 ? short_by : over_by) += missing[b] > 0 ? missing[b] : -missing[b];
  }
  std::ostringstream hint;
  const std::size_t n = samples.size();
  if (over_by > 0 && short_by == 0) {
    hint << "\n  hint: the bins hold " << over_by << " more samples than the input has: a sample "
         << "counted twice, or threads past the end reading beyond the input (check i < n)";
    return hint.str();
  }
  if (short_by == 0 || over_by > 0 || static_cast<std::size_t>(short_by) >= n) return "";
  const std::size_t k = static_cast<std::size_t>(short_by);
  if (is_histogram_of(missing, samples, n - k, n)) {
    hint << "\n  hint: exactly the last " << k << " samples were not counted: the tail past the "
         << "last whole block or slice (round the grid up, and check i < n in the kernel)";
  } else if (is_histogram_of(missing, samples, 0, k)) {
    hint << "\n  hint: exactly the first " << k << " samples were not counted";
  } else if (k <= kLargestChunkChecked && n / k <= 4096) {
    for (std::size_t first = k; first + k <= n; first += k) {
      if (is_histogram_of(missing, samples, first, first + k)) {
        hint << "\n  hint: exactly samples " << first << " to " << first + k - 1
             << " were not counted: one block's (or one thread's) share is missing";
        break;
      }
    }
  }
  return hint.str();
}

}  // namespace grader
