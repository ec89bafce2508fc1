#include "grader/core/missing_samples_hint.hpp"

#include <sstream>
#include <string>
#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/patterns.hpp"

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

// "the last sample was" / "the last 12 samples were".
std::string the_samples(std::size_t k, const char* which) {
  return k == 1 ? std::string("the ") + which + " sample was"
                : std::string("the ") + which + " " + std::to_string(k) + " samples were";
}

// Every bin off by the poison word the grader filled the output with: the bins were never zeroed.
bool poison_plus_count(const std::vector<int>& expected, const std::vector<int>& got) {
  for (std::size_t b = 0; b < expected.size(); ++b) {
    if (static_cast<std::uint32_t>(got[b]) - static_cast<std::uint32_t>(expected[b]) != kPoisonWord) return false;
  }
  return !expected.empty();
}

}  // namespace

std::string missing_samples_hint(const std::vector<int>& samples, const std::vector<int>& expected,
                                 const std::vector<int>& got) {
  if (got.size() != expected.size()) return "";
  if (poison_plus_count(expected, got)) {
    return "\n  hint: every bin holds its count plus the grader's fill pattern 0xA5A5A5A5: the bins "
           "were never zeroed (zero them before counting)";
  }
  if (samples.empty()) return "";
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
  // Where several runs of the input have the same histogram (all-equal samples: every run does),
  // the bins cannot tell which samples were lost: a race loses as many as a short grid. Say nothing.
  const bool tail = is_histogram_of(missing, samples, n - k, n);
  const bool head = is_histogram_of(missing, samples, 0, k);
  if (tail && head) return "";
  if (tail) {
    hint << "\n  hint: exactly " << the_samples(k, "last") << " not counted: the "
         << "tail past the last whole block or slice (round the grid up, and check i < n in the kernel)";
  } else if (head) {
    hint << "\n  hint: exactly " << the_samples(k, "first") << " not counted";
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
