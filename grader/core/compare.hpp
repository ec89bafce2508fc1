// Exact comparison of integer results, reporting the first wrong entries and the totals.
#pragma once
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace grader {

constexpr std::size_t kMismatchesShown = 8;

struct Mismatch {
  std::size_t index;
  long long expected;
  long long got;
};

struct Comparison {
  std::size_t entries = 0;
  std::size_t wrong = 0;
  std::size_t poisoned = 0;  // wrong entries still holding the poison pattern: never written
  long long expected_total = 0;
  long long got_total = 0;
  std::vector<Mismatch> first_wrong;
  bool matches() const { return wrong == 0; }
  // "3 of 1024 bins wrong (...)" with one line per shown mismatch; `entry` names one entry.
  std::string describe(const std::string& entry) const;
};

template <class T>
Comparison compare_exact(const std::vector<T>& expected, const std::vector<T>& got,
                         T poison_value) {
  Comparison result;
  result.entries = expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const bool present = i < got.size();
    result.expected_total += static_cast<long long>(expected[i]);
    if (present) result.got_total += static_cast<long long>(got[i]);
    if (present && got[i] == expected[i]) continue;
    ++result.wrong;
    if (present && got[i] == poison_value) ++result.poisoned;
    if (result.first_wrong.size() < kMismatchesShown) {
      result.first_wrong.push_back(
          {i, static_cast<long long>(expected[i]), present ? static_cast<long long>(got[i]) : 0});
    }
  }
  return result;
}

}  // namespace grader
